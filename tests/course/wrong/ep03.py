"""Known-wrong implementations for episode 03 (kept next to the episode's own tests)."""

from ..test_ep03 import WRONG_03 as WRONG

__all__ = ["WRONG"]
