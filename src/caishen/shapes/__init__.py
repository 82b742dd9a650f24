"""Hand shapes 牌型: winning forms, waits, shanten and arrangements, told which forms to accept.

Nothing here knows a variant: callers pass a :class:`~caishen.shapes.analysis.Forms` and the
kinds that are wild for the seat."""
