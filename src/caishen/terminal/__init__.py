"""``caishen play``: a match against three bots in the terminal (Textual app and line mode)."""
