import sys

from .cli import main

if __name__ == "__main__":  # guarded: counting workers re-import the main module
    sys.exit(main())
