"""The Hugging Face `tokenizers` pipeline of a trained tokenizer's settings.

Two users: formats.py writes it as tokenizer.json, and encoders.py runs it as the fast path for
the default encoder wherever it encodes exactly as the readable encoders do (`hf_expressible`).
It knows settings, a vocabulary and merges, never a tokenizer class, so neither user imports
the other.
"""
from __future__ import annotations

from typing import Optional, Sequence

from .pipeline import _CJK
from .trainer import TrainConfig
from .limits import WORDPIECE_MAX_WORD_CHARS


def hf_expressible(config: TrainConfig) -> Optional[str]:
    """None when HF can load and encode this configuration exactly, else the reason why not."""
    if config.pre_tokenizer == "jieba":
        return "HF has no jieba pre-tokenizer"
    if config.model == "bpe" and config.end_of_word == "symbol":
        return "HF BPE has no `</w>` as a symbol of its own (only as a suffix of the last character)"
    return None


def hf_tokenizer(config: TrainConfig, vocab_list: Sequence[str], merges: Sequence[tuple[str, str]],
                 special_tokens: Sequence[str]):
    """A `tokenizers.Tokenizer` wired from the same stages as a trained tokenizer: what its
    tokenizer.json holds, and the runtime that encodes it fast where `hf_expressible` allows."""
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    vocab = {t: i for i, t in enumerate(vocab_list)}
    if config.model == "wordpiece":
        model = models.WordPiece(vocab, unk_token=config.unk_token or "[UNK]", max_input_chars_per_word=WORDPIECE_MAX_WORD_CHARS)
    else:
        extra = {"end_of_word_suffix": "</w>"} if config.end_of_word == "suffix" else {}
        model = models.BPE(vocab, list(merges), unk_token=config.unk_token, fuse_unk=False,
                           byte_fallback=False, **extra)
    hf = Tokenizer(model)
    hf.normalizer = {
        "none": None,
        "lowercase": normalizers.Lowercase(),
        "nfkc": normalizers.NFKC(),
        "bert-uncased": normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True,
                                                   strip_accents=True, lowercase=True),
    }[config.normalizer]
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=True)
    base = {
        "whitespace": pre_tokenizers.WhitespaceSplit(),
        "gpt2": byte_level,
        "bert": pre_tokenizers.BertPreTokenizer(),
        "chars": pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
                                          pre_tokenizers.Split(Regex(f"[{_onig_class(_CJK)}]"), "isolated")]),
        "jieba": pre_tokenizers.WhitespaceSplit(),  # stands in; the file is refused by HF anyway
    }[config.pre_tokenizer]
    if config.byte_level and config.pre_tokenizer != "gpt2":
        base = pre_tokenizers.Sequence([base, pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False,
                                                                       use_regex=False)])
    hf.pre_tokenizer = base
    if config.byte_level:
        hf.decoder = decoders.ByteLevel()
    elif config.model == "wordpiece":
        hf.decoder = decoders.WordPiece(prefix="##")
    elif config.end_of_word == "suffix":
        hf.decoder = decoders.BPEDecoder(suffix="</w>")
    hf.add_special_tokens(list(special_tokens))
    if "[CLS]" in vocab and "[SEP]" in vocab:
        hf.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
            special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    return hf


def _onig_class(python_class: str) -> str:
    # \uXXXX and \UXXXXXXXX (Python) -> \x{XXXX} (Oniguruma)
    import re
    return re.sub(r"\\[uU]([0-9A-Fa-f]{4,8})", lambda m: "\\x{%X}" % int(m.group(1), 16), python_class)
