"""Benchmark: stridegrad.array (pure Python) against NumPy on the same inputs.

``rows()`` returns one dict per case; ``main()`` prints them as a table. Both
libraries are timed in the same run, best of several repeats
(``time.perf_counter``), so the ratio is meaningful on any machine. The whole
run takes a few seconds.
"""

from __future__ import annotations

import random
import time

import numpy as np

import stridegrad.array as sa

__all__ = ["rows", "main"]

_REPEATS = 5
_BUDGET_S = 0.4  # per case and library: stop repeating once this much time is spent


def _best_time(fn, repeats: int = _REPEATS, budget: float = _BUDGET_S) -> float:
    fn()  # warm up (caches, BLAS threads)
    best = float("inf")
    spent = 0.0
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        best = min(best, dt)
        spent += dt
        if spent > budget:
            break
    return best


def _pair(shape, seed):
    rng = random.Random(seed)
    n = 1
    for d in shape:
        n *= d
    values = [rng.uniform(-1.0, 1.0) for _ in range(n)]
    ref = np.asarray(values, dtype=np.float64).reshape(shape)
    return sa.asarray(ref), ref


def _cases():
    for side in (100, 316, 1000):
        x, xr = _pair((side, side), 0)
        y, yr = _pair((side,), 1)  # broadcast a row over every row
        yield ("elementwise", "add (n,n)+(n,)", f"{side}x{side}",
               lambda x=x, y=y: sa.add(x, y), lambda xr=xr, yr=yr: np.add(xr, yr))
    for side in (100, 316, 1000):
        x, xr = _pair((side, side), 2)
        yield ("reduction", "sum axis=0", f"{side}x{side}",
               lambda x=x: sa.sum(x, axis=0), lambda xr=xr: np.sum(xr, axis=0))
    for side in (32, 64, 128):
        a, ar = _pair((side, side), 3)
        b, br = _pair((side, side), 4)
        yield ("matmul", "(n,n)@(n,n)", f"{side}x{side}",
               lambda a=a, b=b: sa.matmul(a, b), lambda ar=ar, br=br: np.matmul(ar, br))


def rows() -> list[dict]:
    """Time every case -> one dict per case.

    Keys: ``group, case, size, stridegrad_s, numpy_s, ratio, note``.
    """
    out = []
    for group, case, size, ours, ref in _cases():
        ours_s = _best_time(ours)
        numpy_s = _best_time(ref, repeats=20)
        out.append({
            "group": group,
            "case": case,
            "size": size,
            "stridegrad_s": ours_s,
            "numpy_s": numpy_s,
            "ratio": ours_s / numpy_s if numpy_s > 0 else float("inf"),
            "note": "float64, best of up to 5 runs",
        })
    return out


def format_table(table: list[dict]) -> str:
    """The rows as a plain-text table (times in milliseconds, ratio = stridegrad / NumPy)."""
    header = f"{'group':<12} {'case':<16} {'size':>8} {'stridegrad ms':>14} {'numpy ms':>10} " \
             f"{'ratio':>9}"
    lines = [header, "-" * len(header)]
    for r in table:
        lines.append(
            f"{r['group']:<12} {r['case']:<16} {r['size']:>8} {r['stridegrad_s'] * 1e3:>14.3f} "
            f"{r['numpy_s'] * 1e3:>10.4f} {r['ratio']:>8.0f}x"
        )
    return "\n".join(lines)


def main() -> None:
    print(format_table(rows()))


if __name__ == "__main__":
    main()
