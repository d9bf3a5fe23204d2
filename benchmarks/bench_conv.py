"""Convolution benchmark: one conv layer, forward + backward, on 1 BLAS thread.

Run ``python benchmarks/bench_conv.py``. ``rows()`` returns the table as dicts
``{"group", "case", "stridegrad_s", "reference_s", "ratio", "note"}``.

The layer: batch 32, 16 -> 32 channels, 3x3 kernel, padding 1, 32x32 images,
float32; the backward computes the gradients of input, weight and bias for a
fixed output gradient. ``sg.nn.functional.conv2d`` is compared with

* the same im2col written by hand in NumPy (window view, one copy into
  ``(N, C*9, H*W)`` columns, one matmul; backward: two matmuls and col2im as 9
  slice additions): the plain im2col of lesson 12, which the library's fast path
  for 3x3 stride-1 layers beats by scheduling its steps for the cache (see
  ``stridegrad.nn.conv``);
* PyTorch's CPU ``conv2d`` (``torch.set_num_threads(1)``), when torch is importable;
  otherwise the row says "torch absent".

Both configurations run, each in its own subprocess with ``OMP_NUM_THREADS=
OPENBLAS_NUM_THREADS=MKL_NUM_THREADS=1`` (and ``torch.set_num_threads(1)``), with the
garbage collector on, as users run it:

* "tuned malloc" (the README's first rows): glibc's malloc kept from unmapping the
  2-20 MB temporaries, which it would otherwise unmap and re-fault on every call;
* "default malloc": the allocator as it comes (issue #30 asks for the goal here too).

They differ in nothing else: same layer, dtype, threads and timing. Timings are the
process's CPU time, the minimum over interleaved rounds, so each ratio compares the
three under the same load. The ratio to PyTorch still moves with the machine's load:
on the 2-core EPYC, loaded by other jobs, the hand-written NumPy step took 1.25x and
2.42x PyTorch's wall-clock time within a few minutes (2026-12-02), and 1.6-1.9x its
CPU time. Quiet, the step's three matmuls alone took 10.0 ms there (NumPy's OpenBLAS
picks its AVX2 kernels on that CPU: about 90 GFLOPS on these shapes), 1.8x PyTorch's
whole step (5.4 ms; its AVX-512 convolution forward runs at about 170 GFLOPS).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np

__all__ = ["main", "rows"]

N, C, OC, H, W, K, PAD = 32, 16, 32, 32, 32, 3, 1
GROUP = "conv2d 3x3 16->32 ch, 32x32, batch 32"  # fwd+bwd, padding 1, float32, 1 thread


def _best(fn, number: int = 3) -> float:
    # CPU time of this process, not wall time: every side runs on one thread, so on a
    # quiet machine the two agree, and on a shared one the time other jobs hold the
    # core is not charged to whichever side happened to be running
    t0 = time.process_time()
    for _ in range(number):
        fn()
    return (time.process_time() - t0) / number


def _interleaved(fns: list, rounds: int = 15) -> list[float]:
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            best[i] = min(best[i], _best(fn))
    return best


def numpy_conv(x, w, b, g):
    """Forward and backward of the layer, im2col by hand: ``(y, dx, dw, db)``."""
    n, c, h, wd = x.shape
    oc = w.shape[0]
    xp = np.zeros((n, c, h + 2 * PAD, wd + 2 * PAD), x.dtype)
    xp[:, :, PAD:-PAD, PAD:-PAD] = x
    win = np.lib.stride_tricks.sliding_window_view(xp, (K, K), axis=(2, 3))  # (n,c,h,w,K,K)
    cols = win.transpose(0, 1, 4, 5, 2, 3).reshape(n, c * K * K, h * wd)
    w2 = w.reshape(oc, -1)
    y = (w2 @ cols).reshape(n, oc, h, wd) + b[:, None, None]
    g2 = g.reshape(n, oc, h * wd)
    dw = (g2 @ cols.transpose(0, 2, 1)).sum(axis=0).reshape(w.shape)
    db = g.sum(axis=(0, 2, 3))
    dcols = (w2.T @ g2).reshape(n, c, K, K, h, wd)
    dxp = np.zeros_like(xp)
    for i in range(K):
        for j in range(K):
            dxp[:, :, i : i + h, j : j + wd] += dcols[:, :, i, j]
    return y, dxp[:, :, PAD:-PAD, PAD:-PAD], dw, db


def _measure() -> list[dict]:
    import stridegrad as sg
    from stridegrad.nn import functional as F

    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((N, C, H, W)).astype(np.float32)
    w_np = (rng.standard_normal((OC, C, K, K)) * 0.1).astype(np.float32)
    b_np = rng.standard_normal(OC).astype(np.float32)
    g_np = rng.standard_normal((N, OC, H, W)).astype(np.float32)
    x, w, b = (sg.tensor(a, requires_grad=True) for a in (x_np, w_np, b_np))
    g = sg.tensor(g_np)

    def sg_step():
        x.grad = w.grad = b.grad = None
        F.conv2d(x, w, b, padding=PAD).backward(g)

    # the two compute the same numbers
    sg_step()
    ref = numpy_conv(x_np, w_np, b_np, g_np)
    ours = (F.conv2d(x, w, b, padding=PAD).numpy(), x.grad.numpy(), w.grad.numpy(), b.grad.numpy())
    for name, a, r in zip(("y", "dx", "dw", "db"), ours, ref):
        if not np.allclose(a, r, rtol=1e-3, atol=1e-3):
            raise RuntimeError(f"stridegrad and hand-written NumPy disagree on {name}")

    fns = [sg_step, lambda: numpy_conv(x_np, w_np, b_np, g_np)]
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        torch.set_num_threads(1)
        xt, wt, bt = (torch.tensor(a, requires_grad=True) for a in (x_np, w_np, b_np))
        gt = torch.tensor(g_np)

        def torch_step():
            xt.grad = wt.grad = bt.grad = None
            torch.nn.functional.conv2d(xt, wt, bt, padding=PAD).backward(gt)

        fns.append(torch_step)
    times = _interleaved(fns)
    t_sg, t_np = times[:2]
    out = [{"group": GROUP, "case": "vs im2col by hand in NumPy", "stridegrad_s": t_sg,
            "reference_s": t_np, "ratio": t_sg / t_np,
            "note": "fwd+bwd, pad 1, f32, 1 thread; plain NumPy im2col"}]
    if torch is None:
        out.append({"group": GROUP, "case": "vs PyTorch CPU", "stridegrad_s": t_sg,
                    "reference_s": None, "ratio": None, "note": "torch absent"})
    else:
        out.append({"group": GROUP, "case": "vs PyTorch CPU", "stridegrad_s": t_sg,
                    "reference_s": times[2], "ratio": t_sg / times[2],
                    "note": f"torch {torch.__version__}; goal <= 1.2x"})
    return out


#: glibc's thresholds that keep freed temporaries on the heap (both sides reuse them)
_TUNED_MALLOC = {"MALLOC_MMAP_THRESHOLD_": "268435456", "MALLOC_TRIM_THRESHOLD_": "1073741824"}


def _run(tuned: bool) -> list[dict]:
    env = {k: v for k, v in os.environ.items() if k not in _TUNED_MALLOC}
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    if tuned:
        env.update(_TUNED_MALLOC)
    res = subprocess.run([sys.executable, __file__, "--json"], env=env, capture_output=True,
                         text=True, timeout=300, check=False)
    if res.returncode:
        raise RuntimeError(f"conv benchmark subprocess failed:\n{res.stderr}")
    out = json.loads(res.stdout.strip().splitlines()[-1])
    if not tuned:
        for r in out:
            r["case"] += ", default malloc"
    return out


def rows() -> list[dict]:
    """The rows, each configuration measured in a fresh interpreter limited to 1 BLAS
    thread: tuned malloc first (the README's rows), then default malloc (about 20 s)."""
    return _run(tuned=True) + _run(tuned=False)


def main() -> None:
    for r in rows():
        ref = "-" if r["reference_s"] is None else f"{r['reference_s'] * 1e3:.2f} ms"
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.2f}x"
        print(f"{r['case']:<28} {r['stridegrad_s'] * 1e3:8.2f} ms {ref:>10} {ratio:>7}  {r['note']}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--json"]:
        print(json.dumps(_measure()))
    else:
        main()
