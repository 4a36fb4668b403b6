"""Rules about the repository itself, checked as text: views never test a tokenizer's class,
long product files say why they are long, and nothing cites documents outside the repository."""
from __future__ import annotations

import re

from tests.support import ROOT

PRODUCT = [*sorted((ROOT / "core").glob("*.py")), *sorted((ROOT / "playground").glob("*.py")),
           *sorted((ROOT / "pages").glob("*.py")), ROOT / "app.py"]
LONG = 400


TOKENIZER_CLASSES = ("TrainedTokenizer", "PretrainedTokenizer", "HFTokenizer")


def test_views_never_test_a_tokenizer_class():
    """playground/ and pages/ ask the contract, never which class a tokenizer is."""
    root = ROOT
    names = "|".join(TOKENIZER_CLASSES)
    pattern = re.compile(rf"isinstance\([^)]*\b({names})\b|type\(\w+\) is (not )?({names})\b")
    hits = [f"{p.relative_to(root)}:{n}" for folder in ("playground", "pages") for p in sorted((root / folder).glob("*.py"))
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert not hits, hits
    assert pattern.search("if isinstance(tok, (int, HFTokenizer)):")   # the pattern does find one
    assert pattern.search("if type(tok) is TrainedTokenizer:")


def test_long_product_files_say_why_at_the_top():
    """No product file over ~400 lines without a reason stated in its first lines."""
    unexplained = []
    for path in PRODUCT:
        lines = path.read_text(encoding="utf-8").splitlines()
        if len(lines) > LONG and not re.search(r"over 400 lines", " ".join(lines[:6]), re.I):
            unexplained.append(f"{path.relative_to(ROOT)} ({len(lines)} lines)")
    assert not unexplained, unexplained


def test_nothing_cites_documents_outside_the_repository():
    pattern = re.compile(r"\.\./shared|(^|[^A-Za-z/])(CLI|REFERENCES)\.md")
    files = [p for p in ROOT.rglob("*") if p.suffix in (".py", ".md", ".toml", ".txt", ".cfg") or p.name == "Makefile"]
    hits = [str(p.relative_to(ROOT)) for p in files
            if not {".venv", ".git", "node_modules"} & set(p.relative_to(ROOT).parts)
            and p.is_file() and pattern.search(p.read_text(encoding="utf-8", errors="replace"))]
    assert not hits, hits


def test_the_server_does_not_walk_the_whole_heap_after_every_run():
    """Streamlit's default (runner.postScriptGC) ends every run with a full garbage collection; over
    this app's heap (vocabularies, traces) it held the run's last messages back by 75-100 ms."""
    import tomllib
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["runner"]["postScriptGC"] is False
