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


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory) -> Path:
    """``stridegrad yours`` keeps the workers' verdicts in a folder of the test module's
    own (``$STRIDEGRAD_CACHE/yours``), not in the user's cache; the folder."""
    folder = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("STRIDEGRAD_CACHE", str(folder))
        yield folder / "yours"
