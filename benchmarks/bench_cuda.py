"""Tensor on cuda vs cpu at growing sizes, against the same step written directly in CuPy.

One SGD step of an MLP D-H-H-10 (ReLU, cross-entropy) with batch B = H, for growing
H. Rows:

* ``cuda vs CuPy``: stridegrad on "cuda" against the same step hand-written in CuPy
  (the floor for any CuPy-backed library; target ratio <= 1.3);
* ``cuda vs cpu``: stridegrad on "cuda" against stridegrad on "cpu" (below 1.0 the
  GPU wins; the crossover is the first size where it does).

Every timed region ends with a device synchronisation: CuPy launches kernels
asynchronously, so a clock read without one measures only the launch.
Without CuPy or a GPU every row is skipped with the reason.
"""

from __future__ import annotations

import time

import numpy as np

import stridegrad as sg
from stridegrad import backend
from stridegrad.nn import functional as F

__all__ = ["rows", "main", "SIZES"]

SIZES = (64, 256, 1024, 4096)
D_IN, CLASSES, LR = 64, 10, 0.01


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        import cupy

        cupy.cuda.Device().synchronize()


def _time(fn, device: str, number: int = 5, rounds: int = 3) -> float:
    fn()  # warm-up: kernel compilation and allocator pools
    _sync(device)
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        _sync(device)
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def _host_problem(h: int):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((h, D_IN)).astype(np.float32)
    y = rng.integers(0, CLASSES, h)
    sizes = (D_IN, h, h, CLASSES)
    params = []
    for a, b in zip(sizes, sizes[1:]):
        bound = 1 / np.sqrt(a)
        params += [rng.uniform(-bound, bound, (b, a)).astype(np.float32),
                   rng.uniform(-bound, bound, b).astype(np.float32)]
    return x, y, params


def _stridegrad_step(device: str, x, y, params):
    ps = [sg.tensor(p, device=device, requires_grad=True) for p in params]
    xt, yt = sg.tensor(x, device=device), sg.tensor(y, device=device)

    def step():
        W1, b1, W2, b2, W3, b3 = ps
        h1 = (xt @ W1.mT + b1).relu()
        h2 = (h1 @ W2.mT + b2).relu()
        loss = F.cross_entropy(h2 @ W3.mT + b3, yt)
        for p in ps:
            p.grad = None
        loss.backward()
        with sg.no_grad():
            for p in ps:
                p -= LR * p.grad
    return step


def _cupy_step(x, y, params):
    import cupy as cp

    xd, yd = cp.asarray(x), cp.asarray(y)
    ps = [cp.asarray(p) for p in params]
    onehot = cp.zeros((len(y), CLASSES), dtype=cp.float32)
    onehot[cp.arange(len(y)), yd] = 1

    def step():
        W1, b1, W2, b2, W3, b3 = ps
        a1 = xd @ W1.T + b1
        h1 = cp.maximum(a1, 0)
        a2 = h1 @ W2.T + b2
        h2 = cp.maximum(a2, 0)
        z = h2 @ W3.T + b3
        z = z - z.max(axis=1, keepdims=True)
        p = cp.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        dz = (p - onehot) / len(y)
        dW3, db3 = dz.T @ h2, dz.sum(0)
        d2 = (dz @ W3) * (a2 > 0)
        dW2, db2 = d2.T @ h1, d2.sum(0)
        d1 = (d2 @ W2) * (a1 > 0)
        dW1, db1 = d1.T @ xd, d1.sum(0)
        for i, g in enumerate((dW1, db1, dW2, db2, dW3, db3)):
            ps[i] -= LR * g
    return step


def rows() -> list[dict]:
    ok, reason = backend.device_available("cuda")
    if not ok:
        return [{"group": "cuda", "case": f"MLP step, H={h}", "stridegrad_s": None,
                 "reference_s": None, "ratio": None, "note": f"skipped: {reason}"} for h in SIZES]
    import cupy

    gpu = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["name"]
    gpu = gpu.decode() if isinstance(gpu, bytes) else gpu
    out = []
    for h in SIZES:
        x, y, params = _host_problem(h)
        t_cuda = _time(_stridegrad_step("cuda", x, y, params), "cuda")
        t_cupy = _time(_cupy_step(x, y, params), "cuda")
        t_cpu = _time(_stridegrad_step("cpu", x, y, params), "cpu", number=2 if h >= 1024 else 5)
        out.append({"group": "cuda", "case": f"MLP step {D_IN}-{h}-{h}-10, batch {h}",
                    "stridegrad_s": t_cuda, "reference_s": t_cupy, "ratio": t_cuda / t_cupy,
                    "note": f"vs hand-written CuPy on {gpu}"})
        out.append({"group": "cuda", "case": f"MLP step {D_IN}-{h}-{h}-10, batch {h}",
                    "stridegrad_s": t_cuda, "reference_s": t_cpu, "ratio": t_cuda / t_cpu,
                    "note": "vs stridegrad on cpu (< 1: the GPU wins)"})
    return out


def main() -> None:
    for r in rows():
        if r["ratio"] is None:
            print(f"{r['case']}: {r['note']}")
        else:
            print(f"{r['case']}: {r['stridegrad_s'] * 1e3:.2f} ms vs {r['reference_s'] * 1e3:.2f} ms, "
                  f"ratio {r['ratio']:.2f}x ({r['note']})")


if __name__ == "__main__":
    main()
