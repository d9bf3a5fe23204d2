"""How long ``check()`` takes: each lesson's checkpoint on its reference solutions.

    python benchmarks/bench_check.py [--lessons 01 02 03 04]

Each lesson is checked in a fresh Python process (as a learner's first ``check()``
in a new kernel is), twice: the first run includes importing the checkpoint and
drawing its contracts' cases, the second reuses them (a learner's next check in the
same kernel). The table gives both times for the whole lesson, and the slowest
single exercise of the first run; the goals are 5 s for a lesson and 1 s for an
exercise on a 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CODE = r"""
import json, sys, time
t0 = time.perf_counter()
from stridegrad.course.build import reference_namespace
from stridegrad.course.checks import load_checkpoint, run_checkpoint
from stridegrad.course.paths import find_lesson, repo_root
ep = sys.argv[1]
ns = reference_namespace(find_lesson(repo_root(), ep))
t1 = time.perf_counter()
cp = load_checkpoint(ep)
per = {}
for exercise in cp.exercises:
    s = time.perf_counter()
    run_checkpoint(cp, ns, exercise=exercise, require_local=False)
    per[exercise] = time.perf_counter() - s
first = time.perf_counter() - t1
s = time.perf_counter()
run_checkpoint(cp, ns, require_local=False)
again = time.perf_counter() - s
print(json.dumps({"first": first, "again": again, "per": per}))
"""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lessons", nargs="*", default=["01", "02", "03", "04"])
    args = parser.parse_args(argv)
    print(f"{'lesson':<7} {'first check':>12} {'next check':>11} {'slowest exercise':>28}")
    for ep in args.lessons:
        out = subprocess.run([sys.executable, "-c", CODE, ep], capture_output=True,
                             text=True, check=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        name, worst = max(r["per"].items(), key=lambda kv: kv[1])
        print(f"{ep:<7} {r['first']:>10.2f} s {r['again']:>9.2f} s {name:>20} {worst:.2f} s")


if __name__ == "__main__":
    main()
