"""Known-wrong implementations of episode 11's exercises (graph passes).

Each must fail checkpoint 11; ``test_checks.py`` and ``test_ep11.py`` run them all.
"""

_IR = ("from stridegrad.course.compiler import (COMMUTATIVE, ELEMENTWISE, Graph, Op, "
       "evaluate, fused_op)\n")

WRONG = {
    "run_graph": [
        ("returns only the last op's value", _IR + """
def run_graph(graph, inputs):
    values = dict(inputs)
    for op in graph.ops:
        if op.op != "input":
            values[op.name] = evaluate(op, [values[a] for a in op.args])
    return [values[graph.ops[-1].name]]
"""),
        ("treats const ops as inputs", _IR + """
def run_graph(graph, inputs):
    values = {}
    for op in graph.ops:
        if op.op in ("input", "const"):
            values[op.name] = inputs[op.name]
        else:
            values[op.name] = evaluate(op, [values[a] for a in op.args])
    return [values[n] for n in graph.outputs]
"""),
        ("args in sorted order", _IR + """
def run_graph(graph, inputs):
    values = {}
    for op in graph.ops:
        if op.op == "input":
            values[op.name] = inputs[op.name]
        else:
            values[op.name] = evaluate(op, [values[a] for a in sorted(op.args)])
    return [values[n] for n in graph.outputs]
"""),
        ("writes the values into the inputs dict", _IR + """
def run_graph(graph, inputs):
    values = inputs
    for op in graph.ops:
        if op.op != "input":
            values[op.name] = evaluate(op, [values[a] for a in op.args])
    return [values[n] for n in graph.outputs]
"""),
        ("missing input becomes 0.0", _IR + """
def run_graph(graph, inputs):
    values = {}
    for op in graph.ops:
        if op.op == "input":
            values[op.name] = inputs.get(op.name, 0.0)
        else:
            values[op.name] = evaluate(op, [values[a] for a in op.args])
    return [values[n] for n in graph.outputs]
"""),
    ],
    "eliminate_dead_code": [
        ("one round: drops only ops nobody reads (keeps ops read only by dead ops)", _IR + """
def eliminate_dead_code(graph):
    read = {a for op in graph.ops for a in op.args} | set(graph.outputs)
    kept = [op for op in graph.ops if op.name in read or op.op == "input"]
    return Graph(kept, graph.outputs)
"""),
        ("drops unused inputs", _IR + """
def eliminate_dead_code(graph):
    needed, kept = set(graph.outputs), []
    for op in reversed(graph.ops):
        if op.name in needed:
            kept.append(op)
            needed.update(op.args)
    return Graph(reversed(kept), graph.outputs)
"""),
        ("follows only the outputs' own args, one level", _IR + """
def eliminate_dead_code(graph):
    needed = set(graph.outputs)
    for name in graph.outputs:
        needed.update(graph[name].args)
    kept = [op for op in graph.ops if op.name in needed or op.op == "input"]
    return Graph(kept, graph.outputs)
"""),
        ("removes in place and returns the same graph", _IR + """
def eliminate_dead_code(graph):
    needed = set(graph.outputs)
    for op in reversed(list(graph.ops)):
        if op.name in needed or op.op == "input":
            needed.update(op.args)
        else:
            graph.ops.remove(op)
    return graph
"""),
        ("keeps ops in reversed order", _IR + """
def eliminate_dead_code(graph):
    needed, kept = set(graph.outputs), []
    for op in reversed(graph.ops):
        if op.name in needed or op.op == "input":
            kept.append(op)
            needed.update(op.args)
    return Graph(kept, graph.outputs)
"""),
    ],
    "eliminate_common_subexpressions": [
        ("ignores attrs (merges sum axis=0 with axis=1)", _IR + """
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
        ("sorts the args of every op (merges subtract(x, y) with subtract(y, x))", _IR + """
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
        ("merges input ops", _IR + """
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
        ("keys on the original args (misses repeats of repeats)", _IR + """
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
        ("forgets to rename the outputs", _IR + """
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
        ("no commutativity (misses add(y, x) = add(x, y))", _IR + """
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
    ],
    "constant_fold": [
        ("folds an op with an input among its args (any instead of all)", _IR + """
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
        ("no cascade: looks only at the input graph's const ops", _IR + """
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
        ("folds inputs too (an op with no args looks constant)", _IR + """
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
        ("renames the folded op", _IR + """
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
        ("removes the constants it used", _IR + """
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
    ],
    "fuse_elementwise": [
        ("fuses into a reduction's input (ignores the reader's kind)", _IR + """
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
        ("fuses a value that has two readers", _IR + """
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
        ("absorbs an output", _IR + """
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
        ("only pairs: each op absorbs its args but groups do not grow", _IR + """
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
        ("counts a reader twice when it reads the value twice", _IR + """
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
    ],
}
