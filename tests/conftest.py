"""Shared test setup: commands that sign records (``caishen selfplay``) use a key made for the
test session, never the user's own key in their data directory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True, scope="session")
def _signing_key_in_tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("key") / "signing-key.pem"
    mp = pytest.MonkeyPatch()
    mp.setenv("CAISHEN_KEY", str(path))
    yield path
    mp.undo()
