"""GPT-2's byte-to-unicode table: every byte gets a printable character.

Byte-level tokens are *written* in this alphabet everywhere (trained and pretrained alike),
as in Hugging Face `vocab.json`: space is `Ġ`, newline is `Ċ`, so `Ġt` is b" t".
Example: to_byte_chars("hé ") == "hÃ©Ġ"; from_byte_chars("hÃ©Ġ") == b"h\xc3\xa9 ".
"""
from functools import lru_cache


@lru_cache(maxsize=1)
def byte_to_char() -> dict[int, str]:
    """byte value -> its printable stand-in (the table GPT-2's encoder.py builds)."""
    printable = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
                 + list(range(ord("®"), ord("ÿ") + 1)))
    table = {b: chr(b) for b in printable}
    n = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + n)  # bytes that would print badly are shifted past Latin-1
            n += 1
    return table


@lru_cache(maxsize=1)
def char_to_byte() -> dict[str, int]:
    return {c: b for b, c in byte_to_char().items()}


@lru_cache(maxsize=1)
def _translation() -> list[str]:
    table = byte_to_char()
    return [table[b] for b in range(256)]


def to_byte_chars(text: str) -> str:
    """UTF-8 bytes of `text`, each written as its byte-level character."""
    t = _translation()
    return "".join([t[b] for b in text.encode("utf-8")])


def from_byte_chars(chars: str) -> bytes:
    """Inverse of to_byte_chars; raises KeyError on a character outside the alphabet."""
    table = char_to_byte()
    return bytes([table[c] for c in chars])


def is_byte_chars(chars: str) -> bool:
    table = char_to_byte()
    return all(c in table for c in chars)
