"""Subcommands of the ``stridegrad`` CLI: one module each (see ``stridegrad.cli``)."""

from __future__ import annotations

__all__ = ["CommandError"]


class CommandError(Exception):
    """A problem with what the user asked for, said in one line.

    ``stridegrad.cli.main`` prints it as ``stridegrad CMD: error: MESSAGE`` (argparse's
    own style for bad arguments) with no traceback, and exits with ``code``: 2 for a
    request that cannot be carried out, 1 for a check that found a problem.
    """

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code
