"""The repository's notebooks are what its sources build.

Its own file, apart from test_build.py: the check executes every solution notebook
(a minute and a half on 2 cores), and with ``pytest -n`` each file runs on one worker,
so this one runs beside the rest of the build's tests instead of after them.
"""

from __future__ import annotations

from stridegrad.cli import main as cli


def test_committed_notebooks_match_the_sources(capsys):
    """`stridegrad build --check` on the repository: lessons/, solutions/ and the
    packaged copy are what course/ and src/ build."""
    code = cli(["build", "--check"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
