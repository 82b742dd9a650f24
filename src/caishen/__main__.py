"""``python -m caishen``: the same command line as ``caishen``."""

from caishen.cli import main

raise SystemExit(main())
