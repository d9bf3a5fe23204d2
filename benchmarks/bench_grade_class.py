"""How long a class takes to grade: 40 and 300 submissions of lesson 01, in the sandbox.

    python benchmarks/bench_grade_class.py [--sizes 40 300] [--jobs 2] [--looping-every 40]

A class is a realistic mix, in this order, repeated: the solution (full marks), the
untouched lesson (zero), a partial one (two of the four exercises solved), and one
submission in forty (``--looping-every``; 0: none) whose ``numel`` never returns (it costs its own tests their
``--test-timeout`` and its cells their ``--cell-timeout``, the grader's defaults).
Each size is graded once, with the grader's default limits, into a fresh gradebook;
the table gives the wall time, the time per notebook and the slowest notebook.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from stridegrad.course.grader import grade
from stridegrad.course.paths import repo_root

STEM = "01_flat_storage"
PARTIAL = {"numel", "contiguous_strides"}  # the exercises the partial submission solved


def _cells(kind: str) -> dict:
    root = repo_root()
    if root is None:
        raise SystemExit("run from a clone of stridegrad (it reads solutions/ and lessons/)")
    lesson = json.loads((root / "lessons" / f"{STEM}.ipynb").read_text(encoding="utf-8"))
    solution = json.loads((root / "solutions" / f"{STEM}.ipynb").read_text(encoding="utf-8"))
    if kind == "blank":
        return lesson
    if kind == "full":
        return solution
    answers = {c["metadata"].get("nbgrader", {}).get("grade_id"): c for c in solution["cells"]
               if c["metadata"].get("nbgrader", {}).get("solution")}
    for k, cell in enumerate(lesson["cells"]):
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if kind == "partial" and grade_id in PARTIAL:
            lesson["cells"][k] = answers[grade_id]
        if kind == "looping":
            lesson["cells"][k] = answers.get(grade_id, cell)
            if grade_id == "numel":
                lesson["cells"][k] = dict(cell, source="def numel(shape):\n    while True:\n"
                                                       "        pass\n")
    return lesson


def _class(folder: Path, n: int, looping_every: int) -> dict[str, int]:
    kinds = {kind: json.dumps(_cells(kind)) for kind in ("full", "blank", "partial", "looping")}
    counts = dict.fromkeys(kinds, 0)
    for k in range(n):
        looping = looping_every and k % looping_every == looping_every - 1
        kind = "looping" if looping else ("full", "blank", "partial")[k % 3]
        counts[kind] += 1
        target = folder / f"student{k:03d}" / STEM / f"{STEM}.ipynb"
        target.parent.mkdir(parents=True)
        target.write_text(kinds[kind], encoding="utf-8")
    return counts


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[40, 300])
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--looping-every", type=int, default=40)
    p.add_argument("--judge", nargs="+", choices=("outside", "inside"),
                   default=["outside", "inside"],
                   help="where the tests run: the judge outside the sandbox (the default "
                        "for lesson 01) or the worker inside it; both, one after the other, "
                        "give the cost of the judge as a ratio from one run")
    args = p.parse_args()
    print(f"grading lesson {STEM} in the sandbox, --jobs {args.jobs}, default limits")
    print(f"{'notebooks':>9} {'judge':>8} {'wall s':>8} {'s/notebook':>11} {'slowest s':>10}"
          "  mix", flush=True)
    for n in args.sizes:
        walls = {}
        for judge in args.judge:
            os.environ["STRIDEGRAD_JUDGE"] = judge
            with tempfile.TemporaryDirectory(prefix="stridegrad-class-") as tmp:
                counts = _class(Path(tmp) / "submitted", n, args.looping_every)
                t0 = time.perf_counter()
                grades = grade(Path(tmp) / "submitted", "01", Path(tmp) / "out",
                               jobs=args.jobs, log=lambda s: None)
                wall = walls[judge] = time.perf_counter() - t0
            bad = [g.student for g in grades if g.status != "graded"]
            if bad:
                raise SystemExit(f"{n} submissions: not graded: {bad}")
            slowest = max(g.seconds for g in grades)
            mix = ", ".join(f"{v} {k}" for k, v in counts.items() if v)
            print(f"{n:>9} {judge:>8} {wall:>8.1f} {wall / n:>11.2f} {slowest:>10.1f}  {mix}",
                  flush=True)
        if len(walls) == 2:
            print(f"{n:>9} judge outside / inside: {walls['outside'] / walls['inside']:.2f}x "
                  "(goal: at most 1.25x)", flush=True)
    os.environ.pop("STRIDEGRAD_JUDGE", None)


if __name__ == "__main__":
    main()
