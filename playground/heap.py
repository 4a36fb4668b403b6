"""Python's cycle collector, kept out of a user's wait.

CPython's collector makes a full pass over every container object the process holds (lists,
tuples, dicts, class instances) once enough new ones have survived, in whichever request happens
to be allocating then, holding the interpreter lock for every session of the server. A trained
trace is made of many such objects, its steps' candidates and changed words: the KJV's 8,000
merges about 200,000 of them, a 1,000,000-word table's 30,000 merges 785,000. A full pass over
those took 130-170 ms and 360 ms on this project's 2-core machine, so a Merges step or a Compare
run that met one, at random, took that much longer.

gc.freeze() moves every object alive into a generation the collector never passes over.
Reference counting still frees a frozen object once nothing refers to it, so a trace replaced by
new results goes as before: a trace, its corpus and its results hold no reference cycles
(tests/playground/test_heap.py). What freezing keeps is garbage in cycles that was alive when it
ran (a closed session's objects): settle() begins by unfreezing, so that is collected at the next
settle.

    settle()             collect, then freeze what is alive (startup.import_later: once a server
                         process, in the background after its first page)
    settle_for(results)  state.set_results: when the results are big enough to be worth a pass
"""
from __future__ import annotations

import gc

# below this many merges in all, a full pass over the results costs less than the collection that
# freezing them needs (a few ms), and most tests train seeds of a few merges
WORTH_STEPS = 2_000


def settle() -> None:
    """Collect what is garbage now (frozen or not), then freeze everything still alive."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def settle_for(results) -> None:
    """Settle when `results` (state.Results, or None: no results) made at least WORTH_STEPS merges in all."""
    if results is not None and sum(len(t.steps) for t in results.traces().values()) >= WORTH_STEPS:
        settle()
