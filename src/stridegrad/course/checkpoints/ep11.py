"""Checkpoint 11 (beyond eager): ``run_graph``, ``eliminate_dead_code``,
``eliminate_common_subexpressions``, ``constant_fold`` and ``fuse_elementwise``.

Every test graph is written by hand in the text form of
:mod:`stridegrad.course.compiler`, and so is every expected result: a pass must
give exactly that graph (same ops, same order, same names). A result that is
not a well-formed graph (a name read before it is defined, an output nobody
defines) is reported as such. Values are checked with a small interpreter of
this module's own, so each exercise is tested alone: the passes do not need
the learner's ``run_graph``.
"""

from __future__ import annotations

import numpy as np

from stridegrad.course.checks import CheckFailure, Checkpoint, expect, fail
from stridegrad.course.compiler import Graph, evaluate, parse, validate

__all__ = ["checkpoint"]

checkpoint = Checkpoint("11_beyond_eager", "beyond eager", reference="stridegrad.course.compiler")


# ------------------------------------------------------------------ helpers


def _g(text: str) -> Graph:
    return parse(text)


def _interpret(graph: Graph, inputs: dict) -> list:
    values = {}
    for op in graph.ops:
        values[op.name] = inputs[op.name] if op.op == "input" else \
            evaluate(op, [values[a] for a in op.args])
    return [values[n] for n in graph.outputs]


def _check_graph(call: str, got, want_text: str) -> None:
    """``got`` must be a well-formed Graph whose text is exactly ``want_text``'s."""
    if not isinstance(got, Graph):
        fail(call, "a Graph", f"a {type(got).__name__}: {got!r}")
    try:
        validate(got)
    except ValueError as exc:
        raise CheckFailure(call, "a well-formed graph", f"a broken one: {exc}") from None
    want = parse(want_text)
    if got == want:
        return
    have, need = str(got).split("\n"), str(want).split("\n")
    for k in range(max(len(have), len(need))):
        h = have[k] if k < len(have) else "(nothing)"
        n = need[k] if k < len(need) else "(nothing)"
        if h != n:
            raise CheckFailure(f"line {k + 1} of {call}", n, h)


def _unchanged(call: str, graph: Graph, text_before: str) -> None:
    if str(graph) != text_before:
        raise CheckFailure(f"the input graph after {call}", "unchanged (build a new Graph)",
                           "it was changed")


def _close(a, b) -> bool:
    try:
        return bool(np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                                rtol=1e-9, atol=1e-12))
    except (TypeError, ValueError):
        return False


def _check_values(call: str, got, want: list) -> None:
    if not isinstance(got, list):
        fail(f"type of {call}", "list", type(got).__name__)
    if len(got) != len(want) or not all(_close(g, w) for g, w in zip(got, want)):
        fail(call, want, got)


# ------------------------------------------------------------------ run_graph

XYB = """
x = input()
y = input()
b = input()
t = multiply(x, y)
z = add(t, b)
return z
"""


@checkpoint.test("run_graph", hint="Keep a dict name -> value: inputs come from the inputs "
                                   "dict, every other op is evaluate(op, [values[a] for a in "
                                   "op.args]).")
def runs_x_times_y_plus_b(run_graph):
    got = run_graph(_g(XYB), {"x": 2.0, "y": 3.0, "b": 1.0})
    _check_values("run_graph(z = x*y + b, x=2, y=3, b=1)", got, [7.0])


@checkpoint.test("run_graph", hint="Return a list with one value per name in graph.outputs, "
                                   "in that order (an output may be an input itself).")
def returns_every_output_in_order(run_graph):
    g = _g("""
    x = input()
    y = input()
    s = subtract(x, y)
    p = multiply(x, y)
    return p, x, s
    """)
    got = run_graph(g, {"x": 5.0, "y": 2.0})
    _check_values("run_graph(return p=x*y, x, s=x-y; x=5, y=2)", got, [10.0, 5.0, 3.0])


@checkpoint.test("run_graph", hint="A const op is not an input: evaluate(op, []) gives its "
                                   "value.",
                 hint_for=("treats const ops as inputs",))
def evaluates_constants(run_graph):
    g = _g("""
    x = input()
    two = const(value=2.0)
    z = divide(x, two)
    return z
    """)
    _check_values("run_graph(z = x / const 2, x=9)", run_graph(g, {"x": 9.0}), [4.5])


@checkpoint.test("run_graph", hint="Pass the args' values in the op's own order: "
                                   "subtract(y, x) is y - x.",
                 hint_for=("args in sorted order",))
def keeps_argument_order(run_graph):
    g = _g("""
    x = input()
    y = input()
    d = subtract(y, x)
    q = divide(d, x)
    return q
    """)
    _check_values("run_graph(q = (y - x) / x, x=2, y=10)", run_graph(g, {"x": 2.0, "y": 10.0}),
                  [4.0])


@checkpoint.test("run_graph", hint="evaluate handles every op, fused and sum(axis=...) "
                                   "included: do not special-case them.")
def runs_arrays_reductions_and_fused_ops(run_graph):
    g = _g("""
    x = input()
    c = const(value=1.0)
    e = fused(x, c, body='m = multiply(x, x); e = add(m, c)')
    s = sum(e, axis=0)
    return s, e
    """)
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    got = run_graph(g, {"x": x})
    _check_values("run_graph(e = x*x + 1 fused, s = sum(e, axis=0))", got,
                  [np.array([12.0, 22.0]), x * x + 1.0])


@checkpoint.test("run_graph", hint="An input missing from the dict is a KeyError "
                                   "(inputs[op.name] raises it for you).")
def missing_input_is_a_key_error(run_graph):
    expect(run_graph, _g(XYB), {"x": 2.0, "y": 3.0}, raises=KeyError)


@checkpoint.test("run_graph", hint="Only read the graph and the inputs dict: do not add the "
                                   "intermediate values to it.",
                 hint_for=("writes the values into the inputs dict",))
def leaves_inputs_alone(run_graph):
    inputs = {"x": 2.0, "y": 3.0, "b": 1.0}
    g = _g(XYB)
    run_graph(g, inputs)
    if inputs != {"x": 2.0, "y": 3.0, "b": 1.0}:
        fail("the inputs dict after run_graph", {"x": 2.0, "y": 3.0, "b": 1.0}, inputs)
    _unchanged("run_graph", g, str(_g(XYB)))


# ------------------------------------------------------------------ eliminate_dead_code


@checkpoint.test("eliminate_dead_code", hint="Start from the outputs: an op is needed when an "
                                             "output or a needed op reads it; drop the rest.")
def drops_an_unused_op(eliminate_dead_code):
    g = _g("""
    x = input()
    d = exp(x)
    z = negative(x)
    return z
    """)
    _check_graph("eliminate_dead_code(d = exp(x) unused)", eliminate_dead_code(g), """
    x = input()
    z = negative(x)
    return z
    """)


@checkpoint.test("eliminate_dead_code", hint="A dead op keeps the ops it reads busy: t1 and t2 "
                                             "are read only by dead ops, so they are dead too. "
                                             "Removing the ops nobody reads, once, is not "
                                             "enough: walk back from the outputs.",
                 hint_for=("one round: drops only ops nobody reads (keeps ops read only by "
                           "dead ops)",))
def drops_a_whole_dead_chain(eliminate_dead_code):
    g = _g("""
    x = input()
    t1 = multiply(x, x)
    t2 = exp(t1)
    t3 = add(t2, x)
    z = tanh(x)
    return z
    """)
    _check_graph("eliminate_dead_code(t1 -> t2 -> t3 dead)", eliminate_dead_code(g), """
    x = input()
    z = tanh(x)
    return z
    """)


@checkpoint.test("eliminate_dead_code", hint="input ops always stay, even unused: they are "
                                             "the function's arguments.",
                 hint_for=("drops unused inputs",))
def keeps_unused_inputs(eliminate_dead_code):
    g = _g("""
    x = input()
    y = input()
    z = exp(x)
    return z
    """)
    _check_graph("eliminate_dead_code(y unused)", eliminate_dead_code(g), """
    x = input()
    y = input()
    z = exp(x)
    return z
    """)


@checkpoint.test("eliminate_dead_code", hint="An op read by a dead op AND by a live one is "
                                             "live; keep the order of the ops you keep.")
def keeps_what_a_live_op_reads(eliminate_dead_code):
    g = _g("""
    x = input()
    c = const(value=3.0)
    t = multiply(x, c)
    dead = exp(t)
    k = const(value=9.0)
    z = add(t, x)
    return z
    """)
    _check_graph("eliminate_dead_code(t read by dead and by z)", eliminate_dead_code(g), """
    x = input()
    c = const(value=3.0)
    t = multiply(x, c)
    z = add(t, x)
    return z
    """)


@checkpoint.test("eliminate_dead_code", hint="Every output is a root, and an output may be an "
                                             "input itself; outputs stay as they are.")
def several_outputs(eliminate_dead_code):
    g = _g("""
    x = input()
    y = input()
    a = exp(y)
    b = log(x)
    c = add(a, x)
    return x, c
    """)
    _check_graph("eliminate_dead_code(return x, c)", eliminate_dead_code(g), """
    x = input()
    y = input()
    a = exp(y)
    c = add(a, x)
    return x, c
    """)


@checkpoint.test("eliminate_dead_code", hint="A graph with nothing dead comes back equal.")
def nothing_dead(eliminate_dead_code):
    _check_graph("eliminate_dead_code(z = x*y + b)", eliminate_dead_code(_g(XYB)), XYB)


@checkpoint.test("eliminate_dead_code", hint="Build a new Graph(kept_ops, graph.outputs); "
                                             "do not remove ops from graph.ops itself.",
                 hint_for=("removes in place and returns the same graph",))
def dce_leaves_its_input_alone(eliminate_dead_code):
    g = _g("""
    x = input()
    d = exp(x)
    z = negative(x)
    return z
    """)
    before = str(g)
    eliminate_dead_code(g)
    _unchanged("eliminate_dead_code", g, before)


# ------------------------------------------------------------------ eliminate_common_subexpressions


@checkpoint.test("eliminate_common_subexpressions",
                 hint="Key each op by (op.op, args, attrs); the second op with a key seen "
                      "before is dropped and its users read the first one.")
def merges_a_repeat(eliminate_common_subexpressions):
    g = _g("""
    x = input()
    y = input()
    a = multiply(x, y)
    b = multiply(x, y)
    z = add(a, b)
    return z
    """)
    _check_graph("eliminate_common_subexpressions(a = b = x*y)",
                 eliminate_common_subexpressions(g), """
    x = input()
    y = input()
    a = multiply(x, y)
    z = add(a, a)
    return z
    """)


@checkpoint.test("eliminate_common_subexpressions",
                 hint="Two input ops have the same op, no args and no attrs, but they are two "
                      "different arguments: never merge inputs.",
                 hint_for=("merges input ops",))
def never_merges_inputs(eliminate_common_subexpressions):
    g = _g("""
    x = input()
    y = input()
    z = subtract(x, y)
    return z
    """)
    _check_graph("eliminate_common_subexpressions(x, y inputs)",
                 eliminate_common_subexpressions(g), """
    x = input()
    y = input()
    z = subtract(x, y)
    return z
    """)


@checkpoint.test("eliminate_common_subexpressions",
                 hint="The attrs are part of the key: sum(x, axis=0) and sum(x, axis=1) are "
                      "different values, and so are const 1.0 and const 2.0.",
                 hint_for=("ignores attrs (merges sum axis=0 with axis=1)",))
def attributes_are_part_of_the_key(eliminate_common_subexpressions):
    g = _g("""
    x = input()
    r = sum(x, axis=0)
    c = sum(x, axis=1)
    one = const(value=1.0)
    two = const(value=2.0)
    a = multiply(r, one)
    b = multiply(c, two)
    return a, b
    """)
    _check_graph("eliminate_common_subexpressions(sum axis 0 vs 1)",
                 eliminate_common_subexpressions(g), str(g))


@checkpoint.test("eliminate_common_subexpressions",
                 hint="Sort the args of COMMUTATIVE ops only: add(y, x) repeats add(x, y), but "
                      "subtract(y, x) is minus subtract(x, y). Keep the kept op's own args.",
                 hint_for=("sorts the args of every op (merges subtract(x, y) with "
                           "subtract(y, x))",))
def commutative_ops_only(eliminate_common_subexpressions):
    g = _g("""
    x = input()
    y = input()
    a = add(x, y)
    b = add(y, x)
    s = subtract(x, y)
    t = subtract(y, x)
    z = multiply(a, b)
    w = divide(s, t)
    return z, w
    """)
    _check_graph("eliminate_common_subexpressions(add(x, y), add(y, x), subtract both ways)",
                 eliminate_common_subexpressions(g), """
    x = input()
    y = input()
    a = add(x, y)
    s = subtract(x, y)
    t = subtract(y, x)
    z = multiply(a, a)
    w = divide(s, t)
    return z, w
    """)


@checkpoint.test("eliminate_common_subexpressions",
                 hint="Rename an op's args through the replacements BEFORE making its key: "
                      "once c2 became c1, add(x, c2) is add(x, c1), a repeat too.",
                 hint_for=("keys on the original args (misses repeats of repeats)",))
def repeats_of_repeats(eliminate_common_subexpressions):
    g = _g("""
    x = input()
    c1 = const(value=1.0)
    a = add(x, c1)
    c2 = const(value=1.0)
    b = add(x, c2)
    e1 = exp(a)
    e2 = exp(b)
    z = subtract(e1, e2)
    return z
    """)
    _check_graph("eliminate_common_subexpressions(exp(x + 1) twice)",
                 eliminate_common_subexpressions(g), """
    x = input()
    c1 = const(value=1.0)
    a = add(x, c1)
    e1 = exp(a)
    z = subtract(e1, e1)
    return z
    """)


@checkpoint.test("eliminate_common_subexpressions",
                 hint="Outputs are names too: rename them through the replacements.",
                 hint_for=("forgets to rename the outputs",))
def renames_outputs(eliminate_common_subexpressions):
    g = _g("""
    x = input()
    a = tanh(x)
    b = tanh(x)
    return a, b
    """)
    _check_graph("eliminate_common_subexpressions(return tanh(x), tanh(x))",
                 eliminate_common_subexpressions(g), """
    x = input()
    a = tanh(x)
    return a, a
    """)


@checkpoint.test("eliminate_common_subexpressions",
                 hint="Make new Ops with the renamed args (Op(op.name, op.op, args, op.attrs)) "
                      "in a new Graph; the input graph must not change.")
def cse_leaves_its_input_alone(eliminate_common_subexpressions):
    g = _g("""
    x = input()
    a = exp(x)
    b = exp(x)
    z = add(a, b)
    return z
    """)
    before = str(g)
    eliminate_common_subexpressions(g)
    _unchanged("eliminate_common_subexpressions", g, before)


# ------------------------------------------------------------------ constant_fold


@checkpoint.test("constant_fold", hint="An op whose args are all const values becomes "
                                       "Op(op.name, 'const', (), {'value': evaluate(op, "
                                       "[their values])}); keep everything else as it is.")
def folds_a_product_of_constants(constant_fold):
    g = _g("""
    x = input()
    a = const(value=2.0)
    b = const(value=3.0)
    c = multiply(a, b)
    z = add(x, c)
    return z
    """)
    _check_graph("constant_fold(c = 2 * 3, z = x + c)", constant_fold(g), """
    x = input()
    a = const(value=2.0)
    b = const(value=3.0)
    c = const(value=6.0)
    z = add(x, c)
    return z
    """)


@checkpoint.test("constant_fold", hint="Remember the values of the ops you fold: d reads c, "
                                       "which was folded just before, so d folds too. Look "
                                       "at your new constants, not at the input graph's ops.",
                 hint_for=("no cascade: looks only at the input graph's const ops",))
def folding_cascades(constant_fold):
    g = _g("""
    x = input()
    a = const(value=2.0)
    b = const(value=3.0)
    c = multiply(a, b)
    d = subtract(c, a)
    e = exp(d)
    z = multiply(x, d)
    return z, e
    """)
    _check_graph("constant_fold(c = 2*3, d = c - 2, e = exp(d))", constant_fold(g), """
    x = input()
    a = const(value=2.0)
    b = const(value=3.0)
    c = const(value=6.0)
    d = const(value=4.0)
    e = const(value=54.598150033144236)
    z = multiply(x, d)
    return z, e
    """)


@checkpoint.test("constant_fold", hint="ALL args must be constants: an op that reads an input "
                                       "(or anything computed from one) has no value until "
                                       "the function is called.",
                 hint_for=("folds an op with an input among its args (any instead of all)",))
def an_input_blocks_folding(constant_fold):
    g = _g("""
    x = input()
    two = const(value=2.0)
    t = multiply(x, two)
    u = add(t, two)
    return u
    """)
    _check_graph("constant_fold(t = x * 2, u = t + 2)", constant_fold(g), str(g))


@checkpoint.test("constant_fold", hint="Inputs are never folded, and neither are const ops "
                                       "themselves changed: they keep their names and values.")
def inputs_and_constants_stay(constant_fold):
    g = _g("""
    x = input()
    y = input()
    c = const(value=(1.0, 2.0, 3.0))
    z = multiply(x, y)
    return z, c
    """)
    _check_graph("constant_fold(no op to fold)", constant_fold(g), str(g))


@checkpoint.test("constant_fold", hint="evaluate works on arrays too: sum of const (1, 2, 3) "
                                       "is 6.0, a product of two arrays is an array.")
def folds_arrays_and_reductions(constant_fold):
    g = _g("""
    x = input()
    v = const(value=(1.0, 2.0, 3.0))
    s = sum(v)
    w = multiply(v, v)
    z = add(x, s)
    return z, w
    """)
    _check_graph("constant_fold(s = sum(1, 2, 3), w = v * v)", constant_fold(g), """
    x = input()
    v = const(value=(1.0, 2.0, 3.0))
    s = const(value=6.0)
    w = const(value=(1.0, 4.0, 9.0))
    z = add(x, s)
    return z, w
    """)


@checkpoint.test("constant_fold", hint="Keep the folded op's name, so that the ops reading it "
                                       "and the outputs need no change.",
                 hint_for=("renames the folded op",))
def folded_output_keeps_its_name(constant_fold):
    g = _g("""
    n = const(value=1.0)
    d = const(value=3.0)
    q = divide(n, d)
    return q
    """)
    _check_graph("constant_fold(q = 1 / 3)", constant_fold(g), """
    n = const(value=1.0)
    d = const(value=3.0)
    q = const(value=0.3333333333333333)
    return q
    """)


@checkpoint.test("constant_fold", hint="Build a new Graph; the input graph must not change.")
def folding_leaves_its_input_alone(constant_fold):
    g = _g("""
    a = const(value=2.0)
    b = multiply(a, a)
    return b
    """)
    before = str(g)
    constant_fold(g)
    _unchanged("constant_fold", g, before)


# ------------------------------------------------------------------ fuse_elementwise


@checkpoint.test("fuse_elementwise", hint="t is read only by z, and z is elementwise: t joins "
                                          "z's group, and the group becomes "
                                          "fused_op(graph, [t, z]), named z.")
def fuses_x_times_y_plus_b(fuse_elementwise):
    _check_graph("fuse_elementwise(z = x*y + b)", fuse_elementwise(_g(XYB)), """
    x = input()
    y = input()
    b = input()
    z = fused(x, y, b, body='t = multiply(x, y); z = add(t, b)')
    return z
    """)


@checkpoint.test("fuse_elementwise", hint="A group grows along the chain: the group waiting on "
                                          "an op's arg joins that op's group.")
def fuses_a_long_chain(fuse_elementwise):
    g = _g("""
    x = input()
    c = const(value=0.5)
    a = multiply(x, c)
    b = exp(a)
    d = negative(b)
    e = tanh(d)
    return e
    """)
    _check_graph("fuse_elementwise(tanh(-exp(x * 0.5)))", fuse_elementwise(g), """
    x = input()
    c = const(value=0.5)
    e = fused(x, c, body='a = multiply(x, c); b = exp(a); d = negative(b); e = tanh(d)')
    return e
    """)


@checkpoint.test("fuse_elementwise", hint="A reduction (sum) is not elementwise: the op before "
                                          "it cannot be absorbed by it, and the chain after it "
                                          "starts a new group.",
                 hint_for=("fuses into a reduction's input (ignores the reader's kind)",))
def stops_at_a_reduction(fuse_elementwise):
    g = _g("""
    x = input()
    m = multiply(x, x)
    e = exp(m)
    s = sum(e)
    n = negative(s)
    l = log(n)
    return l
    """)
    _check_graph("fuse_elementwise(log(-sum(exp(x * x))))", fuse_elementwise(g), """
    x = input()
    e = fused(x, body='m = multiply(x, x); e = exp(m)')
    s = sum(e)
    l = fused(s, body='n = negative(s); l = log(n)')
    return l
    """)


@checkpoint.test("fuse_elementwise", hint="A value read by two ops must be stored for both: "
                                          "absorb an op only when exactly one op reads it "
                                          "(graph.users()).",
                 hint_for=("fuses a value that has two readers",))
def a_value_with_two_readers_is_stored(fuse_elementwise):
    g = _g("""
    x = input()
    t = exp(x)
    a = negative(t)
    b = tanh(t)
    return a, b
    """)
    _check_graph("fuse_elementwise(t = exp(x) read by a and b)", fuse_elementwise(g), str(g))


@checkpoint.test("fuse_elementwise", hint="An output must be stored: never absorb an op that "
                                          "the graph returns.",
                 hint_for=("absorbs an output",))
def an_output_is_not_absorbed(fuse_elementwise):
    g = _g("""
    x = input()
    t = exp(x)
    u = negative(t)
    v = tanh(u)
    return t, v
    """)
    _check_graph("fuse_elementwise(return t = exp(x), v = tanh(-t))", fuse_elementwise(g), """
    x = input()
    t = exp(x)
    v = fused(t, body='u = negative(t); v = tanh(u)')
    return t, v
    """)


@checkpoint.test("fuse_elementwise", hint="One op that reads a value twice is still its only "
                                          "reader: users() lists each reader once.",
                 hint_for=("counts a reader twice when it reads the value twice",))
def one_reader_reading_twice(fuse_elementwise):
    g = _g("""
    x = input()
    y = input()
    t = exp(x)
    u = multiply(t, t)
    w = add(u, y)
    m = matmul(w, y)
    return m
    """)
    _check_graph("fuse_elementwise(exp(x) * exp(x) + y, then matmul)", fuse_elementwise(g), """
    x = input()
    y = input()
    w = fused(x, y, body='t = exp(x); u = multiply(t, t); w = add(u, y)')
    m = matmul(w, y)
    return m
    """)


@checkpoint.test("fuse_elementwise", hint="Two chains meeting in one op (a tree) are one group: "
                                          "collect the groups waiting on every arg. Results "
                                          "must not change.")
def fuses_a_tree_and_keeps_values(fuse_elementwise):
    g = _g("""
    x = input()
    y = input()
    a = exp(x)
    b = tanh(y)
    c = subtract(a, b)
    s = sum(c, axis=0)
    return s
    """)
    want = """
    x = input()
    y = input()
    c = fused(x, y, body='a = exp(x); b = tanh(y); c = subtract(a, b)')
    s = sum(c, axis=0)
    return s
    """
    before = str(g)
    got = fuse_elementwise(g)
    _check_graph("fuse_elementwise(sum(exp(x) - tanh(y), axis=0))", got, want)
    _unchanged("fuse_elementwise", g, before)
    rng = np.random.default_rng(11)
    inputs = {"x": rng.standard_normal((3, 2)), "y": rng.standard_normal((3, 2))}
    if not all(_close(a, b) for a, b in zip(_interpret(got, inputs), _interpret(g, inputs))):
        fail("values of the fused graph", "the same as before fusion", "different")


# ------------------------------------------------------------------ stretch: simplify_identities

@checkpoint.test("simplify_identities", hint="x * 1 is x: drop y and let its reader read x.",
                 stretch=True)
def drops_a_multiply_by_one(simplify_identities):
    g = _g("""
    x = input()
    one = const(value=1.0)
    y = multiply(x, one)
    z = exp(y)
    return z
    """)
    _check_graph("simplify_identities(y = x * 1)", simplify_identities(g), """
    x = input()
    one = const(value=1.0)
    z = exp(x)
    return z
    """)


@checkpoint.test("simplify_identities", hint="0 + x and 1 * x are identities too: add and "
                                             "multiply work both ways round.", stretch=True,
                 hint_for=("identities on the right only",))
def identities_on_the_left(simplify_identities):
    g = _g("""
    x = input()
    zero = const(value=0.0)
    one = const(value=1.0)
    a = add(zero, x)
    b = multiply(one, a)
    z = negative(b)
    return z
    """)
    _check_graph("simplify_identities(a = 0 + x, b = 1 * a)", simplify_identities(g), """
    x = input()
    zero = const(value=0.0)
    one = const(value=1.0)
    z = negative(x)
    return z
    """)


@checkpoint.test("simplify_identities", hint="0 - x is -x and 1 / x is a reciprocal: only "
                                             "x - 0 and x / 1 give x back.", stretch=True,
                 hint_for=("0 - x and 1 / x taken for x",))
def subtract_and_divide_only_on_the_right(simplify_identities):
    text = """
    x = input()
    zero = const(value=0.0)
    one = const(value=1.0)
    a = subtract(zero, x)
    b = divide(one, a)
    c = subtract(b, zero)
    d = divide(c, one)
    return d
    """
    _check_graph("simplify_identities(0 - x, 1 / a, b - 0, c / 1)", simplify_identities(_g(text)),
                 """
    x = input()
    zero = const(value=0.0)
    one = const(value=1.0)
    a = subtract(zero, x)
    b = divide(one, a)
    return b
    """)


@checkpoint.test("simplify_identities", hint="x * 0 is not x, nor is x + 1: only the constants 0 "
                                             "(for + and -) and 1 (for * and /) vanish.",
                 stretch=True)
def other_constants_stay(simplify_identities):
    text = """
    x = input()
    zero = const(value=0.0)
    one = const(value=1.0)
    a = multiply(x, zero)
    b = add(x, one)
    c = add(a, b)
    return c
    """
    _check_graph("simplify_identities(x * 0, x + 1)", simplify_identities(_g(text)), text)


@checkpoint.test("simplify_identities", hint="Rename an op's args through the ops dropped so "
                                             "far before you test it: then w = y * 1 with y = x + "
                                             "0 goes too, and so do the outputs.", stretch=True,
                 hint_for=("tests the args before renaming them", "outputs not renamed"))
def chains_and_outputs(simplify_identities):
    g = _g("""
    x = input()
    zero = const(value=0.0)
    one = const(value=1.0)
    y = add(x, zero)
    w = multiply(y, one)
    e = exp(w)
    return w, e
    """)
    _check_graph("simplify_identities(y = x + 0, w = y * 1, return w, e)",
                 simplify_identities(g), """
    x = input()
    zero = const(value=0.0)
    one = const(value=1.0)
    e = exp(x)
    return x, e
    """)


@checkpoint.test("simplify_identities", hint="Build a new Graph; the one you were given must not "
                                             "change.", stretch=True)
def leaves_the_graph_alone(simplify_identities):
    g = _g("""
    x = input()
    one = const(value=1.0)
    y = multiply(x, one)
    z = exp(y)
    return z
    """)
    before = str(g)
    simplify_identities(g)
    _unchanged("simplify_identities(g)", g, before)
