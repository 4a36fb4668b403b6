"""The Compare page's pure helpers (playground/compare.py) and the span rendering it relies on
(playground/spans.py): choices and defaults, statistics, escaping of every path, offsets that read
back as the text, colours by id, partial UTF-8, encoder differences, errors per tokenizer."""
import html
import re
import unicodedata

import pytest

from core.corpus import count_words
from core.encoders import TrainedTokenizer
from core.encoding import Encoding
from core.errors import EncodeError
from core.pretrained import load_pretrained, pretrained_names
from core.trainer import TrainConfig, train
from playground import compare, spans, style
from playground.spans import (INVISIBLE, PALETTE, render_boundaries, render_tokens, show_invisible,
                              show_whitespace)
from tests.support import HTML_PAYLOAD as ALL_PAYLOADS
from tests.support import HTML_PAYLOADS as PAYLOADS
from tests.support import HTMLTags

OUR_TAGS = {"div", "/div", "span", "/span", "table", "/table", "thead", "/thead", "tbody", "/tbody",
            "tr", "/tr", "th", "/th", "td", "/td", "b", "/b"}
PRETRAINED = pretrained_names()
TEXTS = ["Hello, world!", "分词是第一步。", "Family: 👨‍👩‍👧‍👦 🏳️‍🌈 👍🏽", "def f(x):\n\treturn x  # hi\n",
         "one  two    four\n\n  end   ", "café cafe\u0301 naïve", ALL_PAYLOADS]

CORPUS = ("low lower lowest newer newest wider widest " * 5 + "hello world <b> & </b> 我喜欢 😀 "
          "def f(x):\n    return x\n")


def _trained(model: str, **kw) -> TrainedTokenizer:
    pre = "gpt2" if model == "bbpe" else "whitespace"
    config = TrainConfig(model=model, vocab_size=kw.pop("vocab_size", 300), pre_tokenizer=pre, **kw)
    return TrainedTokenizer.from_trace(train(count_words(CORPUS, pre), config))


def _body(out: str) -> str:
    """The HTML without its <style> blocks (CSS, no user text)."""
    return re.sub(r"<style>.*?</style>", "", out, flags=re.S)


def _assert_only_our_tags(out: str) -> None:
    """Only the elements and attributes we write: the payloads are text, never markup."""
    parser = HTMLTags.of(_body(out))
    assert set(parser.tags) <= OUR_TAGS, set(parser.tags) - OUR_TAGS
    names = {name for name, _ in parser.attrs}
    assert names <= {"class", "style", "title", "data-tokenizer", "data-card"}, names
    for name, value in parser.attrs:
        if name == "style":
            assert re.fullmatch(r"(background:#[0-9A-F]{6}|max-height:[\d.]+rem)", value), value
        if name == "class":
            assert re.fullmatch(r"[\w -]+", value), value
    # <b> only around our own figures (digits), never the payload's <b>x</b>
    assert "<b>x</b>" not in _body(out)


def _shown_text(out: str) -> str:
    """What the spans read as, left to right (tokens and gaps), invisible names turned back."""
    body = _body(out)
    text = "".join(html.unescape(s) for s in re.findall(r'class="tp-(?:t|gap)[^"]*"[^>]*>([^<]*)</span>', body))
    for ch, name in INVISIBLE.items():
        text = text.replace(name, ch)
    return text


# ---------------------------------------------------------------- choices

def test_choices_trained_with_each_encoder_then_pretrained_then_imported():
    choices = compare.tokenizer_choices(["bpe", "wordpiece"], ["gpt2"], ["mine.json"])
    keys = [c.key for c in choices]
    assert keys == ["trained:bpe:merges", "trained:bpe:greedy", "trained:bpe:longest-match",
                    "trained:wordpiece:longest-match", "trained:wordpiece:merges", "trained:wordpiece:greedy",
                    "pretrained:gpt2", "imported:mine.json"]
    assert choices[0].label == "BPE · merges" and choices[1].label == "BPE · greedy (seed 002)"
    assert choices[6].label == "GPT-2" and choices[7].label == "mine.json (imported)"


def test_default_selection_with_and_without_trained_results():
    pre = ["gpt2", "cl100k_base", "o200k_base", "qwen2.5", "bert-base-uncased"]
    with_trained = compare.tokenizer_choices(["bpe", "bbpe", "wordpiece"], pre, [])
    assert compare.default_selection(with_trained) == [
        "trained:bbpe:merges", "pretrained:gpt2", "pretrained:o200k_base", "pretrained:bert-base-uncased"]
    only_pretrained = compare.tokenizer_choices([], pre, [])
    assert compare.default_selection(only_pretrained) == [
        "pretrained:gpt2", "pretrained:cl100k_base", "pretrained:o200k_base", "pretrained:bert-base-uncased"]
    # nothing of the usual set installed: still something to show
    assert compare.default_selection(compare.tokenizer_choices([], [], ["a", "b"])) == ["imported:a", "imported:b"]


def test_valid_selection_drops_what_is_gone_and_caps_at_the_maximum():
    choices = compare.tokenizer_choices(["bpe", "bbpe", "wordpiece"], ["gpt2"], ["a", "b", "c", "d", "e"])
    keys = [c.key for c in choices]
    assert len(keys) > compare.MAX_TOKENIZERS
    kept = compare.valid_selection(["pretrained:gpt2", "imported:gone", "pretrained:gpt2"], choices)
    assert kept == ["pretrained:gpt2"]
    assert compare.valid_selection(keys, choices) == keys[:compare.MAX_TOKENIZERS]
    assert compare.valid_selection(None, choices) == []


# ---------------------------------------------------------------- statistics

def test_stats_count_tokens_characters_and_bytes():
    enc = load_pretrained("gpt2").encode("Hello, world!")
    stats = compare.encoding_stats("Hello, world!", enc)
    assert (stats.tokens, stats.characters, stats.bytes) == (4, 13, 13)
    assert stats.chars_per_token == 3.25 and stats.bytes_per_token == 3.25
    assert compare.stats_line(stats) == "4 tokens · 3.25 chars/token · 3.25 bytes/token"
    zh = "分词"
    enc = load_pretrained("o200k_base").encode(zh)
    stats = compare.encoding_stats(zh, enc)
    assert stats.characters == 2 and stats.bytes == 6 and stats.bytes_per_token == 6 / len(enc.ids)
    empty = compare.encoding_stats("", load_pretrained("gpt2").encode(""))
    assert empty.tokens == 0 and empty.chars_per_token == 0.0


# ---------------------------------------------------------------- what the panels show

@pytest.mark.parametrize("name", PRETRAINED)
@pytest.mark.parametrize("text", TEXTS)
def test_ids_view_shows_exactly_the_pretrained_ids(name, text):
    tok = load_pretrained(name)
    choice = compare.Choice(f"pretrained:{name}", name, "pretrained", name)
    enc = compare.encode_choice(tok, choice, text)
    out, _ = render_tokens(enc, show_ids=True, text=text)
    shown = [int(i) for s in re.findall(r'class="tp-t[^"]*"[^>]*>([^<]*)</span>', out) for i in s.split()]
    assert shown == list(tok.encode(text).ids)


# not WordPiece, not SentencePiece (mistral-v1, jurassic-2), not cleaned first (clip)
@pytest.mark.parametrize("name", [n for n in PRETRAINED if n not in ("bert-base-uncased", "mistral-v1", "jurassic-2",
                                                                     "clip")])
@pytest.mark.parametrize("text", TEXTS)
def test_byte_level_spans_read_back_as_the_text(name, text):
    """Grouped, the boxes and gaps of a byte-level tokenizer spell the input exactly (Qwen: its NFC,
    which is what that model sees)."""
    enc = load_pretrained(name).encode(text)
    out, truncated = render_tokens(enc, grouped=True, text=text)
    expected = unicodedata.normalize("NFC", text) if name in ("qwen2.5", "qwen3.5") else text
    assert not truncated and _shown_text(out) == expected


def test_bert_keeps_the_spaces_it_drops_as_gaps():
    text = "Hello  world,\nagain"
    enc = load_pretrained("bert-base-uncased").encode(text)
    out, _ = render_tokens(enc, text=text)
    assert _shown_text(out) == "hello  world,\nagain"      # uncased tokens, the text's own whitespace
    assert out.count('class="tp-gap"') == 2
    # without the text the gaps are not drawn (the older call still works)
    assert 'class="tp-gap"' not in render_tokens(enc)[0]
    # Compare (scripted): blank gaps are bare text, the same text; a visible one keeps its grey span
    bare, _ = render_tokens(enc, text=text, scripted=True)
    as_read = [html.unescape(re.sub(r"<[^>]*>", "", _body(o))) for o in (bare, out)]   # all text, no tags
    assert as_read == ["hello  world,\nagain"] * 2 and 'class="tp-gap"' not in bare
    shown, _ = render_tokens(enc, text=text, scripted=True, visible_whitespace=True)
    assert shown.count('class="tp-gap"') == 2


def test_trained_bpe_with_end_of_word_reads_back():
    tok = _trained("bpe", end_of_word="symbol", unk_token="[UNK]")
    text = "lowest  newer\nwidest"
    enc = tok.encode(text)
    out, _ = render_tokens(enc, text=text)
    assert _shown_text(out).replace("</w>", "") == text


def test_partial_utf8_is_shown_as_bytes_and_grouped_as_the_character():
    enc = load_pretrained("gpt2").encode("我")
    assert len(enc.ids) > 1      # GPT-2 spells 我 with partial-UTF-8 tokens
    out, _ = render_tokens(enc, text="我")
    assert "�" not in out and "&lt;0xE6&gt;" in out and "tp-bytes" in out
    grouped, _ = render_tokens(enc, grouped=True, text="我")
    assert _shown_text(grouped) == "我" and "&lt;0x" not in _body(grouped)



def test_a_panel_with_byte_pieces_says_what_they_are_and_how_to_see_characters():
    gpt2 = load_pretrained("gpt2")
    note = compare.byte_pieces_note(gpt2.encode("Tokens: 我"))
    assert "<0xE6>" in note and "Group bytes" in note and "no character is unknown" in note
    assert compare.byte_pieces_note(gpt2.encode("Only whole tokens here.")) == ""
    assert compare.byte_pieces_note(load_pretrained("o200k_base").encode("分词")) == ""   # whole characters
    assert compare.byte_pieces_note(Encoding((), (), (), (), "tiktoken")) == ""
    late = "a" * 30 + "我"   # the pieces start past what is drawn
    assert compare.byte_pieces_note(gpt2.encode(late), max_chars=30) == ""
    assert compare.byte_pieces_note(gpt2.encode(late), max_chars=31) != ""

def test_neighbours_never_share_a_colour_and_colours_follow_ids():
    text = "\n\n\n aaaa aaaa aaaa"
    enc = load_pretrained("gpt2").encode(text)
    out, _ = render_tokens(enc, text=text)
    colours = [int(c) for c in re.findall(r'class="tp-t tp-c(\d+) ', out)]
    assert len(colours) == len(enc.ids)
    assert all(a != b for a, b in zip(colours, colours[1:]))
    assert set(colours) <= set(range(len(PALETTE)))
    for k, colour in enumerate(PALETTE):      # each class is one palette colour (in the app's stylesheet)
        assert f".tp-c{k}{{background:{colour}}}" in style.stylesheet()
    # the same text later in a longer one keeps its colours (stable while editing)
    enc2 = load_pretrained("gpt2").encode("x" + text)
    colours2 = [int(c) for c in re.findall(r'class="tp-t tp-c(\d+) ', render_tokens(enc2)[0])]
    assert colours2[-3:] == colours[-3:]


def test_hover_card_has_id_string_and_hex_bytes():
    enc = load_pretrained("gpt2").encode("Hello world")
    out, _ = render_tokens(enc)
    # a styled card (data-card, drawn by CSS), not the browser's plain title tooltip
    assert "title=" not in out
    cards = [html.unescape(t) for t in re.findall(r'data-card="([^"]*)"', out)]
    assert cards == ["id 15496 · 1× in this text\ntoken 'Hello'\nbytes 48 65 6C 6C 6F",
                     "id 995 · 1× in this text\ntoken 'Ġworld'\nbytes 20 77 6F 72 6C 64"]
    # hovering one token outlines every token with its id (CSS, no script); an id drawn once needs no rule
    assert ".tp-id995:hover" not in out and "<script" not in out
    twice, _ = render_tokens(load_pretrained("gpt2").encode("Hello world world"))
    assert twice.count(":hover) .tp-id995{") == 1 and ".tp-id15496:hover" not in twice
    # Compare's script outlines same-id boxes and shows an id's card from its first box: no :has()
    # rules, and each id's card once; otherwise the same boxes
    scripted, _ = render_tokens(load_pretrained("gpt2").encode("Hello world world"), scripted=True)
    assert ":has(" not in scripted and scripted.count("tp-id995") == 2 and scripted.count("data-card=") == 2
    card = ' data-card="id 995 · 2× in this text\ntoken \'Ġworld\'\nbytes 20 77 6F 72 6C 64"'
    body = twice.split("</style>")[1]
    last = body.rindex(card)        # the second box of id 995 goes without its card
    assert body.count(card) == 2 and scripted.split("</style>")[1] == body[:last] + body[last + len(card):]


def test_whitespace_and_zero_width_characters_made_visible():
    assert show_whitespace("a b\tc\nd") == "a⋅b→c↵d"
    assert show_whitespace("👨\u200d👩") == "👨⟨ZWJ⟩👩"
    assert show_invisible("\u200d") == "⟨ZWJ⟩" and show_invisible("x\u200d") == "x\u200d"
    text = "a b\tc\nd 👨‍👩"
    enc = load_pretrained("o200k_base").encode(text)
    out, _ = render_tokens(enc, visible_whitespace=True, grouped=True, text=text)
    shown = _shown_text(out)
    assert "⋅" in shown and "→" in shown and "↵" in shown and " " not in shown.replace("↵\n", "")


@pytest.mark.parametrize("payload", PAYLOADS + [ALL_PAYLOADS])
@pytest.mark.parametrize("show_ids,visible,grouped", [(False, False, False), (True, False, False),
                                                      (False, True, False), (False, False, True),
                                                      (False, True, True)])
def test_payloads_are_escaped_in_every_token_view(payload, show_ids, visible, grouped):
    text = f"x {payload} y"
    tokenizers = [load_pretrained(n) for n in PRETRAINED] + [_trained("bbpe"), _trained("wordpiece", unk_token="[UNK]")]
    for tok in tokenizers:
        out, _ = render_tokens(tok.encode(text), show_ids=show_ids, visible_whitespace=visible,
                               grouped=grouped, text=text)
        _assert_only_our_tags(out)
        if not show_ids and not visible and getattr(tok, "kind", "") == "tiktoken":
            assert _shown_text(out) == text if grouped else True


@pytest.mark.parametrize("payload", PAYLOADS + [ALL_PAYLOADS])
def test_payloads_are_escaped_in_boundaries_and_panels(payload):
    text = f"x {payload} y"
    a, b = load_pretrained("gpt2").encode(text), load_pretrained("bert-base-uncased").encode(text)
    out, share = render_boundaries(text, a, b)
    _assert_only_our_tags(out)
    assert 0.0 <= share <= 1.0
    parser = HTMLTags.of(_body(out))
    assert re.sub("[│▼▲]", "", "".join(parser.text)) == text      # the text, literally, between the marks
    # a panel whose name is user text (an imported file's name)
    choice = compare.Choice(f"imported:{payload}", f"{payload} (imported)", "imported", payload)
    body, _ = render_tokens(a, text=text)
    panel = compare.render_panel(choice, compare.encoding_stats(text, a), body, note=payload)
    _assert_only_our_tags(panel)
    assert f'data-tokenizer="{html.escape(choice.key, quote=True)}"' in panel


def test_panel_header_shows_the_three_figures():
    choice = compare.Choice("pretrained:gpt2", "GPT-2", "pretrained", "gpt2")
    panel = compare.render_panel(choice, compare.Stats(tokens=4, characters=13, bytes=13))
    text = re.sub(r"<[^>]+>", "", _body(panel))
    assert text == "GPT-24 tokens3.25 chars/token3.25 bytes/token"


# ---------------------------------------------------------------- trained tokenizers and encoders

def test_encode_choice_uses_each_encoder_and_raises_encode_error_per_tokenizer():
    tok = _trained("bbpe")
    text = "lowest widest newer"
    for enc_name in ("merges", "greedy", "longest-match"):
        choice = compare.Choice(compare.trained_key("bbpe", enc_name), "", "trained", "bbpe", enc_name)
        try:
            expected = tok.encode(text, enc_name).ids
        except EncodeError:
            with pytest.raises(EncodeError):
                compare.encode_choice(tok, choice, text)
            continue
        assert compare.encode_choice(tok, choice, text).ids == expected
    # greedy covers only pieces of the training segmentation: a byte never seen is refused
    greedy = compare.Choice("trained:bbpe:greedy", "", "trained", "bbpe", "greedy")
    with pytest.raises(EncodeError, match="not in the vocabulary"):
        compare.encode_choice(tok, greedy, "Ω")
    # the pretrained ones are unaffected by another tokenizer's failure
    assert compare.encode_choice(load_pretrained("gpt2"), compare.Choice("pretrained:gpt2", "", "pretrained", "gpt2"),
                                 "Ω").ids


def test_encoder_differences_list_the_words_split_differently():
    tok = _trained("bpe", vocab_size=60)
    text = "lowest lowest newest widest wider the"
    diff = compare.encoder_differences(tok, text)
    assert diff.distinct_words == 5
    for row in diff.rows:
        splits = {e: "".join(p.label for p in row.split_of(e)) for e in ("merges", "greedy", "longest-match")}
        # same word however it is split (when every piece is known)
        if all(p.known for e in splits for p in row.split_of(e)):
            assert set(splits.values()) == {row.word}
        assert len({row.split_of(e) for e in ("merges", "greedy", "longest-match")}) > 1
        # each split is what the encoder itself gives for that word
        for e in ("merges", "greedy", "longest-match"):
            try:
                tokens = tok.encode(row.word, e).tokens
            except EncodeError:
                continue
            assert tuple(p.label for p in row.split_of(e)) == tokens
    assert diff.rows, "this vocabulary splits some word differently by greedy or longest-match"
    assert [r.count for r in diff.rows] == sorted((r.count for r in diff.rows), reverse=True)
    assert diff.differ_from_merges["greedy"] <= diff.distinct_words


def test_encoder_differences_mark_pieces_outside_the_vocabulary():
    tok = _trained("bpe", vocab_size=60)          # no unknown token
    diff = compare.encoder_differences(tok, "lowest Ωmega")
    cells = [p for r in diff.rows for e in ("merges", "greedy", "longest-match") for p in r.split_of(e)]
    unknown = [p for p in cells if not p.known]
    assert unknown and all(p.label.startswith("?") for p in unknown)
    with_unk = _trained("bpe", vocab_size=60, unk_token="[UNK]")
    diff = compare.encoder_differences(with_unk, "Ωmega")
    assert all(p.label == "[UNK]" for r in diff.rows for e in ("merges", "greedy", "longest-match")
               for p in r.split_of(e) if not p.known)


@pytest.mark.parametrize("model", ["bpe", "bbpe", "wordpiece"])
def test_payloads_are_escaped_in_the_encoder_difference_table(model):
    tok = _trained(model, unk_token=None if model == "bbpe" else "[UNK]")
    diff = compare.encoder_differences(tok, ALL_PAYLOADS + " lowest widest")
    out, cut = compare.render_splits_table(diff)
    _assert_only_our_tags(out)
    assert not cut
    words = [html.unescape(w) for w in re.findall(r'<td class="tp-w">([^<]*)</td>', out)]
    assert words == [show_whitespace(r.word) for r in diff.rows]


def test_encoder_difference_table_is_capped():
    rows = tuple(compare.WordSplit(f"w{i}", 1, ((compare.Piece("a"),), (compare.Piece("b"),), (compare.Piece("a"),)))
                 for i in range(5))
    out, cut = compare.render_splits_table(compare.EncoderDifferences(rows, 5, {"greedy": 5, "longest-match": 0}),
                                           limit=3)
    assert cut and out.count("<tr>") == 4      # header + 3 rows
    assert out.count('class="tp-same"') == 3    # longest-match splits like merges: greyed


def test_samples_cover_the_cases_the_issue_names():
    joined = "".join(compare.SAMPLES.values())
    assert "\u200d" in joined and "分" in joined and "def " in joined and "    " in joined and "\t" in joined
    assert compare.DEFAULT_SAMPLE in compare.SAMPLES
    for payload in PAYLOADS:
        assert payload in compare.SAMPLES["HTML (shown, never run)"]


def test_empty_text_renders_nothing_but_the_frame():
    enc = Encoding(ids=(), tokens=(), token_bytes=(), offsets=(), encoder="tiktoken")
    out, truncated = render_tokens(enc, text="")
    assert not truncated and _shown_text(out) == ""


def test_stylesheet_holds_no_angle_bracket():
    """Streamlit's HTML sanitizer drops the whole injected <style> element when its text holds a
    tag-like `<s>` (a comment naming a special token did: every page lost its styles)."""
    from playground import style
    assert "<" not in style.stylesheet()


def test_link_carries_special_add_and_chunks_both_ways():
    opts = compare.EncodeOptions(recognize_special_tokens=True, add_special_tokens=True)
    params = compare.link_params("hi", None, "Tokens", "Side by side", False, False, options=opts, chunks=True)
    assert params == {"text": "hi", "special": "1", "add": "1", "chunks": "1"}
    link, msgs = compare.parse_link(params, [])
    assert (link.recognize_special, link.add_special, link.chunks, msgs) == (True, True, True, [])
    assert compare.link_params("hi", None, "Tokens", "Side by side", False, False) == {"text": "hi"}
    link, msgs = compare.parse_link({"special": "maybe"}, [])
    assert link.recognize_special is None and msgs == ["Ignored special='maybe': use 1 or 0."]


def test_render_chunks_escapes_cuts_and_keeps_the_gaps():
    from core.tokenizer import Chunk, Front
    text = "<b>x</b>  y"
    front = Front("none", text, "test", (Chunk("<b>", "<b>", 0, 3), Chunk("x", "x", 3, 4), Chunk("y", "y", 10, 11)))
    drawn, cut = spans.render_chunks(front)
    assert not cut and "<b>" not in drawn and "&lt;b&gt;" in drawn
    assert re.findall(r'class="tp-k (tp-k\d)', drawn) == ["tp-k0", "tp-k1", "tp-k0"]   # neighbours alternate
    assert '<span class="tp-gap">&lt;/b&gt;  </span>' in drawn                       # what no chunk covers
    drawn, cut = spans.render_chunks(front, max_chars=5)
    assert cut and drawn.count('class="tp-k ') == 2


def test_missing_note_names_each_tokenizer_and_each_command_once():
    assert compare.missing_note([]) == ""
    note = compare.missing_note([("llama3", "pip install --no-deps llama-models==0.3.0"),
                                 ("llama4", "pip install --no-deps llama-models==0.3.0"),
                                 ("clip", "pip install ftfy (see requirements.txt)")])
    assert note.startswith("Not installed here, so not offered: Llama 3, Llama 4, CLIP")
    assert note.count("llama-models==0.3.0") == 1 and "`pip install ftfy (see requirements.txt)`" in note


def test_chat_result_of_a_model_without_a_format_or_with_a_foreign_one():
    gpt2 = compare.tokenizer_choices([], ["gpt2"], [])[0]
    result = compare.chat_result(gpt2, load_pretrained("gpt2"), compare.chat_messages(["", "Hi", "", ""]))
    assert (result.fmt, result.chat, result.rule_count, result.error) == (None, None, None, "")
    # a tokenizer that lacks the format's special tokens: one clear error, never an exception
    qwen = compare.tokenizer_choices([], ["qwen2.5"], [])[0]
    result = compare.chat_result(qwen, load_pretrained("gpt2"), [{"role": "user", "content": "Hi"}])
    assert result.chat is None and "no special token" in result.error


def test_chunks_block_labels_the_chunks_and_says_when_it_cannot():
    gpt2 = load_pretrained("gpt2")
    block = compare.render_chunks_block(gpt2, "I'm 12345")
    assert "Pre-tokenization: 3 chunks · GPT-2 regex" in html.unescape(block)
    assert block.count('class="tp-k ') == len(gpt2.front("I'm 12345").chunks) == 3

    class Refuses:
        def front(self, text):
            raise EncodeError("<b>no</b> front here")

    block = compare.render_chunks_block(Refuses(), "x")
    assert "cannot show it" in block and "<b>" not in block and "tp-chunks" not in block


def test_info_rows_come_from_the_catalog_or_the_tokenizer():
    bpe = _trained("bpe")
    choices = compare.tokenizer_choices(["bpe"], ["bert-base-uncased"], [])
    loaded = []

    def tokenizer_of(choice):
        loaded.append(choice.key)
        return bpe

    rows = compare.info_rows([choices[0], choices[-1]], tokenizer_of)
    assert rows[0] == compare.InfoRow(choices[0].label, bpe.family, bpe.vocab_size, "trained here", "yours")
    assert rows[1].family == "WordPiece" and rows[1].vocab_size == 30522
    assert loaded == [choices[0].key]          # a pretrained row is read from the catalog, nothing loaded


def test_the_vocabulary_column_counts_tokens_and_names_an_id_range_with_gaps():
    from core.formats import load_tokenizer_bytes
    from tests.core.test_formats import _gapped_hf_json
    gapped = load_tokenizer_bytes(_gapped_hf_json(), "gaps.json")          # ids 0, 5 and 9
    (choice,) = compare.tokenizer_choices([], [], ["gaps"])
    row = compare.info_row(choice, lambda c: gapped)
    assert (row.vocab_size, row.n_tokens) == (10, 3)
    assert '<td class="tp-n">3 (ids 0–9)</td>' in compare.render_info_table([row])
    bpe = _trained("bpe")
    (trained,) = compare.tokenizer_choices(["bpe"], [], [])[:1]
    table = compare.render_info_table([compare.info_row(trained, lambda c: bpe)])
    assert f'<td class="tp-n">{bpe.vocab_size:,}</td>' in table        # no gaps: the one number
    table = compare.render_info_table([compare.InfoRow("<b>x</b>", "BPE", 1234, "p==1", "MIT")])
    assert "<b>x</b>" not in table and "&lt;b&gt;x&lt;/b&gt;" in table and "1,234" in table
    assert '<td class="tp-pkg">p==<wbr>1</td>' in table        # a narrow column breaks a pin after its ==
    table = compare.render_info_table([compare.InfoRow("x", "BPE", 1, "<i>==<b>", "MIT")])
    assert '<td class="tp-pkg">&lt;i&gt;==<wbr>&lt;b&gt;</td>' in table
    assert "tp-pkg\">plain<" in compare.render_info_table([compare.InfoRow("x", "BPE", 1, "plain", "MIT")])
    # names and families wrap between words, never inside one (not at the hyphen of "GPT-4o")
    table = compare.render_info_table([compare.InfoRow("o200k (GPT-4o)", "byte-level BPE", 1, "p", "MIT")])
    assert ('<td class="tp-info-name"><span class="tp-nw">o200k</span> <span class="tp-nw">(GPT-4o)</span></td>'
            '<td><span class="tp-nw">byte-level</span> <span class="tp-nw">BPE</span></td>') in table


def test_the_files_of_chosen_imports_go_in_the_link_one_slot_each_and_come_back_paired():
    a, b = "ab" * 32, "cd" * 32
    chosen = ["imported:x", "pretrained:gpt2", "imported:big", "imported:y"]
    params = compare.link_params("hi", chosen, "Tokens", "Side by side", False, False,
                                 files={"imported:x": a, "imported:y": b, "imported:unchosen": "ef" * 32})
    assert params["files"] == f"{a},,{b}"          # big was not kept: an empty slot keeps the pairs aligned
    assert compare.link_imports(params) == ([("imported:x", a), ("imported:y", b)], [])
    assert "files" not in compare.link_params("hi", chosen, "Tokens", "Side by side", False, False, files={})
    assert "files" not in compare.link_params("hi", None, "Tokens", "Side by side", False, False,
                                               files={"imported:x": a})
    # a forged slot is never a path: ignored, said so
    pairs, msgs = compare.link_imports({"tokenizers": "imported:x,imported:y", "files": f"../../etc/passwd,{b}"})
    assert pairs == [("imported:y", b)] and "not a digest" in msgs[0]
    assert compare.link_imports({"tokenizers": "imported:x"}) == ([], [])
    # a slot no imported tokenizer takes is said too, never dropped silently
    pairs, msgs = compare.link_imports({"tokenizers": "imported:x", "files": f"{a},{b},zz"})
    assert pairs == [("imported:x", a)] and len(msgs) == 2
    assert "('zz'): not a digest" in msgs[0] and f"('{b[:40]}…'): no imported tokenizer" in msgs[1]
    assert compare.link_imports({"files": "zz"})[1] == ["Ignored 1 file reference ('zz'): not a digest "
                                                        "(64 hexadecimal digits)."]


def test_imports_renamed_or_dropped_in_the_links_selection():
    params = {"tokenizers": "imported:a,pretrained:gpt2,imported:gone", "show": "ids"}
    assert compare.rename_imported(params, {"imported:a": "imported:a 2", "imported:gone": None}) == \
        {"tokenizers": "imported:a 2,pretrained:gpt2", "show": "ids"}
    assert compare.rename_imported(params, {}) == params
    message = compare.gone_imports_message(["<b>*x*</b>"])
    assert "<b>" not in message and "\\*x\\*" in message and "Inspect page" in message
    assert len(compare.gone_imports_message(["x" * 10_000])) < 500


# ---------------------------------------------------------------- boxes kept across texts

from hypothesis import given, settings, strategies as hst  # noqa: E402

EDIT_PIECES = ["the", " cat", "猫", "分词", "👍🏽", "\u200d", "<b>&amp;\"'", "\n", "  ", "123", "é", "[UNK]", "\t"]


@pytest.mark.parametrize("name", [n for n in ("gpt2", "bert-base-uncased") if n in PRETRAINED])
@settings(max_examples=25, deadline=None)
@given(texts=hst.lists(hst.lists(hst.sampled_from(EDIT_PIECES), max_size=40).map("".join), min_size=2, max_size=5),
       show_ids=hst.booleans(), whitespace=hst.booleans())
def test_boxes_kept_across_texts_draw_what_fresh_ones_do(name, texts, show_ids, whitespace):
    """render_tokens(boxes=...) reuses the boxes an earlier text built (Compare keeps one dict per
    tokenizer and view): every text is drawn exactly as without them, counts in the cards included."""
    tok = load_pretrained(name)
    kept: dict = {}
    for text in texts:
        enc = tok.encode(text)
        args = dict(show_ids=show_ids, visible_whitespace=whitespace, text=text, made_at=tok.made_at,
                    made_word="merge rank", scripted=True, batch=3)
        assert render_tokens(enc, boxes=kept, **args) == render_tokens(enc, **args)


def test_box_memo_is_one_per_tokenizer_and_view():
    from playground import tokenizers
    gpt2, bert = load_pretrained("gpt2"), load_pretrained("bert-base-uncased")
    kept = tokenizers.box_memo(gpt2, False, False, "merge rank")
    assert tokenizers.box_memo(gpt2, False, False, "merge rank") is kept
    assert tokenizers.box_memo(gpt2, True, False, "merge rank") is not kept      # ids drawn, not strings
    assert tokenizers.box_memo(bert, False, False, "merge rank") is not kept
    kept.update((k, None) for k in range(tokenizers.BOX_MEMO_LIMIT + 1))
    fresh = tokenizers.box_memo(gpt2, False, False, "merge rank")
    assert fresh == {} and fresh is not kept                                        # too big: started again
    other = tokenizers.box_memo(bert, False, False, "merge rank")
    other.update((k, None) for k in range(tokenizers.BOX_MEMO_LIMIT))
    fresh.update((k, None) for k in range(tokenizers.BOX_MEMOS_LIMIT - tokenizers.BOX_MEMO_LIMIT + 1))
    tokenizers.box_memo(gpt2, True, True, "merge rank")                              # all past the budget
    assert tokenizers.box_memo(bert, False, False, "merge rank") is not other


@pytest.mark.parametrize("kept", [None, "", "not json", "[]", '{"chat": "x"}', '{"chat": [1, 2, 3, 4]}',
                                  '{"chat": ["a", "b", "c"]}', '{"chat": ["a", "b", "c", "d", "e"]}', '{"text": []}'])
def test_a_kept_chat_that_is_not_four_messages_is_not_read(kept):
    assert compare.chat_from_json(kept) is None


def test_the_chat_kept_in_the_store_reads_back_as_written():
    chat = ("Système : <réponds>", "", "\u200d🙂\n\ttab", "x" * 5000)
    assert compare.chat_from_json(compare.chat_json(chat)) == chat
    params = compare.link_params("hi", None, "Tokens", "Side by side", False, False, tab="Chat", chat=chat)
    assert params["tab"] == "chat" and [params.get(n) for n in compare.CHAT_PARAMS] == list(chat)
    link, msgs = compare.parse_link(params, [])
    assert link.tab == "Chat" and link.chat == chat and not msgs
    assert "system" not in compare.link_params("hi", None, "Tokens", "Side by side", False, False,
                                               chat=compare.DEFAULT_CHAT)
