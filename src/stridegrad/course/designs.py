"""The teaching engines of episodes 06 and 07, and the reference answers of their exercises.

Two designs of the same scalar reverse-mode engine live here:

**Design A, a backward closure per node** (episode 06). :class:`Value` holds its
number, its gradient, its inputs (``_prev``), an operation label (``_op``) and a
closure ``_backward(g)`` that, given the gradient of this node, adds each
input's share into that input's ``grad``. The closure captures the *inputs*,
never the node it belongs to, so building a graph makes no reference cycle.
:class:`CapturingValue` is micrograd's variant, whose closures capture their own
output: one cycle per node (episode 07 measures what that costs).

**Design B, a class per operation with explicit edges** (episode 07), the way
PyTorch's autograd is laid out. A :class:`Var` is a thin handle: its number,
``grad``, ``requires_grad`` and a pointer ``grad_fn`` to the :class:`Node` that
made it. A node holds what its backward needs (the saved inputs) and its edges
``next_functions``: one ``(node, input_nr)`` pair per input of the operation,
pointing at the node that made that input, at the leaf's
:class:`AccumulateGrad`, or at ``None`` for an input that needs no gradient.
:func:`run_backward` walks the nodes, not the handles; interior gradients live
in the engine's buffers and are dropped as soon as they are used.

The exercise functions are top-level functions with a docstring stating their
contract: the lesson build copies their source into the solution notebooks and
turns their bodies into stubs in the lesson notebooks. The lessons define the
same names themselves, so a notebook always runs the learner's version.

Lesson 06's ``topological_order`` and ``backward`` are not written here: they are
the library's own, :func:`stridegrad.scalar.topological_order` and
:func:`stridegrad.scalar.backward`, which ``stridegrad.Value.backward()`` calls
(so ``stridegrad yours`` can run a learner's); this module imports them for its
engines' ``backward``. What stays here is what only the lessons use:
lesson 06's own ``Value`` and its closures (``add``, ``mul``, ``tanh``, ``power``),
``central_difference``, and lesson 07's comparison (micrograd's cycle-making
``CapturingValue`` and all of design B), which no library engine runs.
"""

from __future__ import annotations

import gc
import math
import weakref

# lesson 06's exercises 4 and 5 are the library's own functions: this module's
# engines run them (Value.backward keeps the lesson's text, `backward(self)`)
from stridegrad.scalar import backward, topological_order

__all__ = [
    # design A (episode 06)
    "Value", "as_value", "add", "mul", "tanh", "power",
    "central_difference", "topological_order_recursive", "CapturingValue",
    # design B (episode 07)
    "Var", "Node", "AccumulateGrad", "AddBackward", "MulBackward", "TanhBackward",
    "grad_accumulator", "gradient_edge", "var_add", "var_mul", "var_tanh",
    "count_dependencies", "run_backward", "count_cycle_garbage",
]


# =========================================================================== design A

class Value:
    """A scalar that remembers how it was made (lesson 06's engine)."""

    def __init__(self, data, children=(), op="", label=""):
        self.data = float(data)
        self.grad = 0.0
        self._prev = tuple(children)  # the input Values, in operand order
        self._op = op  # the operation that made it: "+", "*", "tanh"; "" for a leaf
        self._backward = None  # the closure _backward(g); None for a leaf
        self.label = label

    def __repr__(self):
        name = f"{self.label}: " if self.label else ""
        return f"Value({name}data={self.data:.4g}, grad={self.grad:.4g})"

    def __add__(self, other):
        return add(self, as_value(other))

    def __radd__(self, other):
        return add(as_value(other), self)

    def __mul__(self, other):
        return mul(self, as_value(other))

    def __rmul__(self, other):
        return mul(as_value(other), self)

    def __neg__(self):
        return self * -1.0

    def __sub__(self, other):
        return self + (-as_value(other))

    def tanh(self):
        return tanh(self)

    def backward(self):
        backward(self)


def as_value(x):
    """``x`` itself if it is a Value, else a new leaf Value holding the number ``x``."""
    return x if isinstance(x, Value) else Value(x)


def add(a, b):
    """``a + b`` for two Values, recording how to send the gradient back.

    Returns ``Value(a.data + b.data, (a, b), "+")`` whose ``_backward`` is a
    closure ``_backward(g)``: given ``g``, the gradient of the output, it adds
    ``d(out)/da * g`` into ``a.grad`` and ``d(out)/db * g`` into ``b.grad``
    (``+=``, never ``=``: a Value used twice collects from every use). The
    closure captures ``a`` and ``b``, never the output itself.
    """
    out = Value(a.data + b.data, (a, b), "+")

    def _backward(g):
        a.grad += g
        b.grad += g

    out._backward = _backward
    return out


def mul(a, b):
    """``a * b`` for two Values, recording how to send the gradient back.

    Returns ``Value(a.data * b.data, (a, b), "*")`` whose closure
    ``_backward(g)`` adds ``d(out)/da * g`` into ``a.grad`` and
    ``d(out)/db * g`` into ``b.grad``. It captures ``a`` and ``b``, never the
    output. ``mul(x, x)`` must give ``x`` the gradient ``2 * x.data * g``.
    """
    out = Value(a.data * b.data, (a, b), "*")

    def _backward(g):
        a.grad += b.data * g
        b.grad += a.data * g

    out._backward = _backward
    return out


def tanh(a):
    """``tanh(a)`` for a Value, recording how to send the gradient back.

    Returns ``Value(math.tanh(a.data), (a,), "tanh")`` whose closure
    ``_backward(g)`` adds ``d tanh(a)/da * g`` into ``a.grad``.
    """
    t = math.tanh(a.data)
    out = Value(t, (a,), "tanh")

    def _backward(g):
        a.grad += (1.0 - t * t) * g

    out._backward = _backward
    return out


def topological_order_recursive(root):
    """micrograd's depth-first topological sort: one Python frame per level of the graph."""
    order, visited = [], set()

    def visit(node):
        if node not in visited:
            visited.add(node)
            for child in node._prev:
                visit(child)
            order.append(node)

    visit(root)
    return order


def power(a, n):
    """``a ** n`` for a Value and a constant number ``n``, recording how to send the gradient back.

    ``n`` is an int or a float (not a Value). Returns ``Value(a.data ** n, (a,),
    f"**{n}")`` whose closure ``_backward(g)`` adds ``d(a**n)/da * g`` into
    ``a.grad``. At ``a.data == 0`` the slope is 0 for ``n > 1`` and 1 for ``n == 1``;
    ``a**0`` is the constant 1, whose slope is 0 at every ``a``, 0 included (as in
    PyTorch). A negative or fractional ``n`` at 0 is not asked. It captures ``a``,
    never the output.

    Example:
        >>> x = Value(3.0)
        >>> y = power(x, 2)
        >>> y.data, y._op
        (9.0, '**2')
        >>> y._backward(1.0); x.grad
        6.0
    """
    out = Value(a.data ** n, (a,), f"**{n}")

    def _backward(g):
        a.grad += n * a.data ** (n - 1) * g if n != 0 else 0.0

    out._backward = _backward
    return out


def central_difference(f, xs, i, h=1e-6):
    """The derivative of ``f`` with respect to ``xs[i]``, estimated by a central difference.

    ``f`` takes a list of floats and returns a float. Returns
    ``(f(xs with xs[i] + h) - f(xs with xs[i] - h)) / (2 * h)`` as a float.
    ``xs`` itself is not modified: change copies of it.
    """
    up = list(xs)
    up[i] += h
    down = list(xs)
    down[i] -= h
    return (f(up) - f(down)) / (2 * h)


class CapturingValue:
    """micrograd's Value: each closure captures its own output ``out``, a cycle per node.

    ``out -> out._backward -> (closure cell) -> out``: when the last outside
    reference to a graph goes, reference counting cannot free it; only the
    cycle collector can.
    """

    def __init__(self, data, children=(), op=""):
        self.data = float(data)
        self.grad = 0.0
        self._prev = tuple(children)
        self._op = op
        self._backward = lambda: None

    def __repr__(self):
        return f"CapturingValue(data={self.data:.4g}, grad={self.grad:.4g})"

    def __add__(self, other):
        other = other if isinstance(other, CapturingValue) else CapturingValue(other)
        out = CapturingValue(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, CapturingValue) else CapturingValue(other)
        out = CapturingValue(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = CapturingValue(t, (self,), "tanh")

        def _backward():
            self.grad += (1.0 - t * t) * out.grad

        out._backward = _backward
        return out

    def backward(self):
        order = topological_order(self)
        self.grad = 1.0
        for node in reversed(order):
            node._backward()


# =========================================================================== design B

class Var:
    """A scalar handle in design B: a number and a pointer to the node that made it.

    ``grad`` is None until a backward pass reaches this Var, and only leaves
    get one. ``grad_fn`` is the :class:`Node` that made it (None for a leaf);
    ``output_nr`` says which output of that node it is (always 0 here: every
    operation has one output).
    """

    def __init__(self, data, requires_grad=False, grad_fn=None, output_nr=0, label=""):
        self.data = float(data)
        self.grad = None
        self.requires_grad = bool(requires_grad) or grad_fn is not None
        self.grad_fn = grad_fn
        self.output_nr = output_nr
        self.label = label
        self._accumulator = None  # a weak reference to the leaf's AccumulateGrad, once made

    @property
    def is_leaf(self):
        return self.grad_fn is None

    def detach(self):
        """A new leaf handle on the same number, with no history and no gradient."""
        return Var(self.data)

    def __repr__(self):
        name = f"{self.label}: " if self.label else ""
        extra = f", grad_fn={self.grad_fn!r}" if self.grad_fn is not None else (
            ", requires_grad=True" if self.requires_grad else "")
        grad = "" if self.grad is None else f", grad={self.grad:.4g}"
        return f"Var({name}data={self.data:.4g}{grad}{extra})"


class Node:
    """A backward function: the gradient of its output in, one gradient per input out."""

    def __init__(self, next_functions=()):
        self.next_functions = tuple(next_functions)  # ((node or None, input_nr), ...)

    def name(self):
        return type(self).__name__

    def apply(self, grad):
        raise NotImplementedError

    def __repr__(self):
        return f"<{self.name()}>"


class AccumulateGrad(Node):
    """The sink of a leaf: adds the gradient that arrives into ``variable.grad``."""

    def __init__(self, variable):
        super().__init__(())
        self.variable = variable

    def apply(self, grad):
        v = self.variable
        v.grad = grad if v.grad is None else v.grad + grad
        return ()


class AddBackward(Node):
    def apply(self, grad):
        return (grad, grad)


class MulBackward(Node):
    """Saves the two input numbers: d(a*b)/da = b and d(a*b)/db = a."""

    def __init__(self, next_functions, a, b):
        super().__init__(next_functions)
        self.a, self.b = a, b

    def apply(self, grad):
        return (grad * self.b, grad * self.a)


class TanhBackward(Node):
    """Saves the output number t: d tanh(x)/dx = 1 - t**2."""

    def __init__(self, next_functions, t):
        super().__init__(next_functions)
        self.t = t

    def apply(self, grad):
        return ((1.0 - self.t * self.t) * grad,)


def grad_accumulator(var):
    """The leaf's :class:`AccumulateGrad`, the same one each time while it is alive.

    The Var keeps only a weak reference to it (the node keeps the Var alive,
    the other way round would be a cycle); PyTorch does the same.
    """
    node = var._accumulator() if var._accumulator is not None else None
    if node is None:
        node = AccumulateGrad(var)
        var._accumulator = weakref.ref(node)
    return node


def gradient_edge(var):
    """The edge ``(node, input_nr)`` that an operation taking ``var`` stores to reach it.

    The edge says where the backward pass sends ``var``'s gradient: on to the node
    that made ``var`` (``input_nr`` says which of that node's outputs ``var`` is),
    into the node that adds it to a leaf's ``grad`` (``grad_accumulator``), or
    nowhere (``node`` None) when ``var`` wants no gradient. As in PyTorch
    (``torch::autograd::impl::gradient_edge``), every use of one leaf reaches the
    same node, the one ``grad_accumulator(var)`` gives, and a Var made by an
    operation, which requires grad too, sends its gradient on through its history.

    Returns:
        a tuple ``(node, input_nr)``; ``(None, 0)`` exactly when no gradient is wanted.
    """
    if var.grad_fn is not None:
        return (var.grad_fn, var.output_nr)
    if var.requires_grad:
        return (grad_accumulator(var), 0)
    return (None, 0)


def var_add(a, b):
    """``a + b`` in design B."""
    if not (a.requires_grad or b.requires_grad):
        return Var(a.data + b.data)
    node = AddBackward((gradient_edge(a), gradient_edge(b)))
    return Var(a.data + b.data, grad_fn=node)


def var_mul(a, b):
    """``a * b`` in design B: the output Var and, when a gradient is wanted, its node.

    The output holds ``a.data * b.data``. As in PyTorch, it has a history only when
    ``a`` or ``b`` requires grad: then its ``grad_fn`` is a :class:`MulBackward` with
    one edge per input, in operand order (``gradient_edge(a)``, then
    ``gradient_edge(b)``), that keeps the numbers its ``apply`` needs, never the Vars.
    """
    if not (a.requires_grad or b.requires_grad):
        return Var(a.data * b.data)
    node = MulBackward((gradient_edge(a), gradient_edge(b)), a.data, b.data)
    return Var(a.data * b.data, grad_fn=node)


def var_tanh(a):
    """``tanh(a)`` in design B."""
    t = math.tanh(a.data)
    if not a.requires_grad:
        return Var(t)
    return Var(t, grad_fn=TanhBackward((gradient_edge(a),), t))


def count_dependencies(root):
    """For every node reachable from the node ``root``, how many edges point at it.

    The edges are the entries of ``next_functions`` (``None`` nodes are not
    nodes). A node that is the target of two edges (``x * x`` gives two edges to
    ``x``'s accumulator) counts 2, each edge counted once however many paths lead
    to the node it leaves from; ``root`` maps to 0. A chain of 10,000 nodes must
    work at Python's default recursion limit.

    Returns:
        a dict ``{node: count}``.
    """
    counts = {root: 0}
    stack = [root]
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            if next_node not in counts:  # first time reached: explore it once
                counts[next_node] = 0
                stack.append(next_node)
            counts[next_node] += 1
    return counts


def run_backward(root):
    """Backpropagate from the Var ``root``: every leaf it depends on gets d(root)/d(leaf) added to ``grad``.

    Raise ``RuntimeError`` if ``root`` has no ``grad_fn``. ``root``'s gradient
    is 1.0. Every node's ``apply(g)`` is called exactly once, with ``g`` the sum
    of all the gradient that reaches it; ``apply`` returns one gradient per entry
    of ``next_functions``, in that order (``None`` entries lead nowhere).
    Interior gradients are never stored on Vars. A chain of 10,000 nodes must work
    at Python's default recursion limit.
    """
    if root.grad_fn is None:
        raise RuntimeError(f"{root!r} has no grad_fn: nothing to backpropagate through")
    deps = count_dependencies(root.grad_fn)
    buffers = {root.grad_fn: 1.0}
    ready = [root.grad_fn]
    while ready:
        node = ready.pop()
        grads = node.apply(buffers.pop(node))
        for (next_node, _), g in zip(node.next_functions, grads):
            if next_node is None:
                continue
            buffers[next_node] = buffers.get(next_node, 0.0) + g
            deps[next_node] -= 1
            if deps[next_node] == 0:
                ready.append(next_node)


def count_cycle_garbage(build):
    """How many objects only the cycle collector can free once what ``build()`` makes is dropped.

    Returns the number of unreachable objects a collection finds after
    ``build()``'s result is dropped (what reference counting could not free),
    not counting garbage from before the call, with the automatic collector kept
    from running in between. Afterwards the automatic collector is on again if it
    was on before and off if it was off, even if ``build`` raised (its exception
    goes through to the caller).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        build()
        return gc.collect()
    finally:
        if was_enabled:
            gc.enable()
