"""Measure the host (NumPy) against the GPU (CuPy) at growing sizes, for lesson 10.

    python benchmarks/results/measure_gpu.py [--out benchmarks/results/gpu.json] [--quick]

Needs an NVIDIA GPU and CuPy (``pip install -e '.[dev,gpu]'``). Writes the JSON
format described in ``README.md`` next to this file; lesson 10
(``course/10_backends.py``, ``load_gpu_results``) reads and checks it, then
``stridegrad build 10`` puts the plot into the lesson.

Three benchmarks, each a host series and a GPU series of seconds per call:

* ``matmul``: a float32 ``n x n @ n x n`` product, NumPy against CuPy;
* ``elementwise``: float32 ``x * y + x`` on ``n`` elements, NumPy against CuPy;
* ``mlp_step``: one SGD step of a stridegrad ``Tensor`` MLP 64-H-H-10 with batch
  H, on device "cpu" against device "cuda".

The data is on its device before the clock starts (transfers are not
counted). Every timing is the best of several runs after one warm-up call,
and every run ends with a device synchronisation before the clock is read:
CuPy returns from a launch before the GPU has finished.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = "stridegrad-gpu-timings/1"
HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "gpu.json"

MATMUL_SIZES = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
ELEMENTWISE_SIZES = tuple(4 ** k for k in range(3, 14))  # 64 ... 67M elements
MLP_SIZES = (16, 64, 256, 1024, 2048, 4096)
QUICK = {"matmul": (64, 512, 2048), "elementwise": (4 ** 5, 4 ** 9, 4 ** 12),
         "mlp_step": (64, 512)}


def no_sync() -> None:
    """The host has nothing to wait for."""


def best_time(fn: Callable[[], Any], sync: Callable[[], None], *, min_runs: int = 3,
              max_runs: int = 200, budget: float = 0.25) -> float:
    """Best of at least ``min_runs`` runs of ``fn()`` (more while under ``budget``
    seconds in all), after one warm-up run; ``sync()`` before every clock reading."""
    fn()
    sync()
    best, spent, runs = math.inf, 0.0, 0
    while runs < min_runs or (spent < budget and runs < max_runs):
        start = time.perf_counter()
        fn()
        sync()
        elapsed = time.perf_counter() - start
        best, spent, runs = min(best, elapsed), spent + elapsed, runs + 1
    return best


def _matmul(xp, sync, n: int) -> float:
    a = xp.asarray(np.random.default_rng(0).random((n, n), dtype=np.float32))
    return best_time(lambda: a @ a, sync)


def _elementwise(xp, sync, n: int) -> float:
    rng = np.random.default_rng(0)
    x = xp.asarray(rng.random(n, dtype=np.float32))
    y = xp.asarray(rng.random(n, dtype=np.float32))
    return best_time(lambda: x * y + x, sync)


def _mlp_step(device: str, sync, h: int, d_in: int = 64, classes: int = 10,
              lr: float = 0.01) -> float:
    import stridegrad as sg
    from stridegrad.nn import functional as F

    rng = np.random.default_rng(0)
    x = sg.tensor(rng.standard_normal((h, d_in)).astype(np.float32), device=device)
    y = sg.tensor(rng.integers(0, classes, h), device=device)
    sizes = (d_in, h, h, classes)
    params = []
    for a, b in zip(sizes, sizes[1:]):  # noqa: RUF007
        bound = 1 / math.sqrt(a)
        params += [sg.tensor(rng.uniform(-bound, bound, (b, a)).astype(np.float32),
                             device=device, requires_grad=True),
                   sg.tensor(rng.uniform(-bound, bound, b).astype(np.float32),
                             device=device, requires_grad=True)]

    def step():
        w1, b1, w2, b2, w3, b3 = params
        h1 = (x @ w1.mT + b1).relu()
        h2 = (h1 @ w2.mT + b2).relu()
        loss = F.cross_entropy(h2 @ w3.mT + b3, y)
        for p in params:
            p.grad = None
        loss.backward()
        with sg.no_grad():
            for p in params:
                p -= lr * p.grad

    return best_time(step, sync)


def measure(device_xp, device_sync: Callable[[], None], *, device: str = "cuda",
            sizes: dict[str, tuple[int, ...]] | None = None,
            host_label: str = "NumPy (cpu)", device_label: str = "CuPy (cuda)",
            log: Callable[[str], None] = print) -> list[dict]:
    """The three benchmarks, host (NumPy, stridegrad "cpu") against ``device_xp``
    and stridegrad device ``device``: a list in the stored format."""
    sizes = sizes or {"matmul": MATMUL_SIZES, "elementwise": ELEMENTWISE_SIZES,
                      "mlp_step": MLP_SIZES}
    plan = [
        ("matmul", "float32 n x n @ n x n", "n", host_label, device_label,
         lambda n: _matmul(np, no_sync, n), lambda n: _matmul(device_xp, device_sync, n)),
        ("elementwise", "float32 x * y + x", "n (elements)", host_label, device_label,
         lambda n: _elementwise(np, no_sync, n),
         lambda n: _elementwise(device_xp, device_sync, n)),
        ("mlp_step", "Tensor MLP 64-H-H-10, one SGD step, batch H", "H",
         "stridegrad on cpu", f"stridegrad on {device}",
         lambda n: _mlp_step("cpu", no_sync, n), lambda n: _mlp_step(device, device_sync, n)),
    ]
    out = []
    for name, what, size, a_label, b_label, on_host, on_device in plan:
        host_times, device_times = [], []
        for n in sizes[name]:
            host_times.append(on_host(n))
            device_times.append(on_device(n))
            log(f"{name:>12} {size} = {n:>9}: {a_label} {host_times[-1] * 1e3:10.4f} ms, "
                f"{b_label} {device_times[-1] * 1e3:10.4f} ms")
        out.append({"name": name, "what": what, "size": size, "sizes": list(sizes[name]),
                    "seconds": {a_label: host_times, b_label: device_times}})
    return out


def record(benchmarks: list[dict], gpu: str, versions: dict[str, str],
           date: str | None = None) -> dict:
    """The stored object: format, date (UTC, ISO 8601), GPU name, versions, benchmarks."""
    if date is None:
        date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
    return {"format": FORMAT, "date": date, "gpu": gpu, "versions": versions,
            "benchmarks": benchmarks}


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="where to write (default: %(default)s)")
    parser.add_argument("--quick", action="store_true", help="three sizes per benchmark (a smoke test)")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(HERE.parents[1] / "src"))  # a clone without `pip install -e .`
    from stridegrad import backend

    ok, why = backend.device_available("cuda")
    if not ok:
        print(f"measure_gpu: no usable GPU: {why}", file=sys.stderr)
        return 1
    import cupy

    import stridegrad

    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    gpu = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    versions = {
        "numpy": np.__version__,
        "cupy": cupy.__version__,
        "cuda runtime": str(cupy.cuda.runtime.runtimeGetVersion()),
        "cuda driver": str(cupy.cuda.runtime.driverGetVersion()),
        "stridegrad": stridegrad.__version__,
        "python": platform.python_version(),
        "cpu": _cpu_name(),
    }
    print(f"measuring on {gpu} ({versions['cpu']})")
    benchmarks = measure(cupy, cupy.cuda.Device().synchronize, device="cuda",
                         sizes=QUICK if args.quick else None)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record(benchmarks, gpu, versions), indent=1) + "\n",
                   encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
