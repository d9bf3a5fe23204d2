"""sg.compile against eager mode: an elementwise chain and an MLP training step.

Run ``python benchmarks/bench_compile.py``. ``rows()`` returns the table as dicts
``{"group", "case", "stridegrad_s", "reference_s", "ratio", "note"}`` where
``stridegrad_s`` is the compiled function and ``reference_s`` the same function
run eagerly (ratio below 1.0: compiled is faster).

* chain: ``tanh(exp(x * y + 1) * 0.5 - y) ** 2 / 3`` plus one more op, 8
  elementwise ops on 1M float32 elements. Eager makes 8 arrays (7 temporaries);
  the fused kernel writes one buffer.
* mlp: one SGD training step (forward, MSE loss, backward, update of the
  parameters under no_grad) of an MLP 64-256-256-10 on a batch of 256.
* cuda rows (the same two cases on "cuda") run where CuPy finds a GPU and are
  skipped with the reason otherwise.

Timings are the minimum over interleaved rounds, with one BLAS thread when run as a
script (set before NumPy loads; on a shared machine a spinning second BLAS thread
makes every matmul noisy, for both sides alike). Target: compiled not slower
than eager anywhere (ratio <= 1.0); on cuda, the chain at least 2x faster.
"""

from __future__ import annotations

import os
import sys
import time

if __name__ == "__main__":  # before NumPy loads
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

import numpy as np

import stridegrad as sg
from stridegrad import backend, nn
from stridegrad.compile import compile
from stridegrad.nn import functional as F

__all__ = ["main", "rows"]

N_CHAIN = 1_000_000
BATCH, SIZES, LR = 256, (64, 256, 256, 10), 0.01


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        import cupy

        cupy.cuda.Device().synchronize()


def _interleaved(fa, fb, device: str, number: int, rounds: int) -> tuple[float, float]:
    best = [float("inf"), float("inf")]
    for _ in range(rounds):
        for k, fn in enumerate((fa, fb)):
            _sync(device)
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            _sync(device)
            best[k] = min(best[k], (time.perf_counter() - t0) / number)
    return best[0], best[1]


def chain(x: sg.Tensor, y: sg.Tensor) -> sg.Tensor:
    """Eight elementwise ops."""
    z = x * y
    z = z + 1.0
    z = z.exp()
    z = z * 0.5
    z = z - y
    z = z.tanh()
    z = z * z
    return z / 3.0


def _chain_row(device: str, rounds: int) -> dict:
    rng = np.random.default_rng(0)
    x = sg.tensor(rng.standard_normal(N_CHAIN).astype(np.float32), device=device)
    y = sg.tensor(rng.standard_normal(N_CHAIN).astype(np.float32), device=device)
    fast = compile(chain)
    with sg.no_grad():
        fast(x, y)
        cost_before = fast.graph(x, y, optimized=False).cost()
        cost_after = fast.graph(x, y).cost()
        t_c, t_e = _interleaved(lambda: fast(x, y), lambda: chain(x, y), device, 5, rounds)
    avoided = cost_before["temporaries"] - cost_after["temporaries"]
    return {"group": f"chain ({device})", "case": "8 elementwise ops, 1M float32",
            "stridegrad_s": t_c, "reference_s": t_e, "ratio": t_c / t_e,
            "note": f"{cost_before['kernels']} -> {cost_after['kernels']} kernels, "
                    f"{avoided} temporaries avoided"}


def _mlp_row(device: str, rounds: int) -> dict:
    models = []
    for _ in range(2):
        sg.manual_seed(0)
        models.append(nn.MLP(list(SIZES)).to(device))

    def make_step(model):
        params = list(model.parameters())

        def step(x, y):
            for p in params:
                p.grad = None
            loss = F.mse_loss(model(x), y)
            loss.backward()
            with sg.no_grad():
                for p in params:
                    p -= LR * p.grad
            return loss

        return step

    eager, fast = make_step(models[0]), compile(make_step(models[1]))
    rng = np.random.default_rng(0)
    x = sg.tensor(rng.standard_normal((BATCH, SIZES[0])).astype(np.float32), device=device)
    y = sg.tensor(rng.standard_normal((BATCH, SIZES[-1])).astype(np.float32), device=device)
    fast(x, y)
    g0, g1 = fast.graph(x, y, optimized=False).cost(), fast.graph(x, y).cost()
    t_c, t_e = _interleaved(lambda: fast(x, y), lambda: eager(x, y), device, 10, rounds)
    return {"group": f"mlp ({device})",
            "case": f"SGD step {'-'.join(map(str, SIZES))}, batch {BATCH}",
            "stridegrad_s": t_c, "reference_s": t_e, "ratio": t_c / t_e,
            "note": f"{g0['kernels']} -> {g1['kernels']} kernels, "
                    f"{g0['temporaries'] - g1['temporaries']} temporaries avoided"}


def rows(rounds: int = 15) -> list[dict]:
    out = [_chain_row("cpu", rounds), _mlp_row("cpu", rounds)]
    ok, reason = backend.device_available("cuda")
    if ok:
        out += [_chain_row("cuda", rounds), _mlp_row("cuda", rounds)]
    else:
        for group, case in (("chain (cuda)", "8 elementwise ops, 1M float32"),
                            ("mlp (cuda)", "SGD step")):
            out.append({"group": group, "case": case, "stridegrad_s": None,
                        "reference_s": None, "ratio": None, "note": f"skipped: {reason}"})
    return out


def main() -> None:
    table = rows()
    print(f"{'group':<14} {'case':<32} {'compiled':>11} {'eager':>11} {'ratio':>6}  note")
    for r in table:
        if r["ratio"] is None:
            print(f"{r['group']:<14} {r['case']:<32} {'-':>11} {'-':>11} {'-':>6}  {r['note']}")
            continue
        print(f"{r['group']:<14} {r['case']:<32} {r['stridegrad_s'] * 1e3:>9.3f}ms "
              f"{r['reference_s'] * 1e3:>9.3f}ms {r['ratio']:>6.2f}  {r['note']}")


if __name__ == "__main__":
    main()
    sys.exit(0)
