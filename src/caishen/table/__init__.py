"""The table: seating, the match flow, results and records, above the engine and the variants."""
