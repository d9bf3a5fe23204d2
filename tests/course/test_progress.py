"""Manners (issue #15, item 11): the grader's progress line, and Ctrl-C from a terminal
stops every worker and writes what finished."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from stridegrad.course.progress import Progress, ProgressLine

from .test_grader import STEM, _solution, _with_cell


class _Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _report(done, total, t, last="x 1/1 graded", final=False, not_graded=0):
    return Progress(done, total, not_graded, t, ("slow", 9.5), last, final)


def test_the_line_says_counts_failures_time_and_the_slowest():
    line = Progress(12, 40, 3, 95.2, ("bob", 8.14), "alice 26/26 graded").line()
    assert line == ("[12/40] 30%  3 not graded  1:35 elapsed  slowest: bob 8.1 s  "
                    "last: alice 26/26 graded")
    assert Progress(0, 40, 0, 1.0).line() == "[0/40] 0%  0 not graded  0:01 elapsed"


def test_a_log_gets_a_line_per_tenth_and_every_ten_seconds():
    out, clock = io.StringIO(), _Clock()
    show = ProgressLine(out, tty=False, clock=clock)
    for done in range(1, 41):  # 40 notebooks, one a second
        clock.now = float(done)
        show(_report(done, 40, clock.now))
    lines = out.getvalue().splitlines()
    # every fourth notebook (a tenth), and nothing in between: 10 s never pass without one
    assert [line.split("]")[0] for line in lines] == [f"[{k}/40" for k in range(4, 41, 4)]
    show(_report(40, 40, 41.0, last="", final=True))
    assert len(out.getvalue().splitlines()) == 10  # the last line already said it


def test_a_slow_batch_still_shows_it_is_alive():
    out, clock = io.StringIO(), _Clock()
    show = ProgressLine(out, tty=False, clock=clock)
    for t in range(1, 26):  # no notebook finishes for 25 s: ticks once a second
        clock.now = float(t)
        show(_report(0, 300, clock.now, last=""))
    assert [line.split("  ")[2] for line in out.getvalue().splitlines()] == \
        ["0:10 elapsed", "0:20 elapsed"]
    clock.now = 26.0
    show(_report(1, 300, 26.0))  # one of 300 is no tenth, and 10 s have not passed
    assert len(out.getvalue().splitlines()) == 2
    show(_report(1, 300, 26.5, last="", final=True))  # stopped early: the last word
    assert out.getvalue().splitlines()[-1].startswith("[1/300] 0%")


def test_a_terminal_gets_one_line_rewritten_in_place(monkeypatch):
    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback=None: os.terminal_size((40, 20)))
    out = io.StringIO()
    show = ProgressLine(out, tty=True)
    for done in range(1, 4):
        show(_report(done, 3, done))
    text = out.getvalue()
    assert "\n" not in text and text.count("\r") == 3
    pieces = [p.removesuffix("\x1b[K") for p in text.split("\r")[1:]]
    assert all(len(p) <= 39 for p in pieces), pieces  # never wraps onto a second line
    assert pieces[-1].startswith("[3/3] 100%")
    show.close()
    assert out.getvalue().endswith("\n")
    out2 = io.StringIO()
    show2 = ProgressLine(out2, tty=True)
    show2(_report(3, 3, 3.0, final=True))
    assert out2.getvalue().endswith("\x1b[K\n")
    show2.close()
    assert out2.getvalue().count("\n") == 1


def _default_signal_handlers():
    """In the child before exec: the default SIGINT/SIGTERM actions, whatever the test
    run inherited. A shell starts a background job (`make test &`, nohup, CI runners)
    with SIGINT ignored, and an ignored signal stays ignored across exec: Python then
    never installs its KeyboardInterrupt handler, and the signal this test sends would do
    nothing. A terminal's Ctrl-C reaches a foreground command with the default action,
    which is what this test is about."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)],
                         ids=["SIGINT", "SIGTERM"])
def test_ctrl_c_in_a_terminal_stops_every_worker(tmp_path, sig, code):
    """SIGINT, as a terminal sends it, or SIGTERM, as Slurm's scancel and Kubernetes
    send it, to `stridegrad grade`: exit 130 (143), the finished notebook's result
    written, the hanging notebook's worker gone."""
    sub = tmp_path / "sub"
    pid_file = tmp_path / "worker.pid"
    for student, text in (
            ("amy", "{not json"),
            ("zoe", json.dumps(_with_cell(_solution(), (
                "import os, signal, time\n"
                f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
                "signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
                "while True:\n    time.sleep(0.01)"), at=1)))):
        path = sub / student / STEM / f"{STEM}.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(text)
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "stridegrad.cli", "grade", str(sub), "--lesson", "01",
         "--out", str(out), "--jobs", "2", "--no-sandbox", "--timeout", "600",
         "--cell-timeout", "600"], stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        preexec_fn=_default_signal_handlers)
    try:
        deadline = time.monotonic() + 60
        first = proc.stderr.readline()  # amy's line: a tenth of 2 is one notebook
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline and proc.poll() is None, first
            time.sleep(0.05)
        worker = int(pid_file.read_text())
        proc.send_signal(sig)
        stdout, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        if pid_file.exists() and pid_file.read_text():  # never leave it behind, even failing
            try:
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
            except ProcessLookupError:
                pass
    assert first.startswith("[1/2] 50%  1 not graded"), first
    assert proc.returncode == code, err
    assert "interrupted: stopped 1 running notebook; writing the 1 of 2 finished" in stdout
    by = " by SIGTERM" if sig == signal.SIGTERM else ""
    assert f"stridegrad grade: interrupted{by} (the results finished before are written)" in err
    assert not os.path.exists(f"/proc/{worker}")  # killed and reaped, not left behind
    with open(out / STEM / "totals.csv", newline="") as f:
        assert [(r["student"], r["status"]) for r in csv.DictReader(f)] == \
            [("amy", "invalid-notebook")]
