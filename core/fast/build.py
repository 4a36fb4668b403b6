"""Build the trainers' compiled loops in place: core/fast/_merge*.so from _merge.pyx (BPE,
WordPiece) and core/fast/_unigram*.so from _unigram.pyx (Unigram).

    python core/fast/build.py      (`make fast`; the Makefile carries on if it fails)

Needs Cython (requirements.txt) and a C compiler. Without either it prints why and exits 1;
the trainers then run their pure-Python paths, which give the same traces.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    try:
        from Cython.Build import cythonize
        from setuptools import Extension
        from setuptools.dist import Distribution
    except ImportError as e:
        print(f"core/fast: not built ({e.name} is not installed): the trainers run their pure-Python paths")
        return 1
    os.chdir(HERE.parents[1])
    exts = [Extension("core.fast._merge", [str(Path("core", "fast", "_merge.pyx"))], extra_compile_args=["-O2"]),
            # no fused multiply-add and no fast-math: the same floats as Python's arithmetic
            Extension("core.fast._unigram", [str(Path("core", "fast", "_unigram.pyx"))],
                      extra_compile_args=["-O2", "-ffp-contract=off", "-fno-fast-math"])]
    try:
        modules = cythonize(exts, quiet=True, language_level=3)
        dist = Distribution({"ext_modules": modules})
        cmd = dist.get_command_obj("build_ext")
        cmd.inplace = True
        cmd.build_temp = str(Path("build", "fast-temp"))
        dist.run_command("build_ext")
    except Exception as e:  # noqa: BLE001 - no compiler, headers missing...: carry on without it
        print(f"core/fast: not built ({type(e).__name__}: {e}): the trainers run their pure-Python paths")
        return 1
    print("core/fast: the compiled fast path is ready (built now or already up to date)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
