"""`python -m toolkit`: the same as the `toolkit` command."""

import sys

from .cli._cli import main

sys.exit(main())
