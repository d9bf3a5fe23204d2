"""One epoch of digits training: stridegrad on cpu vs the same loop hand-written in NumPy.

Same model (MLP 64-128-10, ReLU), same data order, same SGD with momentum 0.9,
batch 32, float32. The NumPy loop is the floor any NumPy-backed library pays:
the ratio is stridegrad's Python overhead over it.
"""

from __future__ import annotations

import time

import numpy as np

import stridegrad as sg
from stridegrad import data

SIZES = (64, 128, 10)
LR, MOMENTUM, BATCH = 0.05, 0.9, 32


def _digits():
    X, y = data.load_digits()
    X = (X / 16.0).astype(np.float32)
    Xtr, _, ytr, _ = data.train_test_split(X, y, test_size=0.2, seed=0)
    return Xtr, ytr


def _batches(n, seed):
    order = np.random.default_rng(seed).permutation(n)
    return [order[i:i + BATCH] for i in range(0, n, BATCH)]


def epoch_stridegrad(Xtr, ytr, batches):
    sg.manual_seed(0)
    model = sg.nn.MLP(list(SIZES))
    opt = sg.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    t0 = time.perf_counter()
    for b in batches:
        loss = sg.nn.functional.cross_entropy(model(sg.tensor(Xtr[b])), ytr[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
    return time.perf_counter() - t0


def epoch_numpy(Xtr, ytr, batches):
    rng = np.random.default_rng(0)
    params = []
    for fan_in, fan_out in zip(SIZES, SIZES[1:]):
        bound = 1 / np.sqrt(fan_in)
        params += [rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32),
                   rng.uniform(-bound, bound, fan_out).astype(np.float32)]
    bufs = [None] * len(params)
    t0 = time.perf_counter()
    for b in batches:
        x, y = Xtr[b], ytr[b]
        W1, b1, W2, b2 = params
        h = x @ W1.T + b1
        a = np.maximum(h, 0)
        z = a @ W2.T + b2
        z = z - z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        p[np.arange(len(y)), y] -= 1
        dz = p / len(y)
        dW2, db2 = dz.T @ a, dz.sum(0)
        da = dz @ W2
        dh = da * (h > 0)
        dW1, db1 = dh.T @ x, dh.sum(0)
        for i, g in enumerate((dW1, db1, dW2, db2)):
            bufs[i] = g if bufs[i] is None else MOMENTUM * bufs[i] + g
            params[i] = params[i] - LR * bufs[i]
    return time.perf_counter() - t0


def rows(repeats: int = 5):
    Xtr, ytr = _digits()
    batches = _batches(len(ytr), 0)
    ours = min(epoch_stridegrad(Xtr, ytr, batches) for _ in range(repeats))
    ref = min(epoch_numpy(Xtr, ytr, batches) for _ in range(repeats))
    return [{"group": "training", "case": f"digits epoch, MLP {'-'.join(map(str, SIZES))}, batch {BATCH}",
             "stridegrad_s": ours, "reference_s": ref, "ratio": ours / ref,
             "note": "vs hand-written NumPy"}]


def main():
    for r in rows():
        print(f"{r['case']}: stridegrad {r['stridegrad_s'] * 1e3:.1f} ms, "
              f"NumPy {r['reference_s'] * 1e3:.1f} ms, ratio {r['ratio']:.2f}x")


if __name__ == "__main__":
    main()
