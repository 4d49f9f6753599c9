"""``python -m perfweave`` runs the command line."""

import sys

from perfweave.cli import main

sys.exit(main())
