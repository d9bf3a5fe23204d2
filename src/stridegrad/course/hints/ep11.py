"""Hint levels for checkpoint 11 (beyond eager)."""

HINTS = {
    "run_graph": [
        "The ops are in an order where every argument is computed before it is used. "
        "Where do you keep the values?",
        "Walk graph.ops in order with a dict name -> value: an input op reads "
        "inputs[op.name]; any other op is evaluate(op, [the values of op.args]). Return "
        "the values of graph.outputs, in order.",
        "In full:\n\n"
        "    values = {}\n"
        "    for op in graph.ops:\n"
        "        values[op.name] = inputs[op.name] if op.op == 'input' else \\\n"
        "            evaluate(op, [values[a] for a in op.args])\n"
        "    return [values[name] for name in graph.outputs]",
    ],
    "eliminate_dead_code": [
        "An op is needed if an output is it, or if a needed op reads it. In which order "
        "can you find all of them in one walk?",
        "Walk the ops backwards with a set of needed names, starting from the outputs: "
        "keep an op if it is needed (or an input) and mark its args needed. Reverse the "
        "kept ops to restore their order.",
        "In full:\n\n"
        "    needed, kept = set(graph.outputs), []\n"
        "    for op in reversed(graph.ops):\n"
        "        if op.name in needed or op.op == 'input':\n"
        "            kept.append(op)\n"
        "            needed.update(op.args)\n"
        "    return Graph(reversed(kept), graph.outputs)",
    ],
    "eliminate_common_subexpressions": [
        "Two ops compute the same value when they do the same thing to the same "
        "arguments. What key captures that, and what about add(y, x) vs add(x, y)?",
        "Walk in order with a dict seen: key -> kept name and a dict replace: dropped "
        "name -> kept name. Rename an op's args through replace before building its key "
        "(op, args, tuple(sorted(op.attrs.items()))), sorting the args of COMMUTATIVE ops "
        "in the key only (the op you keep keeps its own order). Inputs are never merged; "
        "outputs are renamed too.",
        "In full:\n\n"
        "    replace, seen, kept = {}, {}, []\n"
        "    for op in graph.ops:\n"
        "        args = tuple(replace.get(a, a) for a in op.args)\n"
        "        if op.op == 'input': kept.append(op); continue\n"
        "        key = (op.op, sorted args if op.op in COMMUTATIVE else args,\n"
        "               tuple(sorted(op.attrs.items())))\n"
        "        if key in seen: replace[op.name] = seen[key]\n"
        "        else: seen[key] = op.name; kept.append(Op(op.name, op.op, args, op.attrs))\n"
        "    return Graph(kept, [replace.get(n, n) for n in graph.outputs])",
    ],
    "constant_fold": [
        "Which ops can be computed before the inputs are known?",
        "Walk in order with a dict of known constant values: a const op is known; an op "
        "(not an input) whose args are all known is computed now with evaluate and "
        "becomes a const op of the same name, and is known from then on (folding "
        "cascades); anything else stays as it is.",
        "In full:\n\n"
        "    known, kept = {}, []\n"
        "    for op in graph.ops:\n"
        "        if op.op == 'const': known[op.name] = op.attrs['value']; kept.append(op)\n"
        "        elif op.op != 'input' and all(a in known for a in op.args):\n"
        "            value = evaluate(op, [known[a] for a in op.args])\n"
        "            known[op.name] = value\n"
        "            kept.append(Op(op.name, 'const', (), {'value': value}))\n"
        "        else: kept.append(op)\n"
        "    return Graph(kept, graph.outputs)",
    ],
    "fuse_elementwise": [
        "An elementwise op's value need not be stored when exactly one op reads it and "
        "that reader is elementwise too (and it is not an output). graph.users() tells "
        "who reads what.",
        "Walk in order with a dict waiting: name -> ops its reader will absorb. An "
        "elementwise op collects the groups waiting on its args plus itself. If it is "
        "absorbed in turn, its group waits on its name; otherwise emit fused_op(graph, "
        "group), or the op itself when the group is just it. Other ops are kept.",
        "In full:\n\n"
        "    users, kind, outputs = graph.users(), {op.name: op.op ...}, set(graph.outputs)\n"
        "    for op in graph.ops:\n"
        "        if op.op not in ELEMENTWISE: kept.append(op); continue\n"
        "        group = [m for a in op.args for m in waiting.pop(a, [])] + [op]\n"
        "        readers = users[op.name]\n"
        "        if len(readers) == 1 and kind[readers[0]] in ELEMENTWISE and op.name not in outputs:\n"
        "            waiting[op.name] = group\n"
        "        else: kept.append(op if len(group) == 1 else fused_op(graph, group))\n"
        "    return Graph(kept, graph.outputs)",
    ],
    "simplify_identities": [
        "Walk the ops in order, as in common-subexpression elimination: when an op gives "
        "back one of its arguments, where must its readers look instead?",
        "Collect the const values first. Keep a dict replace (dropped name -> the argument "
        "it gives back) and rename every op's args through it BEFORE testing the op, so "
        "chains vanish. add and multiply work both ways round; subtract and divide only "
        "with the constant on the right. Rename the outputs too.",
        "In full:\n\n"
        "    consts = {op.name: op.attrs['value'] for const ops}\n"
        "    for op in graph.ops:\n"
        "        args = tuple(replace.get(a, a) for a in op.args)\n"
        "        same = a for add(a, 0) / subtract(a, 0) / multiply(a, 1) / divide(a, 1),\n"
        "               b for add(0, b) / multiply(1, b), else None\n"
        "        if same: replace[op.name] = same\n"
        "        else: kept.append(Op(op.name, op.op, args, op.attrs))\n"
        "    return Graph(kept, [replace.get(n, n) for n in graph.outputs])",
    ],
}
