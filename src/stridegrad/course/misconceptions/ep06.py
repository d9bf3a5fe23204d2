"""Known-wrong implementations of episode 06's exercises (scalar autograd)."""

_VALUE = "from stridegrad.course.designs import Value\nimport math\n"

_TOPO = '''
def topological_order(root):
    order, visited, stack = [], set(), [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
        elif node not in visited:
            visited.add(node)
            stack.append((node, True))
            for child in node._prev:
                if child not in visited:
                    stack.append((child, False))
    return order
'''

WRONG = {
    "add": [
        ("= instead of +=", _VALUE + """
def add(a, b):
    out = Value(a.data + b.data, (a, b), "+")
    def _backward(g):
        a.grad = g
        b.grad = g
    out._backward = _backward
    return out
"""),
        ("closure captures its output", _VALUE + """
def add(a, b):
    out = Value(a.data + b.data, (a, b), "+")
    def _backward(g):
        out.grad = g
        a.grad += out.grad
        b.grad += out.grad
    out._backward = _backward
    return out
"""),
        ("forgets the inputs", _VALUE + """
def add(a, b):
    out = Value(a.data + b.data)
    def _backward(g):
        a.grad += g
        b.grad += g
    out._backward = _backward
    return out
"""),
        ("only the first input", _VALUE + """
def add(a, b):
    out = Value(a.data + b.data, (a, b), "+")
    def _backward(g):
        a.grad += g
    out._backward = _backward
    return out
"""),
    ],
    "mul": [
        ("= instead of +=", _VALUE + """
def mul(a, b):
    out = Value(a.data * b.data, (a, b), "*")
    def _backward(g):
        a.grad = b.data * g
        b.grad = a.data * g
    out._backward = _backward
    return out
"""),
        ("own data instead of the other's", _VALUE + """
def mul(a, b):
    out = Value(a.data * b.data, (a, b), "*")
    def _backward(g):
        a.grad += a.data * g
        b.grad += b.data * g
    out._backward = _backward
    return out
"""),
        ("forgets the incoming gradient", _VALUE + """
def mul(a, b):
    out = Value(a.data * b.data, (a, b), "*")
    def _backward(g):
        a.grad += b.data
        b.grad += a.data
    out._backward = _backward
    return out
"""),
    ],
    "tanh": [
        ("derivative from the input", _VALUE + """
def tanh(a):
    out = Value(math.tanh(a.data), (a,), "tanh")
    def _backward(g):
        a.grad += (1.0 - a.data ** 2) * g
    out._backward = _backward
    return out
"""),
        ("sigmoid's derivative", _VALUE + """
def tanh(a):
    t = math.tanh(a.data)
    out = Value(t, (a,), "tanh")
    def _backward(g):
        a.grad += t * (1.0 - t) * g
    out._backward = _backward
    return out
"""),
        ("forgets the incoming gradient", _VALUE + """
def tanh(a):
    t = math.tanh(a.data)
    out = Value(t, (a,), "tanh")
    def _backward(g):
        a.grad += 1.0 - t * t
    out._backward = _backward
    return out
"""),
        ("= instead of +=", _VALUE + """
def tanh(a):
    t = math.tanh(a.data)
    out = Value(t, (a,), "tanh")
    def _backward(g):
        a.grad = (1.0 - t * t) * g
    out._backward = _backward
    return out
"""),
    ],
    "topological_order": [
        ("recursive (overflows on a 10,000-step chain)", """
def topological_order(root):
    order, visited = [], set()
    def visit(node):
        if node not in visited:
            visited.add(node)
            for child in node._prev:
                visit(child)
            order.append(node)
    visit(root)
    return order
"""),
        ("reversed: root first", _TOPO.replace("    return order", "    return order[::-1]")),
        ("no visited set: shared nodes twice", """
def topological_order(root):
    order, stack = [], [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
        else:
            stack.append((node, True))
            for child in node._prev:
                stack.append((child, False))
    return order
"""),
        ("leaves left out", _TOPO.replace("            order.append(node)",
                                          "            if node._prev:\n"
                                          "                order.append(node)")),
    ],
    "backward": [
        ("walks leaves first", _TOPO + """
def backward(root):
    order = topological_order(root)
    for node in order:
        if node._backward is not None:
            node.grad = 0.0
    root.grad = 1.0
    for node in order:
        if node._backward is not None:
            node._backward(node.grad)
"""),
        ("forgets to seed the root", _TOPO + """
def backward(root):
    for node in reversed(topological_order(root)):
        if node._backward is not None:
            node._backward(node.grad)
"""),
        ("no reset of interior nodes (micrograd)", _TOPO + """
def backward(root):
    order = topological_order(root)
    root.grad = 1.0
    for node in reversed(order):
        if node._backward is not None:
            node._backward(node.grad)
"""),
        ("recursive order", """
def topological_order(root):
    order, visited = [], set()
    def visit(node):
        if node not in visited:
            visited.add(node)
            for child in node._prev:
                visit(child)
            order.append(node)
    visit(root)
    return order

def backward(root):
    order = topological_order(root)
    for node in order:
        if node._backward is not None:
            node.grad = 0.0
    root.grad = 1.0
    for node in reversed(order):
        if node._backward is not None:
            node._backward(node.grad)
"""),
    ],
    "central_difference": [
        ("forward difference", """
def central_difference(f, xs, i, h=1e-6):
    up = list(xs)
    up[i] += h
    return (f(up) - f(list(xs))) / h
"""),
        ("divides by h", """
def central_difference(f, xs, i, h=1e-6):
    up, down = list(xs), list(xs)
    up[i] += h
    down[i] -= h
    return (f(up) - f(down)) / h
"""),
        ("modifies xs", """
def central_difference(f, xs, i, h=1e-6):
    xs[i] += h
    high = f(xs)
    xs[i] -= 2 * h
    low = f(xs)
    return (high - low) / (2 * h)
"""),
        ("ignores the given h", """
def central_difference(f, xs, i, h=1e-6):
    up, down = list(xs), list(xs)
    up[i] += 1e-5
    down[i] -= 1e-5
    return (f(up) - f(down)) / 2e-5
"""),
    ],
}
