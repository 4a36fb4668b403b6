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


# The longest tests, started first (each 15-50 s; the rest take seconds). Two workers share the
# suite (`make test`: pytest -n 2 --dist worksteal) and each takes its next test when it is free:
# started last, a 50 s test was the run's whole tail, one worker busy and the other idle.
LONGEST_FIRST = (
    "test_ten_sessions_training_at_once_each_see_their_own",
    "test_every_page_is_legible_and_every_chart_whole",
    "test_autoplay_steps_one_at_a_time",
    "test_five_quick_presses_make_five_steps",
    "test_unigram_stepped_by_keys_with_its_lattice",
    "test_a_big_corpus_shows_progress_and_another_session_stays_usable",
    "test_payloads_in_every_input_stay_text",
    "test_first_screen_and_chinese_merges",
    "test_reload_on_merges_restores_a_pasted_corpus_and_the_step",
    "test_spark_local_job_writes_the_same_table",
)


def pytest_collection_modifyitems(config, items):
    """Browser tests before the others, the longest of them first (a stable sort: otherwise the
    order of the files). The many short tests without a browser come last and fill the gaps."""
    def order(item):
        name = item.originalname or item.name
        rank = LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)
        return (rank, item.get_closest_marker("browser") is None)
    items.sort(key=order)
