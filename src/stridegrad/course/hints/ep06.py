"""Hint levels for checkpoint 06 (scalar autograd)."""

HINTS = {
    "add": [
        "The output remembers its inputs; its closure gets g, the gradient of the output. "
        "How much does a + b change when a changes by a little?",
        "d(a + b)/da = 1 and d(a + b)/db = 1, so each input receives g. Add into .grad "
        "(+=): a Value used twice collects from every use.",
        "In full:\n\n"
        "    out = Value(a.data + b.data, (a, b), \"+\")\n"
        "    def _backward(g):\n"
        "        a.grad += g\n"
        "        b.grad += g\n"
        "    out._backward = _backward\n"
        "    return out",
    ],
    "mul": [
        "Same shape as add; only the local derivatives change. What is d(a * b)/da?",
        "d(a * b)/da = b.data and d(a * b)/db = a.data, each times g, added with +=. "
        "Then mul(x, x) gives x both shares: 2 * x.data * g.",
        "In full:\n\n"
        "    out = Value(a.data * b.data, (a, b), \"*\")\n"
        "    def _backward(g):\n"
        "        a.grad += b.data * g\n"
        "        b.grad += a.data * g\n"
        "    out._backward = _backward\n"
        "    return out",
    ],
    "tanh": [
        "One input this time. The derivative of tanh can be written with tanh itself.",
        "d tanh(a)/da = 1 - tanh(a)**2, and tanh(a) is the output number you already "
        "computed: keep it in a variable the closure can read.",
        "In full:\n\n"
        "    t = math.tanh(a.data)\n"
        "    out = Value(t, (a,), \"tanh\")\n"
        "    def _backward(g):\n"
        "        a.grad += (1 - t * t) * g\n"
        "    out._backward = _backward\n"
        "    return out",
    ],
    "topological_order": [
        "A node may be listed only once all of its inputs (node._prev) are. Recursion "
        "would do it (visit the inputs, then append the node), but a chain of 10,000 "
        "nodes is too deep for it.",
        "Simulate the recursion with a stack of (node, inputs_done) pairs: the first time "
        "a node is popped, push it back marked done and push its unvisited inputs on top; "
        "when it is popped marked done, every input has been listed, so append it. A "
        "visited set lists each node once.",
        "In full:\n\n"
        "    order, visited, stack = [], set(), [(root, False)]\n"
        "    while stack:\n"
        "        node, done = stack.pop()\n"
        "        if done: order.append(node)\n"
        "        elif node not in visited:\n"
        "            visited.add(node)\n"
        "            stack.append((node, True))\n"
        "            for child in reversed(node._prev):\n"
        "                if child not in visited: stack.append((child, False))\n"
        "    return order",
    ],
    "backward": [
        "Each node's closure passes its gradient to its inputs. In which order must the "
        "closures run, so that a node has received everything before it passes it on?",
        "topological_order lists inputs before users; walk it backwards, root first. "
        "Reset the grad of every node that has a closure, set root.grad = 1.0, then call "
        "node._backward(node.grad) for each node with a closure.",
        "In full:\n\n"
        "    order = topological_order(root)\n"
        "    for node in order:\n"
        "        if node._backward is not None: node.grad = 0.0\n"
        "    root.grad = 1.0\n"
        "    for node in reversed(order):\n"
        "        if node._backward is not None: node._backward(node.grad)",
    ],
    "central_difference": [
        "A derivative is a slope: how much does f change between two nearby points, "
        "divided by how far apart they are?",
        "Evaluate f with xs[i] moved up by h and with it moved down by h, each on a copy "
        "of xs, and divide the difference by 2 * h.",
        "In full:\n\n"
        "    up, down = list(xs), list(xs)\n"
        "    up[i] += h\n"
        "    down[i] -= h\n"
        "    return (f(up) - f(down)) / (2 * h)",
    ],
    "power": [
        "Same shape as tanh: one input, one local derivative. What is the slope of a**n, "
        "for any number n?",
        "d(a**n)/da = n * a**(n - 1). Compute it from a.data (not by dividing the output by "
        "a, which fails at 0), multiply by g and add into a.grad. One exception: a**0 is "
        "the constant 1, slope 0 at every a, but n * a**(n - 1) at n = 0, a = 0 is "
        "0 * 0**-1, a ZeroDivisionError: give n == 0 the slope 0 without the formula.",
        "In full:\n\n"
        "    out = Value(a.data ** n, (a,), f\"**{n}\")\n"
        "    def _backward(g):\n"
        "        slope = n * a.data ** (n - 1) if n != 0 else 0.0\n"
        "        a.grad += slope * g\n"
        "    out._backward = _backward\n"
        "    return out",
    ],
}
