"""The tensor suite's ``device`` fixture, for nn tests that run on every backend."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tensor"))
from tensor_devices import device  # noqa: E402, F401 - the fixture
