"""stridegrad.scalar.Value against micrograd: one training step of micrograd's demo.

The step is the one micrograd's ``demo.ipynb`` runs: an MLP 2-16-16-1 on 100
two-moons points, forward over all points, SVM max-margin loss
``mean(relu(1 - y * score))`` plus L2 ``1e-4 * sum(p * p)``, backward, SGD update.
The model code below is micrograd's ``nn.py`` written out for our ``Value``, and
micrograd's own ``micrograd.nn.MLP`` runs the reference; both start from the
same weights, so both compute the same loss (checked). The cycle collector stays
on, as it is for users. Two cases:

* step in a function: the graph is dropped when the step returns (our graph is
  freed at once; micrograd's lingers as cyclic garbage until the collector runs);
* notebook loop: the demo's top-level loop, where the previous ``total_loss``
  (and so its whole graph) is still alive while the next forward runs.

The two libraries take turns: ``ROUNDS`` rounds, each timing ``STEPS`` steps of
ours, then ``STEPS`` of micrograd's, each from a collected heap (the notebook
loop first runs one untimed step, so that every timed step has the previous
graph alive). On a shared machine the load then falls on both alike, rather
than on whichever ran while it peaked. Times are the best step; the note gives
the ratio of the medians too, and the goal (micrograd at least ``GOAL`` times
slower, issue #30).
Run: ``python benchmarks/bench_scalar.py`` (or ``stridegrad bench --only bench_scalar``).
"""

from __future__ import annotations

import gc
import random
import statistics
import time

import numpy as np

from stridegrad.data import make_moons
from stridegrad.scalar import Value

__all__ = ["main", "rows"]

GROUP = "scalar autograd"
SEED = 1337
ROUNDS = 3  # turns per case and library
STEPS = 2  # timed steps per turn (micrograd takes ~1 s a step)
GOAL = 10.0  # micrograd's best step / ours


# --------------------------------------------------------------------------- model
# micrograd/nn.py, line for line, on stridegrad's Value.


class Module:
    def zero_grad(self):
        for p in self.parameters():
            p.grad = 0

    def parameters(self):
        return []


class Neuron(Module):
    def __init__(self, nin, nonlin=True):
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0)
        self.nonlin = nonlin

    def __call__(self, x):
        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
        return act.relu() if self.nonlin else act

    def parameters(self):
        return self.w + [self.b]


class Layer(Module):
    def __init__(self, nin, nout, **kwargs):
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]

    def __call__(self, x):
        out = [n(x) for n in self.neurons]
        return out[0] if len(out) == 1 else out

    def parameters(self):
        return [p for n in self.neurons for p in n.parameters()]


class MLP(Module):
    def __init__(self, nin, nouts):
        sz = [nin] + nouts
        self.layers = [
            Layer(sz[i], sz[i + 1], nonlin=i != len(nouts) - 1) for i in range(len(nouts))
        ]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]


# --------------------------------------------------------------------------- the demo


def _moons():
    X, y = make_moons(100, noise=0.1, seed=1)
    return X.astype(np.float64), y * 2 - 1  # as the demo: float64 points, labels -1/+1


def make_step(value_cls, mlp_cls):
    """One SGD step of the demo for a given Value/MLP pair: ``step(k) -> loss``."""
    random.seed(SEED)
    model = mlp_cls(2, [16, 16, 1])
    X, y = _moons()

    def loss():
        inputs = [list(map(value_cls, xrow)) for xrow in X]
        scores = list(map(model, inputs))
        losses = [(1 + -yi * scorei).relu() for yi, scorei in zip(y, scores)]
        data_loss = sum(losses) * (1.0 / len(losses))
        alpha = 1e-4
        reg_loss = alpha * sum(p * p for p in model.parameters())
        total_loss = data_loss + reg_loss
        accuracy = [(yi > 0) == (scorei.data > 0) for yi, scorei in zip(y, scores)]
        return total_loss, sum(accuracy) / len(accuracy)

    def step(k):
        total_loss, _acc = loss()
        model.zero_grad()
        total_loss.backward()
        learning_rate = 1.0 - 0.9 * k / 100
        for p in model.parameters():
            p.data -= learning_rate * p.grad
        return total_loss

    return step


def time_steps(step, steps: int = STEPS, keep_previous: bool = False,
               k0: int = 0) -> tuple[list[float], float]:
    """Seconds per step, and the first timed step's loss. GC stays on.

    ``keep_previous`` keeps the last loss (and its graph) alive during the next
    step, as the demo's top-level ``for`` loop does; one untimed step first makes
    the graph the first timed step runs beside. ``k0`` is the first step's index
    (the learning rate decays with it).
    """
    gc.collect()  # start each turn from a clean heap
    times = []
    first_loss = None
    previous = None
    if keep_previous:
        previous = step(k0)
        k0 += 1
    for k in range(k0, k0 + steps):
        t0 = time.perf_counter()
        total_loss = step(k)
        times.append(time.perf_counter() - t0)
        if first_loss is None:
            first_loss = total_loss.data
        previous = total_loss if keep_previous else None
        del total_loss
    del previous
    gc.collect()
    return times, first_loss


def time_turns(steps: dict, keep_previous: bool, rounds: int = ROUNDS) -> dict:
    """``{name: (seconds per step, first timed loss)}``, the libraries taking turns."""
    times: dict = {name: [] for name in steps}
    first_loss: dict = {}
    k = 0  # every library runs the same steps k, so all see the same learning rates
    for _ in range(rounds):
        for name, step in steps.items():
            turn, loss = time_steps(step, keep_previous=keep_previous, k0=k)
            times[name] += turn
            first_loss.setdefault(name, loss)
        k += STEPS + (1 if keep_previous else 0)
    return {name: (times[name], first_loss[name]) for name in steps}


def _micrograd():
    try:
        from micrograd.engine import Value as MgValue
        from micrograd.nn import MLP as MgMLP
    except ImportError:
        return None
    return MgValue, MgMLP


def rows() -> list[dict]:
    """One row per case: ``{"group", "case", "stridegrad_s", "reference_s", "ratio", "note"}``.

    ``ratio`` is stridegrad time / micrograd time (below 1: stridegrad is faster).
    """
    mg = _micrograd()
    out = []
    for case, keep in (
        ("MLP 2-16-16-1 step, 100 moons: step in a function", False),
        ("MLP 2-16-16-1 step, 100 moons: notebook loop", True),
    ):
        steps = {"ours": make_step(Value, MLP)}
        if mg is not None:
            steps["micrograd"] = make_step(*mg)
        timed = time_turns(steps, keep)
        ours, our_loss = timed["ours"]
        row = {
            "group": GROUP,
            "case": case,
            "stridegrad_s": min(ours),
            "reference_s": None,
            "ratio": None,
        }
        if mg is None:
            row["note"] = ("micrograd not installed (pip install -e '.[bench]'): "
                           "reference skipped")
        else:
            ref, ref_loss = timed["micrograd"]
            same = abs(our_loss - ref_loss) <= 1e-9 * max(1.0, abs(ref_loss))
            row["reference_s"] = min(ref)
            row["ratio"] = min(ours) / min(ref)
            row["note"] = (
                f"micrograd {min(ref) / min(ours):.1f}x slower (best), "
                f"{statistics.median(ref) / statistics.median(ours):.1f}x (median); "
                f"goal >= {GOAL:g}x; "
                f"same loss: {'yes' if same else f'NO ({our_loss!r} vs {ref_loss!r})'}"
            )
        out.append(row)
    return out


def _fmt(t):
    return "-" if t is None else f"{t * 1e3:.1f} ms"


def main() -> None:
    table = rows()
    head = ["case", "stridegrad", "micrograd", "ratio", "note"]
    cells = [
        [
            r["case"],
            _fmt(r["stridegrad_s"]),
            _fmt(r["reference_s"]),
            "-" if r["ratio"] is None else f"{r['ratio']:.3f}",
            r["note"],
        ]
        for r in table
    ]
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(head)]
    print(f"{GROUP}: one training step (GC on, best of {ROUNDS} turns of {STEPS} steps); "
          "ratio = stridegrad / micrograd")
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
    print("  ".join("-" * w for w in widths))
    for c in cells:
        print("  ".join(v.ljust(w) for v, w in zip(c, widths)))


if __name__ == "__main__":
    main()
