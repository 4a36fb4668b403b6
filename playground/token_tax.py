"""The token tax: one parallel text (the UDHR, data/udhr.json) in many languages, encoded by every
tokenizer, and what each language pays in tokens relative to English.

    languages()                         -> the UDHR's languages (code, name, note, text), file order
    token_counts(tok, langs)            -> {code: number of tokens, or None when tok refuses the text}
    tax_table(counts, langs)            -> one row per language: characters, bytes, then per tokenizer
                                           its tokens relative to English (None: refused)
    counts_table(counts, langs)         -> the same with the token counts themselves
    bytes_per_token(trace, text, ...)   -> a trained tokenizer's bytes per token on held-out text at
                                           vocabulary sizes along its merges
    parse_link(params, offered, codes) / link_params(...)   the page's address: ?tokenizers=&sort=&held=&view=

No Streamlit here: the page caches (pages/languages.py) and charts.py draws.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Optional, Sequence

import pandas as pd

from core.encoders import TrainedTokenizer
from core.errors import PlaygroundError
from core.trainer import Trace

UDHR_PATH = Path(__file__).resolve().parents[1] / "data" / "udhr.json"
BASELINE = "eng"
CURVE_POINTS = 12          # vocabulary sizes measured along a trained tokenizer's merges


@dataclass(frozen=True)
class Language:
    code: str
    name: str
    note: str
    text: str


@lru_cache(maxsize=1)
def udhr() -> dict:
    return json.loads(UDHR_PATH.read_text(encoding="utf-8"))


def languages() -> tuple[Language, ...]:
    """Articles 1-3 of the UDHR in each language of data/udhr.json, English first."""
    return tuple(Language(x["code"], x["name"], x.get("note") or x["name"], x["text"]) for x in udhr()["languages"])


def source_line() -> str:
    data = udhr()
    return f"{data['title']}. Source: {data['source']}. Licence: {data['licence']}."


def token_counts(tok, langs: Sequence[Language]) -> dict[str, Optional[int]]:
    """How many tokens each language's text takes (no special tokens added); None where the
    tokenizer cannot encode it (a vocabulary trained here without an unknown token)."""
    out: dict[str, Optional[int]] = {}
    for lang in langs:
        try:
            out[lang.code] = len(tok.encode(lang.text).ids)
        except PlaygroundError:
            out[lang.code] = None
    return out


UNKNOWN_SPELLINGS = ("[UNK]", "<unk>", "<|unk|>")
UNKNOWN_SHARE = 0.05       # a language this much of whose tokens are unknown is flagged


def unknown_languages(tok, langs: Sequence[Language]) -> list[str]:
    """Names of the languages whose text comes out as the unknown token for more than
    UNKNOWN_SHARE of its tokens: a low count there is text lost, not text compressed (BERT's
    WordPiece on Burmese)."""
    unknown = {i for i in (tok.token_to_id(s) for s in UNKNOWN_SPELLINGS) if i is not None}
    if not unknown:
        return []
    out = []
    for lang in langs:
        try:
            ids = tok.encode(lang.text).ids
        except PlaygroundError:
            continue
        if ids and sum(i in unknown for i in ids) / len(ids) > UNKNOWN_SHARE:
            out.append(lang.name)
    return out


def _base(langs: Sequence[Language]) -> pd.DataFrame:
    return pd.DataFrame({"language": [lang.name for lang in langs], "code": [lang.code for lang in langs],
                         "characters": [len(lang.text) for lang in langs],
                         "bytes": [len(lang.text.encode("utf-8")) for lang in langs]})


def counts_table(counts: Mapping[str, Mapping[str, Optional[int]]], langs: Sequence[Language]) -> pd.DataFrame:
    """Rows: languages; after characters and bytes, one column of token counts per tokenizer label."""
    frame = _base(langs)
    for label, per in counts.items():
        frame[label] = pd.array([per.get(lang.code) for lang in langs], dtype="Int64")
    return frame


def tax_table(counts: Mapping[str, Mapping[str, Optional[int]]], langs: Sequence[Language],
              baseline: str = BASELINE) -> pd.DataFrame:
    """Rows: languages; one column per tokenizer: its tokens for the language over its tokens for
    English (1.0 for English; 3.0: three times as many tokens for the same text). Missing where
    the tokenizer refused either text."""
    frame = _base(langs)
    for label, per in counts.items():
        base = per.get(baseline)
        frame[label] = [None if not base or per.get(lang.code) is None else per[lang.code] / base
                        for lang in langs]
        frame[label] = frame[label].astype("Float64")
    return frame


def tokenizer_columns(frame: pd.DataFrame) -> list[str]:
    return [c for c in frame.columns if c not in ("language", "code", "characters", "bytes")]


def sort_languages(frame: pd.DataFrame, by: Optional[str]) -> pd.DataFrame:
    """Dearest language first by the tokenizer `by`; None: by the mean over every tokenizer."""
    cols = tokenizer_columns(frame)
    key = frame[by] if by in cols else frame[cols].mean(axis=1, skipna=True) if cols else frame["bytes"]
    return frame.assign(_key=key).sort_values("_key", ascending=False, na_position="last").drop(columns="_key")


def curve_steps(total: int, points: int = CURVE_POINTS) -> list[int]:
    """Steps along a run of `total` merges to measure at: 0, ..., total, at most `points`."""
    if total <= 0:
        return [0]
    return sorted({round(total * k / (points - 1)) for k in range(points)})


def bytes_per_token(trace: Trace, text: str, points: int = CURVE_POINTS) -> pd.DataFrame:
    """A trained tokenizer's bytes per token on `text` (held out: not its corpus) at vocabulary
    sizes along its merges: columns step, vocabulary, tokens, bytes_per_token, coverage (the share
    of the text's bytes measured: a vocabulary without an unknown token is measured on the pieces
    it can encode)."""
    rows = []
    for step in curve_steps(len(trace.steps), points):
        tok = TrainedTokenizer.from_trace(trace, upto=step)
        covered, n = _covered(tok, text)
        rows.append({"step": step, "vocabulary": tok.vocab_size, "tokens": n,
                     "bytes_per_token": covered / n if n else None,
                     "coverage": covered / max(len(text.encode("utf-8")), 1)})
    return pd.DataFrame(rows)


def _covered(tok, text: str) -> tuple[int, int]:
    """(bytes encoded, tokens): the whole text, or, when the vocabulary refuses it (no unknown
    token and a character it never saw), the pieces it can encode, one by one."""
    try:
        return len(text.encode("utf-8")), len(tok.encode(text).ids)
    except PlaygroundError:
        pass
    data = n = 0
    for chunk in tok.front(text).chunks:
        try:
            k = len(tok.encode(chunk.plain).ids)
        except PlaygroundError:
            continue
        data, n = data + len(chunk.plain.encode("utf-8")), n + k
    return data, n


# ---------------------------------------------------------------- the page's link (F5, a copied address)

URL_KEYS = ("tokenizers", "sort", "held", "view")
MAX_LINK_TOKENIZERS = 32


def parse_link(params: Mapping[str, str], offered: Sequence[str], codes: Sequence[str]) -> tuple[dict, list[str]]:
    """What the address asks for ({"tokenizers": [...], "sort": key, "held": code, "view": "counts"}),
    and one line per value ignored (never raises; nothing from it is a path)."""
    out: dict = {}
    msgs: list[str] = []
    if "tokenizers" in params:
        wanted = [k.strip() for k in str(params["tokenizers"]).split(",") if k.strip()]
        gone = [k for k in wanted if k not in offered]
        out["tokenizers"] = [k for k in dict.fromkeys(wanted) if k in offered][:MAX_LINK_TOKENIZERS]
        if gone:
            msgs.append(f"Not on offer here, left out: {', '.join(repr(k[:40]) for k in gone[:5])}.")
    if "sort" in params:
        if params["sort"] in offered:
            out["sort"] = params["sort"]
        else:
            msgs.append(f"Ignored sort={str(params['sort'])[:40]!r}: not one of the tokenizers shown.")
    if "held" in params:
        if params["held"] in codes:
            out["held"] = params["held"]
        else:
            msgs.append(f"Ignored held={str(params['held'])[:40]!r}: not a language of the declaration.")
    if "view" in params:
        if params["view"] == "counts":
            out["view"] = "counts"
        else:
            msgs.append(f"Ignored view={str(params['view'])[:40]!r}: use counts.")
    return out, msgs


def link_params(tokenizers: Sequence[str], default: Sequence[str], sort: Optional[str], held: Optional[str],
                counts: bool) -> dict[str, str]:
    """The parameters that reopen this view (defaults left out)."""
    out: dict[str, str] = {}
    if list(tokenizers) != list(default):
        out["tokenizers"] = ",".join(tokenizers)
    if sort:
        out["sort"] = sort
    if held and held != BASELINE:
        out["held"] = held
    if counts:
        out["view"] = "counts"
    return out
