"""Known-wrong implementations of episode 07's exercises (two autograd designs)."""

_IMPORTS = ("from stridegrad.course.designs import (Var, AccumulateGrad, AddBackward, "
            "MulBackward, TanhBackward, grad_accumulator)\nimport gc\n")

_EDGE = _IMPORTS + '''
def gradient_edge(var):
    if var.grad_fn is not None:
        return (var.grad_fn, var.output_nr)
    if var.requires_grad:
        return (grad_accumulator(var), 0)
    return (None, 0)
'''

_DEPS = '''
def count_dependencies(root):
    counts = {root: 0}
    stack = [root]
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            if next_node not in counts:
                counts[next_node] = 0
                stack.append(next_node)
            counts[next_node] += 1
    return counts
'''

WRONG = {
    "gradient_edge": [
        ("a new accumulator every time", _IMPORTS + """
def gradient_edge(var):
    if var.grad_fn is not None:
        return (var.grad_fn, var.output_nr)
    if var.requires_grad:
        return (AccumulateGrad(var), 0)
    return (None, 0)
"""),
        ("ignores output_nr", _IMPORTS + """
def gradient_edge(var):
    if var.grad_fn is not None:
        return (var.grad_fn, 0)
    if var.requires_grad:
        return (grad_accumulator(var), 0)
    return (None, 0)
"""),
        ("leaves get no edge", _IMPORTS + """
def gradient_edge(var):
    return (var.grad_fn, var.output_nr)
"""),
        ("constants get an accumulator", _IMPORTS + """
def gradient_edge(var):
    if var.grad_fn is not None:
        return (var.grad_fn, var.output_nr)
    return (grad_accumulator(var), 0)
"""),
    ],
    "var_mul": [
        ("forgets an edge", _EDGE + """
def var_mul(a, b):
    if not (a.requires_grad or b.requires_grad):
        return Var(a.data * b.data)
    node = MulBackward((gradient_edge(a),), a.data, b.data)
    return Var(a.data * b.data, grad_fn=node)
"""),
        ("edges swapped", _EDGE + """
def var_mul(a, b):
    if not (a.requires_grad or b.requires_grad):
        return Var(a.data * b.data)
    node = MulBackward((gradient_edge(b), gradient_edge(a)), a.data, b.data)
    return Var(a.data * b.data, grad_fn=node)
"""),
        ("always records a node", _EDGE + """
def var_mul(a, b):
    node = MulBackward((gradient_edge(a), gradient_edge(b)), a.data, b.data)
    return Var(a.data * b.data, grad_fn=node)
"""),
        ("drops the None edges", _EDGE + """
def var_mul(a, b):
    if not (a.requires_grad or b.requires_grad):
        return Var(a.data * b.data)
    edges = tuple(e for e in (gradient_edge(a), gradient_edge(b)) if e[0] is not None)
    return Var(a.data * b.data, grad_fn=MulBackward(edges, a.data, b.data))
"""),
        ("saves the inputs in the wrong order", _EDGE + """
def var_mul(a, b):
    if not (a.requires_grad or b.requires_grad):
        return Var(a.data * b.data)
    node = MulBackward((gradient_edge(a), gradient_edge(b)), b.data, a.data)
    return Var(a.data * b.data, grad_fn=node)
"""),
    ],
    "count_dependencies": [
        ("counts nodes, not edges", """
def count_dependencies(root):
    counts = {root: 0}
    stack = [root]
    while stack:
        node = stack.pop()
        for next_node in {n for n, _ in node.next_functions if n is not None}:
            if next_node not in counts:
                counts[next_node] = 0
                stack.append(next_node)
            counts[next_node] += 1
    return counts
"""),
        ("recursive", """
def count_dependencies(root):
    counts = {root: 0}
    def visit(node):
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            first = next_node not in counts
            counts[next_node] = counts.get(next_node, 0) + 1
            if first:
                visit(next_node)
    visit(root)
    return counts
"""),
        ("counts every path", """
def count_dependencies(root):
    counts = {root: 0}
    stack = [root]
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            counts[next_node] = counts.get(next_node, 0) + 1
            stack.append(next_node)
    return counts
"""),
        ("leaves the root out", _DEPS.replace("counts = {root: 0}", "counts = {}").replace(
            "    return counts", "    counts.pop(root, None)\n    return counts")),
    ],
    "run_backward": [
        ("runs a node on every arriving gradient", """
def run_backward(root):
    if root.grad_fn is None:
        raise RuntimeError("no grad_fn")
    stack = [(root.grad_fn, 1.0)]
    while stack:
        node, g = stack.pop()
        for (next_node, _), gi in zip(node.next_functions, node.apply(g)):
            if next_node is not None:
                stack.append((next_node, gi))
"""),
        ("= instead of += in the buffers", _DEPS + """
def run_backward(root):
    if root.grad_fn is None:
        raise RuntimeError("no grad_fn")
    deps = count_dependencies(root.grad_fn)
    buffers = {root.grad_fn: 1.0}
    ready = [root.grad_fn]
    while ready:
        node = ready.pop()
        for (next_node, _), g in zip(node.next_functions, node.apply(buffers.pop(node))):
            if next_node is None:
                continue
            buffers[next_node] = g
            deps[next_node] -= 1
            if deps[next_node] == 0:
                ready.append(next_node)
"""),
        ("no check for a missing grad_fn", _DEPS + """
def run_backward(root):
    if root.grad_fn is None:
        return
    deps = count_dependencies(root.grad_fn)
    buffers = {root.grad_fn: 1.0}
    ready = [root.grad_fn]
    while ready:
        node = ready.pop()
        for (next_node, _), g in zip(node.next_functions, node.apply(buffers.pop(node))):
            if next_node is None:
                continue
            buffers[next_node] = buffers.get(next_node, 0.0) + g
            deps[next_node] -= 1
            if deps[next_node] == 0:
                ready.append(next_node)
"""),
        ("recursive", """
def run_backward(root):
    if root.grad_fn is None:
        raise RuntimeError("no grad_fn")
    def send(node, g):
        for (next_node, _), gi in zip(node.next_functions, node.apply(g)):
            if next_node is not None:
                send(next_node, gi)
    send(root.grad_fn, 1.0)
"""),
    ],
    "count_cycle_garbage": [
        ("keeps the result alive", _IMPORTS + """
def count_cycle_garbage(build):
    was = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        result = build()
        return gc.collect()
    finally:
        if was:
            gc.enable()
"""),
        ("leaves the automatic collector on", _IMPORTS + """
def count_cycle_garbage(build):
    gc.collect()
    build()
    return gc.collect()
"""),
        ("no collection before build", _IMPORTS + """
def count_cycle_garbage(build):
    was = gc.isenabled()
    gc.disable()
    try:
        build()
        return gc.collect()
    finally:
        if was:
            gc.enable()
"""),
        ("always switches the collector on", _IMPORTS + """
def count_cycle_garbage(build):
    gc.disable()
    try:
        gc.collect()
        build()
        return gc.collect()
    finally:
        gc.enable()
"""),
        ("no try/finally", _IMPORTS + """
def count_cycle_garbage(build):
    was = gc.isenabled()
    gc.disable()
    gc.collect()
    build()
    n = gc.collect()
    if was:
        gc.enable()
    return n
"""),
    ],
}
