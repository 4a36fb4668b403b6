"""Encoding text with a trained vocabulary: three encoders, decoding, post-processing.
(Over 400 lines: one class, the three encoders and the contract's lookups share the word cache and the
units a token is made of; split, each half would reach into the other's internals.)

A `TrainedTokenizer` is what a trainer learned (vocabulary, merges in order, the settings of
its pipeline), built from a `Trace` or loaded from a file. It encodes with any of:
    merges         the merges applied in the order learned (seeds 000/001/004, HF BPE)
    greedy         seed 002: longest token first over the final training segmentation
    longest-match  WordPiece's longest-match-first; the whole word is unknown when stuck
Every encoding carries ids, token strings, bytes and character offsets (encoding.py).

Inside a word everything works on *units*: the word's initial symbols (characters, bytes
written as byte-level characters, `##x` for WordPiece, `</w>` or `x</w>` for BPE's end of
word). A token is a run of units; its spelling joins them (`w`, `##i`, `##d` -> `wid`).

Not here: training (trainer.py), the pipeline stages (pipeline.py), files (formats.py).
Example: TrainedTokenizer.from_trace(seed_004_trace).encode("lows").tokens == ("lo", "w", "s")
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Optional, Sequence

from .bytelevel import from_byte_chars
from .encoding import Encoding, byte_offsets_to_char_offsets
from .errors import ConfigError, EncodeError
from .hf_pipeline import hf_expressible, hf_tokenizer
from .limits import WORDPIECE_MAX_WORD_CHARS
from .pipeline import normalize_aligned, pre_tokenize
from .tokenizer import Front, chunks_of
from .trainer import CONTINUATION, END_OF_WORD, TrainConfig, Trace, first_made, initial_symbols

ENCODERS = ("merges", "greedy", "longest-match")
NORMALIZER_WORDS = {"none": "none: the text is used as typed", "lowercase": "lowercase", "nfkc": "NFKC",
                    "bert-uncased": "BERT uncased: clean, split CJK, strip accents, lowercase"}
_CACHE_LIMIT = 200_000


def units_of_token(token: str, config: TrainConfig) -> list[str]:
    """The units a token is made of: units_of_token("wid", wordpiece) == ["w", "##i", "##d"];
    units_of_token("est</w>", bpe symbol) == ["e", "s", "t", "</w>"]."""
    if config.model == "wordpiece":
        if token.startswith(CONTINUATION) and len(token) > len(CONTINUATION):
            return [CONTINUATION + c for c in token[len(CONTINUATION):]]
        return [token[0]] + [CONTINUATION + c for c in token[1:]] if token else []
    if config.end_of_word != "none" and token.endswith(END_OF_WORD):
        stem = list(token[:-len(END_OF_WORD)])
        if config.end_of_word == "symbol":
            return stem + [END_OF_WORD]
        if stem:
            stem[-1] += END_OF_WORD
            return stem
        return [END_OF_WORD]
    return list(token)


def join_units(units: Sequence[str], config: TrainConfig) -> str:
    """Inverse of units_of_token: the spelling of a run of units."""
    if config.model == "wordpiece" and units:
        return units[0] + "".join(u[len(CONTINUATION):] for u in units[1:])
    return "".join(units)


@dataclass(frozen=True)
class TrainedTokenizer:
    config: TrainConfig                       # resolved
    vocab: tuple[str, ...]                    # id -> token
    merges: tuple[tuple[str, str], ...]       # in the order learned
    special_tokens: tuple[str, ...]
    final_tokens: tuple[tuple[str, int], ...] = ()   # greedy's candidates with frequencies
    name: str = ""
    encoder: Optional[str] = None             # what encode() uses: merges | greedy | longest-match
    _word_cache: dict = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_trace(cls, trace: Trace, upto: Optional[int] = None, name: str = "") -> "TrainedTokenizer":
        """The tokenizer as it stands after `upto` merges (all of them by default)."""
        steps = trace.steps if upto is None else trace.steps[:upto]
        size = len(trace.special_tokens) + len(trace.alphabet)
        if steps:
            size = max(size, max(s.id for s in steps) + 1)
        final = trace.final_tokens if upto is None or upto >= len(trace.steps) else ()
        return cls(config=trace.config, vocab=trace.vocab[:size], merges=tuple(s.pair for s in steps),
                   special_tokens=trace.special_tokens, final_tokens=final, name=name or trace.config.model)

    def with_encoder(self, encoder: Optional[str]) -> "TrainedTokenizer":
        """The same vocabulary, encoding with `encoder` (None: the model's default). Shares the
        word cache, whose keys name the encoder."""
        if encoder is not None and encoder not in ENCODERS:
            raise ConfigError(f"unknown encoder {encoder!r}: choose one of {', '.join(ENCODERS)}")
        if encoder == self.encoder:
            return self      # its tables (the HF runtime, the id map) are built already
        return replace(self, encoder=encoder)

    # -- the Tokenizer contract (core/tokenizer.py)

    @property
    def family(self) -> str:
        if self.config.model == "wordpiece":
            return "WordPiece"
        return "byte-level BPE" if self.config.byte_level else "BPE"

    @property
    def byte_level(self) -> bool:
        return self.config.byte_level

    @property
    def encoders(self) -> tuple[str, ...]:
        """merges, greedy, longest-match: the model's default first."""
        return tuple(sorted(ENCODERS, key=lambda e: e != self.default_encoder))

    @property
    def summary(self) -> str:
        cfg = self.config
        return (f"trained here ({cfg.model}, pre-tokenizer {cfg.pre_tokenizer}, normalizer {cfg.normalizer}): "
                f"{len(self.vocab):,} tokens, {len(self.merges):,} merges")

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    n_tokens = vocab_size   # ids 0 to len(vocab) - 1, none unassigned

    @property
    def post_processor(self) -> str:
        if "[CLS]" in self.vocab_ids and "[SEP]" in self.vocab_ids:
            return "[CLS] A [SEP] (with a pair: [CLS] A [SEP] B [SEP]), as BERT's TemplateProcessing"
        return ("none: the vocabulary has no [CLS] and [SEP] (train WordPiece with special tokens "
                "[CLS],[SEP] to see BERT's); only the attention mask and token type ids are added")

    def id_to_token(self, id: int) -> str:
        return self.vocab[self._check(id)]

    def token_to_id(self, token: str) -> Optional[int]:
        return self.vocab_ids.get(token)

    def token_bytes(self, id: int) -> bytes:
        return self.token_bytes_of(self.vocab[self._check(id)])

    def made_at(self, id: int) -> Optional[int]:
        return self._made_at_step.get(self.vocab[self._check(id)])

    def front(self, text: str) -> Front:
        cfg = self.config
        norm, _ = normalize_aligned(text, cfg.normalizer)
        pre = cfg.pre_tokenizer + (" (bytes shown in GPT-2's alphabet: space → Ġ)" if cfg.pre_tokenizer == "gpt2" else "")
        return Front(NORMALIZER_WORDS.get(cfg.normalizer, cfg.normalizer), norm, pre,
                     chunks_of(norm, pre_tokenize(norm, cfg.pre_tokenizer)))

    def _check(self, i) -> int:
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(self.vocab):
            raise EncodeError(f"id {i!r} is out of range: this vocabulary has ids 0 to {len(self.vocab) - 1}")
        return i

    # -- lookups

    @cached_property
    def vocab_ids(self) -> dict[str, int]:
        """token -> id"""
        return {t: i for i, t in enumerate(self.vocab)}

    @cached_property
    def _made_at_step(self) -> dict[str, int]:
        """token -> the 1-based step of the first merge that made it"""
        wordpiece = self.config.model == "wordpiece"
        return first_made((join_units([a, b], self.config) if wordpiece else a + b, k)
                          for k, (a, b) in enumerate(self.merges, 1))

    @cached_property
    def merge_ranks(self) -> dict[tuple[str, str], list[int]]:
        ranks: dict[tuple[str, str], list[int]] = {}
        for r, pair in enumerate(self.merges):
            ranks.setdefault(pair, []).append(r)
        return ranks

    @property
    def unk_token(self) -> Optional[str]:
        return self.config.unk_token

    @property
    def default_encoder(self) -> str:
        return "longest-match" if self.config.model == "wordpiece" else "merges"

    @cached_property
    def greedy_candidates(self) -> tuple[tuple[str, ...], ...]:
        """Seed 002's sorted_tokens: by length in units, then frequency, both descending, ties
        in first-appearance order. Tokens come from the final training segmentation; when that
        is not known (a vocabulary cut at some step), from the vocabulary in id order."""
        final = self.final_tokens or tuple((t, 0) for t in self.vocab if t not in self.special_tokens)
        units = [(tuple(units_of_token(t, self.config)), n) for t, n in final]
        # sorted() is stable: equal keys keep first-appearance order, as seed 002's reverse=True does
        ordered = sorted(units, key=lambda u: (-len(u[0]), -u[1]))
        return tuple(u for u, _ in ordered if u)

    def token_bytes_of(self, token: str) -> bytes:
        if token in self.special_tokens:
            return b""
        if self.config.byte_level:
            try:
                return from_byte_chars(token)
            except KeyError:
                return token.encode("utf-8")
        if self.config.model == "wordpiece" and token.startswith(CONTINUATION) and len(token) > 2:
            token = token[len(CONTINUATION):]
        if token.endswith(END_OF_WORD):
            token = token[:-len(END_OF_WORD)]
        return token.encode("utf-8")

    # -- encoding one word (a list of units) into runs of units

    def _merges_runs(self, units: list[str]) -> list[tuple[int, int]]:
        """Apply the merges in learned order: the next merge to apply is the lowest-ranked one
        above the last applied that occurs in the word; it merges left to right, non-overlapping.

        A heap of (rank, start) over adjacent pairs does that in O(n log n), so a word of a
        million characters costs seconds, not hours: equal ranks pop left to right, an entry
        whose left symbol was consumed or changed is skipped, and a new pair only takes a rank
        above the one being applied (a reused token can't re-apply an earlier merge).
        """
        n = len(units)
        if n < 2:
            return [(0, n)] if n else []
        ranks, merges = self.merge_ranks, self.merges
        toks = list(units)
        nxt = list(range(1, n + 1))
        prv = list(range(-1, n - 1))
        end = list(range(1, n + 1))
        alive = [True] * n

        def rank_above(x: str, y: str, floor: int) -> Optional[int]:
            rs = ranks.get((x, y))
            if rs:
                for r in rs:
                    if r > floor:
                        return r
            return None

        heap = []
        for i in range(n - 1):
            r = rank_above(toks[i], toks[i + 1], -1)
            if r is not None:
                heap.append((r, i))
        heapq.heapify(heap)
        while heap:
            r, i = heapq.heappop(heap)
            j = nxt[i]
            if not alive[i] or j >= n or merges[r] != (toks[i], toks[j]):
                continue  # stale: a neighbour was merged since this entry was pushed
            toks[i] = self._merged_token(toks[i], toks[j])
            end[i] = end[j]
            alive[j] = False
            k = nxt[i] = nxt[j]
            if k < n:
                prv[k] = i
                rr = rank_above(toks[i], toks[k], r)
                if rr is not None:
                    heapq.heappush(heap, (rr, i))
            h = prv[i]
            if h >= 0:
                rr = rank_above(toks[h], toks[i], r)
                if rr is not None:
                    heapq.heappush(heap, (rr, h))
        runs, i = [], 0
        while i < n:
            runs.append((i, end[i]))
            i = nxt[i]
        return runs

    def _merged_token(self, a: str, b: str) -> str:
        if self.config.model == "wordpiece":
            return a + b[len(CONTINUATION):]
        return a + b

    def _longest_match_runs(self, units: list[str], n_chars: int) -> Optional[list[tuple[int, int]]]:
        """WordPiece's longest-match-first; None when stuck (the whole word is unknown)."""
        if n_chars > WORDPIECE_MAX_WORD_CHARS:
            return None
        vocab = self.vocab_ids
        runs, i, n = [], 0, len(units)
        while i < n:
            for j in range(n, i, -1):
                if join_units(units[i:j], self.config) in vocab:
                    runs.append((i, j))
                    i = j
                    break
            else:
                return None
        return runs

    @cached_property
    def _greedy_codes(self) -> tuple[dict[str, str], tuple[str, ...]]:
        """One private character per distinct unit of the candidates, so that a token (a run of
        units) is found in a word by plain substring search, literally: `</w>` is one unit, never
        '<', '/', 'w', '>'. Built once; read-only afterwards, so safe to share between sessions."""
        codes: dict[str, str] = {}
        for cand in self.greedy_candidates:
            for u in cand:
                if u not in codes:
                    codes[u] = chr(0xF0000 + len(codes)) if len(codes) < 0xFFFD else chr(0x100000 + len(codes) - 0xFFFD)
        return codes, tuple("".join(codes[u] for u in c) for c in self.greedy_candidates)

    @cached_property
    def _greedy_rank(self) -> tuple[dict[str, int], int]:
        """Candidate (coded) -> its place in greedy's order, and the longest candidate's length."""
        _, cands = self._greedy_codes
        rank: dict[str, int] = {}
        for i, c in enumerate(cands):
            rank.setdefault(c, i)
        return rank, max((len(c) for c in cands), default=0)

    def _greedy_runs(self, units: list[str]) -> list[tuple[int, int, bool]]:
        """Seed 002's recursion; (start, end, known) runs, an unmatched piece as one unknown run."""
        codes, cands = self._greedy_codes
        word = "".join(codes.get(u, "\uFFFF") for u in units)  # a unit no candidate has matches nothing
        out: list[tuple[int, int, bool]] = []

        rank, longest = self._greedy_rank

        def first_match(piece: str, first: int) -> int:
            """The first candidate at or after `first` that occurs in the piece, or -1. A short
            piece looks up its own substrings (fewer than the candidates); a long one scans."""
            n = len(piece)
            if n <= 64:
                best = -1
                for i in range(n):
                    for j in range(i + 1, min(n, i + longest) + 1):
                        r = rank.get(piece[i:j], -1)
                        if r >= first and (best < 0 or r < best):
                            best = r
                return best
            for i in range(first, len(cands)):
                if cands[i] in piece:
                    return i
            return -1

        def split(start: int, end: int, first: int) -> None:
            if start == end:
                return
            piece = word[start:end]
            i = first_match(piece, first)
            if i >= 0:
                tok = cands[i]
                pos = piece.find(tok)
                cursor = 0
                while pos >= 0:
                    split(start + cursor, start + pos, i + 1)
                    out.append((start + pos, start + pos + len(tok), True))
                    cursor = pos + len(tok)
                    pos = piece.find(tok, cursor)
                split(start + cursor, end, i + 1)
                return
            out.append((start, end, False))

        split(0, len(units), 0)
        return out

    def encode_units(self, units: list[str], encoder: str, n_chars: int) -> list[tuple[int, int, Optional[str]]]:
        """Runs of units as (start, end, token or None for unknown)."""
        key = (encoder, tuple(units))
        hit = self._word_cache.get(key)
        if hit is not None:
            return hit
        vocab = self.vocab_ids
        if encoder == "merges":
            out = []
            for s, e in self._merges_runs(units):
                tok = join_units(units[s:e], self.config)
                if tok in vocab:
                    out.append((s, e, tok))
                else:  # one unknown token per unit outside the vocabulary (seed 004)
                    out.extend((k, k + 1, None) for k in range(s, e))
        elif encoder == "longest-match":
            runs = self._longest_match_runs(units, n_chars)
            out = [(0, len(units), None)] if runs is None else \
                [(s, e, join_units(units[s:e], self.config)) for s, e in runs]
        elif encoder == "greedy":
            out = [(s, e, join_units(units[s:e], self.config) if known else None)
                   for s, e, known in self._greedy_runs(units)]
        else:
            raise ConfigError(f"unknown encoder {encoder!r}: choose one of {', '.join(ENCODERS)}")
        if len(self._word_cache) < _CACHE_LIMIT:
            self._word_cache[key] = out
        return out

    # -- the whole pipeline

    def word_units(self, piece: str) -> list[str]:
        return initial_symbols(piece, self.config)

    def encode(self, text: str, encoder: Optional[str] = None, *, add_special_tokens: bool = False,
               pair: Optional[str] = None, recognize_special_tokens: bool = False) -> Encoding:
        """The contract's encode, with this tokenizer's encoder unless `encoder` says otherwise.
        The default encoder runs in HF's runtime where that encodes identically (a test holds the
        two equal); everything else runs the readable encoders (`encode_readable`).
        recognize_special_tokens: a special token's spelling in the text is its one id (as HF's
        added tokens); by default it is ordinary text."""
        encoder = encoder or self.encoder or self.default_encoder
        if recognize_special_tokens and self.special_tokens:
            return self.encode_readable(text, encoder, add_special_tokens=add_special_tokens, pair=pair,
                                        recognize_special_tokens=True)
        hf = self._hf_runtime if encoder == self.default_encoder and pair is None and not add_special_tokens else None
        if hf is None:
            return self.encode_readable(text, encoder, add_special_tokens=add_special_tokens, pair=pair)
        e = hf.encode(text, add_special_tokens=False)
        tokens = tuple(e.tokens)
        return Encoding(ids=tuple(e.ids), tokens=tokens, token_bytes=tuple(self.token_bytes_of(t) for t in tokens),
                        offsets=tuple(tuple(o) for o in e.offsets), encoder=encoder).with_byte_offsets(text)

    def encode_readable(self, text: str, encoder: Optional[str] = None, *, add_special_tokens: bool = False,
                        pair: Optional[str] = None, recognize_special_tokens: bool = False) -> Encoding:
        """The readable encoders, word by word: what encode() is tested equal to."""
        encoder = encoder or self.encoder or self.default_encoder
        if encoder not in ENCODERS:
            raise ConfigError(f"unknown encoder {encoder!r}: choose one of {', '.join(ENCODERS)}")
        one = self._encode_recognizing if recognize_special_tokens and self.special_tokens else self._encode_one
        first = one(text, encoder)
        second = one(pair, encoder) if pair is not None else None
        return self._post_process(first, second, add_special_tokens, encoder).with_byte_offsets(text, pair)

    @cached_property
    def _hf_runtime(self):
        """The same tokenizer in HF's Rust runtime, or None where tokenizer.json cannot express it
        (tests/test_formats.py shows the two encode identically where it can)."""
        if hf_expressible(self.config) is not None:
            return None
        if self.config.model != "bbpe" and not self.unk_token:
            return None  # HF BPE drops what it cannot cover; ours refuses and names it
        hf = hf_tokenizer(self.config, self.vocab, self.merges, self.special_tokens)
        hf.encode_special_tokens = True
        return hf

    @cached_property
    def _special_pattern(self):
        """The special tokens' spellings, longest first (HF matches added tokens the same way)."""
        import re
        return re.compile("|".join(re.escape(t) for t in sorted(self.special_tokens, key=len, reverse=True)))

    def _encode_recognizing(self, text: str, encoder: str) -> list[tuple[int, str, bytes, tuple[int, int]]]:
        """Text cut at special-token spellings: each one its id (no bytes), the rest encoded as usual."""
        vocab = self.vocab_ids
        out, pos = [], 0
        for m in self._special_pattern.finditer(text):
            if m.start() > pos:
                out += [(i, t, b, (s + pos, e + pos)) for i, t, b, (s, e) in self._encode_one(text[pos:m.start()], encoder)]
            out.append((vocab[m.group()], m.group(), b"", m.span()))
            pos = m.end()
        if pos < len(text):
            out += [(i, t, b, (s + pos, e + pos)) for i, t, b, (s, e) in self._encode_one(text[pos:], encoder)]
        return out

    def _encode_one(self, text: str, encoder: str) -> list[tuple[int, str, bytes, tuple[int, int]]]:
        config = self.config
        norm, align = normalize_aligned(text, config.normalizer)
        unk = self.unk_token
        vocab = self.vocab_ids
        out = []
        for _, (ps, pe) in pre_tokenize(norm, config.pre_tokenizer):
            plain = norm[ps:pe]
            units = self.word_units(plain)
            unit_spans = self._unit_char_spans(plain, units)
            for s, e, tok in self.encode_units(units, encoder, len(plain)):
                cs, ce = unit_spans[s][0], unit_spans[e - 1][1]
                span = self._to_original(ps + cs, ps + ce, align, len(text))
                if tok is None:
                    if unk is None or unk not in vocab:
                        kind = {"merges": "character", "longest-match": "word"}.get(encoder, "piece")
                        what = plain[cs:ce] or units[s]
                        raise EncodeError(f"the {kind} {what!r} is not in the vocabulary and this tokenizer "
                                          "has no unknown token: train with an unknown token (the Corpus page's "
                                          "Unknown token box; --unk-token on the command line)")
                    out.append((vocab[unk], unk, b"", span))
                else:
                    out.append((vocab[tok], tok, self.token_bytes_of(tok), span))
        return out

    def _unit_char_spans(self, plain: str, units: list[str]) -> list[tuple[int, int]]:
        """[start, end) in `plain` of each unit. Byte units cover the character they belong to;
        `</w>` covers nothing (it sits at the word's end)."""
        if self.config.byte_level:
            return byte_offsets_to_char_offsets(plain, [(i, i + 1) for i in range(len(units))])
        spans, pos = [], 0
        for u in units:
            if u == END_OF_WORD:
                spans.append((pos, pos))
            else:
                spans.append((pos, pos + 1))
                pos += 1
        return spans

    @staticmethod
    def _to_original(start: int, end: int, align: list[tuple[int, int]], n: int) -> tuple[int, int]:
        """Normalized [start, end) -> original [start, end). An empty span (`</w>`) sits at the end
        of what precedes it."""
        if start < end:
            return (align[start][0], align[end - 1][1])
        pos = align[start - 1][1] if 0 < start <= len(align) else (align[start][0] if start < len(align) else n)
        return (pos, pos)

    def _post_process(self, first, second, add_special_tokens: bool, encoder: str) -> Encoding:
        vocab = self.vocab_ids
        items: list = []
        types: list[int] = []
        bert_style = add_special_tokens and "[CLS]" in vocab and "[SEP]" in vocab
        if bert_style:
            cls_, sep = (vocab["[CLS]"], "[CLS]", b"", (0, 0)), (vocab["[SEP]"], "[SEP]", b"", (0, 0))
            items = [cls_] + first + [sep]
            types = [0] * len(items)
            if second is not None:
                items += second + [sep]
                types += [1] * (len(second) + 1)
        else:
            items = first + (second or [])
            types = [0] * len(first) + [1] * len(second or [])
        with_extras = add_special_tokens or second is not None
        return Encoding(ids=tuple(i[0] for i in items), tokens=tuple(i[1] for i in items),
                        token_bytes=tuple(i[2] for i in items), offsets=tuple(i[3] for i in items),
                        encoder=encoder,
                        attention_mask=tuple([1] * len(items)) if with_extras else None,
                        token_type_ids=tuple(types) if with_extras else None)

    # -- decoding

    def decode(self, ids: Sequence[int]) -> str:
        for i in ids:
            self._check(i)
        tokens = [self.vocab[i] for i in ids]
        config = self.config
        if config.byte_level:
            out, buf = [], bytearray()
            for t in tokens:
                if t in self.special_tokens:
                    out.append(buf.decode("utf-8", "replace"))
                    buf = bytearray()
                    out.append(t)
                else:
                    buf += self.token_bytes_of(t)
            out.append(buf.decode("utf-8", "replace"))
            return "".join(out)
        if config.model == "wordpiece":
            text = ""
            for t in tokens:
                if t.startswith(CONTINUATION) and len(t) > len(CONTINUATION):
                    text += t[len(CONTINUATION):]
                else:
                    text += (" " if text else "") + t
            return text
        if config.end_of_word != "none":
            return "".join(t.replace(END_OF_WORD, " ") if t not in self.special_tokens else t
                           for t in tokens).rstrip(" ")
        return " ".join(tokens)  # no end-of-word marker: word boundaries are unknown (as HF decodes)
