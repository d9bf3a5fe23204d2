"""Checkpoint 06 (scalar autograd): ``add``, ``mul``, ``tanh``, ``topological_order``,
``backward`` and ``central_difference``.

The tests build their graphs from a tiny node class of their own (``_Node``,
with the attributes the lesson's ``Value`` has: ``data``, ``grad``, ``_prev``,
``_op``, ``_backward``), so each exercise is tested on its own: ``add`` is not
needed to test ``backward``. ``backward`` calls the learner's own
``topological_order``, as the lesson asks. Expected numbers are written out by
hand (tanh values to 17 digits, from a calculator).
"""

from __future__ import annotations

import gc
import math
import weakref

from stridegrad.course.checks import CheckFailure, Checkpoint, fail, raised

__all__ = ["checkpoint"]

checkpoint = Checkpoint("06_scalar_autograd", "scalar autograd",
                        reference="stridegrad.course.designs")


class _Node:
    """A stand-in for the lesson's Value: what the exercises may read and write."""

    def __init__(self, data, children=(), op="", backward=None, name=""):
        self.data = float(data)
        self.grad = 0.0
        self._prev = tuple(children)
        self._op = op
        self._backward = backward
        self.name = name

    def __repr__(self):
        return self.name or f"node({self.data:g})"


def _leaf(data, name=""):
    return _Node(data, name=name)


def _plus(a, b):
    def back(g):
        a.grad += g
        b.grad += g
    return _Node(a.data + b.data, (a, b), "+", back, f"({a!r} + {b!r})")


def _times(a, b):
    def back(g):
        a.grad += b.data * g
        b.grad += a.data * g
    return _Node(a.data * b.data, (a, b), "*", back, f"({a!r} * {b!r})")


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
        out = make()
        alive = weakref.ref(out)
        del out
        if alive() is not None:
            fail(f"del {call}; is it freed without the cycle collector?",
                 "freed at once", "still alive: its closure refers to the output")
    finally:
        if was:
            gc.enable()


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


# ------------------------------------------------------------------ topological_order

def _chain(n):
    node = _leaf(1.0, "x")
    first = node
    for _ in range(n):
        node = _Node(node.data, (node,), "id", None, "")
    return first, node


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
    order = topological_order(root)
    if not isinstance(order, list) or len(order) != 10_001:
        fail("len(topological_order(a 10,000-step chain))", 10_001,
             len(order) if hasattr(order, "__len__") else order)
    if order[0] is not first or order[-1] is not root:
        fail("the ends of topological_order(a 10,000-step chain)", "[leaf, ..., root]",
             f"[{order[0]!r}, ..., {order[-1]!r}]")


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
    x = _leaf(1.0, "x")
    node = x
    for _ in range(10_000):
        node = _times(node, _leaf(1.0))
    backward(node)
    _check_number("x.grad after backward(x * 1 * 1 * ... (10,000 times))", x.grad, 1.0)


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
