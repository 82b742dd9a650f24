"""Sub-commands of the ``caishen`` command line (optional layer over the rules core)."""
