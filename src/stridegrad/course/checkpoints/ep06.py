"""Checkpoint 06 (scalar autograd): ``add``, ``mul``, ``tanh``, ``topological_order``,
``backward`` and ``central_difference``.

The tests build their graphs from a tiny node class of their own (``_Node``,
with the attributes the lesson's ``Value`` has: ``data``, ``grad``, ``_prev``,
``_op``, ``_backward``), so each exercise is tested on its own: ``add`` is not
needed to test ``backward``. ``backward`` calls the learner's own
``topological_order``, as the lesson asks. Expected numbers are written out by
hand (tanh values to 17 digits, from a calculator).

After each exercise's tests, its contract (``checkpoint.contract``) judges it on
generated cases against the lesson's own function, through a scenario that builds
the nodes from a plain description (numbers; graphs as lines ``"n1 = x * y"``, with
shared nodes, diamonds, a node used twice, a chain of 1,000 copies run at Python's
default recursion limit) and compares what it observes: data, ``_prev`` and ``_op``,
every node's grad after each call, how often each closure ran, whether an output is
freed at once, what ``f`` was given (``stridegrad.course.contracts``).
"""

from __future__ import annotations

import gc
import math
import random
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from stridegrad.course.checks import CheckFailure, Checkpoint, fail, freed_when_dropped, raised, short_repr
from stridegrad.course.contracts import Call

from stridegrad.course._wire import in_its_process
from stridegrad.course.observe import ep06 as _seen
from stridegrad.course.observe.ep06 import (  # the scenarios' nodes, where they live
    _Node, _chain_nodes, _leaf, _name_of, _plus, _times, _with_gc_off,
)

__all__ = ["checkpoint"]

#: run in the notebook's process when the grader's judge holds a stand-in of fn
_topological_scenario = in_its_process(_seen._topological_scenario)
_backward_scenario = in_its_process(_seen._backward_scenario)
_long_chain_grad = in_its_process(_seen.long_chain_grad)

checkpoint = Checkpoint("06_scalar_autograd", "scalar autograd",
                        reference="stridegrad.course.designs")


def _close(got, want, tol=1e-9):
    try:
        return math.isclose(float(got), want, rel_tol=tol, abs_tol=1e-12)
    except (TypeError, ValueError):
        return False


def _check_number(call, got, want, tol=1e-9):
    if not _close(got, want, tol):
        fail(call, want, got)


def _check_output(call, out, data, children, op):
    if not hasattr(out, "data") or not hasattr(out, "_prev"):
        fail(call, "a Value", out)
    _check_number(f"{call}.data", out.data, data)
    prev = tuple(getattr(out, "_prev", ()))
    if len(prev) != len(children) or any(p is not c for p, c in zip(prev, children)):
        fail(f"{call}._prev", children, prev)
    if getattr(out, "_op", None) != op:
        fail(f"{call}._op", op, getattr(out, "_op", None))
    if not callable(getattr(out, "_backward", None)):
        fail(f"callable({call}._backward)", True, False)


def _check_no_cycle(call, make):
    """The output must die as soon as its last reference goes: no cycle through its closure."""
    was = gc.isenabled()
    gc.disable()
    try:
        if not freed_when_dropped([make()]):
            fail(f"del {call}; is it freed without the cycle collector?",
                 "freed at once", "still alive: its closure refers to the output")
    finally:
        if was:
            gc.enable()


# ------------------------------------------------------------------ contract scenarios
#
# Each contract builds its nodes (``_Node``) from the plain description a case holds,
# runs the learner's function on them and returns what it saw as plain data: numbers,
# names of nodes, counts. The lesson's own function, run through the same scenario,
# gives what is expected.


def _op_scenario(fn: Callable, inputs: list, extra: tuple, grads_before: tuple,
                 backward_with: tuple) -> dict:
    """Call ``fn(*inputs, *extra)``; what its output holds, each input's grad after each
    ``out._backward(g)``, and whether the output is freed as soon as it is dropped (no
    reference cycle through its closure)."""
    names = {id(n): n.name for n in inputs}
    own = list({id(n): n for n in inputs}.values())  # each input once (add(a, a))
    for node, grad in zip(own, grads_before):
        node.grad = grad

    def run():
        out = fn(*inputs, *extra)
        seen = {"data": out.data, "_prev": [_name_of(p, names) for p in out._prev],
                "_op": out._op, "grads after each _backward(g)": []}
        for g in backward_with:
            out._backward(g)
            seen["grads after each _backward(g)"].append({n.name: n.grad for n in own})
        seen["inputs' data after"] = {n.name: n.data for n in own}
        box = [out]
        del out
        seen["freed as soon as dropped"] = freed_when_dropped(box)
        return seen

    return _with_gc_off(run)


def _binary_op(fn: Callable, a: float, b: float | str, *, grads_before: tuple = (0.0, 0.0),
               backward_with: tuple = (1.0,)) -> dict:
    """The scenario of add and mul: Values a and b (``b='a'``: a itself, as in
    ``add(a, a)``) holding these numbers and grads."""
    x = _leaf(a, "a")
    y = x if b == "a" else _leaf(b, "b")
    return _op_scenario(fn, [x, y], (), grads_before, backward_with)


def _unary_op(fn: Callable, a: float, *extra: Any, grad_before: float = 0.0,
              backward_with: tuple = (1.0,)) -> dict:
    """The scenario of tanh and power: a Value a holding this number and grad."""
    return _op_scenario(fn, [_leaf(a, "a")], extra, (grad_before,), backward_with)


# numbers of very different sizes, exact in any sum or product of two: zeros, ones,
# multiples of 1/8 of three scales
_DATA = st.one_of(st.sampled_from([0.0, 1.0, -1.0, 0.5]),
                  st.builds(lambda k, scale: k / 8 * scale, st.integers(-40, 40),
                            st.sampled_from([1.0, 1024.0, 1 / 64])))
_GRADS = st.sampled_from([0.0, 1.0, -2.0, 0.5, 3.25, 1e3])


@st.composite
def _backward_calls(draw, min_calls: int = 1) -> dict:
    """The keyword arguments of a case: grads already there, the g of each
    ``_backward(g)`` call (two calls: the closure must add, and keep adding)."""
    return {"backward_with": tuple(draw(st.lists(_GRADS, min_size=min_calls, max_size=2)))}


def _binary_case(rng: random.Random) -> Call:
    """Two numbers as _DATA draws them (or a twice), grads already there, one or two
    ``_backward(g)`` calls: drawn from a Random that Hypothesis seeds (cheaper)."""
    def data():
        if rng.random() < 0.3:
            return rng.choice([0.0, 1.0, -1.0, 0.5])
        return rng.randint(-40, 40) / 8 * rng.choice([1.0, 1024.0, 1 / 64])

    def grad():
        return rng.choice([0.0, 1.0, -2.0, 0.5, 3.25, 1e3])

    a = data()
    b = "a" if rng.random() < 0.25 else data()
    grads = (grad(),) if b == "a" else (grad(), grad())
    return Call((a, b), {"grads_before": grads,
                         "backward_with": tuple(grad() for _ in range(rng.randint(1, 2)))})


_OP_HINT = ("This row builds Values holding the numbers shown (b='a': the same Value a "
            "twice), sets their grads (grads_before), calls your {name}, then "
            "out._backward(g) for each g of backward_with, and compares what it sees with "
            "the lesson's {name}: the output's data, _prev and _op, the inputs' grads after "
            "each call, and whether the output is freed as soon as it is dropped. Up to 40 "
            "such cases, drawn by Hypothesis (the same ones every run); the row shows the "
            "smallest your function gets wrong.")


_LEAF_VALUES = [2.0, -3.0, 0.5, 0.0, 1.0, -1.25, 4.0, 0.75]
_GRADS_BEFORE = [0.0, 1.0, -2.0, 0.5, 3.25, 1e3]
#: the length of a chain of copies on top of a graph: deeper than the default recursion limit
_CHAIN = 1000


def _graph_lines(rng: random.Random, min_ops: int = 0, max_ops: int = 6) -> tuple:
    """Up to 4 leaves and 6 operations (+, *, tanh) on any earlier nodes: shared nodes,
    a node used twice by one operation (x * x), diamonds, nodes the root does not use.
    (Drawn from one Random that Hypothesis seeds: the same graphs every run, and far
    cheaper to draw than Hypothesis's own draws, one per choice.)"""
    leaves = rng.randint(1, 4)
    lines = [f"{'xyzw'[k]} = {rng.choice(_LEAF_VALUES)}" for k in range(leaves)]
    names = list("xyzw"[:leaves])

    def pick():  # the newest nodes most often, so that the graph grows deep and shares
        return rng.choice(names[-2:] if rng.random() < 0.5 else names)

    for k in range(rng.randint(min_ops, max_ops)):
        op = rng.choice(["+", "*", "tanh"])
        lines.append(f"n{k + 1} = " + (f"tanh({pick()})" if op == "tanh" else
                                       f"{pick()} {op} {pick()}"))
        names.append(f"n{k + 1}")
    return tuple(lines)


def _is_leaf(line: str) -> bool:
    expr = line.partition(" = ")[2]
    return len(expr.split()) == 1 and not expr.startswith("tanh(")


def _seeded(build: Callable[[random.Random], Call]) -> st.SearchStrategy:
    """The cases ``build`` makes from a Random that Hypothesis seeds (derandomized)."""
    return st.randoms(use_true_random=True).map(build)


def _topological_case(rng: random.Random) -> Call:
    """A graph, and one time in six a chain of copies on top."""
    lines = _graph_lines(rng)
    return Call((lines,), {"chain": _CHAIN} if rng.random() < 1 / 6 else {})


def _backward_case(rng: random.Random) -> Call:
    """A graph whose root is an operation (or a lone leaf, called once), grads left over
    on some nodes, one or two calls, one time in six a chain of copies on top."""
    lines = _graph_lines(rng, min_ops=0 if rng.random() < 0.2 else 1)
    if _is_leaf(lines[-1]):
        # a lone leaf for a root: root.grad is 1.0 after one call (what a second call or a
        # grad already there should give is not in the docstring)
        return Call((lines,))
    kwargs: dict = {}
    grads = {line.partition(" = ")[0]: rng.choice(_GRADS_BEFORE) for line in lines
             if rng.random() < 1 / 3}
    if grads:
        kwargs["grads_before"] = grads
    if rng.random() < 0.5:
        kwargs["calls"] = 2
    if rng.random() < 1 / 6:
        kwargs["chain"] = _CHAIN
    return Call((lines,), kwargs)


# functions of a list of floats, by their source: a cubic, sums of powers, a product of
# the first and last, sin and exp; each curved in every coordinate
_FUNCTIONS = {
    "lambda v: v[0] ** 3 - v[-1] ** 2": lambda v: v[0] ** 3 - v[-1] ** 2,
    "lambda v: sum(x ** 3 for x in v)": lambda v: sum(x ** 3 for x in v),
    "lambda v: v[0] * v[-1] * sum(v)": lambda v: v[0] * v[-1] * sum(v),
    "lambda v: math.sin(v[0]) * math.exp(v[-1] / 4)":
        lambda v: math.sin(v[0]) * math.exp(v[-1] / 4),
}


def _central_difference_scenario(fn: Callable, f: str, xs: list, i: int, **kwargs: Any) -> dict:
    """Call ``fn(f, xs, i, ...)`` with ``f`` the function of that source; what it
    returns, and at each call of ``f``: whether it was given xs itself or a list of its
    own, and whether xs was as the caller gave it."""
    original = list(xs)
    given: set = set()

    def f_of(v):
        given.add(("xs itself" if v is xs else "a " + type(v).__name__ + " of its own",
                   "xs as given" if xs == original else "xs changed"))
        return _FUNCTIONS[f](v)

    result = fn(f_of, xs, i, **kwargs)
    return {"returned": result, "f was given, while": sorted(given)}


_XS = st.lists(st.builds(lambda k: k / 4, st.integers(-8, 8)), min_size=1, max_size=4)


@st.composite
def _central_differences(draw) -> Call:
    """A curved f, one to four numbers, any index, the default h or a given one."""
    xs = draw(_XS)
    i = draw(st.integers(0, len(xs) - 1))
    h = draw(st.sampled_from([None, 0.5, 0.25, 0.1, 1e-3]))
    return Call((draw(st.sampled_from(sorted(_FUNCTIONS))), xs, i), {"h": h} if h else {})


@st.composite
def _tanh_calls(draw) -> Call:
    a = draw(st.one_of(_DATA, st.sampled_from([20.0, -3.5, 400.0, -800.0])))
    return Call((a,), {"grad_before": draw(_GRADS), **draw(_backward_calls())})


@st.composite
def _power_calls(draw) -> Call:
    """Whole powers of any number, 0 included (for n >= 0), negative ones of a number
    that is not 0, fractional ones of a positive number; n an int or a float."""
    if draw(st.integers(0, 4)) == 0:  # at 0: the slope of a**0 and a**2 is 0, of a**1 it is 1
        a, n = 0.0, draw(st.sampled_from([1, 0, 2, 3]))
        return Call((a, n), {"grad_before": draw(_GRADS), **draw(_backward_calls())})
    n = draw(st.one_of(st.integers(-3, 4), st.sampled_from([0.5, 1.5, -0.5, 2.0, 3.0])))
    if isinstance(n, float) and not n.is_integer():
        a = draw(st.sampled_from([0.25, 1.0, 2.0, 4.0, 9.0]))
    elif n < 0:
        a = draw(st.sampled_from([0.5, -1.0, 2.0, -2.0, 3.0]))
    else:
        a = draw(st.sampled_from([0.0, 0.0, 1.0, -1.0, 0.5, 2.0, -2.0, 3.0]))
        if isinstance(n, float) and a == 0.0:
            a = 2.0
    return Call((a, n), {"grad_before": draw(_GRADS), **draw(_backward_calls())})


# ------------------------------------------------------------------ add

@checkpoint.test("add", hint="out = Value(a.data + b.data, (a, b), \"+\"), with _backward set "
                             "to your closure before you return out.")
def add_makes_the_output(add):
    a, b = _leaf(2.0, "a"), _leaf(3.0, "b")
    _check_output("add(a=2, b=3)", add(a, b), 5.0, (a, b), "+")


@checkpoint.test("add", hint="d(a + b)/da = d(a + b)/db = 1: both inputs receive g itself.")
def add_sends_the_gradient_to_both_inputs(add):
    a, b = _leaf(2.0, "a"), _leaf(3.0, "b")
    add(a, b)._backward(3.0)
    _check_number("a.grad after add(a, b)._backward(3.0)", a.grad, 3.0)
    _check_number("b.grad after add(a, b)._backward(3.0)", b.grad, 3.0)


@checkpoint.test("add", hint="Add into the inputs' grad with +=: a gradient already there "
                             "(from another use of the Value) must stay.",
                 hint_for=("= instead of +=",))
def add_accumulates(add):
    a, b = _leaf(2.0, "a"), _leaf(3.0, "b")
    a.grad, b.grad = 1.0, -4.0
    add(a, b)._backward(2.0)
    _check_number("a.grad (1.0 before) after add(a, b)._backward(2.0)", a.grad, 3.0)
    _check_number("b.grad (-4.0 before) after add(a, b)._backward(2.0)", b.grad, -2.0)


@checkpoint.test("add", hint="add(a, a) uses a twice: a.grad gets g from each use, 2 * g in "
                             "all. With = instead of +=, the second write replaces the first.",
                 hint_for=("= instead of +=",))
def add_same_value_twice(add):
    a = _leaf(5.0, "a")
    out = add(a, a)
    _check_number("add(a=5, a).data", out.data, 10.0)
    out._backward(1.0)
    _check_number("a.grad after add(a, a)._backward(1.0)", a.grad, 2.0)


@checkpoint.test("add", hint="Calling the closure must not change the inputs' data, only grad.")
def add_backward_leaves_data_alone(add):
    a, b = _leaf(2.0, "a"), _leaf(3.0, "b")
    add(a, b)._backward(1.0)
    _check_number("a.data after the backward call", a.data, 2.0)
    _check_number("b.data after the backward call", b.data, 3.0)


@checkpoint.test("add", hint="Let the closure take the output's gradient g as its argument and "
                             "capture only a and b: a closure that refers to out makes a "
                             "reference cycle (out -> closure -> out).",
                 hint_for=("closure captures its output",))
def add_closure_does_not_capture_the_output(add):
    a, b = _leaf(2.0, "a"), _leaf(3.0, "b")
    _check_no_cycle("add(a, b)", lambda: add(a, b))


checkpoint.contract("add", valid=_seeded(_binary_case), scenario=_binary_op,
                    hint=_OP_HINT.format(name="add"))


# ------------------------------------------------------------------ mul

@checkpoint.test("mul", hint="out = Value(a.data * b.data, (a, b), \"*\") with your closure as "
                             "out._backward.")
def mul_makes_the_output(mul):
    a, b = _leaf(2.0, "a"), _leaf(-3.0, "b")
    _check_output("mul(a=2, b=-3)", mul(a, b), -6.0, (a, b), "*")


@checkpoint.test("mul", hint="d(a * b)/da = b and d(a * b)/db = a: each input gets the OTHER "
                             "input's data times g.",
                 hint_for=("own data instead of the other's",))
def mul_sends_the_other_input(mul):
    a, b = _leaf(2.0, "a"), _leaf(-3.0, "b")
    mul(a, b)._backward(0.5)
    _check_number("a.grad after mul(a=2, b=-3)._backward(0.5)", a.grad, -1.5)
    _check_number("b.grad after mul(a=2, b=-3)._backward(0.5)", b.grad, 1.0)


@checkpoint.test("mul", hint="Add into the inputs' grad with +=, keep what is already there.",
                 hint_for=("= instead of +=",))
def mul_accumulates(mul):
    a, b = _leaf(4.0, "a"), _leaf(5.0, "b")
    a.grad, b.grad = 10.0, 20.0
    mul(a, b)._backward(1.0)
    _check_number("a.grad (10 before) after mul(a=4, b=5)._backward(1.0)", a.grad, 15.0)
    _check_number("b.grad (20 before) after mul(a=4, b=5)._backward(1.0)", b.grad, 24.0)


@checkpoint.test("mul", hint="x * x = x**2, whose derivative is 2x: the two uses of x each add "
                             "x.data * g. With =, you get x * g, half of it.",
                 hint_for=("= instead of +=",))
def mul_square(mul):
    x = _leaf(3.0, "x")
    out = mul(x, x)
    _check_number("mul(x=3, x).data", out.data, 9.0)
    out._backward(1.0)
    _check_number("x.grad after mul(x=3, x)._backward(1.0)", x.grad, 6.0)


@checkpoint.test("mul", hint="Multiply by g, the output's gradient: the chain rule.",
                 hint_for=("forgets the incoming gradient",))
def mul_uses_the_incoming_gradient(mul):
    a, b = _leaf(1.5, "a"), _leaf(2.0, "b")
    mul(a, b)._backward(-4.0)
    _check_number("a.grad after mul(a=1.5, b=2)._backward(-4.0)", a.grad, -8.0)
    _check_number("b.grad after mul(a=1.5, b=2)._backward(-4.0)", b.grad, -6.0)


@checkpoint.test("mul", hint="The closure captures a and b (or their numbers), never out.")
def mul_closure_does_not_capture_the_output(mul):
    a, b = _leaf(2.0, "a"), _leaf(3.0, "b")
    _check_no_cycle("mul(a, b)", lambda: mul(a, b))


checkpoint.contract("mul", valid=_seeded(_binary_case), scenario=_binary_op,
                    hint=_OP_HINT.format(name="mul"))


# ------------------------------------------------------------------ tanh

@checkpoint.test("tanh", hint="out = Value(math.tanh(a.data), (a,), \"tanh\"): one input, "
                              "so _prev is the 1-tuple (a,).")
def tanh_makes_the_output(tanh):
    a = _leaf(0.5, "a")
    _check_output("tanh(a=0.5)", tanh(a), 0.46211715726000974, (a,), "tanh")


@checkpoint.test("tanh", hint="The derivative is 1 - tanh(a)**2, with tanh(a) the OUTPUT "
                              "(0.4621...), not 1 - a**2.",
                 hint_for=("derivative from the input",))
def tanh_derivative(tanh):
    a = _leaf(0.5, "a")
    tanh(a)._backward(1.0)
    _check_number("a.grad after tanh(a=0.5)._backward(1.0)", a.grad, 0.7864477329659274)


@checkpoint.test("tanh", hint="Multiply the local derivative by g: 2 * (1 - tanh(-1)**2).",
                 hint_for=("forgets the incoming gradient",))
def tanh_uses_the_incoming_gradient(tanh):
    a = _leaf(-1.0, "a")
    out = tanh(a)
    _check_number("tanh(a=-1).data", out.data, -0.7615941559557649)
    out._backward(2.0)
    _check_number("a.grad after tanh(a=-1)._backward(2.0)", a.grad, 0.8399486832280523)


@checkpoint.test("tanh", hint="At 0, tanh is 0 and its slope is 1 - 0**2 = 1.")
def tanh_at_zero(tanh):
    a = _leaf(0.0, "a")
    out = tanh(a)
    _check_number("tanh(a=0).data", out.data, 0.0)
    out._backward(3.0)
    _check_number("a.grad after tanh(a=0)._backward(3.0)", a.grad, 3.0)


@checkpoint.test("tanh", hint="+= into a.grad: keep what is already there.",
                 hint_for=("= instead of +=",))
def tanh_accumulates(tanh):
    a = _leaf(0.0, "a")
    a.grad = 1.0
    tanh(a)._backward(1.0)
    _check_number("a.grad (1.0 before) after tanh(a=0)._backward(1.0)", a.grad, 2.0)


@checkpoint.test("tanh", hint="The closure captures a and the number tanh(a), not out: "
                              "reading out.data inside it keeps out alive in a cycle "
                              "(out -> closure -> out).",
                 hint_for=("closure captures its output",))
def tanh_closure_does_not_capture_the_output(tanh):
    a = _leaf(0.3, "a")
    _check_no_cycle("tanh(a)", lambda: tanh(a))


checkpoint.contract("tanh", valid=_tanh_calls(), scenario=_unary_op,
                    hint=_OP_HINT.format(name="tanh").replace(" (b='a': the same Value a "
                                                               "twice)", "").replace(
                        "grads_before", "grad_before"))


# ------------------------------------------------------------------ topological_order

def _chain(n):
    def build():
        node = _leaf(1.0, "x")
        first = node
        for _ in range(n):
            node = _Node(node.data, (node,), "id", None, "")
        return first, node
    return _with_gc_off(build)


def _as_set(order, nodes):
    """What ``order`` lists, as a set with a count for each node listed more than once:
    in the order of ``nodes`` (a valid order), then anything else it holds; missing
    nodes named after it. A set, so that no one reads it as the expected order."""
    count, others = {}, []
    for n in order:
        if id(n) not in count and all(n is not m for m in nodes):
            others.append(n)
        count[id(n)] = count.get(id(n), 0) + 1
    listed = [n for n in nodes if id(n) in count] + others
    text = "{" + ", ".join(repr(n) + (f" x{count[id(n)]}" if count[id(n)] > 1 else "")
                           for n in listed) + "}"
    missing = [repr(n) for n in nodes if id(n) not in count]
    return text + (f"; missing: {', '.join(missing)}" if missing else "")


def _check_order(call, order, root, nodes):
    if not isinstance(order, list):
        fail(f"type({call})", "list", type(order).__name__)
    if len(order) != len(nodes) or {id(n) for n in order} != {id(n) for n in nodes}:
        raise CheckFailure(f"{call}: its nodes as a set (the order is checked next)",
                           "each node once, in any order: {" + ", ".join(map(repr, nodes)) + "}",
                           _as_set(order, nodes))
    if order[-1] is not root:
        fail(f"{call}[-1]", root, order[-1])
    where = {id(n): k for k, n in enumerate(order)}
    for n in order:
        for child in n._prev:
            if where[id(child)] > where[id(n)]:
                fail(f"position of {child!r} in {call}", f"before {n!r} (its user)",
                     f"after it (position {where[id(child)]} > {where[id(n)]})")


@checkpoint.test("topological_order", hint="Inputs first, root last: a chain x -> y -> z "
                                           "has exactly one order, [x, y, z].")
def order_of_a_chain(topological_order):
    x = _leaf(1.0, "x")
    y = _Node(2.0, (x,), "id", None, "y")
    z = _Node(3.0, (y,), "id", None, "z")
    order = topological_order(z)
    if not isinstance(order, list) or len(order) != 3 or \
            any(a is not b for a, b in zip(order, [x, y, z])):
        fail("topological_order(z) for x -> y -> z", [x, y, z], order)


@checkpoint.test("topological_order", hint="List every node once, leaves included, each after "
                                           "all the nodes in its _prev.")
def order_of_x_times_y_plus_b(topological_order):
    x, y, b = _leaf(2.0, "x"), _leaf(-3.0, "y"), _leaf(10.0, "b")
    xy = _times(x, y)
    z = _plus(xy, b)
    _check_order("topological_order(z = x*y + b)", topological_order(z), z, [x, y, b, xy, z])


@checkpoint.test("topological_order", hint="A node reached along two paths is listed once: "
                                           "keep a set of the nodes already visited.",
                 hint_for=("no visited set: shared nodes twice",))
def shared_input_is_listed_once(topological_order):
    a = _leaf(2.0, "a")
    b = _times(a, a)
    c = _plus(a, b)
    d = _plus(b, c)
    _check_order("topological_order(d) where a feeds b, c and b feeds c, d",
                 topological_order(d), d, [a, b, c, d])


@checkpoint.test("topological_order", hint="A node is listed only once ALL of its inputs are "
                                           "listed, not when it is first reached: here w is "
                                           "reached from z before y, but y reads it.",
                 hint_for=("lists a node when first reached (preorder), reversed",))
def node_used_at_two_depths(topological_order):
    # z = y + w with y = w * 3: w is one step from z and two steps through y, so a
    # node listed when first reached (preorder) and reversed puts y before w
    x, two, three = _leaf(1.0, "x"), _leaf(2.0, "2"), _leaf(3.0, "3")
    w = _times(x, two)
    y = _times(w, three)
    z = _plus(y, w)
    _check_order("topological_order(z = y + w) where y = w * 3 and w = x * 2",
                 topological_order(z), z, [x, two, w, three, y, z])


@checkpoint.test("topological_order", hint="A recursive visit needs one Python frame per level "
                                           "and hits the recursion limit near 1,000: keep your "
                                           "own stack (a list) instead.",
                 hint_for=("recursive (overflows on a 10,000-step chain)",))
def chain_of_ten_thousand(topological_order):
    first, root = _chain(10_000)
    # the cycle collector off: 10,000 new nodes would make it walk the whole heap
    order = _with_gc_off(lambda: topological_order(root))
    if not isinstance(order, list) or len(order) != 10_001:
        fail("len(topological_order(a 10,000-step chain))", 10_001,
             len(order) if hasattr(order, "__len__") else order)
    if order[0] is not first or order[-1] is not root:
        # every node of the chain holds 1.0, so their reprs look alike: name each end
        # by its place in the chain instead
        step = {id(node): 10_000 - k for k, node in enumerate(_chain_nodes(root, 10_000))}
        step[id(first)] = 0

        def place(node):
            k = step.get(id(node))
            if k is None:
                return f"{short_repr(node)}, not a node of the chain"
            return {0: "the leaf x", 10_000: "the root"}.get(
                k, f"the node {k:,} step{'s' if k > 1 else ''} above x")
        raise CheckFailure("the ends of topological_order(a 10,000-step chain from the leaf x "
                           "up to the root)", "[the leaf x, ..., the root]",
                           f"[{place(order[0])}, ..., {place(order[-1])}]")


@checkpoint.test("topological_order", hint="A leaf alone is its own graph: [root].")
def order_of_a_leaf(topological_order):
    x = _leaf(1.0, "x")
    order = topological_order(x)
    if not isinstance(order, list) or len(order) != 1 or order[0] is not x:
        fail("topological_order(x) for a leaf x", [x], order)


@checkpoint.test("topological_order", hint="Only read the graph: do not change any node's "
                                           "data or grad.")
def order_changes_nothing(topological_order):
    x, y = _leaf(2.0, "x"), _leaf(3.0, "y")
    x.grad = 7.0
    z = _times(x, y)
    topological_order(z)
    if x.grad != 7.0 or x.data != 2.0 or z.data != 6.0:
        fail("x.grad, x.data, z.data after topological_order(z)", (7.0, 2.0, 6.0),
             (x.grad, x.data, z.data))


checkpoint.contract(
    "topological_order", scenario=_topological_scenario,
    valid=_seeded(_topological_case),
    hint="This row builds a graph from the lines shown (the last one is the root; "
         "chain=k: k more nodes on top, each a copy of the one before), calls your "
         "topological_order on its root at Python's default recursion limit and compares "
         "what it sees with the lesson's: the nodes listed (any order that lists each node "
         "after its inputs is right), whether the root comes last, which nodes come before "
         "one of their inputs, whether the graph was left as it was. Up to 40 such graphs, "
         "drawn by Hypothesis (the same ones every run); the row shows the smallest your "
         "function gets wrong.")


# ------------------------------------------------------------------ backward

@checkpoint.test("backward", hint="After backward(z), z.grad is d(z)/d(z) = 1.0 and each leaf "
                                  "holds dz/d(leaf): for z = x*y + b that is x.grad = y = -3, "
                                  "y.grad = x = 2 and b.grad = 1.")
def backward_of_x_times_y_plus_b(backward):
    x, y, b = _leaf(2.0, "x"), _leaf(-3.0, "y"), _leaf(10.0, "b")
    z = _plus(_times(x, y), b)
    backward(z)
    got = (z.grad, x.grad, y.grad, b.grad)
    if not all(_close(g, w) for g, w in zip(got, (1.0, -3.0, 2.0, 1.0))):
        fail("(z.grad, x.grad, y.grad, b.grad) after backward(z = x*y + b) at x=2, y=-3, b=10",
             (1.0, -3.0, 2.0, 1.0), got)


@checkpoint.test("backward", hint="Root first: a node may pass its gradient on only when every "
                                  "user has added its share. Walking the order leaves-first "
                                  "sends zeros.",
                 hint_for=("walks leaves first",))
def backward_runs_root_first(backward):
    a, b = _leaf(3.0, "a"), _leaf(4.0, "b")
    c = _times(a, b)
    d = _plus(c, c)
    e = _times(d, _leaf(0.5, "half"))
    backward(e)
    # e = 0.5 * 2ab = ab: de/da = b = 4, de/db = a = 3
    if not (_close(a.grad, 4.0) and _close(b.grad, 3.0)):
        fail("(a.grad, b.grad) after backward(e = 0.5 * (ab + ab)) at a=3, b=4",
             (4.0, 3.0), (a.grad, b.grad))


@checkpoint.test("backward", hint="The root's own gradient is d(root)/d(root) = 1.0.",
                 hint_for=("forgets to seed the root",))
def backward_seeds_the_root(backward):
    x = _leaf(5.0, "x")
    y = _times(x, _leaf(2.0, "two"))
    backward(y)
    if not (_close(y.grad, 1.0) and _close(x.grad, 2.0)):
        fail("(y.grad, x.grad) after backward(y = 2x)", (1.0, 2.0), (y.grad, x.grad))


@checkpoint.test("backward", hint="Use the topological order, not recursion: a 10,000-step chain "
                                  "must work (and your topological_order must handle it too).",
                 hint_for=("recursive order",))
def backward_through_a_long_chain(backward):
    grad = _long_chain_grad(backward, 10_000)
    _check_number("x.grad after backward(x * 1 * 1 * ... (10,000 times))", grad, 1.0)


@checkpoint.test("backward", hint="Reset interior nodes (those with a _backward) to 0 before the "
                                  "pass; leaves keep and accumulate. A second backward then "
                                  "doubles the leaves' grads exactly (not triples them, nor "
                                  "leaves them as after one).",
                 hint_for=("no reset of interior nodes (micrograd)", "resets the leaves too"))
def second_backward_accumulates_into_leaves_only(backward):
    x, y = _leaf(2.0, "x"), _leaf(-3.0, "y")
    xy = _times(x, y)
    z = _plus(xy, xy)
    backward(z)
    backward(z)
    # z = 2xy: dz/dx = 2y = -6 per pass, two passes
    if not (_close(x.grad, -12.0) and _close(y.grad, 8.0)):
        fail("(x.grad, y.grad) after two backward(z = xy + xy) at x=2, y=-3",
             (-12.0, 8.0), (x.grad, y.grad))


@checkpoint.test("backward", hint="A leaf has _backward None: skip it, do not call it.")
def backward_of_a_leaf(backward):
    x = _leaf(3.0, "x")
    backward(x)
    _check_number("x.grad after backward(x) for a leaf x", x.grad, 1.0)


checkpoint.contract(
    "backward", valid=_seeded(_backward_case), scenario=_backward_scenario,
    hint="This row builds a graph from the lines shown (the last one is the root; "
         "chain=k: k more nodes on top, each a copy of the one before), sets the grads of "
         "grads_before (left over from an earlier pass), calls your backward on the root "
         "(calls times) at Python's default recursion limit, and compares every node's "
         "(data, grad) after each call and how many times each closure ran with the "
         "lesson's backward. Up to 40 such graphs, drawn by Hypothesis (the same ones every "
         "run); the row shows the smallest your function gets wrong.")


# ------------------------------------------------------------------ central_difference

@checkpoint.test("central_difference", hint="Nudge xs[i] by h both ways, and divide the change "
                                            "in f by the distance between the two points, 2h. "
                                            "For x**2 that is exact: 2x = 6.")
def central_difference_of_a_square(central_difference):
    got = central_difference(lambda v: v[0] ** 2, [3.0], 0, h=0.1)
    _check_number("central_difference(x**2, [3.0], 0, h=0.1)", got, 6.0)


@checkpoint.test("central_difference", hint="Nudge only xs[i]: d(x0*x1 + x2)/dx1 = x0 = 2.")
def only_the_ith_input_moves(central_difference):
    got = central_difference(lambda v: v[0] * v[1] + v[2], [2.0, 5.0, 7.0], 1, h=1e-3)
    _check_number("central_difference(x0*x1 + x2, [2, 5, 7], 1, h=1e-3)", got, 2.0, tol=1e-7)


@checkpoint.test("central_difference", hint="Work on copies (list(xs)): the caller's list must "
                                            "come back unchanged.",
                 hint_for=("modifies xs",))
def leaves_xs_alone(central_difference):
    xs = [1.0, 2.0]
    central_difference(lambda v: v[0] * v[1], xs, 0, h=0.5)
    if xs != [1.0, 2.0]:
        fail("xs after central_difference(f, xs=[1.0, 2.0], 0, h=0.5)", [1.0, 2.0], xs)


@checkpoint.test("central_difference", hint="Give f new lists (copies of xs, changed at i), never "
                                            "xs itself: f may keep what it is given, or read xs, "
                                            "so xs must not change even for a moment.",
                 hint_for=("nudges xs in place, then restores it", "modifies xs"))
def f_gets_copies_and_xs_never_changes(central_difference):
    xs = [1.0, 2.0]
    seen = []

    def f(v):
        seen.append((v is xs, list(xs)))
        return v[0] * v[1]

    central_difference(f, xs, 0, h=0.5)
    if any(same or now != [1.0, 2.0] for same, now in seen):
        raise CheckFailure(
            "what f was given, and the caller's xs at each call, in "
            "central_difference(f, xs=[1.0, 2.0], 0, h=0.5)",
            "copies of xs, with xs = [1.0, 2.0] throughout",
            "; ".join(f"f({'xs itself' if same else 'a copy'}) while xs = {now}"
                      for same, now in seen))


@checkpoint.test("central_difference", hint="Divide by 2h: the two points are 2h apart. For "
                                            "x**3 at 2 the slope is 3 * 2**2 = 12.",
                 hint_for=("divides by h",))
def default_step_is_small(central_difference):
    got = central_difference(lambda v: v[0] ** 3, [2.0], 0)
    _check_number("central_difference(x**3, [2.0], 0)", got, 12.0, tol=1e-6)


@checkpoint.test("central_difference", hint="Use the h you are given, not a constant of your own.",
                 hint_for=("ignores the given h",))
def uses_the_given_step(central_difference):
    # (f(1 + h) - f(1 - h)) / 2h for f = x**3 is 3 + h**2: 3.25 at h = 0.5
    got = central_difference(lambda v: v[0] ** 3, [1.0], 0, h=0.5)
    _check_number("central_difference(x**3, [1.0], 0, h=0.5)", got, 3.25)


@checkpoint.test("central_difference", hint="The slope of 10 * x1 with respect to x1 is 10, "
                                            "whatever x0 is: index the list with i.")
def picks_the_right_coordinate(central_difference):
    got = central_difference(lambda v: v[0] + 10.0 * v[1], [4.0, -1.0], 1, h=0.25)
    _check_number("central_difference(x0 + 10*x1, [4, -1], 1, h=0.25)", got, 10.0)


checkpoint.contract(
    "central_difference", valid=_central_differences(), scenario=_central_difference_scenario,
    hint="This row calls your central_difference with the function whose source is shown "
         "as f, and compares what it returns, what f was given (a list of its own, or xs "
         "itself) and whether xs was as the caller gave it during each call of f, with the "
         "lesson's central_difference. Up to 40 such calls, drawn by Hypothesis (the same "
         "ones every run); the row shows the smallest your function gets wrong.")


# ------------------------------------------------------------------ stretch: power

def _run_closure(call, out, g, want):
    """``out._backward(g)``; an error it raises is the row's "got", next to ``want``."""
    try:
        out._backward(g)
    except (NotImplementedError, KeyboardInterrupt):
        raise
    except Exception as exc:
        raise CheckFailure(call, repr(want), raised(exc), kind="error") from exc


@checkpoint.test("power", hint="out = Value(a.data ** n, (a,), f\"**{n}\"): one input, the "
                               "exponent is a plain number.", stretch=True)
def power_makes_the_output(power):
    a = _Node(3.0, name="a")
    _check_output("power(a=3, 2)", power(a, 2), 9.0, (a,), "**2")


@checkpoint.test("power", hint="d(a**n)/da = n * a**(n - 1): at a = 3, n = 2 that is 6.",
                 stretch=True)
def power_derivative(power):
    a = _Node(3.0, name="a")
    power(a, 2)._backward(1.0)
    _check_number("a.grad after power(a=3, 2)._backward(1.0)", a.grad, 6.0)


@checkpoint.test("power", hint="Multiply the local derivative by g: 3 * 2**2 * 0.5 = 6.",
                 stretch=True,
                 hint_for=("forgets the incoming gradient",))
def power_uses_the_incoming_gradient(power):
    a = _Node(2.0, name="a")
    power(a, 3)._backward(0.5)
    _check_number("a.grad after power(a=2, 3)._backward(0.5)", a.grad, 6.0)


@checkpoint.test("power", hint="Negative and fractional exponents follow the same rule: "
                               "-1 * 2**-2 = -0.25, 0.5 * 4**-0.5 = 0.25.", stretch=True)
def negative_and_fractional_exponents(power):
    a = _Node(2.0, name="a")
    out = power(a, -1)
    _check_number("power(a=2, -1).data", out.data, 0.5)
    out._backward(1.0)
    _check_number("a.grad after power(a=2, -1)._backward(1.0)", a.grad, -0.25)
    b = _Node(4.0, name="b")
    power(b, 0.5)._backward(1.0)
    _check_number("b.grad after power(b=4, 0.5)._backward(1.0)", b.grad, 0.25)


@checkpoint.test("power", hint="At a = 0 the slope of a**3 is 0, not an error: compute it from "
                               "a, not by dividing the output by a.", stretch=True,
                 hint_for=("slope from the output divided by a",))
def power_at_zero(power):
    a = _Node(0.0, name="a")
    out = power(a, 3)
    _check_number("power(a=0, 3).data", out.data, 0.0)
    _run_closure("a.grad after power(a=0, 3)._backward(1.0)", out, 1.0, 0.0)
    _check_number("a.grad after power(a=0, 3)._backward(1.0)", a.grad, 0.0)


@checkpoint.test("power", hint="a**0 is the constant 1: its slope is 0 at every a, 0 "
                               "included (as in PyTorch). At a = 0 a formula such as "
                               "n * a**(n - 1) divides by zero: give n == 0 its slope, 0, "
                               "without one.", stretch=True)
def power_zero_is_a_constant(power):
    a = _Node(0.0, name="a")
    out = power(a, 0)
    _check_number("power(a=0, 0).data", out.data, 1.0)
    _run_closure("a.grad after power(a=0, 0)._backward(1.0)", out, 1.0, 0.0)
    _check_number("a.grad after power(a=0, 0)._backward(1.0)", a.grad, 0.0)
    b = _Node(5.0, name="b")
    power(b, 0)._backward(2.0)
    _check_number("b.grad after power(b=5, 0)._backward(2.0)", b.grad, 0.0)


@checkpoint.test("power", hint="Add into a.grad (+=): a value used twice collects from every "
                               "use.", stretch=True,
                 hint_for=("= instead of +=",))
def power_accumulates(power):
    a = _Node(3.0, name="a")
    a.grad = 1.0
    power(a, 2)._backward(1.0)
    _check_number("a.grad (1.0 before) after power(a=3, 2)._backward(1.0)", a.grad, 7.0)


@checkpoint.test("power", hint="The closure captures a and n, never out: a closure that refers "
                               "to out makes a reference cycle (out -> closure -> out).",
                 stretch=True, hint_for=("closure captures its output",))
def power_closure_does_not_capture_the_output(power):
    a = _Node(3.0, name="a")
    _check_no_cycle("power(a, 2)", lambda: power(a, 2))


checkpoint.contract("power", valid=_power_calls(), scenario=_unary_op, stretch=True,
                    hint=_OP_HINT.format(name="power").replace(" (b='a': the same Value a "
                                                                "twice)", "").replace(
                        "grads_before", "grad_before"))
