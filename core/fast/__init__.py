"""The trainer's optional compiled loops (Cython): `_merge.pyx`, built in place by `build.py`
(`make fast`). When the build is absent, core/trainer.py runs the same loops in Python and says
so (trainer.TRAINER_PATH: "pure-Python path"); nothing else changes."""
