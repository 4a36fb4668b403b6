"""The trainers' optional compiled loops (Cython), built in place by `build.py` (`make fast`):
`_merge.pyx` for core/trainer.py (BPE, byte-level BPE, WordPiece) and `_unigram.pyx` for
core/unigram.py (Unigram). When the build is absent, each trainer runs the same loops in Python
and says so (trainer.TRAINER_PATH, unigram.UNIGRAM_PATH: "pure-Python path"); nothing else
changes."""
