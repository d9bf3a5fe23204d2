"""Known-wrong implementations of the exercises of episode 04 (broadcasting):
checkpoint 04 must fail every one (tests/course/test_checks.py and
tests/course/test_ep04.py run them)."""

from __future__ import annotations

__all__ = ["WRONG"]

# Known-wrong implementations a learner might write: (label, source) per exercise.
WRONG = {
    "broadcast_shapes": [
        ("aligns from the left", """
def broadcast_shapes(*shapes):
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        for k, d in enumerate(s):
            if d != 1:
                if out[k] not in (1, d):
                    raise ValueError(f"shapes clash: {shapes}")
                out[k] = d
    return tuple(out)
"""),
        ("takes the larger size (stretches a size 2)", """
def broadcast_shapes(*shapes):
    n = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (n - len(s)) + tuple(s) for s in shapes]
    return tuple(max(col) for col in zip(*padded))
"""),
        ("returns a list", """
def broadcast_shapes(*shapes):
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        for k in range(1, len(s) + 1):
            if s[-k] != 1:
                if out[-k] not in (1, s[-k]):
                    raise ValueError(f"{shapes[0]} and {s}")
                out[-k] = s[-k]
    return out
"""),
        ("two shapes only, missing dims ignored", """
def broadcast_shapes(a=(), b=()):
    out = []
    for x, y in zip(reversed(a), reversed(b)):
        if x != y and 1 not in (x, y):
            raise ValueError(f"{a} and {b}")
        out.insert(0, y if x == 1 else x)
    return tuple(out)
"""),
        ("vague error message", """
def broadcast_shapes(*shapes):
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        for k in range(1, len(s) + 1):
            if s[-k] != 1:
                if out[-k] not in (1, s[-k]):
                    raise ValueError("shapes do not broadcast")
                out[-k] = s[-k]
    return tuple(out)
"""),
    ],
    "broadcast_strides": [
        ("keeps the stride of a stretched dim", """
def broadcast_strides(shape, strides, target_shape):
    lead = len(target_shape) - len(shape)
    return (0,) * lead + tuple(strides)
"""),
        ("stretches a size 2 (no check)", """
def broadcast_strides(shape, strides, target_shape):
    lead = len(target_shape) - len(shape)
    return (0,) * lead + tuple(0 if d == 1 else s for d, s in zip(shape, strides))
"""),
        ("pads on the right", """
def broadcast_strides(shape, strides, target_shape):
    if len(target_shape) < len(shape):
        raise ValueError("too many dims")
    out = [0 if d == 1 else s for d, s in zip(shape, strides)]
    for d, t in zip(shape, target_shape):
        if d not in (1, t):
            raise ValueError(f"cannot broadcast {shape} to {target_shape}")
    return tuple(out + [0] * (len(target_shape) - len(shape)))
"""),
        ("recomputes contiguous strides", """
def broadcast_strides(shape, strides, target_shape):
    lead = len(target_shape) - len(shape)
    if lead < 0:
        raise ValueError("too many dims")
    own, step = [], 1
    for d in reversed(shape):
        own.insert(0, step)
        step *= max(d, 1)
    out = [0] * lead
    for d, s, t in zip(shape, own, target_shape[lead:]):
        if d not in (1, t):
            raise ValueError(f"cannot broadcast {shape} to {target_shape}")
        out.append(0 if d == 1 else s)
    return tuple(out)
"""),
    ],
    "broadcast_binary": [
        ("ignores the strides", """
def broadcast_binary(op, x, x_strides, y, y_strides, shape):
    return [op(a, b) for a, b in zip(x, y)]
"""),
        ("swaps the operands", """
def broadcast_binary(op, x, x_strides, y, y_strides, shape):
    import itertools
    out = []
    for index in itertools.product(*(range(d) for d in shape)):
        i = sum(a * s for a, s in zip(index, x_strides))
        j = sum(a * s for a, s in zip(index, y_strides))
        out.append(op(y[j], x[i]))
    return out
"""),
        ("first index moves fastest", """
def broadcast_binary(op, x, x_strides, y, y_strides, shape):
    import itertools
    out = []
    for rindex in itertools.product(*(range(d) for d in reversed(shape))):
        index = rindex[::-1]
        i = sum(a * s for a, s in zip(index, x_strides))
        j = sum(a * s for a, s in zip(index, y_strides))
        out.append(op(x[i], y[j]))
    return out
"""),
        ("scalar shape gives nothing", """
def broadcast_binary(op, x, x_strides, y, y_strides, shape):
    import itertools
    if not shape:
        return []
    out = []
    for index in itertools.product(*(range(d) for d in shape)):
        i = sum(a * s for a, s in zip(index, x_strides))
        j = sum(a * s for a, s in zip(index, y_strides))
        out.append(op(x[i], y[j]))
    return out
"""),
        ("writes into x", """
def broadcast_binary(op, x, x_strides, y, y_strides, shape):
    import itertools
    vals = []
    for index in itertools.product(*(range(d) for d in shape)):
        i = sum(a * s for a, s in zip(index, x_strides))
        j = sum(a * s for a, s in zip(index, y_strides))
        vals.append(op(x[i], y[j]))
    x[:] = vals
    return x
"""),
    ],
}
