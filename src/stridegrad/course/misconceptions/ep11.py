"""Known-wrong implementations of episode 11's exercises (graph passes).

Each must fail checkpoint 11; ``test_checks.py`` and ``test_ep11.py`` run them all.
"""

from stridegrad.course.misconceptions import Misconception


_IR = ("from stridegrad.compile.graph import (COMMUTATIVE, ELEMENTWISE, Graph, Op, "
       "evaluate, fused_op)\n")

MISCONCEPTIONS = {
    "run_graph": [
        Misconception("returns only the last op's value",
          "returns the last op's value instead of the values of every output: a graph with two "
          "outputs loses one",
          _IR + """
def run_graph(graph, inputs):
    values = dict(inputs)
    for op in graph.ops:
        if op.op != "input":
            values[op.name] = evaluate(op, [values[a] for a in op.args])
    return [values[graph.ops[-1].name]]
"""),
        Misconception("treats const ops as inputs",
          "looks const ops up in the inputs instead of using their value: a graph with a "
          "constant fails or reads the wrong number",
          _IR + """
def run_graph(graph, inputs):
    values = {}
    for op in graph.ops:
        if op.op in ("input", "const"):
            values[op.name] = inputs[op.name]
        else:
            values[op.name] = evaluate(op, [values[a] for a in op.args])
    return [values[n] for n in graph.outputs]
"""),
        Misconception("args in sorted order",
          "sorts an op's arguments: subtract(y, x) is computed as subtract(x, y)",
          _IR + """
def run_graph(graph, inputs):
    values = {}
    for op in graph.ops:
        if op.op == "input":
            values[op.name] = inputs[op.name]
        else:
            values[op.name] = evaluate(op, [values[a] for a in sorted(op.args)])
    return [values[n] for n in graph.outputs]
"""),
        Misconception("writes the values into the inputs dict",
          "stores intermediate values in the caller's inputs dict: the answer is right but the "
          "inputs change",
          _IR + """
def run_graph(graph, inputs):
    values = inputs
    for op in graph.ops:
        if op.op != "input":
            values[op.name] = evaluate(op, [values[a] for a in op.args])
    return [values[n] for n in graph.outputs]
"""),
        Misconception("missing input becomes 0.0",
          "uses 0.0 for an input that was not given: a missing input silently gives a number "
          "instead of an error naming it",
          _IR + """
def run_graph(graph, inputs):
    values = {}
    for op in graph.ops:
        if op.op == "input":
            values[op.name] = inputs.get(op.name, 0.0)
        else:
            values[op.name] = evaluate(op, [values[a] for a in op.args])
    return [values[n] for n in graph.outputs]
"""),
        Misconception("inputs by position",
          "pairs the graph's inputs with the dict's values by position (zip(graph.inputs, "
          "inputs.values())): when the dict lists them in another order, each input gets "
          "another one's value",
          _IR + """
def run_graph(graph, inputs):
    values = dict(zip(graph.inputs, inputs.values()))
    for op in graph.ops:
        if op.op != "input":
            values[op.name] = evaluate(op, [values[a] for a in op.args])
    return [values[n] for n in graph.outputs]
"""),
        Misconception("a missing input is noticed only when read",
          "starts from a copy of the inputs dict and never looks the input ops up: an input "
          "left out of the dict is reported only if an op reads it, not as the KeyError every "
          "missing input is",
          _IR + """
def run_graph(graph, inputs):
    values = dict(inputs)
    for op in graph.ops:
        if op.op != "input":
            values[op.name] = evaluate(op, [values[a] for a in op.args])
    return [values[n] for n in graph.outputs]
"""),
    ],
    "eliminate_dead_code": [
        Misconception("one round: drops only ops nobody reads (keeps ops read only by dead ops)",
          "removes, in one round, only the ops that no op reads: an op read only by dead ops "
          "stays in the graph",
          _IR + """
def eliminate_dead_code(graph):
    read = {a for op in graph.ops for a in op.args} | set(graph.outputs)
    kept = [op for op in graph.ops if op.name in read or op.op == "input"]
    return Graph(kept, graph.outputs)
"""),
        Misconception("drops unused inputs",
          "removes input ops nobody reads: the graph's signature changes",
          _IR + """
def eliminate_dead_code(graph):
    needed, kept = set(graph.outputs), []
    for op in reversed(graph.ops):
        if op.name in needed:
            kept.append(op)
            needed.update(op.args)
    return Graph(reversed(kept), graph.outputs)
"""),
        Misconception("follows only the outputs' own args, one level",
          "keeps only the outputs and their direct arguments: anything two steps from an output "
          "is dropped",
          _IR + """
def eliminate_dead_code(graph):
    needed = set(graph.outputs)
    for name in graph.outputs:
        needed.update(graph[name].args)
    kept = [op for op in graph.ops if op.name in needed or op.op == "input"]
    return Graph(kept, graph.outputs)
"""),
        Misconception("removes in place and returns the same graph",
          "removes ops from the input graph itself: the answer is right but the caller's graph "
          "changes",
          _IR + """
def eliminate_dead_code(graph):
    needed = set(graph.outputs)
    for op in reversed(list(graph.ops)):
        if op.name in needed or op.op == "input":
            needed.update(op.args)
        else:
            graph.ops.remove(op)
    return graph
"""),
        Misconception("keeps ops in reversed order",
          "returns the kept ops in reverse order: an op comes before its arguments",
          _IR + """
def eliminate_dead_code(graph):
    needed, kept = set(graph.outputs), []
    for op in reversed(graph.ops):
        if op.name in needed or op.op == "input":
            kept.append(op)
            needed.update(op.args)
    return Graph(kept, graph.outputs)
"""),
        Misconception("recursive walk from the outputs",
          "marks the needed ops with a recursive function from the outputs: a chain longer "
          "than Python's recursion limit (about 1000 ops) raises RecursionError, where one "
          "walk over the ops in reverse order needs no recursion",
          _IR + """
def eliminate_dead_code(graph):
    ops = {op.name: op for op in graph.ops}
    needed = set()

    def need(name):
        if name not in needed:
            needed.add(name)
            for a in ops[name].args:
                need(a)

    for name in graph.outputs:
        need(name)
    return Graph([op for op in graph.ops if op.name in needed or op.op == "input"],
                 graph.outputs)
"""),
        Misconception("raises the recursion limit",
          "raises sys.setrecursionlimit to make its recursive walk fit: the limit stays "
          "changed for everything that runs after it (and a longer graph still does not "
          "fit); one walk over the ops in reverse order needs no recursion",
          _IR + """
import sys

def eliminate_dead_code(graph):
    sys.setrecursionlimit(10 * len(graph.ops) + 2000)
    ops = {op.name: op for op in graph.ops}
    needed = set()

    def need(name):
        if name not in needed:
            needed.add(name)
            for a in ops[name].args:
                need(a)

    for name in graph.outputs:
        need(name)
    return Graph([op for op in graph.ops if op.name in needed or op.op == "input"],
                 graph.outputs)
"""),
    ],
    "eliminate_common_subexpressions": [
        Misconception("ignores attrs (merges sum axis=0 with axis=1)",
          "keys ops without their attributes: sum(axis=0) and sum(axis=1) of the same value are "
          "merged",
          _IR + """
def eliminate_common_subexpressions(graph):
    replace, seen, kept = {}, {}, []
    for op in graph.ops:
        args = tuple(replace.get(a, a) for a in op.args)
        if op.op == "input":
            kept.append(op)
            continue
        key = (op.op, tuple(sorted(args)) if op.op in COMMUTATIVE else args)
        if key in seen:
            replace[op.name] = seen[key]
        else:
            seen[key] = op.name
            kept.append(Op(op.name, op.op, args, op.attrs))
    return Graph(kept, [replace.get(n, n) for n in graph.outputs])
"""),
        Misconception("sorts the args of every op (merges subtract(x, y) with subtract(y, x))",
          "sorts the arguments of every op, commutative or not: subtract(x, y) and subtract(y, "
          "x) are merged",
          _IR + """
def eliminate_common_subexpressions(graph):
    replace, seen, kept = {}, {}, []
    for op in graph.ops:
        args = tuple(replace.get(a, a) for a in op.args)
        if op.op == "input":
            kept.append(op)
            continue
        key = (op.op, tuple(sorted(args)), tuple(sorted(op.attrs.items())))
        if key in seen:
            replace[op.name] = seen[key]
        else:
            seen[key] = op.name
            kept.append(Op(op.name, op.op, args, op.attrs))
    return Graph(kept, [replace.get(n, n) for n in graph.outputs])
"""),
        Misconception("merges input ops",
          "merges input ops with the same attributes: two different inputs become one",
          _IR + """
def eliminate_common_subexpressions(graph):
    replace, seen, kept = {}, {}, []
    for op in graph.ops:
        args = tuple(replace.get(a, a) for a in op.args)
        key_args = tuple(sorted(args)) if op.op in COMMUTATIVE else args
        key = (op.op, key_args, tuple(sorted(op.attrs.items())))
        if key in seen:
            replace[op.name] = seen[key]
        else:
            seen[key] = op.name
            kept.append(Op(op.name, op.op, args, op.attrs))
    return Graph(kept, [replace.get(n, n) for n in graph.outputs])
"""),
        Misconception("keys on the original args (misses repeats of repeats)",
          "keys ops on their original arguments instead of the renamed ones: a repeat of a "
          "repeated expression is not found",
          _IR + """
def eliminate_common_subexpressions(graph):
    replace, seen, kept = {}, {}, []
    for op in graph.ops:
        if op.op == "input":
            kept.append(op)
            continue
        key_args = tuple(sorted(op.args)) if op.op in COMMUTATIVE else op.args
        key = (op.op, key_args, tuple(sorted(op.attrs.items())))
        args = tuple(replace.get(a, a) for a in op.args)
        if key in seen:
            replace[op.name] = seen[key]
        else:
            seen[key] = op.name
            kept.append(Op(op.name, op.op, args, op.attrs))
    return Graph(kept, [replace.get(n, n) for n in graph.outputs])
"""),
        Misconception("forgets to rename the outputs",
          "does not rename outputs that pointed at a removed duplicate: an output refers to an "
          "op that no longer exists",
          _IR + """
def eliminate_common_subexpressions(graph):
    replace, seen, kept = {}, {}, []
    for op in graph.ops:
        args = tuple(replace.get(a, a) for a in op.args)
        if op.op == "input":
            kept.append(op)
            continue
        key_args = tuple(sorted(args)) if op.op in COMMUTATIVE else args
        key = (op.op, key_args, tuple(sorted(op.attrs.items())))
        if key in seen:
            replace[op.name] = seen[key]
        else:
            seen[key] = op.name
            kept.append(Op(op.name, op.op, args, op.attrs))
    return Graph(kept, graph.outputs)
"""),
        Misconception("no commutativity (misses add(y, x) = add(x, y))",
          "keys commutative ops with their arguments in the given order: add(x, y) and add(y, "
          "x) are not merged",
          _IR + """
def eliminate_common_subexpressions(graph):
    replace, seen, kept = {}, {}, []
    for op in graph.ops:
        args = tuple(replace.get(a, a) for a in op.args)
        if op.op == "input":
            kept.append(op)
            continue
        key = (op.op, args, tuple(sorted(op.attrs.items())))
        if key in seen:
            replace[op.name] = seen[key]
        else:
            seen[key] = op.name
            kept.append(Op(op.name, op.op, args, op.attrs))
    return Graph(kept, [replace.get(n, n) for n in graph.outputs])
"""),
        Misconception("attrs' values without their names",
          "keys ops by the set of their attrs' values, without the names: sum(x, axis=1) "
          "and sum(x, keepdims=True) both give {1} == {True} and are merged, and so are "
          "sum(x, axis=0) and sum(x, keepdims=False)",
          _IR + """
def eliminate_common_subexpressions(graph):
    replace, seen, kept = {}, {}, []
    for op in graph.ops:
        args = tuple(replace.get(a, a) for a in op.args)
        if op.op == "input":
            kept.append(op)
            continue
        key_args = tuple(sorted(args)) if op.op in COMMUTATIVE else args
        key = (op.op, key_args, frozenset(op.attrs.values()))
        if key in seen:
            replace[op.name] = seen[key]
        else:
            seen[key] = op.name
            kept.append(Op(op.name, op.op, args, op.attrs))
    return Graph(kept, [replace.get(n, n) for n in graph.outputs])
"""),
        Misconception("attrs in the order they are written",
          "keys ops by their attrs in the order they are written: sum(x, axis=0, "
          "keepdims=True) and sum(x, keepdims=True, axis=0) are the same op, but are not "
          "merged",
          _IR + """
def eliminate_common_subexpressions(graph):
    replace, seen, kept = {}, {}, []
    for op in graph.ops:
        args = tuple(replace.get(a, a) for a in op.args)
        if op.op == "input":
            kept.append(op)
            continue
        key_args = tuple(sorted(args)) if op.op in COMMUTATIVE else args
        key = (op.op, key_args, tuple(op.attrs.items()))
        if key in seen:
            replace[op.name] = seen[key]
        else:
            seen[key] = op.name
            kept.append(Op(op.name, op.op, args, op.attrs))
    return Graph(kept, [replace.get(n, n) for n in graph.outputs])
"""),
    ],
    "constant_fold": [
        Misconception("folds an op with an input among its args (any instead of all)",
          "folds an op when any argument is constant instead of all: an op that reads an input "
          "is folded",
          _IR + """
def constant_fold(graph):
    known, kept = {}, []
    for op in graph.ops:
        if op.op == "const":
            known[op.name] = op.attrs["value"]
            kept.append(op)
        elif op.op != "input" and any(a in known for a in op.args):
            value = evaluate(op, [known.get(a, 0.0) for a in op.args])
            known[op.name] = value
            kept.append(Op(op.name, "const", (), {"value": value}))
        else:
            kept.append(op)
    return Graph(kept, graph.outputs)
"""),
        Misconception("no cascade: looks only at the input graph's const ops",
          "folds only ops whose arguments were constant in the input graph: a chain of "
          "constants is folded one step only",
          _IR + """
def constant_fold(graph):
    consts = {op.name: op.attrs["value"] for op in graph.ops if op.op == "const"}
    kept = []
    for op in graph.ops:
        if op.op not in ("input", "const") and all(a in consts for a in op.args):
            kept.append(Op(op.name, "const", (), {"value": evaluate(op, [consts[a] for a in op.args])}))
        else:
            kept.append(op)
    return Graph(kept, graph.outputs)
"""),
        Misconception("folds inputs too (an op with no args looks constant)",
          "treats an op with no arguments as constant: input ops are folded away, so the graph "
          "no longer reads its inputs",
          _IR + """
def constant_fold(graph):
    known, kept = {}, []
    for op in graph.ops:
        if op.op == "const":
            known[op.name] = op.attrs["value"]
            kept.append(op)
        elif all(a in known for a in op.args):
            value = 0.0 if op.op == "input" else evaluate(op, [known[a] for a in op.args])
            known[op.name] = value
            kept.append(Op(op.name, "const", (), {"value": value}))
        else:
            kept.append(op)
    return Graph(kept, graph.outputs)
"""),
        Misconception("renames the folded op",
          "gives a folded op a new name: the ops and outputs that read it lose their argument",
          _IR + """
def constant_fold(graph):
    known, kept = {}, []
    for op in graph.ops:
        if op.op == "const":
            known[op.name] = op.attrs["value"]
            kept.append(op)
        elif op.op != "input" and all(a in known for a in op.args):
            value = evaluate(op, [known[a] for a in op.args])
            known[op.name] = value
            kept.append(Op(op.name + "_c", "const", (), {"value": value}))
        else:
            kept.append(op)
    return Graph(kept, graph.outputs)
"""),
        Misconception("removes the constants it used",
          "deletes the const ops a fold used: other ops that read them lose their argument",
          _IR + """
def constant_fold(graph):
    known, kept = {}, []
    for op in graph.ops:
        if op.op == "const":
            known[op.name] = op.attrs["value"]
        elif op.op != "input" and all(a in known for a in op.args):
            value = evaluate(op, [known[a] for a in op.args])
            known[op.name] = value
            kept.append(Op(op.name, "const", (), {"value": value}))
        else:
            kept.append(op)
    return Graph(kept, graph.outputs)
"""),
        Misconception("a const of value 0 looks unknown",
          "tests whether an argument's value is known by its truth (all(known.get(a) ...)): "
          "a constant 0 or 0.0 is false, so an op that reads one is never folded",
          _IR + """
def constant_fold(graph):
    known, kept = {}, []
    for op in graph.ops:
        if op.op == "const":
            known[op.name] = op.attrs["value"]
            kept.append(op)
        elif op.op != "input" and all(known.get(a) for a in op.args):
            value = evaluate(op, [known[a] for a in op.args])
            known[op.name] = value
            kept.append(Op(op.name, "const", (), {"value": value}))
        else:
            kept.append(op)
    return Graph(kept, graph.outputs)
"""),
    ],
    "fuse_elementwise": [
        Misconception("fuses into a reduction's input (ignores the reader's kind)",
          "fuses an elementwise op into any reader, a reduction included: only elementwise "
          "readers may absorb it",
          _IR + """
def fuse_elementwise(graph):
    users, outputs = graph.users(), set(graph.outputs)
    waiting, kept = {}, []
    for op in graph.ops:
        if op.op not in ELEMENTWISE:
            kept.append(op)
            continue
        group = [m for a in op.args for m in waiting.pop(a, [])] + [op]
        if len(users[op.name]) == 1 and op.name not in outputs:
            waiting[op.name] = group
        elif len(group) == 1:
            kept.append(op)
        else:
            kept.append(fused_op(graph, group))
    return Graph(kept, graph.outputs)
"""),
        Misconception("fuses a value that has two readers",
          "fuses a value that two ops read: the other reader loses its argument (or it is "
          "computed twice)",
          _IR + """
def fuse_elementwise(graph):
    users, outputs = graph.users(), set(graph.outputs)
    kind = {op.name: op.op for op in graph.ops}
    waiting, kept = {}, []
    for op in graph.ops:
        if op.op not in ELEMENTWISE:
            kept.append(op)
            continue
        group = [m for a in op.args for m in waiting.get(a, [])] + [op]
        readers = users[op.name]
        if readers and all(kind[r] in ELEMENTWISE for r in readers) and op.name not in outputs:
            waiting[op.name] = group
        elif len(group) == 1:
            kept.append(op)
        else:
            kept.append(fused_op(graph, group))
    return Graph(kept, graph.outputs)
"""),
        Misconception("absorbs an output",
          "fuses an op whose value is a graph output: the output disappears into the group",
          _IR + """
def fuse_elementwise(graph):
    users = graph.users()
    kind = {op.name: op.op for op in graph.ops}
    waiting, kept = {}, []
    for op in graph.ops:
        if op.op not in ELEMENTWISE:
            kept.append(op)
            continue
        group = [m for a in op.args for m in waiting.pop(a, [])] + [op]
        readers = users[op.name]
        if len(readers) == 1 and kind[readers[0]] in ELEMENTWISE:
            waiting[op.name] = group
        elif len(group) == 1:
            kept.append(op)
        else:
            kept.append(fused_op(graph, group))
    return Graph(kept, graph.outputs)
"""),
        Misconception("only pairs: each op absorbs its args but groups do not grow",
          "fuses pairs only: a chain of elementwise ops becomes several groups instead of one",
          _IR + """
def fuse_elementwise(graph):
    users, outputs = graph.users(), set(graph.outputs)
    kind = {op.name: op.op for op in graph.ops}
    waiting, kept = {}, []
    for op in graph.ops:
        if op.op not in ELEMENTWISE:
            kept.append(op)
            continue
        group = [waiting.pop(a) for a in op.args if a in waiting] + [op]
        readers = users[op.name]
        if (len(group) == 1 and len(readers) == 1 and kind[readers[0]] in ELEMENTWISE
                and op.name not in outputs):
            waiting[op.name] = op
        elif len(group) == 1:
            kept.append(op)
        else:
            kept.append(fused_op(graph, group))
    return Graph(kept, graph.outputs)
"""),
        Misconception("counts a reader twice when it reads the value twice",
          "counts a reader that uses a value twice (x * x) as two readers: such values are "
          "never fused",
          _IR + """
def fuse_elementwise(graph):
    outputs = set(graph.outputs)
    readers = {op.name: [] for op in graph.ops}
    for op in graph.ops:
        for a in op.args:
            readers[a].append(op.name)
    kind = {op.name: op.op for op in graph.ops}
    waiting, kept = {}, []
    for op in graph.ops:
        if op.op not in ELEMENTWISE:
            kept.append(op)
            continue
        group = [m for a in op.args for m in waiting.pop(a, [])] + [op]
        r = readers[op.name]
        if len(r) == 1 and kind[r[0]] in ELEMENTWISE and op.name not in outputs:
            waiting[op.name] = group
        elif len(group) == 1:
            kept.append(op)
        else:
            kept.append(fused_op(graph, group))
    return Graph(kept, graph.outputs)
"""),
        Misconception("puts the fused op where its group starts",
          "puts each fused op where the first op of its group was, not where the last one "
          "was: an op between them that the group reads (a sum, a matmul) then comes after "
          "the fused op that reads it",
          _IR + """
def fuse_elementwise(graph):
    users, outputs = graph.users(), set(graph.outputs)
    kind = {op.name: op.op for op in graph.ops}

    def absorbed(op):
        readers = users[op.name]
        return (len(readers) == 1 and kind[readers[0]] in ELEMENTWISE
                and op.name not in outputs)

    root = {}  # each elementwise op -> the op of its group that is not absorbed
    for op in reversed(graph.ops):
        if op.op in ELEMENTWISE:
            root[op.name] = root[users[op.name][0]] if absorbed(op) else op.name
    groups = {}
    for op in graph.ops:
        if op.name in root:
            groups.setdefault(root[op.name], []).append(op)
    kept, placed = [], set()
    for op in graph.ops:
        if op.name not in root:
            kept.append(op)
        elif root[op.name] not in placed:  # the group's first op: the fused op goes here
            placed.add(root[op.name])
            members = groups[root[op.name]]
            kept.append(members[0] if len(members) == 1 else fused_op(graph, members))
    return Graph(kept, graph.outputs)
"""),
    ],
}


# ------------------------------------------------------------------ stretch: simplify_identities

_SIMPLIFY = _IR + """

def simplify_identities(graph):
    consts = {op.name: op.attrs["value"] for op in graph.ops if op.op == "const"}
    replace, kept = {}, []
    for op in graph.ops:
        args = tuple(replace.get(a, a) for a in op.args)
        same = None
        if len(args) == 2:
            a, b = {MATCH}
            if op.op in ("add", "subtract") and consts.get(b) == 0:
                same = a
            elif op.op in {LEFT_ADD} and consts.get(a) == 0:
                same = b
            elif op.op in ("multiply", "divide") and consts.get(b) == 1:
                same = a
            elif op.op in {LEFT_MUL} and consts.get(a) == 1:
                same = b
        if same is not None:
            replace[op.name] = same
            {DROPPED}
        else:
            kept.append(Op(op.name, op.op, args, op.attrs))
    return Graph(kept, {OUTPUTS})
"""


def _simplify(match="args", left_add='("add",)', left_mul='("multiply",)', dropped="pass",
              outputs="[replace.get(name, name) for name in graph.outputs]"):
    return (_SIMPLIFY.replace("{MATCH}", match).replace("{LEFT_ADD}", left_add)
            .replace("{LEFT_MUL}", left_mul).replace("{DROPPED}", dropped)
            .replace("{OUTPUTS}", outputs))


MISCONCEPTIONS["simplify_identities"] = [
    Misconception("identities on the right only",
      "drops x + 0 and x * 1 but not 0 + x and 1 * x: add and multiply do not care about "
      "the order of their arguments",
      _simplify(left_add="()", left_mul="()")),
    Misconception("0 - x and 1 / x taken for x",
      "treats subtract and divide like add and multiply, both ways round: 0 - x is -x and "
      "1 / x is a reciprocal, not x",
      _simplify(left_add='("add", "subtract")', left_mul='("multiply", "divide")')),
    Misconception("tests the args before renaming them",
      "matches each op on its original arguments: in a chain (w = y * 1 after y = x + 0) "
      "w's reader is sent to y, which was dropped, and the graph breaks",
      _simplify(match="op.args")),
    Misconception("outputs not renamed",
      "renames the readers of a dropped op but not the graph's outputs: an output that was "
      "dropped is returned by a name nothing defines any more",
      _simplify(outputs="list(graph.outputs)")),
    Misconception("keeps the dropped ops",
      "sends the readers to the argument but keeps the identity op in the graph: the result "
      "computes x * 1 for nothing (dead code left behind)",
      _simplify(dropped="kept.append(Op(op.name, op.op, args, op.attrs))")),
    Misconception("an array of ones taken for 1",
      "compares a constant with np.all(value == 1): an array of ones (or of zeros) counts "
      "as the number, but x * ones((2, 3)) is not x when x has another shape (it "
      "broadcasts x), and only the numbers 0 and 1 vanish",
      _IR + """
import numpy as np

def simplify_identities(graph):
    consts = {op.name: np.asarray(op.attrs["value"]) for op in graph.ops if op.op == "const"}

    def is_(name, number):
        return name in consts and bool(np.all(consts[name] == number))

    replace, kept = {}, []
    for op in graph.ops:
        args = tuple(replace.get(a, a) for a in op.args)
        same = None
        if len(args) == 2:
            a, b = args
            if op.op in ("add", "subtract") and is_(b, 0):
                same = a
            elif op.op == "add" and is_(a, 0):
                same = b
            elif op.op in ("multiply", "divide") and is_(b, 1):
                same = a
            elif op.op == "multiply" and is_(a, 1):
                same = b
        if same is not None:
            replace[op.name] = same
        else:
            kept.append(Op(op.name, op.op, args, op.attrs))
    return Graph(kept, [replace.get(name, name) for name in graph.outputs])
"""),
]
