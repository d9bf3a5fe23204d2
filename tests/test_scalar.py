"""Tests for stridegrad.scalar.Value: every gradient against finite differences."""

from __future__ import annotations

import gc
import itertools
import math
import random
import sys
import weakref

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stridegrad.scalar import Value

# ---------------------------------------------------------------- helpers

H = 1e-6


def central_difference(f, xs, i, h=H):
    """d f / d xs[i] by (f(x + h) - f(x - h)) / 2h, on plain floats."""
    hi = list(xs)
    lo = list(xs)
    hi[i] += h
    lo[i] -= h
    return (f(*hi) - f(*lo)) / (2 * h)


def autograd(f, xs):
    """(f(xs).data, [d f / d x for x in xs]) from Value.backward()."""
    vs = [Value(x) for x in xs]
    out = f(*vs)
    out.backward()
    return out.data, [v.grad for v in vs]


def assert_grads_match(f_value, f_float, xs, rel=1e-4, abs_=1e-6):
    data, grads = autograd(f_value, xs)
    assert data == pytest.approx(f_float(*xs), rel=1e-12, abs=1e-12)
    for i, g in enumerate(grads):
        expected = central_difference(f_float, xs, i)
        assert g == pytest.approx(expected, rel=rel, abs=abs_), (
            f"d/dx{i} at {xs}: autograd {g}, finite difference {expected}"
        )


def sigmoid(x):
    return 1.0 / (1.0 + math.exp(-x))


anywhere = st.floats(-5.0, 5.0)
positive = st.floats(0.1, 5.0)
away_from_zero = st.one_of(st.floats(-5.0, -0.1), st.floats(0.1, 5.0))
away_from_kink = st.one_of(st.floats(-5.0, -1e-3), st.floats(1e-3, 5.0))

# ---------------------------------------------------------------- gradients, op by op

# name -> (Value function, float function, strategies for the arguments)
OPS = {
    "add": (lambda a, b: a + b, lambda a, b: a + b, (anywhere, anywhere)),
    "sub": (lambda a, b: a - b, lambda a, b: a - b, (anywhere, anywhere)),
    "mul": (lambda a, b: a * b, lambda a, b: a * b, (anywhere, anywhere)),
    "div": (lambda a, b: a / b, lambda a, b: a / b, (anywhere, away_from_zero)),
    "neg": (lambda a: -a, lambda a: -a, (anywhere,)),
    "square": (lambda a: a**2, lambda a: a**2, (anywhere,)),
    "cube": (lambda a: a**3, lambda a: a**3, (anywhere,)),
    "reciprocal": (lambda a: a**-1, lambda a: a**-1, (away_from_zero,)),
    "sqrt": (lambda a: a**0.5, lambda a: a**0.5, (positive,)),
    "pow_-1.5": (lambda a: a**-1.5, lambda a: a**-1.5, (positive,)),
    "exp": (lambda a: a.exp(), math.exp, (anywhere,)),
    "log": (lambda a: a.log(), math.log, (positive,)),
    "tanh": (lambda a: a.tanh(), math.tanh, (anywhere,)),
    "sigmoid": (lambda a: a.sigmoid(), sigmoid, (anywhere,)),
    "relu": (lambda a: a.relu(), lambda a: max(a, 0.0), (away_from_kink,)),
    # Python numbers on either side
    "add_number": (lambda a: a + 2.5, lambda a: a + 2.5, (anywhere,)),
    "radd_number": (lambda a: 2.5 + a, lambda a: 2.5 + a, (anywhere,)),
    "sub_number": (lambda a: a - 2.5, lambda a: a - 2.5, (anywhere,)),
    "rsub_number": (lambda a: 1 - a, lambda a: 1 - a, (anywhere,)),
    "mul_number": (lambda a: a * -3, lambda a: a * -3, (anywhere,)),
    "rmul_number": (lambda a: 2 * a, lambda a: 2 * a, (anywhere,)),
    "div_number": (lambda a: a / 4, lambda a: a / 4, (anywhere,)),
    "rdiv_number": (lambda a: 1 / a, lambda a: 1 / a, (away_from_zero,)),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_gradient_matches_finite_differences(name):
    f_value, f_float, strategies = OPS[name]

    @settings(max_examples=40, deadline=None)
    @given(st.tuples(*strategies))
    def check(xs):
        assert_grads_match(f_value, f_float, list(xs))

    check()


@settings(max_examples=60, deadline=None)
@given(st.floats(-2.0, 2.0), st.floats(-2.0, 2.0), st.floats(0.2, 2.0))
def test_composite_expression_gradients(a, b, c):
    # shared subexpressions reached along paths of different lengths
    def f(a, b, c, exp, log, tanh):
        t = a * b + c
        u = tanh(t) * t - b / c
        return exp(u * 0.5) + log(c * c + u * u) + t * u

    f_value = lambda a, b, c: f(a, b, c, Value.exp, Value.log, Value.tanh)
    f_float = lambda a, b, c: f(a, b, c, math.exp, math.log, math.tanh)
    assert_grads_match(f_value, f_float, [a, b, c])


def test_negative_base_with_integer_exponent():
    assert_grads_match(lambda a: a**3, lambda a: a**3, [-1.7])
    assert_grads_match(lambda a: a**-2, lambda a: a**-2, [-0.8])


def test_relu_at_and_below_zero():
    for x in (0.0, -2.0):
        v = Value(x)
        out = v.relu()
        out.backward()
        assert out.data == 0.0
        assert v.grad == 0.0
    v = Value(1.5)
    v.relu().backward()
    assert v.grad == 1.0


def test_relu_keeps_nan():
    assert math.isnan(Value(float("nan")).relu().data)


def test_sigmoid_does_not_overflow():
    assert Value(-1000.0).sigmoid().data == 0.0
    assert Value(1000.0).sigmoid().data == 1.0
    v = Value(-1000.0)
    v.sigmoid().backward()
    assert v.grad == 0.0


def test_pow_zero_exponent_has_zero_gradient_at_zero():
    v = Value(0.0)
    out = v**0
    out.backward()
    assert out.data == 1.0
    assert v.grad == 0.0


@pytest.mark.parametrize("name", sorted(OPS))
def test_backward_closure_adds_what_backward_sends(name):
    # ``_backward(g)`` adds the node's rule applied to g into its inputs' grads, as
    # lesson 06's closures do; the engine's own pass applies the same rule (+ and *
    # written out): into inputs that only ``out`` uses, both must add the same numbers.
    f_value, _, strategies = OPS[name]
    xs = [1.3, 0.7][: len(strategies)]
    out = f_value(*[Value(x) for x in xs])
    out.backward()  # out.grad is 1: each input holds what out sent it
    engine = [child.grad for child in out._prev]
    for child in out._prev:
        child.grad = 0.0
    assert out._backward(1.0) is None
    assert [child.grad for child in out._prev] == engine, name


# ---------------------------------------------------------------- the worked example


def test_worked_example_of_episode_6():
    w = [Value(0.5), Value(-1.0), Value(2.0)]
    x = [4.0, 3.0, 2.0]
    b = Value(0.5)
    prediction = w[0] * x[0] + w[1] * x[1] + w[2] * x[2] + b
    loss = (prediction - 2.5) ** 2
    loss.backward()
    assert prediction.data == 3.5
    assert loss.data == 1.0
    assert b.grad == 2.0
    assert [wi.grad for wi in w] == [8.0, 6.0, 4.0]
    assert prediction.grad == 2.0


# ---------------------------------------------------------------- micrograd's own tests
# micrograd's test/test_engine.py, on our Value. micrograd checks against PyTorch;
# PyTorch's answers are written in (float64, as micrograd's test asks for), and
# micrograd's own engine runs the same code when it is installed.


def _micrograd_sanity_check(V):
    x = V(-4.0)
    z = 2 * x + 2 + x
    q = z.relu() + z * x
    h = (z * z).relu()
    y = h + q + q * x
    y.backward()
    return y.data, x.grad


def _micrograd_more_ops(V):
    a = V(-4.0)
    b = V(2.0)
    c = a + b
    d = a * b + b**3
    c += c + 1
    c += 1 + c + (-a)
    d += d * 2 + (b + a).relu()
    d += 3 * d + (b - a).relu()
    e = c - d
    f = e**2
    g = f / 2.0
    g += 10.0 / f
    g.backward()
    return g.data, a.grad, b.grad


def test_micrograd_sanity_check():
    y, x_grad = _micrograd_sanity_check(Value)
    assert y == -20.0  # PyTorch's, exactly, as micrograd's test asks
    assert x_grad == 46.0


def test_micrograd_more_ops():
    tol = 1e-6  # micrograd's tolerance
    g, a_grad, b_grad = _micrograd_more_ops(Value)
    assert abs(g - 24.70408163265306) < tol  # PyTorch's numbers
    assert abs(a_grad - 138.83381924198252) < tol
    assert abs(b_grad - 645.5772594752186) < tol


def test_micrograd_tests_agree_with_micrograd():
    engine = pytest.importorskip("micrograd.engine")  # optional: pip install -e '.[bench]'
    assert _micrograd_sanity_check(Value) == _micrograd_sanity_check(engine.Value)
    ours = _micrograd_more_ops(Value)
    theirs = _micrograd_more_ops(engine.Value)
    assert ours == pytest.approx(theirs, rel=1e-12)


# ---------------------------------------------------------------- accumulation and order


def test_value_used_twice_accumulates():
    a = Value(3.0)
    (a + a).backward()
    assert a.grad == 2.0

    a = Value(3.0)
    (a * a).backward()
    assert a.grad == 6.0

    a = Value(3.0)
    (a / a).backward()
    assert a.grad == pytest.approx(0.0, abs=1e-15)


def test_shared_node_found_again_deeper_in_the_graph():
    # `a` is an input of the root and of `b`; the search reaches it from the root
    # first, but it must still be processed after `b` has added into it.
    x = Value(2.0)
    a = x * x
    b = a * 3.0
    root = a + b
    root.backward()
    assert a.grad == 4.0
    assert x.grad == 16.0  # d(4 x^2)/dx


def test_topological_order_lists_every_node_after_its_users_are_done():
    from stridegrad.scalar import _topological_order

    rng = random.Random(0)
    nodes = [Value(rng.uniform(-1, 1)) for _ in range(5)]
    for _ in range(300):  # a random DAG with lots of sharing
        a, b = rng.choice(nodes[-30:]), rng.choice(nodes)
        nodes.append(a * b if rng.random() < 0.5 else (a + b).tanh())
    root = nodes[-1]
    order = _topological_order(root)
    position = {id(n): i for i, n in enumerate(order)}
    assert len(position) == len(order), "a node listed twice"
    assert order[-1] is root
    for node in order:
        for child in node._prev:
            if child._prev:  # interior inputs come first
                assert position[id(child)] < position[id(node)]


def test_backward_twice_accumulates_in_leaves_only():
    a, b = Value(2.0), Value(-3.0)
    c = a * b
    loss = c * c
    loss.backward()
    first = (a.grad, b.grad, c.grad)
    loss.backward()
    assert (a.grad, b.grad) == (2 * first[0], 2 * first[1])
    assert c.grad == first[2]  # interior nodes hold this call's gradient


def test_backward_after_a_failed_backward():
    # A backward that raises leaves its marks in the grads of the nodes it did
    # not reach; the next backward must not take them for its own.
    a, b = Value(2.0), Value(3.0)
    m = a * b
    bad = (Value(0.0) ** 0.5) * m
    with pytest.raises(ZeroDivisionError, match="infinite"):
        bad.backward()
    a.grad = b.grad = 0.0
    (m * 2.0).backward()
    assert (a.grad, b.grad, m.grad) == (6.0, 4.0, 2.0)


def test_gradients_are_plain_floats():
    x = Value(0.5)
    y = x * x
    root = (y + y.tanh()) * y.relu()
    root.backward()
    for node in (root, *root._prev, y, x):
        assert type(node.grad) is float, node


def test_backward_of_a_leaf():
    v = Value(4.0)
    v.backward()
    assert v.grad == 1.0


def test_long_chain_needs_no_recursion():
    assert sys.getrecursionlimit() <= 10_000
    c = 1.00001
    x = Value(1.0)
    y = x
    for _ in range(100_000):
        y = y * c
    y.backward()
    assert y.data == pytest.approx(c**100_000, rel=1e-9)
    assert x.grad == pytest.approx(c**100_000, rel=1e-9)
    ref = weakref.ref(y)
    del y  # freeing a 100,000-deep chain must not crash either
    assert ref() is None


# ---------------------------------------------------------------- memory: no cycles


def _mlp_params(rng, sizes):
    return [
        [([Value(rng.uniform(-1, 1)) for _ in range(nin)], Value(0.0)) for _ in range(nout)]
        for nin, nout in itertools.pairwise(sizes)
    ]


def _mlp_forward(layers, x):
    for i, layer in enumerate(layers):
        outs = [sum((w * xi for w, xi in zip(ws, x)), b) for ws, b in layer]
        x = outs if i == len(layers) - 1 else [o.relu() for o in outs]
    return x[0]


def test_graph_is_freed_without_the_cycle_collector(collector_finds):
    rng = random.Random(0)
    layers = _mlp_params(rng, [2, 8, 8, 1])
    params = [p for layer in layers for ws, b in layer for p in (*ws, b)]
    points = [([rng.uniform(-1, 1), rng.uniform(-1, 1)], rng.choice([-1, 1])) for _ in range(10)]
    gc.collect()
    gc.disable()
    try:
        refs = []
        for _ in range(2):  # two SGD steps, as a training loop runs them
            scores = [_mlp_forward(layers, [Value(a) for a in x]) for x, _ in points]
            losses = [(1 + -y * s).relu() for (_, y), s in zip(points, scores)]
            loss = sum(losses) * (1.0 / len(losses)) + 1e-4 * sum(p * p for p in params)
            for p in params:
                p.grad = 0.0
            loss.backward()
            for p in params:
                p.data -= 0.1 * p.grad
            refs += [weakref.ref(loss), weakref.ref(scores[0]), weakref.ref(losses[-1])]
            refs += [weakref.ref(v) for v in scores[0]._prev]
            del scores, losses, loss
            assert all(r() is None for r in refs), "graph nodes outlived the loss"
        assert collector_finds() == [], "the graph left reference cycles for the collector"
    finally:
        gc.enable()


def test_a_node_is_one_object():
    # What the cycle collector tracks per node: the node itself, nothing else
    # of its own. It refers to its inputs, to its rule (one function shared by
    # every node of its kind) and to numbers, which the collector ignores.
    a, b, c, d = Value(1.5), Value(-2.0), Value(0.5), Value(3.0)
    for make in (lambda x, y: x * y, lambda x, y: x + y, lambda x, y: x / y,
                 lambda x, y: (x * 2.0).tanh(), lambda x, y: 1 / x, lambda x, y: x**3):
        out, other = make(a, b), make(c, d)
        tracked = [r for r in gc.get_referents(out) if gc.is_tracked(r) and r is not Value]
        assert sorted(map(id, tracked)) == sorted(map(id, [*set(out._prev), out._rule]))
        assert out._rule is other._rule  # shared, not made per node
        assert out._op == other._op


def test_backward_allocates_no_object_per_node():
    x = Value(1.0)
    y = x
    for _ in range(20_000):
        y = (y * 1.0001).relu()
    gc.collect()
    gc.disable()
    try:
        before = gc.get_count()[0]
        y.backward()
        made = gc.get_count()[0] - before
    finally:
        gc.enable()
    assert made < 100, f"backward over 40,000 nodes made {made} tracked objects"


def test_backward_is_a_method_made_on_request():
    # A node stores no closure: ``_backward`` is its bound method, made when asked
    # for, so a node refers to no object of its own and never to itself.
    a, b = Value(1.5), Value(-2.0)
    for out in (
        a + b,
        a * b,
        a / b,
        a**2,
        a.exp(),
        a.log(),
        a.tanh(),
        a.relu(),
        a.sigmoid(),
        1 / a,
    ):
        fn = out._backward
        assert fn.__self__ is out and fn.__func__ is Value._send, out._op
        assert all(getattr(out, slot) is not fn for slot in Value.__slots__[1:]), out._op


# ---------------------------------------------------------------- attributes and repr


def test_data_and_grad_are_assignable():
    p = Value(1.0)
    p.grad = 0.5
    p.data -= 0.1 * p.grad
    assert p.data == pytest.approx(0.95)
    p.grad = 0.0
    assert p.grad == 0.0
    assert not hasattr(p, "__dict__")  # __slots__: no per-instance dict


def test_graph_attributes_for_drawing():
    a, b = Value(2.0), Value(3.0)
    assert a._prev == () and a._op == "" and a._backward is None
    c = a * b
    assert c._prev == (a, b) and c._op == "*"
    assert (a + a)._prev == (a, a)
    assert (a + 1)._prev == (a,)
    assert (a**2)._op == "**2"
    for name in ("exp", "log", "tanh", "relu", "sigmoid"):
        assert getattr(a, name)()._op == name


def test_repr():
    assert repr(Value(3.5)) == "Value(data=3.5, grad=0.0)"
    assert repr(Value(2) * Value(3)) == "Value(data=6.0, grad=0.0, op='*')"


def test_numbers_and_numpy_scalars_mix_in():
    v = Value(3)
    assert isinstance(v.data, float) and v.data == 3.0
    for number in (2, 2.0, np.float64(2.0), np.float32(2.0), np.int64(2)):
        for out in (number * v, v * number, number + v, number - v, number / v, v / number):
            assert isinstance(out, Value)
    assert (np.int64(2) * v).data == 6.0


# ---------------------------------------------------------------- errors


def test_bad_data_is_a_type_error():
    with pytest.raises(TypeError, match="'abc'"):
        Value("abc")
    with pytest.raises(TypeError, match="Value"):
        Value(Value(1.0))
    with pytest.raises(TypeError):
        Value(1.0) + "abc"
    with pytest.raises(TypeError):
        [1] * Value(1.0)


def test_value_exponent_is_a_type_error():
    with pytest.raises(TypeError, match="exponent must be a number"):
        Value(2.0) ** Value(3.0)
    with pytest.raises(TypeError, match="exponent must be a number"):
        2 ** Value(3.0)


def test_log_of_non_positive_names_the_value():
    with pytest.raises(ValueError, match=r"-1\.5"):
        Value(-1.5).log()
    with pytest.raises(ValueError, match=r"data=0\.0"):
        Value(0.0).log()


def test_division_by_zero_names_the_operands():
    with pytest.raises(ZeroDivisionError, match=r"data=1\.0"):
        Value(1.0) / 0
    with pytest.raises(ZeroDivisionError, match=r"data=0\.0"):
        Value(1.0) / Value(0.0)
    with pytest.raises(ZeroDivisionError, match=r"data=0\.0"):
        1 / Value(0.0)
    with pytest.raises(ZeroDivisionError, match="negative power"):
        Value(0.0) ** -1


def test_pow_errors():
    with pytest.raises(ValueError, match="not a real number"):
        Value(-8.0) ** (1 / 3)
    v = Value(0.0)
    out = v**0.5
    with pytest.raises(ZeroDivisionError, match="infinite"):
        out.backward()


def test_exp_overflow_names_the_value():
    with pytest.raises(OverflowError, match="1000"):
        Value(1000.0).exp()


# ---------------------------------------------------------------- lesson 06's engine

def _random_graph(seed: int, grads: bool):
    """A random DAG over every operation, with lots of sharing; its root and all its nodes.

    Leaves start with random ``grad`` when ``grads`` (leaves accumulate into it)."""
    rng = random.Random(seed)
    leaves = [Value(rng.uniform(0.5, 1.5)) for _ in range(6)]
    if grads:
        for v in leaves:
            v.grad = rng.uniform(-1, 1)
    nodes = list(leaves)
    unary = [lambda a: a.tanh(), lambda a: a.exp() * 0.1, lambda a: (a * a + 1.0).log(),
             lambda a: a.sigmoid(), lambda a: a.relu(), lambda a: (a * a + 0.5) ** 0.5,
             lambda a: -a, lambda a: 1.0 / (a * a + 1.0), lambda a: a * 0.7 - 0.1]
    binary = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - b,
              lambda a, b: a / (b * b + 1.0), lambda a, b: a * a]
    for _ in range(400):
        a, b = rng.choice(nodes[-20:]), rng.choice(nodes)
        if rng.random() < 0.5:
            out = rng.choice(binary)(a, b)
        else:
            out = rng.choice(unary)(a)
        nodes.append(out.tanh() if abs(out.data) > 10 else out)
    root = nodes[-1]
    for extra in rng.sample(nodes, 30):  # the root uses nodes of every depth
        root = root + extra * 0.01
    return root, nodes


def _bits(nodes) -> list:
    return [(type(n.grad), float(n.grad).hex()) for n in nodes]


@pytest.mark.parametrize("seed", range(8))
def test_fast_pass_gives_the_bits_of_lesson_06s_backward(seed):
    # Value.backward() runs _backward_pass while the module holds its own exercises;
    # it must give exactly what the lesson's backward (the module's function) gives.
    from stridegrad import scalar

    for grads in (False, True):
        results = []
        for run in (lambda r: r.backward(), scalar.backward):
            root, nodes = _random_graph(seed, grads)
            run(root)
            first = _bits(nodes)
            run(root)  # a second call: leaves accumulate, interior nodes start again
            results.append((first, _bits(nodes)))
        assert results[0] == results[1]
    for grads in (False, True):  # a leaf as the root, its grad set before or not
        for run in (lambda r: r.backward(), scalar.backward):
            v = Value(2.0)
            v.grad = 3.0 if grads else 0.0
            run(v)
            assert (type(v.grad), v.grad) == (float, 1.0)


def test_interior_order_is_lesson_06s_order():
    from stridegrad import scalar
    from stridegrad.scalar import _topological_order

    root, _ = _random_graph(0, False)
    lesson = [n for n in scalar.topological_order(root) if n._prev]
    assert _topological_order(root) == lesson


def test_value_backward_calls_the_modules_functions(monkeypatch):
    # what `stridegrad yours` does: set a learner's functions on the module; written
    # here as a learner of lesson 06 would (a recursive sort, micrograd's way)
    from stridegrad import scalar

    calls = []

    def topological_order(root):
        calls.append("topological_order")
        order, seen = [], set()

        def visit(node):
            if node not in seen:
                seen.add(node)
                for child in node._prev:
                    visit(child)
                order.append(node)

        visit(root)
        return order

    def backward(root):
        calls.append("backward")
        order = scalar.topological_order(root)
        for node in order:
            if node._backward is not None:
                node.grad = 0.0
        root.grad = 1.0
        for node in reversed(order):
            if node._backward is not None:
                node._backward(node.grad)

    def check():
        x = Value(-4.0)
        z = 2 * x + 2 + x
        q = z.relu() + z * x
        y = (z * z).relu() + q + q * x
        y.backward()
        assert (y.data, x.grad) == (-20.0, 46.0)  # micrograd's sanity check

    monkeypatch.setattr(scalar, "topological_order", topological_order)
    check()
    assert calls == ["topological_order"]  # through the library's backward
    monkeypatch.setattr(scalar, "backward", backward)
    calls.clear()
    check()
    assert calls == ["backward", "topological_order"]
    monkeypatch.undo()
    calls.clear()
    check()
    assert calls == []
