"""``python -m swagkit.verify`` is the ``swagkit`` command (see :mod:`swagkit.verify.cli`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
