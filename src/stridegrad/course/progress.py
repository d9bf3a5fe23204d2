"""The grader's progress line on stderr: how many notebooks are done, how many could
not be graded, the time so far and the slowest notebook yet.

:class:`Progress` is what :func:`stridegrad.course.grader.grade` reports, as each
notebook finishes and once a second while it waits; :class:`ProgressLine` shows it
the way ``pip`` and ``tqdm`` do: on a terminal, one line rewritten in place (cut
to the terminal's width, so it never wraps); in a log file or CI, a plain line
at each tenth of the batch and at least every 10 s, so a log stays short.

The students' names in a line are folder names, as a notebook's submitter chose
them: their control characters and escape sequences are stripped
(:func:`~stridegrad.course._sinks.terminal_line`), so that a name cannot move the
cursor or redraw the line; the only control characters written are this module's
own (``\r`` and erase-to-end-of-line on a terminal).
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from stridegrad.course._sinks import terminal_line

__all__ = ["Progress", "ProgressLine"]


@dataclass(frozen=True)
class Progress:
    """Where a batch stands."""

    done: int
    total: int
    #: notebooks that could not be graded (no notebook, unreadable, timed out, crashed...)
    not_graded: int
    elapsed: float
    #: the slowest notebook so far: (student, seconds), or None before the first
    slowest: tuple[str, float] | None = None
    #: the notebook that just finished ("alice 26/26 graded"), "" on a tick
    last: str = ""
    #: the last report of the batch
    final: bool = False

    def line(self) -> str:
        """``[12/40] 30%  1 not graded  0:35 elapsed  slowest: bob 8.1 s  last: alice 26/26``"""
        percent = 100 * self.done // self.total if self.total else 100
        minutes, seconds = divmod(int(self.elapsed), 60)
        parts = [f"[{self.done}/{self.total}] {percent}%",
                 f"{self.not_graded} not graded",
                 f"{minutes}:{seconds:02d} elapsed"]
        if self.slowest is not None:
            parts.append(f"slowest: {terminal_line(self.slowest[0])} {self.slowest[1]:.1f} s")
        if self.last:
            parts.append(f"last: {terminal_line(self.last)}")
        return "  ".join(parts)


class ProgressLine:
    """Shows :class:`Progress` reports on ``stream`` (see the module docstring).

    ``tty``: rewrite one line in place (default: whether ``stream`` is a terminal).
    ``every``: on a plain stream, a line at least this often (seconds) while
    notebooks finish or run, and at each ``step`` of the batch (a fraction).
    """

    def __init__(self, stream: TextIO | None = None, *, tty: bool | None = None,
                 every: float = 10.0, step: float = 0.1,
                 clock: Callable[[], float] = time.monotonic):
        self.stream = stream if stream is not None else sys.stderr
        if tty is None:
            isatty = getattr(self.stream, "isatty", None)
            tty = bool(isatty and isatty())
        self.tty, self.every, self.step, self.clock = tty, every, step, clock
        self._last_print = clock()
        self._last_done = 0
        self._open = False

    def __call__(self, p: Progress) -> None:
        if self.tty:
            width = shutil.get_terminal_size((100, 20)).columns - 1
            self.stream.write("\r" + p.line()[:width] + "\x1b[K" + ("\n" if p.final else ""))
            self._open = not p.final
            self.stream.flush()
            return
        now = self.clock()
        if p.final:
            if p.done != self._last_done:  # else the last line already said it
                self._print(p, now)
            return
        boundary = max(1, round(self.step * p.total))
        crossed = p.done > self._last_done and (
            p.done // boundary > self._last_done // boundary or p.done == p.total)
        if crossed or now - self._last_print >= self.every:
            self._print(p, now)

    def _print(self, p: Progress, now: float) -> None:
        self.stream.write(p.line() + "\n")
        self.stream.flush()
        self._last_print, self._last_done = now, p.done

    def close(self) -> None:
        """End an open terminal line (after Ctrl-C, before other output)."""
        if self._open:
            self.stream.write("\n")
            self.stream.flush()
            self._open = False
