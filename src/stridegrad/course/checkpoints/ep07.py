"""Checkpoint 07 (two autograd designs): ``gradient_edge``, ``var_mul``,
``count_dependencies``, ``run_backward`` and ``count_cycle_garbage``.

The tests build their graphs from the node classes the lesson imports
(``stridegrad.course.designs``: ``Var``, ``AccumulateGrad``, ``AddBackward``,
``MulBackward``, ``TanhBackward``), wiring the edges by hand, so each exercise
is tested on its own. ``var_mul`` calls the learner's ``gradient_edge`` and
``run_backward`` the learner's ``count_dependencies``, as the lesson asks.
Expected numbers are worked out by hand in the comments. The tests that build a
10,000-node chain or make garbage for the collector run their build and call in the
learner's process (``stridegrad.course.observe.ep07``, through
``stridegrad.course._wire.in_its_process``) and get back plain numbers and flags; what
is expected of them, and the verdict, stay here.

After each exercise's tests, its contract (``checkpoint.contract``) judges it on
generated cases against the lesson's own function, through a scenario
(``stridegrad.course.observe.ep07``, run where the learner's function lives) that builds
the Vars and nodes from a plain description (``"Var(2.0, requires_grad=True)"``,
graphs as lines ``"n1 = x * y"`` with shared nodes, edges to None and a chain of
1,000 nodes run at Python's default recursion limit; builds that make cycles, with
the collector on or off) and compares what it observes: edges by where they lead,
counts and grads by name, each node's apply calls, the collector's state
(``stridegrad.course.contracts``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from hypothesis import strategies as st

from stridegrad.course._wire import in_its_process
from stridegrad.course.checks import CheckFailure, Checkpoint, expect, fail, short_repr
from stridegrad.course.contracts import Call, Invalid
from stridegrad.course.designs import (
    AccumulateGrad,
    AddBackward,
    MulBackward,
    TanhBackward,
    Var,
)
from stridegrad.course.observe import ep07 as _seen
from stridegrad.course.observe.ep07 import _BUILDS, _leaf

__all__ = ["checkpoint"]

#: run in the notebook's process when the grader's judge holds a stand-in of fn
_edge_scenario = in_its_process(_seen._edge_scenario)
_binary_scenario = in_its_process(_seen._binary_scenario)
_dependencies_scenario = in_its_process(_seen._dependencies_scenario)
_backward_scenario = in_its_process(_seen._backward_scenario)
_garbage_scenario = in_its_process(_seen._garbage_scenario)
_product_apply = in_its_process(_seen.product_apply)
_long_chain_counts = in_its_process(_seen.long_chain_counts)
_long_chain_grad = in_its_process(_seen.long_chain_grad)

checkpoint = Checkpoint("07_two_autograd_designs", "two autograd designs",
                        reference="stridegrad.course.designs")


def _close(got, want, tol=1e-9):
    try:
        return math.isclose(float(got), want, rel_tol=tol, abs_tol=1e-12)
    except (TypeError, ValueError):
        return False


def _acc(v):
    """A fresh AccumulateGrad edge for a leaf (the tests wire their own graphs)."""
    return (AccumulateGrad(v), 0)


# ------------------------------------------------------------------ contract cases
#
# Each contract's scenario (``stridegrad.course.observe.ep07``) builds its Vars and
# nodes from the plain description a case holds (``"Var(2.0, requires_grad=True)"``,
# ``"n1 = x * y"``, ...), runs the learner's function on them and returns what it saw
# as plain data: numbers, and nodes and Vars by the names the case gives them. The
# lesson's own function, run through the same scenario, gives what is expected.

_EDGE_VARS = st.sampled_from([
    "Var(2.0, requires_grad=True)", "Var(-1.5)", "Var(2.0, requires_grad=True) used by a node",
    "Var(0.0, requires_grad=True)", "Var(4.0, grad_fn=<MulBackward>, output_nr=0)",
    "Var(-3.0, grad_fn=<AddBackward>, output_nr=1)",
    "Var(0.5, grad_fn=<TanhBackward>, output_nr=2)", "Var(3.0)"])

_EDGE_HINT = ("This row makes the Var shown (a leaf that requires grad, a constant, a Var "
              "made by a node, output output_nr; 'used by a node': a node already holds "
              "the leaf's accumulator), calls your gradient_edge on it (calls times), and "
              "compares each edge (where it leads, seen from the Var) and whether the Var "
              "is freed once dropped with the lesson's gradient_edge. Up to 20 such calls, "
              "drawn by Hypothesis (the same ones every run); the row shows the smallest your "
              "function gets wrong.")


def _operand(rng: random.Random, nonzero: bool = False) -> str:
    """A leaf that requires grad, a constant, or a Var made by a node (output 0 or 1)."""
    data = rng.choice([2.0, -3.0, 0.5, 4.0, -1.25, 1e3] + ([] if nonzero else [0.0]))
    kind = rng.choice(["leaf", "constant", "node"])
    if kind == "leaf":
        return f"Var({data}, requires_grad=True)"
    if kind == "constant":
        return f"Var({data})"
    node = rng.choice(["AddBackward", "MulBackward", "TanhBackward"])
    return f"Var({data}, grad_fn=<{node}>, output_nr={rng.randint(0, 1)})"


def _operands(nonzero: bool = False) -> st.SearchStrategy:
    """Two Vars of any kinds (leaf, constant, made by a node), or one Var twice."""
    def case(rng):
        a = _operand(rng, nonzero)
        b = "a" if rng.random() < 0.25 else _operand(rng, nonzero)
        return Call((a, b), {"apply_with": tuple(rng.choice([1.0, -2.0, 0.5, 3.0])
                                                 for _ in range(rng.randint(1, 2)))})
    return _seeded(case)


_OP_HINT = ("This row makes the Vars shown (a leaf that requires grad, a constant, or a "
            "Var made by a node, output output_nr; b='a': the same Var a twice), calls "
            "your {name}(a, b) and compares the output (type, data, requires_grad, "
            "output_nr, grad_fn), its node's edges (where each leads, seen from a and b), "
            "what the node's apply returns for each g of apply_with and the Vars the node "
            "holds with the lesson's {name}. Up to 40 such calls, drawn by Hypothesis (the "
            "same ones every run); the row shows the smallest your function gets wrong.")


#: the length of a chain of nodes on top of a graph: deeper than the default recursion limit
_CHAIN = 1000


_LEAF_VALUES = [2.0, -3.0, 0.5, 0.0, 1.0, -1.25, 4.0, 0.75]


def _var_lines(rng: random.Random, root_is_a_leaf: bool = False) -> tuple:
    """Up to 4 leaves (most of them requiring grad, the others constants) and 1 to 6
    operations (+, *, tanh) on any earlier Vars: shared nodes, a Var used twice by one
    operation (x * x), diamonds, edges to None, nodes the root does not reach. (Drawn
    from one Random that Hypothesis seeds: the same graphs every run, and far cheaper
    than one Hypothesis draw per choice.)"""
    leaves = rng.randint(1, 4)
    lines, names = [], []
    for k in range(leaves):
        data = rng.choice(_LEAF_VALUES)
        grad = ", requires_grad=True" if k == 0 or rng.random() < 0.7 else ""
        lines.append(f"{'xyzw'[k]} = Var({data}{grad})")
        names.append("xyzw"[k])

    def pick():  # the newest Vars most often, so that the graph grows deep and shares
        return rng.choice(names[-2:] if rng.random() < 0.5 else names)

    for k in range(rng.randint(1, 6)):
        op = rng.choice(["+", "*", "tanh"])
        lines.append(f"n{k + 1} = " + (f"tanh({pick()})" if op == "tanh" else
                                       f"{pick()} {op} {pick()}"))
        names.append(f"n{k + 1}")
    if root_is_a_leaf:
        lines.append(rng.choice(["r = Var(1.0, requires_grad=True)", "r = Var(1.0)"]))
    return tuple(lines)


def _seeded(build: Callable[[random.Random], Call]) -> st.SearchStrategy:
    """The cases ``build`` makes from a Random that Hypothesis seeds (derandomized)."""
    return st.randoms(use_true_random=True).map(build)


def _graph_case(rng: random.Random) -> Call:
    """A graph, and one time in six a chain of nodes on top."""
    return Call((_var_lines(rng),), {"chain": _CHAIN} if rng.random() < 1 / 6 else {})


def _backward_case(rng: random.Random) -> Call:
    """A graph, grads already on some leaves, one time in six a chain on top."""
    lines = _var_lines(rng)
    kwargs: dict = {}
    grads = {line.partition(" = ")[0]: rng.choice([1.0, -2.0, 0.5, 3.25]) for line in lines
             if "requires_grad" in line and rng.random() < 0.4}
    if grads:
        kwargs["grads_before"] = grads
    if rng.random() < 1 / 6:
        kwargs["chain"] = _CHAIN
    return Call((lines,), kwargs)


@st.composite
def _garbage_cases(draw) -> Call:
    build = draw(st.sampled_from(sorted(_BUILDS)))
    n = {"makes and drops n cycles of 2 lists while it runs": 3000}.get(
        build, draw(st.sampled_from([0, 5, 50])))
    kwargs = {"collector_on": draw(st.booleans())}
    older = draw(st.sampled_from([0, 30]))
    if older:
        kwargs["older_garbage"] = older
    return Call((build, n), kwargs)


# ------------------------------------------------------------------ gradient_edge

@checkpoint.test("gradient_edge", hint="A Var made by an operation points at its node: "
                                       "return (var.grad_fn, var.output_nr).")
def edge_of_an_interior_var(gradient_edge):
    node = AddBackward(((None, 0), (None, 0)))
    v = Var(1.0, grad_fn=node)
    got = gradient_edge(v)
    if not (isinstance(got, tuple) and len(got) == 2 and got[0] is node and got[1] == 0):
        fail("gradient_edge(v) for v made by an AddBackward node", (node, 0), got)


@checkpoint.test("gradient_edge", hint="The second item is var.output_nr, which output of its "
                                       "node the Var is; do not write 0.",
                 hint_for=("ignores output_nr",))
def edge_keeps_the_output_number(gradient_edge):
    node = AddBackward(((None, 0), (None, 0)))
    v = Var(1.0, grad_fn=node, output_nr=1)
    got = gradient_edge(v)
    if not (isinstance(got, tuple) and len(got) == 2 and got[0] is node and got[1] == 1):
        fail("gradient_edge(v) for v = output 1 of a node", (node, 1), got)


@checkpoint.test("gradient_edge", hint="A leaf that requires grad has no grad_fn: its edge "
                                       "goes to its AccumulateGrad, (grad_accumulator(var), 0).")
def edge_of_a_leaf_goes_to_its_accumulator(gradient_edge):
    x = _leaf(2.0, "x")
    got = gradient_edge(x)
    if not (isinstance(got, tuple) and len(got) == 2 and isinstance(got[0], AccumulateGrad)
            and got[0].variable is x and got[1] == 0):
        fail("gradient_edge(x) for a leaf x with requires_grad=True",
             "(AccumulateGrad of x, 0)", got)


@checkpoint.test("gradient_edge", hint="Every use of a leaf must reach the SAME AccumulateGrad: "
                                       "get it with grad_accumulator(var), do not make a new one.",
                 hint_for=("a new accumulator every time",))
def leaf_has_one_accumulator(gradient_edge):
    x = _leaf(2.0, "x")
    first = gradient_edge(x)
    second = gradient_edge(x)
    if first[0] is not second[0]:
        fail("gradient_edge(x)[0] is gradient_edge(x)[0]", True, False)


@checkpoint.test("gradient_edge", hint="A Var that does not require grad gets no gradient: "
                                       "its edge is (None, 0).")
def edge_of_a_constant_is_none(gradient_edge):
    c = Var(3.0)
    got = gradient_edge(c)
    if got != (None, 0) or not isinstance(got, tuple):
        fail("gradient_edge(Var(3.0)) for a constant", (None, 0), got)


checkpoint.contract("gradient_edge", scenario=_edge_scenario, cases=20, hint=_EDGE_HINT,
                    valid=st.builds(lambda var, calls: Call((var,), {"calls": calls}
                                                            if calls > 1 else {}),
                                    _EDGE_VARS, st.integers(1, 2)))


# ------------------------------------------------------------------ var_mul

def _mul(var_mul, a, b, call):
    out = var_mul(a, b)
    if not isinstance(out, Var):
        fail(call, "a Var", out)
    return out


@checkpoint.test("var_mul", hint="The output's data is a.data * b.data.")
def var_mul_data(var_mul):
    out = _mul(var_mul, _leaf(2.0, "a"), _leaf(-3.0, "b"), "var_mul(a=2, b=-3)")
    if not _close(out.data, -6.0):
        fail("var_mul(a=2, b=-3).data", -6.0, out.data)


@checkpoint.test("var_mul", hint="One edge per input, in operand order: next_functions = "
                                 "(gradient_edge(a), gradient_edge(b)). Forget one and that "
                                 "input never gets a gradient.")
def var_mul_has_an_edge_per_input(var_mul):
    a, b = _leaf(2.0, "a"), _leaf(-3.0, "b")
    out = _mul(var_mul, a, b, "var_mul(a, b)")
    fn = out.grad_fn
    if not isinstance(fn, MulBackward):
        fail("type(var_mul(a, b).grad_fn)", "MulBackward", type(fn).__name__)
    edges = tuple(fn.next_functions)
    targets = tuple(getattr(n, "variable", n) for n, _ in edges)
    if len(edges) != 2 or targets[0] is not a or targets[1] is not b:
        fail("what var_mul(a, b).grad_fn.next_functions point at",
             "(a's AccumulateGrad, b's AccumulateGrad)", edges)


@checkpoint.test("var_mul", hint="MulBackward(edges, a.data, b.data): apply(g) returns "
                                 "(g * b, g * a), so save the two input numbers in that order.",
                 hint_for=("saves the inputs in the wrong order",))
def var_mul_saves_the_inputs(var_mul):
    # built where var_mul lives, so that a node holding the Vars fails as in the notebook
    seen = _product_apply(var_mul, 2.0, -3.0, 1.0)
    if "not a Var" in seen:
        fail("var_mul(a=2, b=-3)", "a Var", seen["not a Var"])
    got = seen["apply"]
    if not (len(got) == 2 and _close(got[0], -3.0) and _close(got[1], 2.0)):
        fail("var_mul(a=2, b=-3).grad_fn.apply(1.0)", (-3.0, 2.0), tuple(got))


@checkpoint.test("var_mul", hint="If neither input requires grad, record nothing: return "
                                 "Var(a.data * b.data), no grad_fn.",
                 hint_for=("always records a node",))
def var_mul_of_constants_has_no_history(var_mul):
    out = _mul(var_mul, Var(2.0), Var(5.0), "var_mul(Var(2), Var(5))")
    if out.grad_fn is not None or out.requires_grad or not _close(out.data, 10.0):
        fail("(data, grad_fn, requires_grad) of var_mul(Var(2), Var(5))", (10.0, None, False),
             (out.data, out.grad_fn, out.requires_grad))


@checkpoint.test("var_mul", hint="A constant input still has its slot: its edge is (None, 0), "
                                 "so that apply's second gradient lines up with the second "
                                 "input.",
                 hint_for=("drops the None edges",))
def var_mul_keeps_a_none_edge_for_a_constant(var_mul):
    x = _leaf(2.0, "x")
    out = _mul(var_mul, Var(4.0), x, "var_mul(Var(4), x)")
    edges = tuple(out.grad_fn.next_functions)
    if len(edges) != 2 or edges[0] != (None, 0) or getattr(edges[1][0], "variable", None) is not x:
        fail("var_mul(Var(4), x).grad_fn.next_functions", "((None, 0), (x's AccumulateGrad, 0))",
             edges)


@checkpoint.test("var_mul", hint="An input made by an operation is reached through its grad_fn: "
                                 "use gradient_edge for both inputs.")
def var_mul_links_to_an_earlier_node(var_mul):
    x, y = _leaf(2.0, "x"), _leaf(3.0, "y")
    node = AddBackward((_acc(x), _acc(y)))
    s = Var(5.0, grad_fn=node)
    out = _mul(var_mul, s, y, "var_mul(s, y)")
    first = tuple(out.grad_fn.next_functions)[0]
    if first[0] is not node or first[1] != 0:
        fail("var_mul(s, y).grad_fn.next_functions[0] where s = x + y", (node, 0), first)


checkpoint.contract("var_mul", valid=_operands(), scenario=_binary_scenario,
                    hint=_OP_HINT.format(name="var_mul"))


# ------------------------------------------------------------------ count_dependencies

def _check_counts(call, got, want, names):
    """``got`` ({node: count}) must be ``want`` ({name: count}); the row shows both with the
    names the test gave the nodes (another node by its repr, None as None), so that they
    read alike."""
    def text(pairs):
        pairs = list(pairs)
        more = f", ... ({len(pairs)} entries)" if len(pairs) > 12 else ""
        return "{" + ", ".join(f"{k}: {short_repr(v, 40)}" for k, v in pairs[:12]) + more + "}"
    if not isinstance(got, dict):
        raise CheckFailure(call, text(want.items()), short_repr(got))
    named = [(names.get(id(k), short_repr(k, 80)), v) for k, v in got.items()]
    if len(dict(named)) != len(got) or dict(named) != want:
        raise CheckFailure(call, text(want.items()), text(named))


@checkpoint.test("count_dependencies", hint="The result has an entry for every node reached, the "
                                            "root's 0 (no edge points at it); an edge to None "
                                            "reaches no node.")
def dependencies_of_a_lone_node(count_dependencies):
    root = AddBackward(((None, 0), (None, 0)))
    _check_counts("count_dependencies(root) for a root whose two edges are (None, 0)",
                  count_dependencies(root), {"root": 0}, {id(root): "root"})


@checkpoint.test("count_dependencies", hint="Count edges, not nodes: x * x has two edges to x's "
                                            "accumulator, so it waits for 2 gradients.",
                 hint_for=("counts nodes, not edges",))
def two_edges_to_one_node_count_two(count_dependencies):
    ax = AccumulateGrad(_leaf(3.0, "x"))
    mul = MulBackward(((ax, 0), (ax, 0)), 3.0, 3.0)
    _check_counts("count_dependencies(MulBackward of x * x)", count_dependencies(mul),
                  {"MulBackward": 0, "x": 2}, {id(mul): "MulBackward", id(ax): "x"})


@checkpoint.test("count_dependencies", hint="Explore each node once (remember the ones you have "
                                            "seen) but count every edge: n1 is used by n2 and n3, "
                                            "so 2; x and y each by n1 only, so 1.")
def diamond(count_dependencies):
    ax, ay = AccumulateGrad(_leaf(1.0, "x")), AccumulateGrad(_leaf(2.0, "y"))
    n1 = MulBackward(((ax, 0), (ay, 0)), 1.0, 2.0)
    n2 = TanhBackward(((n1, 0),), 0.5)
    n3 = AddBackward(((n1, 0), (n2, 0)))
    names = {id(n3): "n3", id(n2): "n2", id(n1): "n1", id(ax): "x", id(ay): "y"}
    _check_counts("count_dependencies(n3) for n3 = n1 + tanh(n1), n1 = x * y",
                  count_dependencies(n3), {"n3": 0, "n1": 2, "n2": 1, "x": 1, "y": 1}, names)


@checkpoint.test("count_dependencies", hint="Skip edges whose node is None (inputs that need no "
                                            "gradient): None is not a node.",
                 hint_for=("counts edges to None",))
def none_edges_are_skipped(count_dependencies):
    ax = AccumulateGrad(_leaf(1.0, "x"))
    add = AddBackward(((None, 0), (ax, 0)))
    _check_counts("count_dependencies(AddBackward with edges (None, x))", count_dependencies(add),
                  {"AddBackward": 0, "x": 1}, {id(add): "AddBackward", id(ax): "x"})


@checkpoint.test("count_dependencies", hint="Use a stack (a list) rather than recursion: a "
                                            "10,000-node chain must work.",
                 hint_for=("recursive",))
def long_chain(count_dependencies):
    # x's accumulator, then 10,001 tanh nodes: (entries, the first node's count, the root's)
    got = _long_chain_counts(count_dependencies, 10_000)
    if not isinstance(got, list) or got != [10_002, 1, 0]:
        fail("len, counts of count_dependencies(a 10,000-node chain)", (10_002, 1, 0),
             tuple(got) if isinstance(got, list) else got)


checkpoint.contract(
    "count_dependencies", valid=_seeded(_graph_case), scenario=_dependencies_scenario,
    hint="This row builds a graph of nodes from the lines shown (a leaf's node is its "
         "AccumulateGrad, a constant has no node; chain=k: k more nodes on top), calls "
         "your count_dependencies on the last line's node at Python's default recursion "
         "limit, and compares the counts, by the names of the lines, with the lesson's "
         "count_dependencies. Up to 40 such graphs, drawn by Hypothesis (the same ones "
         "every run); the row shows the smallest your function gets wrong.")


# ------------------------------------------------------------------ run_backward

def _xyb():
    """z = x * y + b built by hand: x=2, y=-3, b=10."""
    x, y, b = _leaf(2.0, "x"), _leaf(-3.0, "y"), _leaf(10.0, "b")
    mul = MulBackward((_acc(x), _acc(y)), 2.0, -3.0)
    xy = Var(-6.0, grad_fn=mul)
    z = Var(4.0, grad_fn=AddBackward(((mul, 0), _acc(b))))
    return x, y, b, xy, z


@checkpoint.test("run_backward", hint="After run_backward(z), each leaf's grad is dz/d(leaf): "
                                      "for z = x*y + b that is x.grad = y = -3, y.grad = x = 2 "
                                      "and b.grad = 1.")
def run_backward_of_x_times_y_plus_b(run_backward):
    x, y, b, xy, z = _xyb()
    run_backward(z)
    got = (x.grad, y.grad, b.grad)
    if not all(g is not None and _close(g, w) for g, w in zip(got, (-3.0, 2.0, 1.0))):
        fail("(x.grad, y.grad, b.grad) after run_backward(z = x*y + b) at x=2, y=-3, b=10",
             (-3.0, 2.0, 1.0), got)


@checkpoint.test("run_backward", hint="Interior gradients live in your local buffers; never "
                                      "store them on the Vars: xy.grad stays None.")
def interior_vars_get_no_grad(run_backward):
    x, y, b, xy, z = _xyb()
    run_backward(z)
    if xy.grad is not None or z.grad is not None:
        fail("(xy.grad, z.grad) after run_backward(z = x*y + b)", (None, None), (xy.grad, z.grad))


@checkpoint.test("run_backward", hint="Add each arriving gradient into the buffer (+=), and run "
                                      "a node only when count_dependencies' count for it reaches "
                                      "0: n1 gets 1 from n3 and 1 - 0.5**2 from n2.",
                 hint_for=("runs a node on every arriving gradient",
                           "= instead of += in the buffers"))
def shared_node_waits_for_all_its_gradients(run_backward):
    x, y = _leaf(2.0, "x"), _leaf(3.0, "y")
    calls = []

    class CountingMul(MulBackward):
        def apply(self, grad):
            calls.append(grad)
            return super().apply(grad)

    n1 = CountingMul((_acc(x), _acc(y)), 2.0, 3.0)  # x * y
    n2 = TanhBackward(((n1, 0),), 0.5)  # pretend tanh(x*y) = 0.5
    n3 = AddBackward(((n1, 0), (n2, 0)))
    run_backward(Var(0.0, grad_fn=n3))
    # d/d(xy) = 1 + (1 - 0.25) = 1.75; x.grad = 1.75 * 3, y.grad = 1.75 * 2
    if len(calls) != 1 or not _close(calls[0], 1.75):
        fail("the gradients n1.apply was called with, for n3 = n1 + tanh(n1) and n1 = x * y",
             [1.75], calls)
    if not (_close(x.grad, 5.25) and _close(y.grad, 3.5)):
        fail("(x.grad, y.grad)", (5.25, 3.5), (x.grad, y.grad))


@checkpoint.test("run_backward", hint="A Var with no grad_fn has nothing to backpropagate "
                                      "through: look at root.grad_fn before the engine starts, "
                                      "and raise RuntimeError when there is none.")
def leaf_root_raises(run_backward):
    # a stub's NotImplementedError is a RuntimeError too: expect lets it through as a stub
    expect(run_backward, Var(1.0), raises=RuntimeError)


@checkpoint.test("run_backward", hint="Edges to None (constants) get no gradient: skip them, and "
                                      "line the gradients up with next_functions with zip.")
def constants_are_skipped(run_backward):
    x = _leaf(5.0, "x")
    mul = MulBackward(((None, 0), _acc(x)), 4.0, 5.0)  # 4 * x
    run_backward(Var(20.0, grad_fn=mul))
    if x.grad is None or not _close(x.grad, 4.0):
        fail("x.grad after run_backward(4 * x)", 4.0, x.grad)


@checkpoint.test("run_backward", hint="No recursion: a ready list (stack) of nodes whose "
                                      "gradients are complete handles a 10,000-node chain.",
                 hint_for=("recursive",))
def run_backward_through_a_long_chain(run_backward):
    grad = _long_chain_grad(run_backward, 10_000)  # x's accumulator, then 10,001 tanh at 0
    if grad is None or not _close(grad, 1.0):
        fail("x.grad after 10,001 tanh at 0", 1.0, grad)


checkpoint.contract(
    "run_backward", valid=_seeded(_backward_case), scenario=_backward_scenario,
    invalid=[Invalid(_seeded(lambda rng: Call((_var_lines(rng, root_is_a_leaf=True),))),
                     RuntimeError, "roots with no grad_fn (a leaf, a constant)")],
    hint="This row builds a graph of Vars and nodes from the lines shown (chain=k: k more "
         "nodes on top), adds grads_before to those leaves' grad, calls your run_backward "
         "on the last line's Var at Python's default recursion limit, and compares every "
         "Var's grad and the gradients each node's apply was called with, with the "
         "lesson's run_backward. Up to 40 such graphs and 10 roots with no grad_fn, drawn "
         "by Hypothesis (the same ones every run); the row shows the smallest your function "
         "gets wrong.")


# ------------------------------------------------------------------ count_cycle_garbage

@checkpoint.test("count_cycle_garbage", hint="Objects without cycles are freed by reference "
                                             "counting the moment they are dropped: nothing is "
                                             "left for gc.collect(), so 0.")
def no_cycles_no_garbage(count_cycle_garbage):
    got = _garbage_scenario(count_cycle_garbage, "returns n lists of 2 numbers, no cycles",
                            200)["returned"]
    if got != 0:
        fail("count_cycle_garbage(lambda: [[k, k + 1] for k in range(200)])", 0, got)


@checkpoint.test("count_cycle_garbage", hint="Drop what build() returns (del it) before you "
                                             "collect: 50 pairs of lists that hold each other "
                                             "are 100 objects.",
                 hint_for=("keeps the result alive",))
def counts_the_cycles_of_the_result(count_cycle_garbage):
    got = _garbage_scenario(count_cycle_garbage, "returns n cycles of 2 lists", 50)["returned"]
    if got != 100:
        fail("count_cycle_garbage(lambda: 50 cycles of 2 lists)", 100, got)


@checkpoint.test("count_cycle_garbage", hint="Call gc.collect() once BEFORE build(): garbage "
                                             "that was there already is not build's.",
                 hint_for=("no collection before build",))
def older_garbage_is_not_counted(count_cycle_garbage):
    # 30 cycles of 2 lists (60 objects) dropped before the call, left for the collector
    got = _garbage_scenario(count_cycle_garbage, "returns None", 0, collector_on=False,
                            older_garbage=30)["returned"]
    if got != 0:
        fail("count_cycle_garbage(lambda: None) with 60 objects of older garbage about", 0, got)


@checkpoint.test("count_cycle_garbage", hint="Switch the automatic collector off (gc.disable()) "
                                             "before build(): otherwise it frees some cycles "
                                             "while build runs and you count too few.",
                 hint_for=("leaves the automatic collector on",))
def automatic_collector_is_off_during_build(count_cycle_garbage):
    # each pair is dropped at once: garbage while build runs
    got = _garbage_scenario(count_cycle_garbage,
                            "makes and drops n cycles of 2 lists while it runs", 3000)["returned"]
    if got != 6000:
        fail("count_cycle_garbage(build making and dropping 3,000 cycles of 2 lists)", 6000, got)


@checkpoint.test("count_cycle_garbage", hint="Turn the collector back on afterwards, and only if "
                                             "it was on before (gc.isenabled()).",
                 hint_for=("always switches the collector on",))
def collector_state_is_restored(count_cycle_garbage):
    after_on, after_off = (_garbage_scenario(count_cycle_garbage, "returns None", 0,
                                             collector_on=on)["collector on after"]
                           for on in (True, False))
    if (after_on, after_off) != (True, False):
        fail("gc.isenabled() after count_cycle_garbage, when it was (on, off) before",
             (True, False), (after_on, after_off))


@checkpoint.test("count_cycle_garbage", hint="Use try/finally, so that the collector is switched "
                                             "back on even when build() raises.",
                 hint_for=("no try/finally",))
def collector_is_restored_when_build_raises(count_cycle_garbage):
    seen = _garbage_scenario(count_cycle_garbage, "raises ValueError", 0)
    if not seen["collector on after"]:
        fail("gc.isenabled() after count_cycle_garbage(a build that raises)", True, False)


checkpoint.contract(
    "count_cycle_garbage", valid=_garbage_cases(), scenario=_garbage_scenario, cases=12,
    hint="This row calls your count_cycle_garbage with a build that does what is shown, "
         "the automatic collector on or off before (collector_on) and older_garbage cycles "
         "of 2 lists dropped before the call, and compares what it returns (or the build's "
         "error coming through) and whether the collector is on afterwards with the "
         "lesson's count_cycle_garbage. Up to 12 such calls, drawn by Hypothesis (the same "
         "ones every run); the row shows the smallest your function gets wrong.")


# ------------------------------------------------------------------ stretch: var_div

def _div(var_div, a, b, call):
    out = var_div(a, b)
    if not isinstance(out, Var):
        fail(call, "a Var", out)
    return out


@checkpoint.test("var_div", hint="The output's data is a.data / b.data.", stretch=True)
def var_div_data(var_div):
    out = _div(var_div, _leaf(6.0, "a"), _leaf(-4.0, "b"), "var_div(a=6, b=-4)")
    if not _close(out.data, -1.5):
        fail("var_div(a=6, b=-4).data", -1.5, out.data)


@checkpoint.test("var_div", hint="One edge per input, in operand order, as in var_mul.",
                 stretch=True)
def var_div_has_an_edge_per_input(var_div):
    a, b = _leaf(6.0, "a"), _leaf(3.0, "b")
    edges = tuple(_div(var_div, a, b, "var_div(a, b)").grad_fn.next_functions)
    targets = tuple(getattr(n, "variable", n) for n, _ in edges)
    if len(edges) != 2 or targets[0] is not a or targets[1] is not b:
        fail("what var_div(a, b).grad_fn.next_functions point at",
             "(a's AccumulateGrad, b's AccumulateGrad)", edges)


@checkpoint.test("var_div", hint="d(a/b)/da = 1/b and d(a/b)/db = -a/b**2: at a = 6, b = 3 "
                                 "that is (1/3, -2/3).", stretch=True)
def var_div_derivatives(var_div):
    out = _div(var_div, _leaf(6.0, "a"), _leaf(3.0, "b"), "var_div(a=6, b=3)")
    got = tuple(out.grad_fn.apply(1.0))
    if not (len(got) == 2 and _close(got[0], 1 / 3) and _close(got[1], -2 / 3)):
        fail("var_div(a=6, b=3).grad_fn.apply(1.0)", (1 / 3, -2 / 3), got)


@checkpoint.test("var_div", hint="Multiply both derivatives by the gradient that arrives: "
                                 "apply(3.0) at a = 6, b = 3 gives (1, -2).", stretch=True,
                 hint_for=("forgets the incoming gradient",))
def var_div_uses_the_incoming_gradient(var_div):
    out = _div(var_div, _leaf(6.0, "a"), _leaf(3.0, "b"), "var_div(a=6, b=3)")
    got = tuple(out.grad_fn.apply(3.0))
    if not (len(got) == 2 and _close(got[0], 1.0) and _close(got[1], -2.0)):
        fail("var_div(a=6, b=3).grad_fn.apply(3.0)", (1.0, -2.0), got)


@checkpoint.test("var_div", hint="If neither input requires grad, record nothing: a plain "
                                 "Var(a.data / b.data).", stretch=True,
                 hint_for=("always records history",))
def var_div_of_constants_has_no_history(var_div):
    out = _div(var_div, Var(6.0), Var(3.0), "var_div(Var(6), Var(3))")
    if out.grad_fn is not None or out.requires_grad or not _close(out.data, 2.0):
        fail("(data, grad_fn, requires_grad) of var_div(Var(6), Var(3))", (2.0, None, False),
             (out.data, out.grad_fn, out.requires_grad))


@checkpoint.test("var_div", hint="The node keeps numbers (a.data, b.data), never the Vars: a "
                                 "node holding its inputs keeps them alive.", stretch=True,
                 hint_for=("node saves the Vars",))
def var_div_node_holds_no_vars(var_div):
    a, b = _leaf(6.0, "a"), _leaf(3.0, "b")
    node = _div(var_div, a, b, "var_div(a, b)").grad_fn
    held = [k for k, v in vars(node).items() if isinstance(v, Var)]
    if held:
        fail("the Vars var_div(a, b).grad_fn holds", "none (numbers only)", held)


checkpoint.contract("var_div", valid=_operands(nonzero=True), scenario=_binary_scenario,
                    stretch=True, hint=_OP_HINT.format(name="var_div"))
