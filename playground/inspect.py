"""Pure helpers of the Inspect page: one text through the whole pipeline, one word step by step,
the vocabulary as a table, and the files a tokenizer is exported to or imported from.

    pipeline(tok, text, pair=..., encoder=...)  -> Stages: normalized text, pieces with offsets,
                                                   model tokens, post-processed encoding
    walk_word(tok, word, encoder)               -> Walk: every step an encoder takes on one word
        walk_merges        merges in learned order, the split after each (seed 004's printout)
        walk_longest_match WordPiece's longest match first, `##` put on the rest (seed 004)
        walk_greedy        seed 002's recursion: candidate found, left and right pieces
    trained_vocabulary(trace, upto) / tokenizer_vocabulary(tok) -> the vocabulary table
    filter_vocabulary(frame, query, partial_only)
    export_files(tok)                           -> file contents for download buttons
    read_uploads(files, taken)                  -> tokenizers from uploaded files (TokenizerFileError)

Every walk re-derives its encoder from the tokenizer's public data (merges, vocabulary, greedy
candidates) and ends with the split the encoder itself gives: tests/test_inspect.py checks that
against TrainedTokenizer.encode for the same word and encoder.

HTML built here escapes every piece of user or file text (playground.markup); tables are data frames.
No Streamlit here: the page caches and draws.
Not here: token spans (spans.py), merge trees (charts.py), the encoders (core/encoders.py).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import PurePath
from typing import Iterable, Optional, Sequence

import pandas as pd

from core.encoders import TrainedTokenizer, join_units
from core.limits import WORDPIECE_MAX_WORD_CHARS
from core.encoding import Encoding
from core.errors import PlaygroundError, TokenizerFileError
from core.formats import load_tokenizer_bytes, tokenizer_json, vocab_json_and_merges, vocab_txt
from core.tokenizer import Chunk, Front, Tokenizer
from core.trainer import Trace

from playground import markup
from playground.spans import MAX_DRAWN_CHARS, PALETTE, VISIBLE_WHITESPACE, show_whitespace

MAX_WALK_UNITS = 200         # longer words are not walked step by step (the steps would not fit)
MAX_TRIED_SHOWN = 6          # longest-match: the failed candidates listed per position
MAX_VOCAB_ROWS = 20_000      # vocabulary rows drawn at once; search narrows the rest
MAX_PIECES_DRAWN = 3_000
MAX_POST_COLUMNS = 512       # post-processing table: BERT's own limit is 512 positions
MAX_WALK_CHOICES = 500       # distinct words of the text offered for a walk
UNK_SHOWN = "[UNK]"          # what a walk shows for an unknown piece when the tokenizer has no unknown token

# ---------------------------------------------------------------- the pipeline, stage by stage


@dataclass(frozen=True)
class Stages:
    text: str
    pair: Optional[str]
    front: Front
    pair_front: Optional[Front]
    model: Optional[Encoding]    # the model's tokens for `text` (no special tokens); None: see error
    post: Optional[Encoding]     # with the post-processor: special tokens, attention mask, type ids
    post_processor: str          # what the post-processor does, in words
    special_tokens: frozenset
    error: Optional[str] = None  # why the model could not encode the text (e.g. no unknown token)


def pipeline(tok: Tokenizer, text: str, *, pair: Optional[str] = None, encoder: Optional[str] = None) -> Stages:
    """Every stage of encoding `text` (and `pair`). When the model cannot cover the text (no unknown
    token), the stages before it are still there and `error` says why the rest is missing."""
    pair = pair or None
    tok = tok.with_encoder(encoder)
    model = post = None
    error = None
    try:
        model = tok.encode(text)
        post = tok.encode(text, add_special_tokens=True, pair=pair)
    except PlaygroundError as e:
        error = str(e)
    return Stages(text=text, pair=pair, front=tok.front(text),
                  pair_front=tok.front(pair) if pair is not None else None,
                  model=model, post=post, post_processor=tok.post_processor,
                  special_tokens=frozenset(tok.special_tokens), error=error)


def render_pieces(pieces: Sequence[Chunk], *, max_pieces: int = MAX_PIECES_DRAWN) -> str:
    """The pre-tokenizer's pieces as boxes (escaped), each titled with its offsets."""
    parts = []
    for k, p in enumerate(pieces[:max_pieces]):
        colour = PALETTE[k % 2 * 3]
        title = markup.text(f"piece {k}: [{p.start}, {p.end}) {p.plain!r}")
        parts.append(f'<span class="tp-piece" style="background:{colour}" title="{title}">'
                     f'{markup.text(show_whitespace(p.shown))}</span>')
    more = len(pieces) - max_pieces
    tail = f'<span class="tp-more"> … {more:,} more</span>' if more > 0 else ""
    return f'<div class="tp-pieces">{"".join(parts)}{tail}</div>'


def render_text(text: str, max_chars: int = MAX_DRAWN_CHARS) -> str:
    """Text (the normalizer's output) in the token font, whitespace made visible, escaped; at most
    `max_chars` characters, then an ellipsis."""
    shown = markup.text(show_whitespace(text[:max_chars]))
    more = len(text) - max_chars
    tail = f'<span class="tp-more"> … {more:,} more characters</span>' if more > 0 else ""
    return f'<div class="tp-plain">{shown}{tail}</div>'


def pieces_rows(pieces: Sequence[Chunk]) -> pd.DataFrame:
    return pd.DataFrame({"piece": [p.shown for p in pieces], "text": [show_whitespace(p.plain) for p in pieces],
                         "start": [p.start for p in pieces], "end": [p.end for p in pieces]},
                        columns=["piece", "text", "start", "end"])


def _hex(data: bytes) -> str:
    """_hex(b"\xe4\xbd") == "E4 BD"."""
    return data.hex(" ").upper()


_VISIBLE = str.maketrans(VISIBLE_WHITESPACE)


def _visible(text: str) -> str:
    """spans.show_whitespace, as one str.translate (a vocabulary has 200,000 tokens)."""
    return text.translate(_VISIBLE)


def token_rows(enc: Encoding) -> pd.DataFrame:
    """One row per token: position, token, id, bytes (hex), offsets."""
    return pd.DataFrame({"#": range(len(enc)), "token": list(enc.tokens), "id": list(enc.ids),
                         "bytes": [_hex(b) for b in enc.token_bytes],
                         "start": [o[0] for o in enc.offsets], "end": [o[1] for o in enc.offsets]},
                        columns=["#", "token", "id", "bytes", "start", "end"])


def post_rows(stages: Stages) -> pd.DataFrame:
    """The post-processed encoding, one row per token: token, id, attention mask, token type id,
    special (a special token: added by the post-processor, or the unknown token)."""
    enc = stages.post
    n = len(enc)
    model_tokens = set(stages.model.tokens)
    added = [(t in stages.special_tokens or (b == b"" and o == (0, 0) and t not in model_tokens))
             for t, b, o in zip(enc.tokens, enc.token_bytes, enc.offsets)]
    return pd.DataFrame({"#": range(n), "token": list(enc.tokens), "id": list(enc.ids),
                         "attention_mask": list(enc.attention_mask or (1,) * n),
                         "token_type_id": list(enc.token_type_ids or (0,) * n), "special": added},
                        columns=["#", "token", "id", "attention_mask", "token_type_id", "special"])


def post_table(stages: Stages, limit: int = MAX_POST_COLUMNS) -> pd.DataFrame:
    """post_rows turned on its side, as the seed prints it: rows tokens, input_ids, attention_mask,
    token_type_ids; one column per position (the first `limit`). Every cell is text (a column
    mixes tokens and numbers)."""
    rows = post_rows(stages).head(limit)
    table = pd.DataFrame([rows["token"].map(show_whitespace).tolist(), rows["id"].astype(str).tolist(),
                          rows["attention_mask"].astype(str).tolist(), rows["token_type_id"].astype(str).tolist()],
                         index=["tokens", "input_ids", "attention_mask", "token_type_ids"],
                         columns=[str(i) for i in rows["#"]])
    return table


# ---------------------------------------------------------------- one word, step by step

@dataclass(frozen=True)
class WalkStep:
    line: str                    # one line, as the seeds print it
    split: tuple[str, ...]       # merges: the whole split now; longest-match: tokens so far;
                                 # greedy: this piece's parts (left, token, right)
    depth: int = 0               # greedy: how deep in the recursion


@dataclass(frozen=True)
class Walk:
    encoder: str
    word: str                    # the pre-tokenized piece (normalized, plain text)
    units: tuple[str, ...]       # its initial symbols
    steps: tuple[WalkStep, ...]
    tokens: tuple[str, ...]      # the final split; an unknown piece as the unknown token
    unknown: int                 # how many unknown tokens
    refused: bool                # unknown pieces but no unknown token: encode() refuses this word
    note: str = ""


def _unk(tok: TrainedTokenizer) -> str:
    unk = tok.unk_token
    return unk if unk is not None and unk in tok.vocab_ids else UNK_SHOWN


def _shown(tokens: Sequence[str]) -> str:
    return "[" + ", ".join(tokens) + "]"


def walk_word(tok: TrainedTokenizer, word: str, encoder: Optional[str] = None) -> Walk:
    """The steps `encoder` takes on one pre-tokenized piece (plain text, already normalized)."""
    encoder = encoder or tok.default_encoder
    units = tuple(tok.word_units(word))
    if len(units) > MAX_WALK_UNITS:
        runs = tok.encode_units(list(units), encoder, len(word))
        tokens = tuple(t if t is not None else _unk(tok) for _, _, t in runs)
        unknown = sum(t is None for _, _, t in runs)
        return Walk(encoder, word, units, (), tokens, unknown, _refused(tok, unknown),
                    note=f"{len(units):,} symbols: too long to walk step by step (at most {MAX_WALK_UNITS})")
    if encoder == "merges":
        return walk_merges(tok, word)
    if encoder == "longest-match":
        return walk_longest_match(tok, word)
    if encoder == "greedy":
        return walk_greedy(tok, word)
    raise ValueError(f"unknown encoder {encoder!r}")


def _refused(tok: TrainedTokenizer, unknown: int) -> bool:
    return unknown > 0 and (tok.unk_token is None or tok.unk_token not in tok.vocab_ids)


def walk_merges(tok: TrainedTokenizer, word: str) -> Walk:
    """BPE: the merges that apply, in the order learned, each left to right over the word, with
    the split after each (seed 004: "Merge ('e', 's') -> es: [n, e, w, es, t]"); then every symbol
    outside the vocabulary becomes the unknown token, one per symbol."""
    units = tuple(tok.word_units(word))
    toks = list(units)
    steps = [WalkStep(f"Start: {_shown(toks)}", tuple(toks))]
    ranks = tok.merge_ranks
    last = -1
    while len(toks) > 1:
        best = None   # the lowest-ranked merge learned after the last one applied, present in the word
        for j in range(len(toks) - 1):
            for r in ranks.get((toks[j], toks[j + 1]), ()):
                if r > last:
                    if best is None or r < best:
                        best = r
                    break
        if best is None:
            break
        a, b = tok.merges[best]
        merged = join_units([a, b], tok.config) if tok.config.model == "wordpiece" else a + b
        out, j, times = [], 0, 0
        while j < len(toks):
            if j < len(toks) - 1 and toks[j] == a and toks[j + 1] == b:
                out.append(merged)
                j += 2
                times += 1
            else:
                out.append(toks[j])
                j += 1
        toks, last = out, best
        where = f" ×{times}" if times > 1 else ""
        steps.append(WalkStep(f"Merge {best + 1} ({a!r}, {b!r}) -> {merged}{where}: {_shown(toks)}", tuple(toks)))
    vocab = tok.vocab_ids
    unknown = sum(t not in vocab for t in toks)
    final = tuple(t if t in vocab else _unk(tok) for t in toks)
    if unknown:
        missing = ", ".join(repr(t) for t in dict.fromkeys(t for t in toks if t not in vocab))
        steps.append(WalkStep(f"Not in the vocabulary: {missing} -> {_unk(tok)}, one per symbol: {_shown(final)}",
                              final))
    elif len(steps) == 1:
        steps.append(WalkStep("No merge applies: the word stays as its symbols", final))
    return Walk("merges", word, units, tuple(steps), final, unknown, _refused(tok, unknown))


def walk_longest_match(tok: TrainedTokenizer, word: str) -> Walk:
    """WordPiece: at each position the longest vocabulary token that starts there; what is left
    gets `##` (seed 004: "matched lo; rest ##cal"); stuck anywhere: the whole word is unknown."""
    units = tuple(tok.word_units(word))
    cfg, vocab = tok.config, tok.vocab_ids
    steps: list[WalkStep] = []
    if len(word) > WORDPIECE_MAX_WORD_CHARS:
        steps.append(WalkStep(f"{len(word)} characters: longer than {WORDPIECE_MAX_WORD_CHARS}, the whole word is "
                              f"{_unk(tok)} (as HF WordPiece does)", (_unk(tok),)))
        return Walk("longest-match", word, units, tuple(steps), (_unk(tok),), 1, _refused(tok, 1))
    tokens: list[str] = []
    i, n = 0, len(units)
    while i < n:
        tried = []
        for j in range(n, i, -1):
            cand = join_units(units[i:j], cfg)
            if cand in vocab:
                tokens.append(cand)
                rest = join_units(units[j:], cfg) if j < n else ""
                shown_tried = ", ".join(tried[:MAX_TRIED_SHOWN]) + (" …" if len(tried) > MAX_TRIED_SHOWN else "")
                line = f"matched {cand}" + (f" (not in the vocabulary: {shown_tried})" if tried else "")
                line += f"; rest {rest}" if rest else "; nothing left"
                steps.append(WalkStep(line, tuple(tokens)))
                i = j
                break
            tried.append(cand)
        else:
            rest = join_units(units[i:], cfg)
            steps.append(WalkStep(f"no token starts {rest}: the whole word becomes {_unk(tok)}", (_unk(tok),)))
            return Walk("longest-match", word, units, tuple(steps), (_unk(tok),), 1, _refused(tok, 1))
    return Walk("longest-match", word, units, tuple(steps), tuple(tokens), 0, False)


def _find_all(hay: Sequence[str], needle: Sequence[str]) -> list[int]:
    """Start positions of the non-overlapping occurrences of needle in hay, left to right."""
    out, k, m = [], 0, len(needle)
    while k + m <= len(hay):
        if tuple(hay[k:k + m]) == tuple(needle):
            out.append(k)
            k += m
        else:
            k += 1
    return out


def walk_greedy(tok: TrainedTokenizer, word: str) -> Walk:
    """Seed 002's recursion: candidates sorted by length then frequency; the first one found in the
    piece splits it at each occurrence, and the parts between are searched with the candidates
    after it. A part no candidate matches becomes one unknown token."""
    units = tuple(tok.word_units(word))
    cands = tok.greedy_candidates
    cfg = tok.config
    rank: dict[tuple[str, ...], int] = {}
    for k, c in enumerate(cands):
        rank.setdefault(c, k)
    longest = max((len(c) for c in cands), default=0)
    steps: list[WalkStep] = []
    out: list[Optional[str]] = []

    def first_match(piece: tuple[str, ...], first: int) -> int:
        best = -1
        for s in range(len(piece)):
            for e in range(s + 1, min(len(piece), s + longest) + 1):
                r = rank.get(piece[s:e], -1)
                if r >= first and (best < 0 or r < best):
                    best = r
        return best

    def split(piece: tuple[str, ...], first: int, depth: int) -> None:
        if not piece:
            return
        text = join_units(piece, cfg)
        k = first_match(piece, first)
        if k < 0:
            steps.append(WalkStep(f"{text}: no candidate from #{first + 1} on occurs -> {_unk(tok)}",
                                  (_unk(tok),), depth))
            out.append(None)
            return
        cand = cands[k]
        token = join_units(cand, cfg)
        places = _find_all(piece, cand)
        parts, cursor = [], 0
        for p in places:
            parts.append(piece[cursor:p])
            cursor = p + len(cand)
        parts.append(piece[cursor:])
        shown_parts = []
        for idx, part in enumerate(parts):
            if idx:
                shown_parts.append(token)
            if part:
                shown_parts.append(join_units(part, cfg))
        times = f" {len(places)} times" if len(places) > 1 else ""
        steps.append(WalkStep(f"{text}: candidate #{k + 1} {token} found{times} -> {' | '.join(shown_parts)}",
                              tuple(shown_parts), depth))
        for idx, part in enumerate(parts):
            if idx:
                out.append(token)
            split(part, k + 1, depth + 1)

    split(units, 0, 0)
    unknown = sum(t is None for t in out)
    final = tuple(t if t is not None else _unk(tok) for t in out)
    return Walk("greedy", word, units, tuple(steps), final, unknown, _refused(tok, unknown))


def walk_lines(walk: Walk) -> str:
    """The walk as plain text (for st.code: never HTML), greedy indented by depth."""
    lines = [f"{walk.encoder} on {walk.word!r}: symbols {_shown(walk.units)}"]
    lines += ["  " * s.depth + s.line for s in walk.steps]
    lines.append(f"Result: {_shown(walk.tokens)}" + ("   (encode refuses it: this tokenizer has no unknown token)"
                                                    if walk.refused else ""))
    if walk.note:
        lines.append(walk.note)
    return "\n".join(lines)


def walk_pieces(tok: TrainedTokenizer, text: str, limit: int = MAX_WALK_CHOICES) -> list[str]:
    """The distinct pre-tokenized pieces (normalized plain text) of a text, in order, at most
    `limit`: what can be walked."""
    out: dict[str, None] = {}
    for p in tok.front(text).chunks:
        out.setdefault(p.plain)
        if len(out) >= limit:
            break
    return list(out)


# ---------------------------------------------------------------- the vocabulary

VOCAB_COLUMNS = ["id", "token", "text", "bytes", "length", "frequency", "step", "kind", "partial UTF-8"]


def _text_of(data: bytes, token: str) -> tuple[str, bool]:
    """(what the token reads as, partial UTF-8?)"""
    if not data:
        return token, False
    try:
        return _visible(data.decode("utf-8")), False
    except UnicodeDecodeError:
        return "".join(f"<0x{b:02X}>" for b in data), True


def _frame(ids, tokens, data, frequency, step, kind) -> pd.DataFrame:
    texts, partial, length = [], [], []
    for t, b in zip(tokens, data):
        shown, part = _text_of(b, t)
        texts.append(shown)
        partial.append(part)
        length.append(len(b) if part else len(b.decode("utf-8")) if b else len(t))
    frame = pd.DataFrame({"id": ids, "token": tokens, "text": texts, "bytes": [_hex(b) for b in data],
                          "length": length, "frequency": frequency, "step": step, "kind": kind,
                          "partial UTF-8": partial}, columns=VOCAB_COLUMNS)
    frame["frequency"] = frame["frequency"].astype("Int64")
    frame["step"] = frame["step"].astype("Int64")
    return frame


def trained_vocabulary(trace: Trace, upto: Optional[int] = None) -> pd.DataFrame:
    """The vocabulary after `upto` merges (all by default): id, token, what it reads as, bytes (hex),
    length (characters; bytes when partial UTF-8), frequency in the training words' final
    segmentation (final vocabulary only), the merge step that created it (0: initial symbol,
    empty: special token), kind, partial UTF-8 (byte-level bytes that are not valid UTF-8)."""
    tok = TrainedTokenizer.from_trace(trace, upto=upto)
    cut = len(trace.steps) if upto is None else upto
    created = {t: k for t, k in trace.made_at.items() if k <= cut}
    final = upto is None or upto >= len(trace.steps)
    freq = dict(trace.final_tokens) if final else {}
    specials = set(trace.special_tokens)
    tokens = list(tok.vocab)
    kind = ["special" if t in specials else "merge" if t in created else "initial" for t in tokens]
    step = [None if k == "special" else created.get(t, 0) for t, k in zip(tokens, kind)]
    frequency = [freq.get(t, 0) if final and k != "special" else None for t, k in zip(tokens, kind)]
    data = [tok.token_bytes(i) for i in range(len(tokens))]
    return _frame(list(range(len(tokens))), tokens, data, frequency, step, kind)


def tokenizer_vocabulary(tok: Tokenizer) -> pd.DataFrame:
    """The same table for a tokenizer without a trace (pretrained, imported): no frequency; the step
    is the merge that made the token (its place in the merges, or its rank), 0 for a base token."""
    ids, tokens, data, step, kind = [], [], [], [], []
    specials = set(tok.special_tokens)
    for i in range(tok.vocab_size):
        try:
            t = tok.id_to_token(i)
        except PlaygroundError:   # an unassigned id
            continue
        made = tok.made_at(i)
        ids.append(i)
        tokens.append(t)
        data.append(tok.token_bytes(i))
        kind.append("special" if t in specials else "merge" if made is not None else "initial")
        step.append(None if t in specials else made or 0)
    return _frame(ids, tokens, data, [None] * len(ids), step, kind)


def filter_vocabulary(frame: pd.DataFrame, query: str = "", partial_only: bool = False) -> pd.DataFrame:
    """Rows whose token or text contains `query` (case-insensitive), or whose id is it; with
    partial_only, only the tokens whose bytes are not valid UTF-8."""
    out = frame
    if partial_only:
        out = out[out["partial UTF-8"]]
    q = (query or "").strip()
    if q:
        mask = (out["token"].str.contains(q, case=False, regex=False)
                | out["text"].str.contains(q, case=False, regex=False))
        if q.isdigit():
            mask = mask | (out["id"] == int(q))
        out = out[mask]
    return out


def length_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """How many tokens have each length (for a bar chart)."""
    counts = frame[frame["kind"] != "special"]["length"].value_counts().sort_index()
    return pd.DataFrame({"length": counts.index.astype(int), "tokens": counts.values})


# ---------------------------------------------------------------- exports

def export_files(tok: TrainedTokenizer) -> dict[str, str]:
    """The files a trained tokenizer is saved as: tokenizer.json always; vocab.json + merges.txt for
    BPE models; vocab.txt for WordPiece."""
    files = {"tokenizer.json": json.dumps(tokenizer_json(tok), ensure_ascii=False)}
    if tok.config.model == "wordpiece":
        files["vocab.txt"] = vocab_txt(tok)
    else:
        files["vocab.json"], files["merges.txt"] = vocab_json_and_merges(tok)
    return files


# ---------------------------------------------------------------- imports

def unique_name(name: str, taken: Iterable[str]) -> str:
    """unique_name("tokenizer", ["tokenizer"]) == "tokenizer 2"."""
    taken = set(taken)
    if name not in taken:
        return name
    k = 2
    while f"{name} {k}" in taken:
        k += 1
    return f"{name} {k}"


def _looks_like_vocab_txt(raw: bytes, name: str) -> None:
    """A WordPiece vocab.txt has one token a line and no spaces inside tokens: refuse ordinary text."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return   # load_tokenizer_bytes says it is not text
    if text.lstrip().startswith("{"):
        return
    lines = [ln.rstrip("\r") for ln in text.split("\n") if ln.strip()]
    spaced = [k for k, ln in enumerate(lines) if " " in ln.strip() or "\t" in ln]
    if lines and len(spaced) > max(2, len(lines) // 100):
        first = lines[spaced[0]]
        raise TokenizerFileError(f"{name} does not look like a vocab.txt (one token a line): line {spaced[0] + 1} "
                                 f"is {first[:40]!r}. A merges.txt goes with its vocab.json, uploaded together")


def read_uploads(files: Sequence[tuple[str, bytes]], taken: Iterable[str] = ()) -> list[tuple[str, object]]:
    """Tokenizers from uploaded files: each tokenizer.json or vocab.txt alone, a vocab.json with the
    merges.txt uploaded beside it. Returns (unique name, tokenizer) pairs; raises TokenizerFileError
    (one line) on the first file that does not load, and then nothing is returned."""
    taken = list(taken)
    merges = [(n, raw) for n, raw in files if PurePath(n).name.lower().endswith("merges.txt")]
    rest = [(n, raw) for n, raw in files if (n, raw) not in merges]
    if len(merges) > 1:
        raise TokenizerFileError("upload one merges.txt at a time, with its vocab.json")
    out = []
    for name, raw in rest:
        try:
            tok, used_merges = _read_upload(name, raw, merges)
        except RecursionError:   # json's parser on a file nested thousands deep (hostile or broken)
            raise TokenizerFileError(f"{name} is nested too deeply to be a tokenizer file") from None
        if used_merges:
            merges = []
        new = unique_name(PurePath(name).stem or "tokenizer", taken)
        taken.append(new)
        out.append((new, tok))
    if merges:
        raise TokenizerFileError(f"{merges[0][0]} needs its vocab.json: upload both together")
    if not out:
        raise TokenizerFileError("no tokenizer file given: choose a tokenizer.json, vocab.json + merges.txt or vocab.txt")
    return out


def _is_vocab_json(raw: bytes) -> bool:
    """A vocab.json (token -> id, nothing else), not a tokenizer.json."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return False
    return isinstance(data, dict) and "model" not in data and bool(data) and \
        all(isinstance(v, int) for v in data.values())


def _read_upload(name: str, raw: bytes, merges: Sequence[tuple[str, bytes]]) -> tuple[object, bool]:
    """One uploaded file as a tokenizer, and whether it took the first of `merges` (a vocab.json)."""
    lower = name.lower()
    used_merges = False
    if lower.endswith(".json"):
        if _is_vocab_json(raw):
            if not merges:
                raise TokenizerFileError(f"{name} looks like a vocab.json: upload its merges.txt with it")
            tok = load_tokenizer_bytes(raw, name, merges_txt=merges[0][1])
            used_merges = True
        else:
            tok = load_tokenizer_bytes(raw, name)
    elif lower.endswith(".txt"):
        _looks_like_vocab_txt(raw, name)
        tok = load_tokenizer_bytes(raw, name)
    else:
        raise TokenizerFileError(f"{name}: give a tokenizer.json, a vocab.json with its merges.txt, or a vocab.txt")
    if not tok.vocab_size:   # it would encode every text as nothing at all
        raise TokenizerFileError(f"{name} has an empty vocabulary: give a tokenizer with at least one token")
    return tok, used_merges


def describe(tok: Tokenizer) -> str:
    """One line about a tokenizer: where it comes from, its model and size."""
    return tok.summary
