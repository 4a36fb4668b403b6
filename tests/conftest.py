"""Settings of the test processes themselves (every test, every layer).

Python's cyclic collector examines its youngest objects every 700 net allocations by default. A
test process keeps millions of objects alive on purpose (pretrained vocabularies, trained traces,
Streamlit's AppTest sessions), and the frequent young passes promote them, so the full passes
that walk all of them come often too. One young pass per 100,000 allocations frees the same
cycles, later: the tests without a browser took 157.0 -> 147.5 s (CPU 276 -> 256 s) in one
sitting on 2 cores. The app's own server is not affected (bench/step.py showed no change there).
"""
import gc

gc.set_threshold(100_000)
