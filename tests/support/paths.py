"""Where things are, for tests in any folder under tests/: the repository, tests/ and its fixtures."""
from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
FIXTURES = TESTS / "fixtures"
