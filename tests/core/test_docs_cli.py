"""docs/cli.md is run, not just read: every ```sh block in it is an example that must work.

Each block runs as one bash script (`set -eo pipefail`) in its own temporary folder, with `python`
on PATH being this interpreter and the repository root on PYTHONPATH, so the examples are written
exactly as a user types them (`python -m core ...`). A block must exit 0 and leave standard error
empty (the CLI's promise on success; examples that show an error redirect it with `2>&1`).
Expected output, where the page shows it:
  - a ```text block right after a ```sh block is everything the block prints (compared line by
    line, trailing spaces ignored);
  - `CMD  # => TEXT` says the first line CMD prints is TEXT.
Also: every subcommand `python -m core --help` lists has its own section and at least one example.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tests.support import ROOT

DOC = ROOT / "docs" / "cli.md"
FENCE = re.compile(r"^```(\w*)\s*$")
EXPECT = re.compile(r"^(?P<cmd>.*?\S)\s+# => (?P<out>.*)$")


@dataclass
class Example:
    line: int                               # 1-based line of the opening ```sh fence
    script: str
    expected_output: str | None = None      # the ```text block that follows, if any
    expected_first_lines: list[tuple[int, str, str]] = field(default_factory=list)  # (line, command, text)


def parse_examples(markdown: str) -> list[Example]:
    """The ```sh blocks of a Markdown text, each with the output it claims (see module docstring)."""
    lines = markdown.splitlines()
    blocks: list[tuple[str, int, int, list[str]]] = []   # (language, opening line, closing line, body)
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j].rstrip() != "```":
            j += 1
        assert j < len(lines), f"line {i + 1}: a code block is never closed"
        blocks.append((m.group(1), i + 1, j + 1, lines[i + 1:j]))
        i = j + 1
    examples = []
    for k, (lang, start, end, body) in enumerate(blocks):
        if lang != "sh":
            continue
        ex = Example(line=start, script="")
        out_lines = []
        for n, text in enumerate(body):
            m = EXPECT.match(text)
            if m:
                ex.expected_first_lines.append((start + 1 + n, m.group("cmd"), m.group("out").strip()))
                text = f"{m.group('cmd')} > .docs_out_{len(ex.expected_first_lines)}"
            out_lines.append(text)
        ex.script = "\n".join(out_lines) + "\n"
        if k + 1 < len(blocks):
            nxt_lang, nxt_start, _, nxt_body = blocks[k + 1]
            between = lines[end:nxt_start - 1]
            if nxt_lang == "text" and not any(s.strip() for s in between):
                ex.expected_output = "\n".join(nxt_body)
        examples.append(ex)
    return examples


EXAMPLES = parse_examples(DOC.read_text(encoding="utf-8"))


def run_example(ex: Example, folder: Path) -> subprocess.CompletedProcess:
    bin_dir = folder / ".bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "python"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    script = ex.script.replace(".venv/bin/python", sys.executable)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8", "LC_ALL": "C.UTF-8"}
    return subprocess.run(["bash", "-c", "set -eo pipefail\n" + script], cwd=folder, env=env,
                          capture_output=True, text=True, encoding="utf-8", timeout=120)


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.rstrip("\n").splitlines()]


@pytest.mark.parametrize("ex", EXAMPLES, ids=[f"cli.md:{ex.line}" for ex in EXAMPLES])
def test_example_runs_and_prints_what_the_page_says(ex: Example, tmp_path: Path):
    p = run_example(ex, tmp_path)
    where = f"docs/cli.md:{ex.line}"
    assert p.returncode == 0, f"{where}: exit status {p.returncode}\n{ex.script}\nstderr: {p.stderr}"
    assert p.stderr == "", f"{where}: wrote to standard error on success: {p.stderr}"
    if ex.expected_output is not None:
        assert _lines(p.stdout) == _lines(ex.expected_output), f"{where}: output differs from the text block"
    for k, (line, cmd, expected) in enumerate(ex.expected_first_lines, start=1):
        printed = (tmp_path / f".docs_out_{k}").read_text(encoding="utf-8").splitlines()
        first = printed[0].rstrip() if printed else ""
        assert first == expected, f"docs/cli.md:{line}: `{cmd}` printed {first!r}, the page says {expected!r}"


def test_the_page_has_examples_with_outputs():
    assert len(EXAMPLES) >= 10
    assert sum(ex.expected_output is not None for ex in EXAMPLES) >= 8
    assert sum(len(ex.expected_first_lines) for ex in EXAMPLES) >= 3


def test_every_subcommand_is_documented_and_exemplified():
    p = subprocess.run([sys.executable, "-m", "core", "--help"], cwd=ROOT, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    listed = re.search(r"\{([a-z,-]+)\}", p.stdout)
    assert listed, p.stdout
    doc = DOC.read_text(encoding="utf-8")
    scripts = "\n".join(ex.script for ex in EXAMPLES)
    for name in listed.group(1).split(","):
        assert re.search(rf"^## .*\b{re.escape(name)}\b", doc, re.M), f"docs/cli.md has no section for `{name}`"
        assert f"python -m core {name}" in scripts, f"docs/cli.md has no runnable example of `{name}`"


def test_the_parser_reads_expectations():
    md = ("x\n```sh\necho a  # => a\necho b\n```\n\n```text\nb\n```\n"
          "```sh\necho c\n```\nprose\n```text\nnot this\n```\n")
    first, second = parse_examples(md)
    assert first.expected_first_lines == [(3, "echo a", "a")]
    assert first.script == "echo a > .docs_out_1\necho b\n"
    assert first.expected_output == "b"
    assert second.expected_output is None     # prose between: not the block's output
