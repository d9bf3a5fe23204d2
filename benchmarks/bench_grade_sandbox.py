"""What the grading sandbox costs: 30 notebooks graded with and without it.

    python benchmarks/bench_grade_sandbox.py [--notebooks 30] [--jobs 2] [--repeat 3]

The submissions are lesson 01's solution (full marks) and its untouched lesson
(zero), alternately. Each configuration grades the same folder; the table shows
the best wall time of ``--repeat`` runs, the time per notebook and the overhead
over ``--no-sandbox``. The goal is at most 20% more wall time.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from stridegrad.course import sandbox
from stridegrad.course.grader import grade
from stridegrad.course.paths import repo_root

STEM = "01_flat_storage"


def _submissions(folder: Path, n: int) -> Path:
    root = repo_root()
    if root is None:
        raise SystemExit("run from a clone of stridegrad (it reads solutions/ and lessons/)")
    for k in range(n):
        source = (root / ("solutions" if k % 2 == 0 else "lessons") / f"{STEM}.ipynb")
        target = folder / f"student{k:02d}" / STEM / f"{STEM}.ipynb"
        target.parent.mkdir(parents=True)
        shutil.copyfile(source, target)
    return folder


def _time(submitted: Path, out: Path, mode, jobs: int) -> float:
    t0 = time.perf_counter()
    grades = grade(submitted, "01", out, jobs=jobs, sandbox=mode, log=lambda s: None)
    seconds = time.perf_counter() - t0
    bad = [g.student for g in grades if g.status != "graded"]
    if bad:
        raise SystemExit(f"{mode or 'no sandbox'}: not graded: {bad}")
    return seconds


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--notebooks", type=int, default=30)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    modes: list = [False]
    for launcher in sandbox.LAUNCHERS:
        try:
            sandbox.find(launcher)
            modes.append(launcher)
        except sandbox.SandboxUnavailable as exc:
            print(f"({launcher} skipped: {exc})")
    with tempfile.TemporaryDirectory(prefix="stridegrad-bench-") as tmp:
        submitted = _submissions(Path(tmp) / "submitted", args.notebooks)
        best = {mode: float("inf") for mode in modes}
        for _ in range(args.repeat):  # interleaved, so that load changes hit every mode
            for mode in modes:
                best[mode] = min(best[mode], _time(submitted, Path(tmp) / "out", mode, args.jobs))
    base = best[False]
    print(f"\ngrading {args.notebooks} notebooks of {STEM}, {args.jobs} jobs, "
          f"best of {args.repeat}")
    print(f"{'sandbox':<10} {'wall s':>8} {'s/notebook':>11} {'overhead':>9}")
    for mode in modes:
        name = mode or "off"
        overhead = "" if mode is False else f"{(best[mode] / base - 1) * 100:+.1f}%"
        print(f"{name:<10} {best[mode]:>8.2f} {best[mode] / args.notebooks:>11.3f} {overhead:>9}")


if __name__ == "__main__":
    main()
