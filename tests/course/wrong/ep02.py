"""Known-wrong implementations for episode 02 (kept next to the episode's own tests)."""

from ..test_ep02 import WRONG_02 as WRONG

__all__ = ["WRONG"]
