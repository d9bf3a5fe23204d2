"""The course machinery: checkpoints and ``check()``, the lesson build, the grader.

In a lesson you only need :func:`check` and :func:`hint`::

    from stridegrad.course import check, hint
    check("01")            # every exercise of episode 01
    check("01", "numel")   # one exercise
    hint("01", "numel")    # the next level of hints for an exercise, from a nudge to the idea

Instructors use the command line: ``stridegrad build``, ``stridegrad grade``,
``stridegrad check``; see ``stridegrad --help``. The heavier modules (build,
grader) import nbformat/nbclient/jupytext and are loaded only when used.
"""

from __future__ import annotations

from stridegrad.course.checks import (
    CheckFailure,
    Checkpoint,
    CheckpointFailed,
    CheckResult,
    Row,
    check,
    expect,
    fail,
    load_checkpoint,
    run_checkpoint,
)
from stridegrad.course.hints import hint
from stridegrad.course.links import BINDER_URL, REPO_URL, binder_url, colab_url

__all__ = [
    "BINDER_URL",
    "REPO_URL",
    "CheckFailure",
    "CheckResult",
    "Checkpoint",
    "CheckpointFailed",
    "Row",
    "binder_url",
    "check",
    "colab_url",
    "expect",
    "fail",
    "hint",
    "load_checkpoint",
    "run_checkpoint",
]
