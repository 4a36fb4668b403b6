"""Pure helpers that turn engine data into what pages draw, and settings into widget values.

No Streamlit here: every function is testable without a browser or an AppTest.

Not here: state (state.py), training (training.py), the algorithms (core/).
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Mapping, Optional

from core.corpus import CorpusStats, WordCounts
from core.trainer import Trace, TrainConfig
from playground.spans import show_whitespace

if TYPE_CHECKING:   # imported where a frame is made: a new server's first page needs none (startup.import_later)
    import pandas as pd

PREVIEW_CHARS = 20_000      # views that draw corpus text draw at most this much of it
TABLE_ROWS = 2_000          # word-frequency rows shown; the rest is summarized

# Widget fields per trainer, in the order the corpus page draws them.
COMMON_FIELDS = ("vocab_size", "pre_tokenizer", "normalizer", "tie_break", "min_frequency")
MODEL_FIELDS = {"bpe": ("end_of_word",), "bbpe": (), "wordpiece": ("score",)}
MORE_FIELDS = ("special_tokens", "unk_token", "max_merges", "keep_newlines")


def fields_for(model: str) -> tuple[str, ...]:
    return COMMON_FIELDS[:1] + MODEL_FIELDS[model] + COMMON_FIELDS[1:] + MORE_FIELDS


def widget_key(model: str, field: str) -> str:
    """widget_key("bpe", "vocab_size") == "corpus_bpe_vocab_size"."""
    return f"corpus_{model}_{field}"


def config_to_widgets(config: TrainConfig) -> dict[str, Any]:
    """Widget values (by field) for a config: tuples as comma-separated text, None as "" or 0.
    config_to_widgets(TrainConfig(model="bpe", special_tokens=("<s>", "</s>")))["special_tokens"]
        == "<s>, </s>"
    """
    cfg = config.resolved()
    values: dict[str, Any] = {
        "vocab_size": cfg.vocab_size, "pre_tokenizer": cfg.pre_tokenizer, "normalizer": cfg.normalizer,
        "tie_break": cfg.tie_break, "min_frequency": cfg.min_frequency,
        "special_tokens": ", ".join(cfg.special_tokens), "unk_token": cfg.unk_token or "",
        "max_merges": cfg.max_merges or 0, "keep_newlines": bool(cfg.keep_newlines),
    }
    if cfg.model == "bpe":
        values["end_of_word"] = cfg.end_of_word
    if cfg.model == "wordpiece":
        values["score"] = cfg.score
    return {f: values[f] for f in fields_for(cfg.model)}


def widgets_to_config(model: str, values: Mapping[str, Any], base: Optional[TrainConfig] = None) -> TrainConfig:
    """The inverse of config_to_widgets; fields not given keep `base`'s value (e.g. top_k)."""
    cfg = base or TrainConfig(model=model)
    changes: dict[str, Any] = {}
    for f, v in values.items():
        if f == "special_tokens":
            v = tuple(t.strip() for t in str(v).split(",") if t.strip())
        elif f == "unk_token":
            v = str(v).strip() or None
        elif f == "max_merges":
            v = int(v) or None
        elif f in ("vocab_size", "min_frequency"):
            v = int(v)
        elif f == "keep_newlines":
            v = bool(v)
        changes[f] = v
    return replace(cfg, model=model, **changes)


def table_stats(wc: WordCounts) -> CorpusStats:
    """Statistics of a word-count table: characters and bytes of its words counted as often as
    they occur (no separators), no lines."""
    chars = sum(len(w) * c for w, c in zip(wc.words, wc.counts))
    nbytes = sum(len(w.encode("utf-8", "surrogatepass")) * c for w, c in zip(wc.words, wc.counts))
    alphabet = set()
    for w in wc.words:
        alphabet.update(w)
    return CorpusStats(characters=chars, bytes=nbytes, lines=0, words=wc.total,
                       unique_words=len(wc), alphabet_size=len(alphabet))


_MD_SPECIAL = set("\\`*_{}[]()#+-.!|<>~$:=&/")
# What Streamlit's Markdown rewrites in the parsed text, after escapes are read (so a backslash
# cannot stop it): `:streamlit:` (its logo), `->` `<-` `--` `>=` `<=` `~=` (arrows and dashes),
# `http://`, `www.` and e-mail addresses (links). An invisible word joiner inside each keeps it text.
_REWRITTEN = re.compile(r"(?<=:)(?=streamlit:)|(?<=[-<])(?=[->])|(?<=[<>~])(?==)|(?=://)|(?<=[Ww]{3})(?=\.)|(?=@)")
WORD_JOINER = "\u2060"


def md_escape(text: str) -> str:
    """User text placed in Markdown, shown literally: md_escape("a*b*") == "a\\*b\\*".
    `&` too, so that "&lt;" shows as typed rather than as "<"; `/` too, because Streamlit turns
    `:material/` into an icon's name in the source, before escapes are read; a word joiner
    (invisible) inside what Streamlit rewrites after them (_REWRITTEN): "a -> b" stays an arrow
    of two characters, "www.x.org" text and not a link."""
    text = _REWRITTEN.sub(WORD_JOINER, text)
    return "".join("\\" + c if c in _MD_SPECIAL else c for c in text)


def ignored_link_message(names, shown: int = 5, length: int = 30) -> str:
    """The message for link parameters a page does not read (Markdown, escaped):
    ignored_link_message(["step"]) == "Ignored the link parameter step: this page reads no link parameters."
    """
    cut = [n if len(n) <= length else n[:length] + "…" for n in list(names)[:shown]]
    listed = ", ".join(md_escape(n) for n in cut) + (", …" if len(names) > shown else "")
    noun = "parameter" if len(names) == 1 else "parameters"
    return f"Ignored the link {noun} {listed}: this page reads no link parameters."


def show_spaces(word: str) -> str:
    """Make leading/trailing whitespace visible in a table cell, with the app's one glyph set
    (spans.show_whitespace): show_spaces(" the") == "⋅the"."""
    return show_whitespace(word)


def word_frequency_frame(wc: WordCounts, limit: int = TABLE_ROWS) -> tuple[pd.DataFrame, bool]:
    """The most frequent words first (ties in first-appearance order), at most `limit` rows.
    Returns (frame, truncated). Columns: word, count, share (% of all word occurrences)."""
    order = sorted(range(len(wc)), key=lambda i: -wc.counts[i])[:limit]
    total = max(wc.total, 1)
    import pandas as pd
    frame = pd.DataFrame({
        "word": [show_spaces(wc.words[i]) for i in order],
        "count": [wc.counts[i] for i in order],
        "share %": [round(100 * wc.counts[i] / total, 3) for i in order],
    })
    return frame, len(wc) > limit


def preview(text: str, limit: int = PREVIEW_CHARS) -> tuple[str, bool]:
    """At most the first `limit` characters of a text, and whether it was cut."""
    return text[:limit], len(text) > limit


def trace_summary(trace: Trace, first: int = 8) -> dict[str, Any]:
    """One line of facts about a trace for summaries: merges, vocabulary, first merges, why it stopped.
    Byte-level tokens are read as their bytes say (labels.readable: `分`, `⟨E5⟩⟨88⟩`), not as GPT-2 spells them."""
    if trace.config.byte_level:
        from core.encoders import TrainedTokenizer
        from playground.labels import readable
        tok = TrainedTokenizer.from_trace(trace)
        made = [readable(tok.token_bytes(s.id), compact=True) for s in trace.steps[:first]]
    else:
        made = [s.token for s in trace.steps[:first]]
    return {
        "merges": len(trace.steps),
        "vocabulary": len(trace.vocab),
        "first merges": " · ".join(made) + (" …" if len(trace.steps) > first else ""),
        "stopped because": trace.stop_reason,
    }


def merges_frame(trace: Trace, limit: int = 50) -> pd.DataFrame:
    """The first `limit` merges as a table: step, pair, token, id, count, score (WordPiece), tied."""
    rows = []
    for s in trace.steps[:limit]:
        rows.append({"step": s.index, "pair": f"{s.pair[0]} + {s.pair[1]}", "token": s.token, "id": s.id,
                     "count": s.count, "score": None if s.score is None else float(s.score), "tied": s.tied})
    import pandas as pd
    frame = pd.DataFrame(rows, columns=["step", "pair", "token", "id", "count", "score", "tied"])
    if trace.config.model != "wordpiece":
        frame = frame.drop(columns="score")   # BPE has no score, only counts
    return frame


# ---------------------------------------------------------------- hints for the Corpus page

UNSPACED_MIN_CHARS = 6      # a "word" this long that is a whole line: likely a sentence without spaces
UNSPACED_SHARE = 0.5        # this share of such lines: the hint appears


def unspaced_share(text: str, max_lines: int = 2_000) -> float:
    """Of the text's non-empty lines (the first `max_lines`), the share that are a single long
    whitespace-separated word: high for Chinese or Japanese split at spaces.
    unspaced_share("分词是自然语言处理的第一步。\\nhello world") == 0.5"""
    lines = [ln for ln in text.splitlines()[:max_lines] if ln.strip()]
    if not lines:
        return 0.0
    single = sum(1 for ln in lines if len(ln.split()) == 1 and len(ln.strip()) >= UNSPACED_MIN_CHARS)
    return single / len(lines)


def looks_unspaced(share: float, pre_tokenizer: str) -> bool:
    """Whether the Corpus page should offer per-character or jieba splitting instead, for a text
    whose unspaced_share is `share`."""
    return pre_tokenizer == "whitespace" and share >= UNSPACED_SHARE


FIT_MERGES = 200            # a corpus's default vocabulary: its alphabet plus this many merges


def fitted_vocab_size(base: int, merges: int = FIT_MERGES) -> int:
    """A vocabulary size that leaves room for `merges` merges over a base of `base` tokens."""
    return base + merges


ALPHABET_CAPTION = ("Why the three start from different alphabets: BPE's symbols are the corpus's characters, "
                    "plus `</w>` when word ends are a symbol of their own, or a second form `e</w>` of each "
                    "character that ends a word; WordPiece has each character that starts a word and, again, "
                    "each character inside a word as a `##` continuation (`##e`); byte-level BPE always "
                    "starts from the 256 bytes. Special tokens and the unknown token come on top.")
