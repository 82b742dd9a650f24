"""The generic engine: actions, the wall, seats and the turn/claim/rob state machine of a hand.

The engine never names a variant: it plays whatever rules object a variant gives it."""
