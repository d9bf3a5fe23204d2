"""Fixtures for the course tooling tests."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from stridegrad.course.paths import repo_root

ROOT = repo_root()


def define(source: str, **extra) -> dict:
    """Run ``source`` the way a notebook cell runs: in a ``__main__`` namespace."""
    ns = {"__name__": "__main__", **extra}
    exec(compile(textwrap.dedent(source), "<notebook cell>", "exec"), ns)
    return ns


@pytest.fixture(scope="session")
def root() -> Path:
    assert ROOT is not None, "the course tests run in a clone"
    return ROOT
