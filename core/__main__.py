import os
import sys


def _say(message: str) -> int:
    if sys.stderr is not None:
        try:
            sys.stderr.write(message + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
    return 2


def run() -> int:
    """`python -m core`: main(), then the process ends at once with os._exit once its output is
    flushed. A training leaves a million-odd small objects (its state, trace and report) that the
    interpreter would free one by one and walk once more at shutdown (a tenth of the training's
    time on 8.6 MB: docs/architecture.md); the OS takes the memory back at once. Nothing else is
    pending by then: files are written and closed, the counting workers have been joined."""
    try:
        from .cli import main
        from .trainer import keep_state_until_exit
    except KeyboardInterrupt:   # Ctrl+C while the modules load (main() reports its own the same way)
        return _say("interrupted")
    keep_state_until_exit()
    code = main()
    for stream in (sys.stdout, sys.stderr):
        if stream is None:   # closed (>&-): main() said so if it had something to write there
            continue
        try:
            stream.flush()
        except BrokenPipeError:
            pass   # the reader went away: as main() treats it
        except (OSError, ValueError) as e:
            _say(f"error: cannot write the output: {getattr(e, 'strerror', None) or e}")
            code = 2
    return code


if __name__ == "__main__":  # guarded: counting workers re-import the main module
    os._exit(run())
