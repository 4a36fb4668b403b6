"""Pure helpers of the Compare page: which tokenizers can be compared, what each one's encoding
(Over 400 lines: the Compare page's choices, the picker's table, statistics, panels, chat panels and
encoder differences, with the link parameters that reopen the view; each part small, all about one page.)
costs in tokens, and where the three encoders of one vocabulary split words differently.

    tokenizer_choices(["bbpe"], ["gpt2"], [])   -> Choice per trained model × encoder, pretrained, imported
    default_selection(choices)                  -> trained BBPE + GPT-2 + o200k + BERT (when there)
    encode_choice(tokenizer, choice, text)      -> Encoding (EncodeError when it cannot cover the text)
    encoding_stats(text, enc)                   -> tokens, characters and bytes per token
    encoder_differences(tokenizer, text)        -> the words merges / greedy / longest-match split differently
    info_rows(chosen, tokenizer_of)             -> family, vocabulary size, package, licence per tokenizer
    missing_note(pretrained_unavailable())      -> what is not installed, and how to install it
    chat_results(chosen, tokenizer_of, msgs)    -> each model's chat string, tokens, OpenAI's rule count
    render_panel(...), render_splits_table(...) -> escaped HTML for st.html (styled by style.css)

No Streamlit here (the page caches and draws): every function is testable without a browser.
Not here: token spans and boundaries (spans.py), the encoders themselves (core/encoders.py).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Optional, Sequence

from core.chat import FORMAT_OF, Chat, chat_pieces, encode_chat, openai_chat_token_count
from core.encoders import ENCODERS, TrainedTokenizer
from core.encoding import Encoding
from core.errors import PlaygroundError
from core.pretrained import pretrained_info, pretrained_unavailable
from core.trainer import MODEL_LABELS
from core.pipeline import normalize_aligned, pre_tokenize

from playground import markup, views
from playground.spans import MAX_DRAWN_CHARS, PALETTE, render_chunks, show_whitespace, token_label

MAX_TOKENIZERS = 14         # every pretrained tokenizer at once (13 shown side by side in the issue)
MAX_DIFF_ROWS = 200         # rows of the encoder-difference table drawn

PRETRAINED_LABELS = {
    "gpt2": "GPT-2",
    "cl100k_base": "cl100k_base (GPT-4)",
    "o200k_base": "o200k_base (GPT-4o)",
    "qwen2.5": "Qwen 2.5",
    "bert-base-uncased": "BERT base uncased",
}
UNIGRAM = "unigram"         # state.UNIGRAM: a trained Unigram's choice is "trained:unigram"
ENCODER_LABELS = {"merges": "merges", "greedy": "greedy (seed 002)", "longest-match": "longest-match"}
DEFAULT_TRAINED = ("trained:bbpe:merges",)
DEFAULT_PRETRAINED = ("pretrained:gpt2", "pretrained:o200k_base", "pretrained:bert-base-uncased")
DEFAULT_PRETRAINED_ONLY = ("pretrained:gpt2", "pretrained:cl100k_base", "pretrained:o200k_base",
                           "pretrained:bert-base-uncased")

# Sample texts: each one shows something tokenizers disagree on.
SAMPLES: dict[str, str] = {
    "Mixed": ("Tokenizers split text into pieces. 分词是第一步。\n"
              "Emoji: 👨‍👩‍👧‍👦 🏳️‍🌈 👍🏽  Code: for i in range(10):\n"
              "    print(f\"{i:>3}\")   # indented\n"),
    "English": ("A tokenizer is the first thing a language model sees and the last thing most people "
                "think about. Before a single weight is multiplied, the text is cut into pieces, and "
                "each piece is replaced by a number. Unbelievably, tokenization's quirks matter!"),
    "Chinese": ("分词是自然语言处理的第一步。计算机并不认识文字，它只认识数字，所以我们要先把一句话切成"
                "一个个小片段，再给每个片段一个编号。中文的字与字之间没有空格。"),
    "Emoji (ZWJ, flags, skin tones)": (
        "Family: 👨‍👩‍👧‍👦 (four people, three zero-width joiners)\n"
        "Flags: 🏳️‍🌈 🇫🇷 🇯🇵  Skin tones: 👍🏽 👩🏾‍💻  Others: 🧑‍🚀 ❤️‍🔥 😀\n"
        "Accents: café naïve, cafe\u0301 with a combining accent."),
    "Python code": ('def pair_counts(words: dict[tuple[str, ...], int]) -> Counter:\n'
                    '    """Count adjacent symbol pairs."""\n'
                    '    counts = Counter()\n'
                    '    for symbols, freq in words.items():\n'
                    '        for left, right in zip(symbols, symbols[1:]):\n'
                    '            counts[(left, right)] += freq\n'
                    '    return counts\n'),
    "Whitespace runs": ("one space, two  spaces, four    spaces,\ttab,\t\ttwo tabs\n"
                        "\n"
                        "        eight spaces of indentation\n"
                        "trailing spaces   \n"
                        "\r\nWindows line break above\n"),
    "Special tokens": ("<|endoftext|>Story ends.<|im_start|>user\nHi!<|im_end|>\n"
                       "[CLS] bert reads this [SEP] <s>[INST] and Mistral this [/INST]</s>\n"
                       "<|begin_of_text|><|start_header_id|>user<|end_header_id|> Llama's 1234567 tokens"),
    "HTML (shown, never run)": ('<img src=x onerror=alert(1)> <script>alert(1)</script> '
                                '<svg onload=alert(1)> <iframe srcdoc="<script>alert(1)</script>"> '
                                '"><b>x</b> & &amp; &lt;'),
}
DEFAULT_SAMPLE = "Mixed"


# ---------------------------------------------------------------- choices

@dataclass(frozen=True)
class Choice:
    """One tokenizer the page can show. key: "trained:bbpe:merges" | "pretrained:gpt2" | "imported:NAME"."""
    key: str
    label: str
    kind: str                       # trained | pretrained | imported
    source: str                     # model, pretrained name or imported name
    encoder: Optional[str] = None   # trained: merges | greedy | longest-match


def trained_key(model: str, encoder: str) -> str:
    return f"trained:{model}:{encoder}"


def tokenizer_choices(trained_models: Iterable[str], pretrained: Iterable[str],
                      imported: Iterable[str], default_encoders: Optional[Mapping[str, str]] = None) -> list[Choice]:
    """Every tokenizer on offer, trained first (each with each encoder, its default encoder first),
    then pretrained, then imported files.

    tokenizer_choices(["bpe"], ["gpt2"], [])[0].label == "BPE · merges"
    """
    default_encoders = default_encoders or {}
    out = []
    for model in trained_models:
        if model == UNIGRAM:   # one encoder of its own (Viterbi over its scored pieces)
            out.append(Choice(f"trained:{model}", "Unigram · Viterbi", "trained", model))
            continue
        default = default_encoders.get(model, "longest-match" if model == "wordpiece" else "merges")
        for enc in sorted(ENCODERS, key=lambda e: e != default):
            out.append(Choice(trained_key(model, enc), f"{MODEL_LABELS.get(model, model)} · {ENCODER_LABELS[enc]}",
                              "trained", model, enc))
    for name in pretrained:
        out.append(Choice(f"pretrained:{name}", pretrained_label(name), "pretrained", name))
    for name in imported:
        out.append(Choice(f"imported:{name}", f"{name} (imported)", "imported", name))
    return out


def pretrained_label(name: str) -> str:
    """pretrained_label("gpt2") == "GPT-2"; a name without a short label gets its catalog label."""
    if name in PRETRAINED_LABELS:
        return PRETRAINED_LABELS[name]
    try:
        return pretrained_info(name).label
    except PlaygroundError:
        return name


def default_selection(choices: Sequence[Choice]) -> list[str]:
    """Trained byte-level BPE + GPT-2 + o200k + BERT when trained results exist; only pretrained
    ones otherwise (GPT-2, cl100k, o200k, BERT); those that are on offer, at most MAX_TOKENIZERS."""
    keys = [c.key for c in choices]
    trained = any(c.kind == "trained" for c in choices)
    wanted = DEFAULT_TRAINED + DEFAULT_PRETRAINED if trained else DEFAULT_PRETRAINED_ONLY
    picked = [k for k in wanted if k in keys]
    if not picked:   # nothing of the usual set installed: the first few on offer
        picked = keys[:4]
    return picked[:MAX_TOKENIZERS]


def valid_selection(selected: Optional[Iterable[str]], choices: Sequence[Choice]) -> list[str]:
    """The selected keys still on offer, in order, at most MAX_TOKENIZERS (results or imports change)."""
    keys = {c.key for c in choices}
    out = []
    for k in selected or ():
        if k in keys and k not in out:
            out.append(k)
    return out[:MAX_TOKENIZERS]


@dataclass(frozen=True)
class EncodeOptions:
    """How the text is encoded: special-token spellings in it recognised (tiktoken's
    allowed_special="all") or plain text (its default, encode_ordinary); each model's BOS/EOS/CLS/SEP
    added or not."""
    recognize_special_tokens: bool = False
    add_special_tokens: bool = False


@dataclass(frozen=True)
class PanelView:
    """How the token boxes are drawn (the page's view options): ids instead of strings, whitespace
    made visible, the bytes of one character grouped, the pre-tokenizer's chunks above."""
    show_ids: bool = False
    whitespace: bool = False
    grouped: bool = False
    chunks: bool = False


def encode_choice(tokenizer, choice: Choice, text: str, options: EncodeOptions = EncodeOptions()) -> Encoding:
    """Encode with the choice's tokenizer (and encoder, for a trained one). A trained tokenizer's
    default encoder runs in HF's runtime where that encodes identically (encode_fast); the others
    run the project's readable encoders. Raises core.errors.EncodeError when the text cannot be
    covered (greedy or longest-match without an unknown token)."""
    return tokenizer.with_encoder(choice.encoder).encode(
        text, add_special_tokens=options.add_special_tokens,
        recognize_special_tokens=options.recognize_special_tokens)


# ---------------------------------------------------------------- what each tokenizer is

@dataclass(frozen=True)
class InfoRow:
    label: str
    family: str
    vocab_size: int                  # the id range (largest id + 1)
    package: str
    licence: str
    n_tokens: Optional[int] = None   # how many tokens, when ids are unassigned (None: vocab_size)


def info_row(choice: Choice, tokenizer_of: Callable[[Choice], object]) -> InfoRow:
    """A pretrained tokenizer's row comes from the catalog (nothing loaded); a trained or imported
    one's from the tokenizer object."""
    if choice.kind == "pretrained":
        info = pretrained_info(choice.source)
        return InfoRow(choice.label, info.family, info.vocab_size, info.package, info.licence)
    tok = tokenizer_of(choice)
    package = "trained here" if choice.kind == "trained" else "your file"
    licence = "yours" if choice.kind == "trained" else "whatever its author chose"
    n_tokens = tok.n_tokens if tok.n_tokens != tok.vocab_size else None
    return InfoRow(choice.label, tok.family, tok.vocab_size, package, licence, n_tokens)


def info_rows(chosen: Sequence[Choice], tokenizer_of: Callable[[Choice], object]) -> list[InfoRow]:
    return [info_row(c, tokenizer_of) for c in chosen]


def _words(text: str) -> str:
    """Escaped `text` that a narrow column may wrap between its words but never inside one (not
    at the hyphen of "byte-level" or "GPT-4o")."""
    return " ".join(f'<span class="tp-nw">{markup.text(w)}</span>' for w in text.split(" "))


def _package_cell(package: str) -> str:
    """A pin such as `openai-whisper==20250625`, free to break after its `==` (and, as text does,
    after a hyphen): on a narrow column the table wraps there instead of leaving the page."""
    name, pin, version = package.partition("==")
    return markup.text(name + pin) + ("<wbr>" + markup.text(version) if pin else "")


def _vocabulary_cell(row: InfoRow) -> str:
    """How many tokens; with unassigned ids, their range too: "3 (ids 0–9)"."""
    if row.n_tokens is None or row.n_tokens == row.vocab_size:
        return f"{row.vocab_size:,}"
    return f"{row.n_tokens:,} (ids 0–{row.vocab_size - 1:,})"


def render_info_table(rows: Sequence[InfoRow]) -> str:
    """The chosen tokenizers' family, vocabulary size, package and licence: an escaped HTML table."""
    head = "".join(f"<th>{h}</th>" for h in ("Tokenizer", "Family", "Vocabulary", "Package", "Licence"))
    body = "".join(
        f'<tr><td class="tp-info-name">{_words(r.label)}</td><td>{_words(r.family)}</td>'
        f'<td class="tp-n">{_vocabulary_cell(r)}</td><td class="tp-pkg">{_package_cell(r.package)}</td>'
        f"<td>{markup.text(r.licence)}</td></tr>" for r in rows)
    return f'<table class="tp-info"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def missing_note(unavailable: Optional[Sequence[tuple[str, str]]] = None) -> str:
    """Markdown: the pretrained tokenizers hidden because their package is missing, and the command
    that installs each package (once). "" when everything is installed.

    missing_note([("llama3", "pip install --no-deps llama-models==0.3.0"), ("llama4", "... the same")])
        == "Not installed here, so not offered: Llama 3, Llama 4. To add them: `pip install ...`."
    """
    if unavailable is None:
        unavailable = pretrained_unavailable()
    if not unavailable:
        return ""
    names = ", ".join(views.md_escape(pretrained_label(n)) for n, _ in unavailable)
    commands = " · ".join(f"`{c}`" for c in dict.fromkeys(c for _, c in unavailable))
    return f"Not installed here, so not offered: {names}. To add them: {commands}."


def render_chunks_block(tokenizer, text: str, *, visible_whitespace: bool = False,
                        max_chars: int = MAX_DRAWN_CHARS) -> str:
    """What goes above a panel's tokens when pre-tokenization is shown: a label (how many chunks,
    what the pre-tokenizer does, from tokenizer.front), the chunks over the normalized text
    (spans.render_chunks), and a label for the tokens below. Escaped HTML; never raises."""
    try:
        front = tokenizer.front(text)
    except PlaygroundError as e:
        return f'<div class="tp-label">{markup.text(f"Pre-tokenization: cannot show it ({e}).")}</div>'
    drawn, _ = render_chunks(front, visible_whitespace=visible_whitespace, max_chars=max_chars)
    n = len(front.chunks)
    label = f"Pre-tokenization: {n:,} chunk{'' if n == 1 else 's'} · {front.pre_tokenizer}"
    return f'<div class="tp-label">{markup.text(label)}</div>{drawn}<div class="tp-label">Tokens</div>'


# ---------------------------------------------------------------- chat mode

CHAT_ROLES = ("system", "user", "assistant", "user")   # the page's message boxes, in order
CHAT_TITLES = ("System", "User", "Assistant", "User (again)")
DEFAULT_CHAT = ("You are a helpful assistant.", "How many tokens is this?", "About a dozen.", "")
OPENAI_RULE = ("cl100k_base", "o200k_base", "o200k_harmony")   # OpenAI's per-message rule applies


def chat_messages(contents: Sequence[str]) -> list[dict]:
    """The page's message boxes as messages; an empty box is left out."""
    return [{"role": r, "content": c} for r, c in zip(CHAT_ROLES, contents) if c]


@dataclass(frozen=True)
class ChatResult:
    choice: Choice
    fmt: Optional[str]                  # the model's chat format (None: it has none)
    chat: Optional[Chat] = None         # the rendered chat and its tokens
    pieces: tuple = ()                  # the chat string as (text, is a special token) pieces
    rule_count: Optional[int] = None    # OpenAI's per-message rule, for OpenAI encodings
    error: str = ""

    @property
    def count(self) -> Optional[int]:
        return len(self.chat.encoding.ids) if self.chat is not None else self.rule_count


def chat_result(choice: Choice, tokenizer, messages: Sequence[dict]) -> ChatResult:
    """One tokenizer's chat: rendered in its own format (core.chat.FORMAT_OF) and encoded; for an
    OpenAI encoding also the count by OpenAI's published per-message rule. Never raises."""
    name = choice.source if choice.kind == "pretrained" else None
    fmt = FORMAT_OF.get(name) if name else None
    try:
        chat = encode_chat(tokenizer, messages, fmt) if fmt else None
        pieces = tuple(chat_pieces(messages, fmt)) if fmt else ()
        rule = openai_chat_token_count(messages, name) if name in OPENAI_RULE else None
    except PlaygroundError as e:
        return ChatResult(choice, fmt, error=str(e))
    return ChatResult(choice, fmt, chat, pieces, rule)


def render_chat_string(pieces: Sequence[tuple[str, bool]], visible_whitespace: bool = True) -> str:
    """The rendered chat string as escaped HTML, each special token (<|im_start|>, [INST], <s>) in a
    box of its own, the text between them as typed (line breaks shown as ↵ by default)."""
    out = []
    for text, special in pieces:
        shown = markup.text(show_whitespace(text) if visible_whitespace else text)
        if visible_whitespace:
            shown = shown.replace("↵", "↵\n")
        out.append(f'<span class="tp-sp">{shown}</span>' if special else shown)
    return f'<div class="tp-plain tp-chat-string">{"".join(out)}</div>'


def chat_results(chosen: Sequence[Choice], tokenizer_of: Callable[[Choice], object],
                 messages: Sequence[dict]) -> list[ChatResult]:
    out = []
    for c in chosen:
        try:
            tokenizer = tokenizer_of(c)
        except PlaygroundError as e:     # a file that fails its check: said in this chat's panel
            out.append(ChatResult(c, None, error=str(e)))
            continue
        out.append(chat_result(c, tokenizer, messages))
    return out


def chat_header(result: ChatResult) -> str:
    """The panel header of one chat: name, format, token count, and OpenAI's rule when it applies.
    Escaped HTML."""
    parts = [f'<span class="tp-name">{markup.text(result.choice.label)}</span>']
    if result.fmt:
        parts.append(f'<span class="tp-stat">format <b>{markup.text(result.fmt)}</b></span>')
    if result.chat is not None:
        n = len(result.chat.encoding.ids)
        parts.append(f'<span class="tp-stat tp-count"><b>{n:,}</b> {"token" if n == 1 else "tokens"}</span>')
    if result.rule_count is not None:
        if result.chat is None:
            parts.append(f'<span class="tp-stat tp-count tp-rule"><b>{result.rule_count:,}</b> tokens by '
                         "OpenAI's per-message rule</span>")
        else:
            same = result.rule_count == len(result.chat.encoding.ids)
            parts.append(f'<span class="tp-stat tp-rule">{"= " if same else "≠ "}OpenAI\'s per-message rule '
                         f"(<b>{result.rule_count:,}</b>){' ✓' if same else ''}</span>")
    return f'<div class="tp-head">{"".join(parts)}</div>'


def render_chat_body(result: ChatResult, tokens_html: str) -> str:
    """A chat panel's body: the rendered string (special tokens boxed), then its tokens
    (`tokens_html`: spans.render_tokens of the chat's encoding, already escaped)."""
    return render_chat_string(result.pieces) + '<div class="tp-label">Tokens</div>' + tokens_html


def render_chat_panel(result: ChatResult, body: str = "", max_height: Optional[str] = "22rem") -> str:
    """A chat panel for st.html: header, then `body` (the chat's tokens from spans.render_tokens)."""
    height = f' style="max-height:{max_height}"' if max_height else ""
    if result.chat is None and result.rule_count is not None:
        body = body or ('<div class="tp-note">No chat string: OpenAI does not publish this model\'s; the rule '
                        "counts 3 tokens per message plus its role and content, and 3 to prime the reply.</div>")
    return (f'<div class="tp-panel tp-chat" data-tokenizer="{markup.text(result.choice.key)}">'
            f'{chat_header(result)}<div class="tp-scroll"{height}>{body}</div></div>')


# ---------------------------------------------------------------- statistics

@dataclass(frozen=True)
class Stats:
    tokens: int
    characters: int
    bytes: int

    @property
    def chars_per_token(self) -> float:
        return self.characters / self.tokens if self.tokens else 0.0

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0


def encoding_stats(text: str, enc: Encoding) -> Stats:
    """Token count, and the text's characters and UTF-8 bytes (per token: the properties).
    encoding_stats("héllo", enc with 2 tokens) -> Stats(2, 5, 6): 2.5 chars/token, 3.0 bytes/token."""
    return Stats(tokens=len(enc.ids), characters=len(text),
                 bytes=len(text.encode("utf-8", "surrogatepass")))


NO_RATIO = "—"   # a ratio with no tokens (empty text) has no value: never "0.00 chars/token"


def ratio(value: float, tokens: int) -> str:
    """ratio(3.25, 4) == "3.25"; ratio(0.0, 0) == "—"."""
    return f"{value:.2f}" if tokens else NO_RATIO


def stats_line(stats: Stats) -> str:
    """stats_line(Stats(4, 13, 13)) == "4 tokens · 3.25 chars/token · 3.25 bytes/token";
    with no tokens: "0 tokens · — chars/token · — bytes/token"."""
    noun = "token" if stats.tokens == 1 else "tokens"
    return (f"{stats.tokens:,} {noun} · {ratio(stats.chars_per_token, stats.tokens)} chars/token · "
            f"{ratio(stats.bytes_per_token, stats.tokens)} bytes/token")



def byte_pieces_note(enc: Encoding, max_chars: int = MAX_DRAWN_CHARS) -> str:
    """What a panel drawn ungrouped says when some box it draws is part of a character's UTF-8
    bytes (a byte-level tokenizer cut inside 分: `<0xE5><0x88>`, `<0x86>`): what those boxes are,
    and the toggle that draws each character whole. "" when every drawn box is whole text.
    Only the tokens drawn (starting before `max_chars`) count; each distinct token is decoded once."""
    whole: set[bytes] = set()
    for data, (start, _) in zip(enc.token_bytes, enc.offsets):
        if start >= max_chars:
            break
        if not data or data in whole:
            continue
        label, is_bytes = token_label("", data)
        if is_bytes:
            return (f"Boxes like {label} are UTF-8 bytes of one character, cut apart: no character is "
                    "unknown to this tokenizer. Group bytes shows each character whole.")
        whole.add(data)
    return ""

# ---------------------------------------------------------------- panels

def render_header(choice: Choice, stats: Optional[Stats]) -> str:
    """The compact header row of a panel: name, then token count, chars/token, bytes/token."""
    parts = [f'<span class="tp-name">{markup.text(choice.label)}</span>']
    if stats is not None:
        noun = "token" if stats.tokens == 1 else "tokens"
        parts += [f'<span class="tp-stat tp-count"><b>{stats.tokens:,}</b> {noun}</span>',
                  f'<span class="tp-stat"><b>{ratio(stats.chars_per_token, stats.tokens)}</b> chars/token</span>',
                  f'<span class="tp-stat"><b>{ratio(stats.bytes_per_token, stats.tokens)}</b> bytes/token</span>']
    return f'<div class="tp-head">{"".join(parts)}</div>'


def render_panel(choice: Choice, stats: Optional[Stats], body: str = "", *, max_height: Optional[str] = "22rem",
                 note: str = "") -> str:
    """A tokenizer's panel for st.html: header row, then `body` (already escaped HTML from
    spans.render_tokens) in a box that scrolls past `max_height`, then an optional plain-text note.
    The choice's key goes in data-tokenizer (escaped: an imported file's name is user text)."""
    height = f' style="max-height:{max_height}"' if max_height else ""
    note_html = f'<div class="tp-note">{markup.text(note)}</div>' if note else ""
    return (f'<div class="tp-panel" data-tokenizer="{markup.text(choice.key)}">'
            f'{render_header(choice, stats)}<div class="tp-scroll"{height}>{body}</div>{note_html}</div>')


# ---------------------------------------------------------------- encoder differences

@dataclass(frozen=True)
class Piece:
    """One token of a word's split as shown: its label, and whether the vocabulary has it."""
    label: str
    known: bool = True
    partial: bool = False     # a byte-level token that is not whole UTF-8 (shown as <0xE4>…)


@dataclass(frozen=True)
class WordSplit:
    word: str                                  # the word as encoding sees it (normalized)
    count: int                                 # occurrences in the text
    splits: tuple[tuple[Piece, ...], ...]      # one per encoder, in ENCODERS order

    def split_of(self, encoder: str) -> tuple[Piece, ...]:
        return self.splits[ENCODERS.index(encoder)]


@dataclass(frozen=True)
class EncoderDifferences:
    rows: tuple[WordSplit, ...]        # words some encoder splits differently, most frequent first
    distinct_words: int                # distinct words in the text
    differ_from_merges: Mapping[str, int]   # encoder -> distinct words it splits unlike merges


def _piece(tokenizer: TrainedTokenizer, tok: Optional[str], plain: str) -> Piece:
    if tok is None:
        unk = tokenizer.unk_token
        return Piece(unk if unk and unk in tokenizer.vocab_ids else f"?{show_whitespace(plain)}", known=False)
    if tokenizer.byte_level:
        label, partial = token_label(tok, tokenizer.token_bytes(tokenizer.token_to_id(tok)))
        return Piece(show_whitespace(label), partial=partial)
    return Piece(show_whitespace(tok))


def encoder_differences(tokenizer: TrainedTokenizer, text: str) -> EncoderDifferences:
    """Split every distinct word of `text` (as the tokenizer's normalizer and pre-tokenizer cut it)
    with merges, greedy and longest-match; keep the words where the splits are not all equal.

    A piece the vocabulary cannot cover is the unknown token when there is one, else `?piece`
    (where encode() would refuse the whole text). Byte-level tokens show as text, a partial UTF-8
    one as <0xE4>…; whitespace shows as ⋅ → ↵. With a BPE vocabulary trained on "low lower lowest",
    "lowest" may be `low·est` by merges but `lowe·st` by greedy: that word is a row.
    """
    config = tokenizer.config
    norm, _ = normalize_aligned(text, config.normalizer)
    counts: dict[str, int] = {}
    for _, (s, e) in pre_tokenize(norm, config.pre_tokenizer):
        plain = norm[s:e]
        counts[plain] = counts.get(plain, 0) + 1
    rows = []
    differ = {e: 0 for e in ENCODERS if e != "merges"}
    for plain, count in counts.items():
        units = tokenizer.word_units(plain)
        if not units:
            continue
        # where each unit sits in the word (a byte unit covers its whole character): the encoder's
        # own mapping, so an unknown piece is labelled with exactly the text encode() would name
        spans = tokenizer._unit_char_spans(plain, units)
        splits = []
        for encoder in ENCODERS:
            runs = tokenizer.encode_units(units, encoder, len(plain))
            splits.append(tuple(_piece(tokenizer, tok, plain[spans[s][0]:spans[e - 1][1]]) for s, e, tok in runs))
        for encoder in differ:
            if splits[ENCODERS.index(encoder)] != splits[0]:
                differ[encoder] += 1
        if any(sp != splits[0] for sp in splits[1:]):
            rows.append(WordSplit(plain, count, tuple(splits)))
    rows.sort(key=lambda r: -r.count)   # stable: ties keep first-appearance order
    return EncoderDifferences(tuple(rows), len(counts), differ)


def _pieces_html(pieces: Sequence[Piece]) -> str:
    out = []
    for k, p in enumerate(pieces):
        cls = "tp-p" + (" tp-unk" if not p.known else "") + (" tp-bytes" if p.partial else "")
        style = "" if not p.known else f' style="background:{PALETTE[k % 2 * 2]}"'   # two alternating fills
        out.append(f'<span class="{cls}"{style}>{markup.text(p.label)}</span>')
    return "".join(out)


def render_splits_table(diff: EncoderDifferences, limit: int = MAX_DIFF_ROWS) -> tuple[str, bool]:
    """The encoder-difference table as escaped HTML: word, count, merges, greedy, longest-match
    split (a cell equal to merges' split is greyed). Returns (html, truncated)."""
    head = "".join(f"<th>{markup.text(h)}</th>" for h in
                   ("word", "count", "merges split", "greedy split (seed 002)", "longest-match split"))
    body = []
    for row in diff.rows[:limit]:
        merges = row.split_of("merges")
        cells = [f'<td class="tp-w">{markup.text(show_whitespace(row.word))}</td>',
                 f'<td class="tp-n">{row.count:,}</td>',
                 f"<td>{_pieces_html(merges)}</td>"]
        for encoder in ("greedy", "longest-match"):
            split = row.split_of(encoder)
            cls = ' class="tp-same"' if split == merges else ""
            cells.append(f"<td{cls}>{_pieces_html(split)}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    table = f'<table class="tp-diff"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
    return table, len(diff.rows) > limit


# ---------------------------------------------------------------- the link (query parameters)

# ?text=…&tokenizers=pretrained:gpt2,trained:bbpe:merges&show=ids&layout=stacked&whitespace=1&group=1
#  &special=1 (special tokens in the text recognised) &add=1 (BOS/EOS added) &chunks=1 (pre-tokenization)
# A text longer than MAX_URL_TEXT goes by the digest it is kept under on this server (text_ref=<sha256>,
# playground/corpus_store.py). Values at their defaults are left out; nothing from a link is a path.
# files=<sha256>,<sha256>: the files of the chosen imported tokenizers, kept on this server
# (inspect_link.put_files), one slot per imported:NAME of `tokenizers` in the same order (empty when
# that one's files could not be kept): F5 or a copied link brings them back (link_imports).
URL_KEYS = ("text", "text_ref", "tokenizers", "files", "show", "layout", "whitespace", "group", "special", "add",
            "chunks", "tab", "system", "user", "assistant", "user2", "chat_ref")
MAX_URL_TEXT = 1500
MAX_LINK_TEXT = 100_000          # a longer text in a link is cut there
_HEX64 = re.compile(r"[0-9a-f]{64}")
SHOW_VALUES = {"tokens": "Tokens", "ids": "Ids"}
LAYOUT_VALUES = {"side": "Side by side", "stacked": "Stacked"}
TAB_VALUES = {"tokens": "Tokens", "boundaries": "Boundaries", "differences": "Encoder differences", "chat": "Chat"}
CHAT_PARAMS = ("system", "user", "assistant", "user2")   # the chat's boxes (CHAT_TITLES), each its parameter
_BOOL = {"1": True, "true": True, "on": True, "0": False, "false": False, "off": False}


@dataclass(frozen=True)
class CompareLink:
    """What a link asks the Compare page to show (None: not in the link)."""
    text: Optional[str] = None
    text_ref: Optional[str] = None          # a validated sha256 hex digest
    tokenizers: Optional[tuple[str, ...]] = None
    show: Optional[str] = None              # "Tokens" | "Ids"
    layout: Optional[str] = None            # "Side by side" | "Stacked"
    whitespace: Optional[bool] = None
    grouped: Optional[bool] = None
    recognize_special: Optional[bool] = None
    add_special: Optional[bool] = None
    chunks: Optional[bool] = None
    tab: Optional[str] = None               # a TAB_VALUES label
    chat: tuple[Optional[str], ...] = (None,) * len(CHAT_PARAMS)   # each chat box's text, None: not in the link
    chat_ref: Optional[str] = None          # a validated sha256 hex digest (chat_json's text, kept in the store)


def _quote(value: str, n: int = 40) -> str:
    return repr(value if len(value) <= n else value[:n] + "…")


def parse_link(params: Mapping[str, str], choices: Sequence[Choice]) -> tuple[CompareLink, list[str]]:
    """Read the Compare page's parameters; never raises. Returns the request and one line per
    value that was ignored (unknown tokenizer, bad digest, bad toggle), plain text.

    parse_link({"text": "hi", "show": "ids"}, []) -> (CompareLink(text="hi", show="Ids"), [])
    """
    out: dict = {}
    msgs: list[str] = []
    for name, what in (("text_ref", "text"), ("chat_ref", "chat")):   # what the store keeps, by digest
        if name in params:
            ref = params[name]
            if isinstance(ref, str) and _HEX64.fullmatch(ref):
                out[name] = ref
            else:
                msgs.append(f"Ignored {name}={_quote(str(ref))}: not a {what} reference (64 hexadecimal digits).")
    if "text" in params and "text_ref" not in out:
        out["text"] = str(params["text"])[:MAX_LINK_TEXT]
    if "chat_ref" not in out and any(name in params for name in CHAT_PARAMS):
        out["chat"] = tuple(None if name not in params else str(params[name])[:MAX_LINK_TEXT]
                            for name in CHAT_PARAMS)
    if "tokenizers" in params:
        keys = {c.key for c in choices}
        wanted, unknown = [], []
        for k in str(params["tokenizers"]).split(","):
            k = k.strip()
            if not k:
                continue
            (wanted if k in keys else unknown).append(k)
        if unknown:
            msgs.append("Not on offer here, left out: " + ", ".join(_quote(k) for k in unknown[:5])
                        + (" (train on the Corpus page, or import the file on the Inspect page)" if any(
                            k.startswith(("trained:", "imported:")) for k in unknown) else "") + ".")
        out["tokenizers"] = tuple(dict.fromkeys(wanted))[:MAX_TOKENIZERS]
    for name, table, field in (("show", SHOW_VALUES, "show"), ("layout", LAYOUT_VALUES, "layout"),
                               ("tab", TAB_VALUES, "tab")):
        if name in params:
            value = table.get(str(params[name]).lower())
            if value is None:
                msgs.append(f"Ignored {name}={_quote(str(params[name]))}: use one of {', '.join(table)}.")
            else:
                out[field] = value
    for name, field in (("whitespace", "whitespace"), ("group", "grouped"), ("special", "recognize_special"),
                        ("add", "add_special"), ("chunks", "chunks")):
        if name in params:
            value = _BOOL.get(str(params[name]).lower())
            if value is None:
                msgs.append(f"Ignored {name}={_quote(str(params[name]))}: use 1 or 0.")
            else:
                out[field] = value
    return CompareLink(**out), msgs


def ignored_params_message(names: Sequence[str], shown: int = 5, length: int = 30) -> str:
    """Parameters the Compare page does not read (Markdown, escaped):
    ignored_params_message(["step"]) == "Ignored the link parameter step: the Compare page reads text, ..."."""
    cut = [n if len(n) <= length else n[:length] + "…" for n in list(names)[:shown]]
    listed = ", ".join(views.md_escape(n) for n in cut) + (", …" if len(names) > shown else "")
    noun = "parameter" if len(names) == 1 else "parameters"
    return f"Ignored the link {noun} {listed}: the Compare page reads {', '.join(URL_KEYS)}."


def link_params(text: str, tokenizers: Optional[Sequence[str]], show: str, layout: str, whitespace: bool,
                grouped: bool, text_ref: Optional[str] = None, options: EncodeOptions = EncodeOptions(),
                chunks: bool = False, files: Optional[Mapping[str, str]] = None, tab: str = "Tokens",
                chat: Sequence[str] = DEFAULT_CHAT, chat_ref: Optional[str] = None) -> dict[str, str]:
    """The parameters that reopen this view. `tokenizers` None: the default selection (left out);
    `text_ref`: the digest a long text is kept under (then the text itself is left out); `files`:
    imported choice key -> the digest its files are kept under (files=, one slot per imported key);
    `tab`: the open tab; `chat`: the chat's boxes (each one that is not its default is written), or
    `chat_ref`: the digest they are kept under (chat_json) when too long for the address.

    link_params("hi", ["pretrained:gpt2"], "Ids", "Side by side", False, True)
        == {"text": "hi", "tokenizers": "pretrained:gpt2", "show": "ids", "group": "1"}
    """
    out: dict[str, str] = {}
    if text_ref:
        out["text_ref"] = text_ref
    elif text != SAMPLES[DEFAULT_SAMPLE]:
        out["text"] = text
    if tokenizers is not None:
        out["tokenizers"] = ",".join(tokenizers)
        slots = [(files or {}).get(k, "") for k in tokenizers if k.startswith("imported:")]
        if any(slots):
            out["files"] = ",".join(slots)
    if show != "Tokens":
        out["show"] = "ids"
    if layout != "Side by side":
        out["layout"] = "stacked"
    if whitespace:
        out["whitespace"] = "1"
    if grouped:
        out["group"] = "1"
    if options.recognize_special_tokens:
        out["special"] = "1"
    if options.add_special_tokens:
        out["add"] = "1"
    if chunks:
        out["chunks"] = "1"
    if tab != "Tokens":
        out["tab"] = next(slug for slug, label in TAB_VALUES.items() if label == tab)
    if chat_ref:
        out["chat_ref"] = chat_ref
    else:
        out.update((name, box) for name, box, default in zip(CHAT_PARAMS, chat, DEFAULT_CHAT) if box != default)
    return out


def chat_json(chat: Sequence[str]) -> str:
    """The chat's boxes as one text to keep in the store, when they are too long for the address."""
    return json.dumps({"chat": list(chat)}, ensure_ascii=False)


def chat_from_json(text: Optional[str]) -> Optional[tuple[str, ...]]:
    """chat_json's boxes back, or None when the text is not that (never raises)."""
    try:
        boxes = json.loads(text)["chat"] if text is not None else None
    except (ValueError, TypeError, KeyError):
        return None
    if not (isinstance(boxes, list) and len(boxes) == len(CHAT_PARAMS) and all(isinstance(b, str) for b in boxes)):
        return None
    return tuple(b[:MAX_LINK_TEXT] for b in boxes)


def link_imports(params: Mapping[str, str]) -> tuple[list[tuple[str, str]], list[str]]:
    """The link's imported tokenizers paired with the digest their files are kept under, in order
    (those with a valid digest), and one line for the slots that are not digests and one for the
    digests no imported tokenizer of `tokenizers` takes. Never raises; nothing here is a path: a
    digest is 64 hexadecimal digits or it is ignored.

    link_imports({"tokenizers": "pretrained:gpt2,imported:mine", "files": "ab" * 32})
        == ([("imported:mine", "abab…ab")], [])
    """
    if "files" not in params:
        return [], []
    keys = [k.strip() for k in str(params.get("tokenizers", "")).split(",") if k.strip().startswith("imported:")]
    slots = [s.strip() for s in str(params["files"]).split(",")]
    pairs, bad, spare = [], [], []
    for i, slot in enumerate(slots):
        if slot and not _HEX64.fullmatch(slot):
            bad.append(slot)
        elif slot and i < min(len(keys), MAX_TOKENIZERS):
            pairs.append((keys[i], slot))
        elif slot:
            spare.append(slot)
    msgs = [f"Ignored {len(refs)} file reference{'s' if len(refs) > 1 else ''} ({_quote(refs[0])}): {why}."
            for refs, why in ((bad, "not a digest (64 hexadecimal digits)"),
                              (spare, "no imported tokenizer of the link's tokenizers goes with it")) if refs]
    return pairs, msgs


def rename_imported(params: Mapping[str, str], renames: Mapping[str, Optional[str]]) -> dict[str, str]:
    """The parameters with each imported key of `tokenizers` in `renames` replaced by its new key, or
    left out when that is None (its files are gone): the names imports get in this session.

    rename_imported({"tokenizers": "imported:a,pretrained:gpt2"}, {"imported:a": "imported:a 2"})
        == {"tokenizers": "imported:a 2,pretrained:gpt2"}
    """
    out = dict(params)
    if "tokenizers" in out and renames:
        keys = [k.strip() for k in str(out["tokenizers"]).split(",")]
        out["tokenizers"] = ",".join(renames.get(k, k) for k in keys if renames.get(k, k) is not None)
    return out


def gone_imports_message(names: Sequence[str]) -> str:
    """What a link whose imported files are gone says (Markdown, names escaped)."""
    cut = [n if len(n) <= 60 else n[:60] + "…" for n in names[:5]]     # names from a URL: any length
    listed = ", ".join(f"“{views.md_escape(n)}”" for n in cut) + (", …" if len(names) > 5 else "")
    one = len(names) == 1
    return (f"The files of the link's imported tokenizer{'' if one else 's'} {listed} are no longer kept on "
            "this server (it keeps the most recently used, up to its size limit), so "
            f"{'it is' if one else 'they are'} left out; the rest is as the link has it. Import the files "
            "again on the Inspect page to compare them.")
