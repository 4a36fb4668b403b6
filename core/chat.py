"""Chat formats: a list of messages as each model's chat string, and its tokens (docs/references.md).

    chat = encode_chat(load_pretrained("llama3"), [{"role": "user", "content": "Hi"}])
    chat.text   == "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\\n\\nHi<|eot_id|>"
                   "<|start_header_id|>assistant<|end_header_id|>\\n\\n"
    chat.encoding.ids   the model's ids, special tokens recognised (one id each)

Formats (`FORMAT_OF` maps pretrained names to them):
    chatml          Qwen 2.5 / 3.5: <|im_start|>role\\ncontent<|im_end|>\\n
    llama3, llama4  <|begin_of_text|> then <|start_header_id|>role<|end_header_id|>\\n\\ncontent<|eot_id|>
                    (Llama 4: <|header_start|> <|header_end|> <|eot|>), as llama_models' ChatFormat
    mistral-v1      <s>[INST] system\\n\\nuser [/INST]assistant</s> ([INST] is text in v1), as mistral_common V1
    mistral-tekken  <s>[INST]user[/INST]assistant</s>, the system prompt before the last user message (V3)
    deepseek        <｜begin▁of▁sentence｜>system<｜User｜>user<｜Assistant｜>assistant<｜end▁of▁sentence｜>
                    (DeepSeek-V3's chat template; V4's package ships none)
    openai          <|start|>role<|message|>content<|end|>, primed with <|start|>assistant<|message|>:
                    exactly what OpenAI's per-message rule counts (openai_chat_token_count)

A format is either encoded as one string with special tokens recognised (ChatML, DeepSeek: what
Hugging Face's apply_chat_template + encode does) or piece by piece, each piece encoded on its own
as the model's own library does (Llama, Mistral: a SentencePiece piece gets its own leading space).
Either way the content of a message is ordinary text when encoded piece by piece.

Not here: tools, images, reasoning channels; the page that shows this.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Optional, Union

from .encoding import Encoding
from .errors import ConfigError

__all__ = ["Message", "Chat", "CHAT_FORMATS", "FORMAT_OF", "chat_pieces", "render_chat", "encode_chat",
           "openai_chat_token_count"]

ROLES = ("system", "user", "assistant")
CHAT_FORMATS = ("chatml", "llama3", "llama4", "mistral-v1", "mistral-tekken", "deepseek", "openai")
FORMAT_OF = {"qwen2.5": "chatml", "qwen3.5": "chatml", "llama3": "llama3", "llama4": "llama4",
             "mistral-v1": "mistral-v1", "mistral-tekken": "mistral-tekken", "deepseek-v4": "deepseek",
             "o200k_harmony": "openai"}
_WHOLE_STRING = ("chatml", "deepseek")

# OpenAI cookbook, "How to count tokens with tiktoken" (num_tokens_from_messages): every message
# costs 3 tokens besides its role and content, a name 1 more, and the reply is primed with 3.
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
REPLY_PRIMING = 3


@dataclass(frozen=True)
class Message:
    role: str                 # system | user | assistant
    content: str
    name: Optional[str] = None    # OpenAI's optional author name (counted by the rule only)


@dataclass(frozen=True)
class Chat:
    format: str
    text: str                 # the chat string, special tokens spelled out
    encoding: Encoding        # its tokens (offsets into text)


Piece = tuple[str, bool]      # (text, is a special token)


def _messages(messages: Iterable[Union[Message, Mapping]]) -> list[Message]:
    out = []
    for k, m in enumerate(messages):
        if not isinstance(m, Message):
            try:
                m = Message(m["role"], m["content"], m.get("name"))
            except (KeyError, TypeError, AttributeError):
                raise ConfigError(f"message {k + 1} is not a {{'role': ..., 'content': ...}} mapping") from None
        if m.role not in ROLES:
            raise ConfigError(f"message {k + 1} has role {m.role!r}: use one of {', '.join(ROLES)}")
        if not isinstance(m.content, str):
            raise ConfigError(f"message {k + 1}: content must be text")
        out.append(m)
    return out


def _system_and_rest(msgs: list[Message]) -> tuple[Optional[str], list[Message]]:
    systems = [m.content for m in msgs if m.role == "system"]
    return ("\n\n".join(systems) if systems else None), [m for m in msgs if m.role != "system"]


def chat_pieces(messages, fmt: str, add_generation_prompt: bool = True) -> list[Piece]:
    """The chat as (text, is_special) pieces, in order."""
    msgs = _messages(messages)
    S, T = True, False
    out: list[Piece] = []
    if fmt == "chatml":
        for m in msgs:
            out += [("<|im_start|>", S), (f"{m.role}\n{m.content}", T), ("<|im_end|>", S), ("\n", T)]
        if add_generation_prompt:
            out += [("<|im_start|>", S), ("assistant\n", T)]
    elif fmt in ("llama3", "llama4"):
        start, end, eot = (("<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>") if fmt == "llama3"
                           else ("<|header_start|>", "<|header_end|>", "<|eot|>"))
        out.append(("<|begin_of_text|>", S))
        for m in msgs:
            out += [(start, S), (m.role, T), (end, S), ("\n\n", T), (m.content, T), (eot, S)]
        if add_generation_prompt:
            out += [(start, S), ("assistant", T), (end, S), ("\n\n", T)]
    elif fmt in ("mistral-v1", "mistral-tekken"):
        system, rest = _system_and_rest(msgs)
        users = [k for k, m in enumerate(rest) if m.role == "user"]
        with_system = (users[0] if fmt == "mistral-v1" else users[-1]) if users and system else None
        out.append(("<s>", S))
        for k, m in enumerate(rest):
            content = f"{system}\n\n{m.content}" if k == with_system else m.content
            if m.role == "user":
                out += ([(f"[INST] {content} [/INST]", T)] if fmt == "mistral-v1"
                        else [("[INST]", S), (content, T), ("[/INST]", S)])
            else:
                out += [(content if fmt == "mistral-v1" else content.rstrip(" "), T), ("</s>", S)]
    elif fmt == "deepseek":
        system, rest = _system_and_rest(msgs)
        out.append(("<｜begin▁of▁sentence｜>", S))
        if system:
            out.append((system, T))
        for m in rest:
            if m.role == "user":
                out += [("<｜User｜>", S), (m.content, T)]
            else:
                out += [("<｜Assistant｜>", S), (m.content, T), ("<｜end▁of▁sentence｜>", S)]
        if add_generation_prompt:
            out.append(("<｜Assistant｜>", S))
    elif fmt == "openai":
        for m in msgs:
            out += [("<|start|>", S), (m.role, T), ("<|message|>", S), (m.content, T), ("<|end|>", S)]
        if add_generation_prompt:
            out += [("<|start|>", S), ("assistant", T), ("<|message|>", S)]
    else:
        raise ConfigError(f"unknown chat format {fmt!r}: choose one of {', '.join(CHAT_FORMATS)}")
    return [(t, s) for t, s in out if t or s]


def render_chat(messages, fmt: str, add_generation_prompt: bool = True) -> str:
    """The chat string, special tokens spelled out."""
    return "".join(t for t, _ in chat_pieces(messages, fmt, add_generation_prompt))


def encode_chat(tok, messages, fmt: Optional[str] = None, add_generation_prompt: bool = True) -> Chat:
    """The chat in `fmt` (by default the tokenizer's own, FORMAT_OF) and its tokens."""
    fmt = fmt or FORMAT_OF.get(tok.name)
    if fmt is None:
        raise ConfigError(f"{tok.name} has no chat format: choose one of {', '.join(CHAT_FORMATS)}")
    pieces = chat_pieces(messages, fmt, add_generation_prompt)
    text = "".join(t for t, _ in pieces)
    for t, special in pieces:
        if special and tok.token_to_id(t) is None:
            raise ConfigError(f"{tok.name} has no special token {t!r}: the {fmt} chat format is not its own")
    if fmt in _WHOLE_STRING:
        return Chat(fmt, text, tok.encode(text, recognize_special_tokens=True))
    ids, tokens, bts, offsets, pos = [], [], [], [], 0
    for t, special in pieces:
        if special:
            i = tok.token_to_id(t)
            ids.append(i), tokens.append(tok.id_to_token(i)), bts.append(b""), offsets.append((pos, pos + len(t)))
        else:
            e = tok.encode(t)
            ids += e.ids
            tokens += e.tokens
            bts += e.token_bytes
            offsets += [(pos + s, pos + end) for s, end in e.offsets]
        pos += len(t)
    encoding = Encoding(ids=tuple(ids), tokens=tuple(tokens), token_bytes=tuple(bts), offsets=tuple(offsets),
                        encoder=f"chat:{fmt}").with_byte_offsets(text)
    return Chat(fmt, text, encoding)


def openai_chat_token_count(messages, encoding: str = "o200k_base") -> int:
    """Tokens a chat costs on OpenAI's chat models by the cookbook's rule: 3 per message, its role
    and content encoded (a name: 1 more plus its tokens), 3 for the reply's priming.
    encoding: "cl100k_base" (gpt-4, gpt-3.5-turbo) or "o200k_base" (gpt-4o and later)."""
    from .pretrained import load_pretrained

    if encoding not in ("cl100k_base", "o200k_base", "o200k_harmony"):
        raise ConfigError(f"{encoding!r} is not an OpenAI chat encoding: use cl100k_base or o200k_base")
    tok = load_pretrained(encoding)
    n = REPLY_PRIMING
    for m in _messages(messages):
        n += TOKENS_PER_MESSAGE + len(tok.encode(m.role).ids) + len(tok.encode(m.content).ids)
        if m.name:
            n += TOKENS_PER_NAME + len(tok.encode(m.name).ids)
    return n
