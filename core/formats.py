"""Files out and in: Hugging Face `tokenizer.json`, `vocab.json` + `merges.txt`, WordPiece `vocab.txt`,
(Over 400 lines: every file format in and out, one reader per format, and the tokenizer class that
runs imported files; each reader is short, and a format is found in one place.)
and in only: tiktoken ranks (`.tiktoken`: `base64(token) rank` lines, cl100k's pattern unless
told) and SentencePiece `.model` files (run by `sentencepiece`).

A trained tokenizer is written through `tokenizers`' own objects (so the file is what HF itself
writes) plus a `model.playground` section with what our encoders need beyond HF's fields (the
settings, the token frequencies greedy orders by). HF 0.23 ignores unknown keys inside `model`.

A configuration tokenizer.json cannot express (`</w>` as its own symbol, the jieba pre-tokenizer)
is saved with `model.type` "PlaygroundBPE" / "PlaygroundWordPiece", a type HF does not know, so HF
refuses the file instead of loading it and encoding differently. Files trained elsewhere load as
`HFTokenizer`, which encodes with the `tokenizers` runtime.

Not here: the encoders themselves (encoders.py).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Optional, Sequence

from .bytelevel import byte_to_char, from_byte_chars
from .encoders import TrainedTokenizer
from .encoding import Encoding
from .errors import ConfigError, EncodeError, PlaygroundError, TokenizerFileError
from .hf_pipeline import hf_expressible, hf_tokenizer
from .limits import WORDPIECE_MAX_WORD_CHARS
from .tokenizer import Front, chunks_of
from .trainer import TrainConfig, Trace, join_symbols
from .unigram import UnigramTokenizer, UnigramTrace

FORMAT_VERSION = 1
METASPACE = "\u2581"     # ▁, how Metaspace and SentencePiece spell a space
UNKNOWN_MARK = "\x00no token\x00"   # a BPE file without an unknown token: marks what it would drop


def _parts(obj) -> list[dict]:
    """A normalizer's, pre-tokenizer's or decoder's parts, a Sequence's members flattened."""
    if not isinstance(obj, dict):
        return []
    members = obj.get("pretokenizers") or obj.get("normalizers") or obj.get("decoders")
    return [p for m in members for p in _parts(m)] if obj.get("type") == "Sequence" and members else [obj]


# ---------------------------------------------------------------- saving

def tokenizer_json(tok: TrainedTokenizer) -> dict:
    """The tokenizer.json content for a trained tokenizer (see the module docstring)."""
    data = json.loads(hf_tokenizer(tok.config, tok.vocab, tok.merges, tok.special_tokens).to_str())
    config = tok.config
    why_not = hf_expressible(config)
    if why_not:
        data["model"]["type"] = "Playground" + ("WordPiece" if config.model == "wordpiece" else "BPE")
    data["model"]["playground"] = {
        "format": FORMAT_VERSION,
        "model": config.model, "pre_tokenizer": config.pre_tokenizer, "normalizer": config.normalizer,
        "end_of_word": config.end_of_word, "score": config.score, "tie_break": config.tie_break,
        "min_frequency": config.min_frequency, "special_tokens": list(tok.special_tokens),
        "unk_token": config.unk_token, "keep_newlines": config.keep_newlines,
        "merges": [list(m) for m in tok.merges],   # WordPiece too, for the merges encoder
        "final_tokens": [[t, n] for t, n in tok.final_tokens],
        "hf_refuses_because": why_not,
    }
    return data


def save_tokenizer(tok: TrainedTokenizer | Trace | UnigramTokenizer | UnigramTrace, path) -> None:
    if isinstance(tok, UnigramTrace):
        tok = UnigramTokenizer.from_trace(tok)
    if isinstance(tok, UnigramTokenizer):
        Path(path).write_text(json.dumps(tok.tokenizer_json(), ensure_ascii=False), encoding="utf-8")
        return
    if isinstance(tok, Trace):
        tok = TrainedTokenizer.from_trace(tok)
    Path(path).write_text(json.dumps(tokenizer_json(tok), ensure_ascii=False), encoding="utf-8")


def vocab_json_and_merges(tok: TrainedTokenizer) -> tuple[str, str]:
    """(vocab.json, merges.txt) as GPT-2 / HF write them."""
    vocab = json.dumps({t: i for i, t in enumerate(tok.vocab)}, ensure_ascii=False)
    merges = "#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in tok.merges)
    return vocab, merges


def vocab_txt(tok: TrainedTokenizer) -> str:
    """WordPiece vocab.txt: one token a line, the line number is the id."""
    return "".join(t + "\n" for t in tok.vocab)


# ---------------------------------------------------------------- loading

@dataclass(frozen=True, eq=False)
class HFTokenizer:
    """A tokenizer file trained elsewhere, encoded by the `tokenizers` runtime."""
    hf: object
    name: str
    byte_level: bool
    # the file's batch settings not applied, as it writes them: (("padding", {...}), ("truncation", {...}))
    left_off: tuple[tuple[str, object], ...] = ()

    @cached_property
    def vocab_size(self) -> int:
        """The id range: largest id + 1, added tokens included, as for pretrained vocabularies. A
        file may leave ids unassigned (gaps, added tokens past the vocabulary), so this can exceed
        `n_tokens`, the number of tokens."""
        return max(self.hf.get_vocab(with_added_tokens=True).values(), default=-1) + 1

    @cached_property
    def n_tokens(self) -> int:
        return len(self.hf.get_vocab(with_added_tokens=True))

    encoders = ()    # it encodes with the `tokenizers` runtime: no encoder to pick

    @property
    def summary(self) -> str:
        model = type(self.hf.model).__name__
        ids = f" (ids 0 to {self.vocab_size - 1:,}, some unassigned)" if self.n_tokens != self.vocab_size else ""
        off = (f"; its {' and '.join(k for k, _ in self.left_off)} (batch settings) left off: each text is encoded whole"
               if self.left_off else "")
        return f"Hugging Face {model}{', byte-level' if self.byte_level else ''}: {self.n_tokens:,} tokens{ids}{off}"

    def with_encoder(self, encoder: Optional[str]) -> "HFTokenizer":
        if encoder is not None:
            raise PlaygroundError(f"{self.name} encodes with the `tokenizers` runtime: it has no encoder {encoder!r}")
        return self

    @cached_property
    def _data(self) -> dict:
        """The file as `tokenizers` writes it back, parsed once (the model's fields, the front's)."""
        return json.loads(self.hf.to_str())

    @cached_property
    def _model(self) -> dict:
        return self._data.get("model") or {}

    @property
    def family(self) -> str:
        kind = self._model.get("type", "")
        if kind == "BPE":
            return "byte-level BPE" if self.byte_level else "BPE"
        return kind or "BPE"

    @cached_property
    def special_tokens(self) -> tuple[str, ...]:
        return tuple(t.content for _, t in sorted(self.hf.get_added_tokens_decoder().items()) if t.special)

    @property
    def post_processor(self) -> str:
        pp = self.hf.post_processor
        return type(pp).__name__ if pp is not None else "none: only the attention mask and token type ids"

    @cached_property
    def _added(self) -> dict[int, str]:
        """Added tokens' spellings: HF's id_to_token gives a normalized added token's normalized
        spelling ("QUICK" as "quick"), which may be another token's."""
        return {i: t.content for i, t in self.hf.get_added_tokens_decoder().items()}

    def id_to_token(self, i: int) -> str:
        i = self._check(i)
        return self._added.get(i) or self.hf.id_to_token(i)

    def token_to_id(self, token: str) -> Optional[int]:
        return self.hf.token_to_id(token)

    def made_at(self, id: int) -> Optional[int]:
        """BPE files: the 1-based rank of the merge in merges.txt that made the token."""
        return self._made_at_rank.get(self.id_to_token(id))

    @cached_property
    def _made_at_rank(self) -> dict[str, int]:
        made: dict[str, int] = {}
        prefix = self._spelling[0]     # "##": the merge ("lo", "##w") makes "low"
        for k, merge in enumerate(self._model.get("merges") or (), 1):
            a, b = merge.split(" ", 1) if isinstance(merge, str) else merge
            made.setdefault(a + (b[len(prefix):] if prefix and b.startswith(prefix) else b), k)
        return made

    def front(self, text: str) -> Front:
        norm_obj, pre_obj = self.hf.normalizer, self.hf.pre_tokenizer
        norm = norm_obj.normalize_str(text) if norm_obj is not None else text
        pieces = pre_obj.pre_tokenize_str(norm) if pre_obj is not None else ([(norm, (0, len(norm)))] if norm else [])
        return Front(type(norm_obj).__name__ if norm_obj is not None else "none: the text is used as typed", norm,
                     type(pre_obj).__name__ if pre_obj is not None else "none: the whole text is one piece",
                     chunks_of(norm, pieces))

    def _check(self, i) -> int:
        n = self.vocab_size
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < n:
            raise EncodeError(f"id {i!r} is out of range: this vocabulary has ids 0 to {n - 1}")
        if self.hf.id_to_token(i) is None:
            raise EncodeError(f"id {i} is unassigned in {self.name}: no token has it")
        return i

    @cached_property
    def _spelling(self) -> tuple[str, str, Optional[str], bool]:
        """How the file spells what its tokens stand for: (the continuing-subword prefix, the
        end-of-word suffix, the character that stands for a space (Metaspace's ▁) or None, whether
        `<0xNN>` tokens are bytes (byte_fallback))."""
        model = self._model
        prefix = model.get("continuing_subword_prefix") or ""
        data = self._data
        front = json.dumps([data.get(k) for k in ("normalizer", "pre_tokenizer", "decoder")], ensure_ascii=False)
        space = None
        if '"Metaspace"' in front or METASPACE in front:
            space = next((x.get("replacement") for x in _parts(data.get("pre_tokenizer"))
                          if x.get("type") == "Metaspace" and x.get("replacement")), METASPACE)
        return prefix, model.get("end_of_word_suffix") or "", space, bool(model.get("byte_fallback"))

    @property
    def word_units(self):
        """For core/replay: a BPE file with a continuing-subword prefix or an end-of-word suffix
        starts a chunk from its characters spelled as `tokenizers` does ("l", "##o", "##w</w>");
        None for the others (replay spells their characters itself)."""
        prefix, suffix = self._spelling[:2]
        if self._model.get("type") != "BPE" or self.byte_level or not (prefix or suffix):
            return None

        def units(piece: str) -> list[str]:
            out = [c if k == 0 else prefix + c for k, c in enumerate(piece)]
            if out:
                out[-1] += suffix
            return out
        return units

    @property
    def join_units(self):
        """For core/replay: with a continuing-subword prefix, "l" and "##o" make "lo"; None: a + b."""
        prefix = self._spelling[0]
        if self.word_units is None or not prefix:
            return None
        return lambda a, b: a + (b[len(prefix):] if b.startswith(prefix) else b)

    def token_bytes(self, i: int) -> bytes:
        t = self.id_to_token(i)
        if t in self.special_tokens:
            return b""
        if self.byte_level:
            try:
                return from_byte_chars(t)
            except KeyError:
                pass
        prefix, suffix, space, byte_fallback = self._spelling
        if byte_fallback and len(t) == 6 and t.startswith("<0x") and t.endswith(">"):
            try:
                return bytes([int(t[3:5], 16)])
            except ValueError:
                pass
        if prefix and t.startswith(prefix) and len(t) > len(prefix):
            t = t[len(prefix):]
        if suffix and t.endswith(suffix) and len(t) > len(suffix):
            t = t[:-len(suffix)]
        if space:
            t = t.replace(space, " ")
        return t.encode("utf-8")

    @cached_property
    def _marked(self) -> Optional[str]:
        """A BPE file without an unknown token drops, silently, a character it has no token for
        (and shifts the offsets after it): for such a file, its text with UNKNOWN_MARK as the
        unknown token, at an id past the range, so that an encoding shows what would be dropped.
        None when nothing can be dropped (other models, an unknown token, all 256 bytes present)."""
        model = self._model
        if model.get("type") != "BPE" or model.get("unk_token") is not None:
            return None
        vocab = self.hf.get_vocab(with_added_tokens=False)
        if self.byte_level and all(c in vocab for c in byte_to_char().values()):
            return None
        if model.get("byte_fallback") and all(f"<0x{b:02X}>" in vocab for b in range(256)):
            return None
        data = json.loads(self.hf.to_str())
        data["model"]["vocab"][UNKNOWN_MARK] = self.vocab_size
        data["model"]["unk_token"] = UNKNOWN_MARK
        return json.dumps(data, ensure_ascii=False)

    @cached_property
    def _hf_plain(self):
        """The runtime that encodes special tokens' spellings as text: the file's own, or the
        marked one (_marked)."""
        from tokenizers import Tokenizer
        if self._marked is None:
            return self.hf
        hf = Tokenizer.from_str(self._marked)
        hf.encode_special_tokens = True
        return hf

    @cached_property
    def _hf_recognizing(self):
        """A second runtime that matches special tokens in the text: one runtime is never toggled
        per call (the app encodes from several threads)."""
        from tokenizers import Tokenizer
        hf = Tokenizer.from_str(self._marked or self.hf.to_str())
        hf.encode_special_tokens = False
        return hf

    def encode(self, text: str, *, add_special_tokens: bool = False, pair: Optional[str] = None,
               recognize_special_tokens: bool = False) -> Encoding:
        """By default text that spells a special token is ordinary text; recognize_special_tokens:
        it is that token's id (HF's own default)."""
        if recognize_special_tokens:
            runtime = self._hf_recognizing
        else:
            self.hf.encode_special_tokens = True  # text that spells a special token is ordinary text
            runtime = self._hf_plain
        try:
            e = runtime.encode(text, pair, add_special_tokens=add_special_tokens)
        except Exception as err:  # the Rust side raises plain Exceptions
            raise EncodeError(f"{self.name} cannot encode this text: {err}".splitlines()[0]) from None
        if self._marked is not None and self.vocab_size in e.ids:
            k = e.ids.index(self.vocab_size)
            s, t = e.offsets[k]
            what = (pair if pair is not None and e.sequence_ids[k] == 1 else text)[s:t]
            raise EncodeError(f"the {'character' if len(what) == 1 else 'text'} {what!r} is not in the vocabulary and {self.name} has no unknown "
                              "token: `tokenizers` would drop it without a word")
        # HF gives a second sentence's offsets in its own coordinates, as our encoders do
        data = [b"" if m else self.token_bytes(i) for i, m in zip(e.ids, e.special_tokens_mask)]
        offsets = [tuple(o) if not m else (0, 0) for o, m in zip(e.offsets, e.special_tokens_mask)]
        for k, (b, (s, t), seq) in enumerate(zip(data, offsets, e.sequence_ids)):
            # a space the pre-tokenizer added (Metaspace's leading ▁): HF gives it the next
            # character's span; it covers nothing, as SentencePiece's dummy prefix
            if b and not b.strip(b" ") and s < t and not (pair if seq == 1 else text)[s:t].isspace():
                offsets[k] = (s, s)
        extras = add_special_tokens or pair is not None
        # each token as the vocabulary spells it (HF gives an unknown Unigram piece's text, an
        # added token's stripped spaces, a normalized added token's normalized spelling)
        return Encoding(ids=tuple(e.ids), tokens=tuple(map(self.id_to_token, e.ids)), token_bytes=tuple(data),
                        offsets=tuple(offsets), encoder="hf",
                        attention_mask=tuple(e.attention_mask) if extras else None,
                        token_type_ids=tuple(e.type_ids) if extras else None).with_byte_offsets(text, pair)

    def decode(self, ids: Sequence[int]) -> str:
        for i in ids:
            self._check(i)
        return self.hf.decode(list(ids), skip_special_tokens=False)


def tokenizer_file_text(tok: TrainedTokenizer | HFTokenizer) -> str:
    """The tokenizer.json text that loads back as `tok` (load_tokenizer_bytes)."""
    if isinstance(tok, TrainedTokenizer):
        return json.dumps(tokenizer_json(tok), ensure_ascii=False)
    if isinstance(tok, UnigramTokenizer):
        return json.dumps(tok.tokenizer_json(), ensure_ascii=False)
    if not tok.left_off:
        return tok.hf.to_str()
    data = json.loads(tok.hf.to_str())    # the file's padding and truncation written back as it had them
    data.update(tok.left_off)
    return json.dumps(data, ensure_ascii=False)


MAX_FILE_BYTES = 64 * 1024 * 1024      # the largest tokenizer file we read (big models' are ~10-30 MB)
MAX_RANK = 10_000_000                    # tiktoken ranks beyond this are not a vocabulary
FORMATS = ("a tokenizer.json, a vocab.json (with its merges.txt), a WordPiece vocab.txt, a .tiktoken "
           "ranks file or a SentencePiece .model")


def load_tokenizer(path, pat_str: Optional[str] = None):
    """Load a tokenizer.json (ours or HF's), or a vocab.json (with merges.txt beside it), a
    WordPiece vocab.txt, a .tiktoken ranks file (pat_str: its pre-tokenizer regex, cl100k's by
    default) or a SentencePiece .model. Raises TokenizerFileError with a one-line reason."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise TokenizerFileError(_too_big(path.name, size))
        raw = path.read_bytes()
    except OSError as e:
        raise TokenizerFileError(f"cannot read {path}: {e.strerror or e}") from None
    return load_tokenizer_bytes(raw, path.name, directory=path.parent, pat_str=pat_str)


def _too_big(name: str, size: int) -> str:
    return (f"{name} is {size / 2**20:,.0f} MB: tokenizer files up to {MAX_FILE_BYTES // 2**20} MB load here "
            f"(expected {FORMATS})")


def _looks_like_tiktoken(raw: bytes) -> bool:
    """The first line is `base64 rank` (Llama 3's tokenizer.model is such a file under another name)."""
    first = raw[:200].split(b"\n", 1)[0].split()
    return len(first) == 2 and first[1].isdigit() and all(c in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                          b"0123456789+/=" for c in first[0])


def load_tokenizer_bytes(raw: bytes, name: str = "tokenizer.json", directory: Optional[Path] = None,
                         merges_txt: Optional[bytes] = None, pat_str: Optional[str] = None):
    if len(raw) > MAX_FILE_BYTES:
        raise TokenizerFileError(_too_big(name, len(raw)))
    lower = name.lower()
    if lower.endswith(".tiktoken") or (lower.endswith(".model") and _looks_like_tiktoken(raw)):
        return _from_tiktoken(raw, name, pat_str)
    if lower.endswith(".model"):
        return _from_sentencepiece(raw, name)
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")   # a byte order mark (Notepad's UTF-8) is not text
    except UnicodeDecodeError:
        if raw[:1] == b"\n":     # a protobuf's first field: a SentencePiece model under another name
            try:
                return _from_sentencepiece(raw, name)
            except TokenizerFileError:
                pass
        raise TokenizerFileError(f"{name} is not a text file and not a SentencePiece model: expected {FORMATS}") from None
    if not text.strip():
        raise TokenizerFileError(f"{name} is empty: expected {FORMATS}")
    if _looks_like_tiktoken(raw):
        return _from_tiktoken(raw, name, pat_str)
    if name.endswith(".txt") and not text.lstrip().startswith("{"):
        return _from_vocab_txt(text, name)
    try:
        data = json.loads(text)
    except ValueError as e:
        raise TokenizerFileError(f"{name} is not valid JSON (line {getattr(e, 'lineno', '?')}): "
                                 f"is it a tokenizer.json? (expected {FORMATS})") from None
    if not isinstance(data, dict):
        raise TokenizerFileError(f"{name} is JSON but not a tokenizer file")
    if "model" not in data:
        if all(isinstance(v, int) for v in data.values()) and data:   # vocab.json
            if merges_txt is None and directory is not None and (directory / "merges.txt").exists():
                merges_txt = (directory / "merges.txt").read_bytes()
            if merges_txt is None:
                raise TokenizerFileError(f"{name} looks like a vocab.json: give its merges.txt beside it")
            return _from_vocab_and_merges(data, merges_txt.decode("utf-8", "replace"), name)
        raise TokenizerFileError(f"{name} has no `model`: it is not a tokenizer.json")
    model = data.get("model")
    if isinstance(model, dict) and isinstance(model.get("playground"), dict):
        if model["playground"].get("model") == "unigram":
            return _unigram_from_playground(data, name)
        return _from_playground(data, name)
    return _from_hf_json(text, name, data)


def _from_playground(data: dict, name: str) -> TrainedTokenizer:
    model, pg = data["model"], data["model"]["playground"]
    try:
        if pg.get("format") != FORMAT_VERSION:
            raise TokenizerFileError(f"{name} was written by another version of the playground "
                                     f"(format {pg.get('format')!r}, we read {FORMAT_VERSION})")
        vocab_map = model["vocab"]
        vocab = [None] * len(vocab_map)
        for t, i in vocab_map.items():
            vocab[i] = t
        if any(v is None for v in vocab):
            raise TokenizerFileError(f"{name}: the vocabulary's ids are not 0..{len(vocab) - 1}")
        specials = _special_tokens(pg["special_tokens"])
        config = TrainConfig(model=pg["model"], vocab_size=max(len(vocab), 1), pre_tokenizer=pg["pre_tokenizer"],
                             normalizer=pg["normalizer"], end_of_word=pg["end_of_word"], score=pg["score"],
                             tie_break=pg["tie_break"], min_frequency=pg.get("min_frequency", 1),
                             special_tokens=specials, unk_token=pg["unk_token"],
                             keep_newlines=bool(pg.get("keep_newlines", False))).resolved()
        merges = tuple((a, b) for a, b in pg["merges"])
        final = tuple((t, int(n)) for t, n in pg.get("final_tokens", []))
        tok_ids = set(vocab_map)
        # each checked here because the encoders (and HF's runtime, which Compare, Token tax and the
        # export build) look these up in the vocabulary and raise mid-page when one is missing
        if config.unk_token is not None and config.unk_token not in tok_ids:
            raise TokenizerFileError(f"{name}: the unknown token {config.unk_token!r} is not in the vocabulary")
        for t in specials:
            if t not in tok_ids:
                raise TokenizerFileError(f"{name}: the special token {t!r} is not in the vocabulary")
        for a, b in merges:
            if a not in tok_ids or b not in tok_ids:
                raise TokenizerFileError(f"{name}: merge ({a!r}, {b!r}) uses a token outside the vocabulary")
            made = join_symbols(a, b, config.model)
            if made not in tok_ids:
                raise TokenizerFileError(f"{name}: merge ({a!r}, {b!r}) makes {made!r}, which is not in the vocabulary")
        return TrainedTokenizer(config=config, vocab=tuple(vocab), merges=merges,
                                special_tokens=specials, final_tokens=final,
                                name=Path(name).stem)
    except TokenizerFileError:
        raise
    except PlaygroundError as e:
        raise TokenizerFileError(f"{name}: {e}") from None
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise TokenizerFileError(f"{name} is corrupt: its playground section is missing or has a bad "
                                 f"field ({type(e).__name__}: {e})".splitlines()[0]) from None


def _special_tokens(value) -> tuple[str, ...]:
    """A playground section's special tokens: a list of strings (a string alone would be read as
    one token per character)."""
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise ConfigError(f"special_tokens is {str(value)[:40]!r}: expected a list of strings")
    return tuple(value)


def _unigram_from_playground(data: dict, name: str) -> UnigramTokenizer:
    try:
        tok = UnigramTokenizer.from_tokenizer_json(data, name=Path(name).stem)
        # what saving a session and the export write, built once here: a file they cannot write
        # again (another pre-tokenizer than whitespace) is refused now, not on the Session tab
        tok.hf_tokenizer()
        return tok
    except PlaygroundError as e:
        raise TokenizerFileError(f"{name}: {e}") from None
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise TokenizerFileError(f"{name} is corrupt: its Unigram model is missing or has a bad "
                                 f"field ({type(e).__name__}: {e})".splitlines()[0]) from None


def _is_byte_level(data: dict) -> bool:
    text = json.dumps({k: data.get(k) for k in ("pre_tokenizer", "decoder")})
    return '"ByteLevel"' in text


def _from_hf_json(text: str, name: str, data: dict) -> HFTokenizer:
    from tokenizers import Tokenizer
    model = data.get("model")
    dropout = model.get("dropout") if isinstance(model, dict) else None
    if dropout:   # a number past 0: `tokenizers` then skips merges at random, each encoding its own
        raise TokenizerFileError(f"{name} sets BPE dropout ({str(dropout)[:20]}): `tokenizers` then splits a text "
                                 "differently each time; set its \"dropout\" to null to import it")
    try:
        hf = Tokenizer.from_str(text)
    except Exception as e:  # noqa: BLE001 - the Rust side raises plain Exceptions
        first = str(e).splitlines()[0][:200]
        raise TokenizerFileError(f"{name} is not a tokenizer file that `tokenizers` can load ({first})") from None
    return _hf_file(hf, name, _is_byte_level(data), data)


def _hf_file(hf, name: str, byte_level: bool, data: Optional[dict] = None) -> HFTokenizer:
    """An HFTokenizer, refused when its ids run past MAX_RANK: pages walk the whole id range
    (the Vocabulary tab), and a file's ids may leave gaps. Its padding and truncation are turned off
    (a sentence-transformers file pads and cuts every text to 128 tokens: every count would be 128)."""
    left_off = tuple((k, (data or {}).get(k)) for k, on in (("padding", hf.padding), ("truncation", hf.truncation)) if on)
    hf.no_padding()
    hf.no_truncation()
    tok = HFTokenizer(hf=hf, name=Path(name).stem, byte_level=byte_level, left_off=left_off)
    if tok.vocab_size > MAX_RANK:
        raise TokenizerFileError(f"{name} has an id of {tok.vocab_size - 1:,}: ids up to {MAX_RANK:,} load here")
    return tok


def _from_vocab_and_merges(vocab: dict, merges_txt: str, name: str) -> HFTokenizer:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    merges = []
    for line in merges_txt.splitlines():
        if line.startswith("#version") or not line.strip():
            continue
        parts = line.split(" ")
        if len(parts) != 2:
            raise TokenizerFileError(f"merges.txt: line {line[:40]!r} is not two tokens")
        merges.append((parts[0], parts[1]))
    try:
        hf = Tokenizer(models.BPE(vocab, merges))
    except Exception as e:  # noqa: BLE001
        raise TokenizerFileError(f"{name} with merges.txt does not load: {str(e).splitlines()[0][:200]}") from None
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False)
    hf.decoder = decoders.ByteLevel()
    return _hf_file(hf, name, True)


def _from_vocab_txt(text: str, name: str) -> HFTokenizer:
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers
    tokens = [line.rstrip("\r") for line in text.split("\n")]
    if tokens and tokens[-1] == "":
        tokens.pop()
    if not tokens:
        raise TokenizerFileError(f"{name} is empty")
    vocab = {}
    for i, t in enumerate(tokens):
        vocab.setdefault(t, i)
    unk = "[UNK]" if "[UNK]" in vocab else None
    hf = Tokenizer(models.WordPiece(vocab, unk_token=unk or "[UNK]", max_input_chars_per_word=WORDPIECE_MAX_WORD_CHARS))
    lower = not any(t != t.lower() for t in tokens if not (t.startswith("[") and t.endswith("]")))
    hf.normalizer = normalizers.BertNormalizer(lowercase=lower)
    hf.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    hf.decoder = decoders.WordPiece()
    return HFTokenizer(hf=hf, name=Path(name).stem, byte_level=False)


def _from_tiktoken(raw: bytes, name: str, pat_str: Optional[str] = None):
    """A tiktoken ranks file, checked line by line: `base64(token) rank`, tokens and ranks unique,
    all 256 single bytes present (tiktoken cannot encode a byte it has no rank for)."""
    import base64
    import binascii

    import regex

    from .pretrained import CL100K_PAT, tokenizer_from_tiktoken
    if pat_str is not None:
        try:
            regex.compile(pat_str)
        except regex.error as e:
            raise TokenizerFileError(f"the pattern for {name} is not a valid regex: {e}") from None
    ranks: dict[bytes, int] = {}
    seen_ranks: set[int] = set()
    for n, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit():
            raise TokenizerFileError(f"{name} line {n} is not `base64-token rank` "
                                     f"({line[:40].decode('utf-8', 'replace')!r}): is it a .tiktoken file?")
        if not parts[0].strip(b"="):   # base64 of nothing (whisper's multilingual.tiktoken ends with one)
            raise TokenizerFileError(f"{name} line {n}: {parts[0][:40].decode('ascii')!r} spells an empty token: "
                                     "every token of a .tiktoken file is at least one byte")
        try:
            token = base64.b64decode(parts[0], validate=True)
        except (binascii.Error, ValueError):
            raise TokenizerFileError(f"{name} line {n}: {parts[0][:40].decode('ascii', 'replace')!r} is not base64") from None
        rank = int(parts[1])
        if not token or rank > MAX_RANK:
            raise TokenizerFileError(f"{name} line {n}: an empty token or a rank over {MAX_RANK:,}")
        if token in ranks or rank in seen_ranks:
            raise TokenizerFileError(f"{name} line {n}: token or rank {rank} appears twice")
        ranks[token] = rank
        seen_ranks.add(rank)
    if not ranks:
        raise TokenizerFileError(f"{name} has no `base64-token rank` lines: expected a .tiktoken file")
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise TokenizerFileError(f"{name} has {256 - len(missing)} of the 256 single bytes (missing 0x{missing[0]:02X}…): "
                                 "a .tiktoken file needs every byte as a token")
    return tokenizer_from_tiktoken(ranks, Path(name).stem, pat_str or CL100K_PAT,
                                   "your pattern" if pat_str else "cl100k regex (the default for .tiktoken files)")


def _from_sentencepiece(raw: bytes, name: str):
    try:
        import sentencepiece as spm
    except ImportError:
        raise TokenizerFileError(f"{name} is a SentencePiece model: pip install sentencepiece (requirements.txt)") from None
    from .pretrained import tokenizer_from_sentencepiece
    try:
        sp = spm.SentencePieceProcessor(model_proto=raw)
    except Exception:  # noqa: BLE001 - sentencepiece raises RuntimeError / OSError with C++ text
        raise TokenizerFileError(f"{name} is not a SentencePiece model (sentencepiece cannot parse it): "
                                 f"expected {FORMATS}") from None
    if sp.get_piece_size() == 0:
        raise TokenizerFileError(f"{name} is a SentencePiece model without pieces")
    return tokenizer_from_sentencepiece(sp, Path(name).stem)
