"""Typed errors of the engine. Every one carries a one-line message that says what to do.

The CLI prints `str(error)` and exits 2; the app shows it with `st.error`. Nothing here
ever lets a traceback reach a user.
"""


class PlaygroundError(ValueError):
    """Base class: bad input that the user can fix."""


class CorpusError(PlaygroundError):
    """The corpus or word-count table cannot be used (empty, binary, bad columns...)."""


class ConfigError(PlaygroundError):
    """A training or encoding setting is out of range or unknown."""


class EncodeError(PlaygroundError):
    """Text that the tokenizer cannot cover (no unknown token), or ids out of range."""


class TokenizerFileError(PlaygroundError):
    """A tokenizer or session file that is corrupt, foreign or of a kind we cannot load."""
