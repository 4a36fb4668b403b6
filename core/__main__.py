import os
import signal
import sys


def _say(message: str) -> int:
    if sys.stderr is not None:
        try:
            sys.stderr.write(message + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
    return 2


def _interrupted(signum, frame) -> None:
    """Ctrl+C: one line and status 2 at once, whatever runs (the modules loading, a training, a
    pool of workers). Unwinding instead printed a KeyboardInterrupt traceback during the imports,
    and a multiprocessing pool's shutdown could wait for ever. The workers ignore Ctrl+C or end
    quietly, and die with this process (core/corpus.py's die_with_parent). (Ending them here made
    a multiprocessing pool fork new ones, which could outlive it.)"""
    try:
        os.write(2, b"interrupted\n")
    except OSError:
        pass
    os._exit(2)


def run() -> int:
    """`python -m core`: main(), then the process ends at once with os._exit once its output is
    flushed. A training leaves a million-odd small objects (its state, trace and report) that the
    interpreter would free one by one and walk once more at shutdown (a tenth of the training's
    time on 8.6 MB: docs/architecture.md); the OS takes the memory back at once. Nothing else is
    pending by then: files are written and closed, the counting workers have been joined."""
    signal.signal(signal.SIGINT, _interrupted)
    from .cli import main
    from .trainer import keep_state_until_exit
    keep_state_until_exit()
    code = main()
    for stream in (sys.stdout, sys.stderr):
        if stream is None:   # closed (>&-): main() said so if it had something to write there
            continue
        try:
            stream.flush()
        except BrokenPipeError:
            pass   # the reader went away: as main() treats it
        except (OSError, ValueError) as e:
            _say(f"error: cannot write the output: {getattr(e, 'strerror', None) or e}")
            code = 2
    return code


if __name__ == "__main__":  # guarded: counting workers re-import the main module
    os._exit(run())
