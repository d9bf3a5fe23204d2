"""Every ```python block of README.md runs as written, each in a fresh interpreter."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(line number, code) of each fenced ```python block."""
    return [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in _BLOCK.finditer(text)]


def test_the_readme_has_python_blocks():
    assert len(python_blocks(README.read_text(encoding="utf-8"))) >= 2


def test_block_extraction():
    text = "intro\n```python\nx = 1\n```\ntext\n```bash\nls\n```\n```python\ny = 2\n```\n"
    assert python_blocks(text) == [(2, "x = 1\n"), (9, "y = 2\n")]


@pytest.mark.parametrize("line,code", python_blocks(README.read_text(encoding="utf-8")),
                         ids=lambda v: f"line{v}" if isinstance(v, int) else "")
def test_readme_block_runs(line, code, tmp_path):
    # a fresh interpreter in an empty folder: no name or file leaks in from the tests
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, env={"MPLBACKEND": "Agg", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, f"README.md line {line}:\n{code}\n--- stderr ---\n{proc.stderr}"


def test_the_count_of_known_mistakes_is_the_packages():
    from stridegrad.course.misconceptions import by_episode

    stated = re.search(r"of\s+the\s+(\d+)\s+known\s+mistakes", README.read_text())
    assert stated, "README.md no longer says how many known mistakes check() recognises"
    actual = sum(len(ms) for lesson in by_episode().values() for ms in lesson.values())
    assert int(stated.group(1)) == actual
