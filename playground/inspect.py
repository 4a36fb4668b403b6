"""Pure helpers of the Inspect page: one text through the whole pipeline, the vocabulary as a
table, and the files a tokenizer is exported to or imported from. (One word step by step is the
engine's: core/walks.py.)

    pipeline(tok, text, pair=..., encoder=...)  -> Stages: normalized text, pieces with offsets,
                                                   model tokens, post-processed encoding
    trained_vocabulary(trace, upto) / tokenizer_vocabulary(tok) -> the vocabulary table
    filter_vocabulary(frame, query, partial_only)
    export_files(tok)                           -> file contents for download buttons
    read_uploads(files, taken)                  -> tokenizers from uploaded files (TokenizerFileError)
    read_upload_groups(files, taken)            -> the same, each with the files it was read from
    replay_rows(replay), render_split(split)    -> a chunk's merge replay as a table and as boxes

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

from core.encoders import TrainedTokenizer
from core.encoding import Encoding
from core.errors import PlaygroundError, TokenizerFileError
from core.formats import (FORMATS, MAX_FILE_BYTES, load_tokenizer_bytes, tokenizer_file_text, tokenizer_json,
                          vocab_json_and_merges, vocab_txt)
from core.tokenizer import Chunk, Front, Tokenizer
from core.trainer import Trace

from playground import markup
from playground.spans import MAX_DRAWN_CHARS, PALETTE, VISIBLE_WHITESPACE, show_whitespace

MAX_VOCAB_ROWS = 20_000      # vocabulary rows drawn at once; search narrows the rest
MAX_PIECES_DRAWN = 3_000
MAX_POST_COLUMNS = 512       # post-processing table: BERT's own limit is 512 positions

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
        if q.isascii() and q.isdigit():   # "²".isdigit() too, and int("²") raises
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


def unigram_tokenizer_json(tok) -> str:
    """A trained Unigram's tokenizer.json text (core.formats writes it; it loads back here and in
    Hugging Face `tokenizers`). Raises ConfigError for a pre-tokenizer HF's file cannot carry."""
    return tokenizer_file_text(tok)


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
    """Tokenizers from uploaded files: each tokenizer.json, vocab.txt, .tiktoken or .model alone, a
    vocab.json with the merges.txt uploaded beside it. Returns (unique name, tokenizer) pairs;
    raises TokenizerFileError (one line) on the first file that does not load, and then nothing is
    returned."""
    return [(name, tok) for name, tok, _ in read_upload_groups(files, taken)]


def read_upload_groups(files: Sequence[tuple[str, bytes]],
                       taken: Iterable[str] = ()) -> list[tuple[str, object, list[tuple[str, bytes]]]]:
    """read_uploads, with the files each tokenizer was read from (kept on the server for the link)."""
    for name, raw in files:
        if len(raw) > MAX_FILE_BYTES:
            raise TokenizerFileError(f"{name} is {len(raw) / 2**20:,.0f} MB: tokenizer files up to "
                                     f"{MAX_FILE_BYTES // 2**20} MB load here (expected {FORMATS})")
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
        used = [(name, raw)] + (merges[:1] if used_merges else [])
        if used_merges:
            merges = []
        new = unique_name(PurePath(name).stem or "tokenizer", taken)
        taken.append(new)
        out.append((new, tok, used))
    if merges:
        raise TokenizerFileError(f"{merges[0][0]} needs its vocab.json: upload both together")
    if not out:
        raise TokenizerFileError(f"no tokenizer file given: choose {FORMATS}")
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
    elif lower.endswith((".tiktoken", ".model")):
        tok = load_tokenizer_bytes(raw, name)
    else:
        suffix = PurePath(name).suffix or "no ending"
        raise TokenizerFileError(f"{name}: {suffix} is not a tokenizer file format read here; give {FORMATS} "
                                 "(by the file name's ending: .json, .txt, .tiktoken, .model)")
    if not tok.vocab_size:   # it would encode every text as nothing at all
        raise TokenizerFileError(f"{name} has an empty vocabulary: give a tokenizer with at least one token")
    return tok, used_merges


def describe(tok: Tokenizer) -> str:
    """One line about a tokenizer: where it comes from, its model and size."""
    return tok.summary


# ---------------------------------------------------------------- a chunk's merges replayed (core/replay.py)

def replay_rows(replay) -> pd.DataFrame:
    """One row per step: the pair merged, the token it makes, its rank, and the split after."""
    rows = [{"step": k, "pair merged": "(whole chunk looked up)" if s.whole else
             f"{show_whitespace(s.left)} + {show_whitespace(s.right)}",
             "makes": show_whitespace(s.token), "rank": s.rank, "tokens after": len(s.split)}
            for k, s in enumerate(replay.steps, 1)]
    return pd.DataFrame(rows, columns=["step", "pair merged", "makes", "rank", "tokens after"])


def replay_step_line(replay, k: int) -> str:
    """What step k did, in words (plain text: for st.markdown through md_escape or st.caption)."""
    if k <= 0 or not replay.steps:
        return f"Start: {len(replay.start)} symbols" + (f" ({replay.note})" if replay.note else "")
    s = replay.steps[min(k, len(replay.steps)) - 1]
    if s.whole:
        return (f"Step {k}: the whole chunk is itself a token ({show_whitespace(s.token)}, rank {s.rank:,}), "
                "taken as is: tiktoken looks the chunk up before merging")
    return (f"Step {k}: merge {show_whitespace(s.left)} + {show_whitespace(s.right)} → {show_whitespace(s.token)} "
            f"(rank {s.rank:,}, the lowest-ranked pair in the split)")


def render_split(split: Sequence[str], merged_at: Optional[int] = None) -> str:
    """The split as boxes (escaped); the box a step just made outlined."""
    parts = []
    for k, token in enumerate(split[:MAX_PIECES_DRAWN]):
        colour = PALETTE[k % len(PALETTE)]
        cls = "tp-piece tp-new" if k == merged_at else "tp-piece"
        parts.append(f'<span class="{cls}" style="background:{colour}" title="{markup.text(token)}">'
                     f'{markup.text(show_whitespace(token))}</span>')
    return '<div class="tp-pieces">' + "".join(parts) + "</div>"
