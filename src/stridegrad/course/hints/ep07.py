"""Hint levels for checkpoint 07 (two autograd designs)."""

HINTS = {
    "gradient_edge": [
        "Three kinds of Var: made by an operation, a leaf that wants a gradient, and "
        "anything else. Where should each one's gradient go?",
        "A Var with a grad_fn: to that node, at input number var.output_nr. A leaf with "
        "requires_grad: to its grad accumulator, input 0. Otherwise nowhere: (None, 0). Ask "
        "about grad_fn first: a Var made by an operation requires grad too, and must not get "
        "an accumulator.",
        "In full:\n\n"
        "    if var.grad_fn is not None: return (var.grad_fn, var.output_nr)\n"
        "    if var.requires_grad: return (grad_accumulator(var), 0)\n"
        "    return (None, 0)",
    ],
    "var_mul": [
        "When does a product need a history at all, and what does its node need to "
        "remember to compute the gradients later?",
        "If neither input requires grad, return a plain Var. Otherwise build "
        "MulBackward with the two edges (gradient_edge of a, then of b) and the two "
        "numbers, not the Vars.",
        "In full:\n\n"
        "    if not (a.requires_grad or b.requires_grad): return Var(a.data * b.data)\n"
        "    node = MulBackward((gradient_edge(a), gradient_edge(b)), a.data, b.data)\n"
        "    return Var(a.data * b.data, grad_fn=node)",
    ],
    "count_dependencies": [
        "Walk the graph of nodes from root along next_functions. What do you count, and "
        "how do you avoid counting an edge twice when two paths reach the same node?",
        "Explore each node once (a stack and a dict of counts doubles as the visited "
        "set); for every edge leaving an explored node, add 1 to its target's count, "
        "whether or not the target was seen before. Skip None targets.",
        "In full:\n\n"
        "    counts, stack = {root: 0}, [root]\n"
        "    while stack:\n"
        "        node = stack.pop()\n"
        "        for nxt, _ in node.next_functions:\n"
        "            if nxt is None: continue\n"
        "            if nxt not in counts: counts[nxt] = 0; stack.append(nxt)\n"
        "            counts[nxt] += 1\n"
        "    return counts",
    ],
    "run_backward": [
        "A node may run only when all its shares of gradient have arrived. Which of your "
        "functions says how many shares each node waits for?",
        "Keep a buffer per node (a local dict) and the dependency counts. Start with "
        "root.grad_fn holding 1.0 and ready to run. Running a node gives one gradient "
        "per next_functions entry: add each into its target's buffer and count the "
        "target down; at 0 it is ready.",
        "In full:\n\n"
        "    if root.grad_fn is None: raise RuntimeError\n"
        "    deps = count_dependencies(root.grad_fn)\n"
        "    buffers, ready = {root.grad_fn: 1.0}, [root.grad_fn]\n"
        "    while ready:\n"
        "        node = ready.pop()\n"
        "        grads = node.apply(buffers.pop(node))\n"
        "        for (nxt, _), g in zip(node.next_functions, grads):\n"
        "            if nxt is None: continue\n"
        "            buffers[nxt] = buffers.get(nxt, 0.0) + g\n"
        "            deps[nxt] -= 1\n"
        "            if deps[nxt] == 0: ready.append(nxt)",
    ],
    "count_cycle_garbage": [
        "The gc module can switch the automatic collector off, run it by hand, and tells "
        "you how many unreachable objects a run found.",
        "Switch it off, collect once to start clean, call build() and drop its result "
        "(del it, or never name it), and return what a second collect() returns. Turn the "
        "collector back on only if it was on, even when build raises (try / finally).",
        "In full:\n\n"
        "    was_on = gc.isenabled()\n"
        "    gc.disable()\n"
        "    try:\n"
        "        gc.collect()\n"
        "        build()\n"
        "        return gc.collect()\n"
        "    finally:\n"
        "        if was_on: gc.enable()",
    ],
    "var_div": [
        "Two pieces: the node (what it saves and what apply returns) and var_div (when to "
        "make a node, and its edges, exactly as var_mul). Start from the derivatives of "
        "a / b.",
        "d(a/b)/da = 1/b and d(a/b)/db = -a/b**2 (the quotient rule, or a * b**-1). The "
        "node saves a.data and b.data; apply(g) returns (g / b, -g * a / b**2).",
        "In full:\n\n"
        "    DivBackward.__init__: self.a, self.b = a, b\n"
        "    DivBackward.apply(grad): return (grad / self.b, -grad * self.a / self.b**2)\n"
        "    var_div: if not (a.requires_grad or b.requires_grad): return Var(a.data / b.data)\n"
        "             node = DivBackward((gradient_edge(a), gradient_edge(b)), a.data, b.data)\n"
        "             return Var(a.data / b.data, grad_fn=node)",
    ],
}
