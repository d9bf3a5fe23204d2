"""The scalar reverse-mode autograd engine of episode 6.

A :class:`Value` wraps one Python float. Every operation on Values makes a new
Value that remembers its inputs, a label, and a *backward closure*: a small
function that knows the local derivatives of that one operation and maps the
output's gradient to its inputs' gradients. ``loss.backward()`` orders the graph
so that every node comes after all the nodes that use it (a topological order),
then walks it from the loss down, calling each closure and adding what it
returns into its inputs' ``grad``.

Two choices differ from micrograd, and both are what episode 6 is about:

* The topological sort uses an explicit stack, not recursion, so a chain of
  100,000 operations works at Python's default recursion limit.
* A closure never captures a Value, only the numbers it needs; the engine
  passes the output's gradient in (``node._backward(node.grad)``) and routes the
  result to the inputs. micrograd's closures capture their own output ``out``,
  so each node is a reference cycle ``out -> closure -> out``: every graph then
  outlives its loss until the cycle collector finds it, which is most of why
  micrograd is slow. Here a graph is freed the moment its loss is dropped.

The attributes a graph drawer reads:

``data``       float, the value (a plain attribute: ``p.data -= lr * p.grad``)
``grad``       float, d(root)/d(this node) after ``root.backward()``
``_prev``      tuple of the input Values in operand order (``a + a`` gives
               ``(a, a)``; micrograd uses a set); ``()`` for a leaf. Python
               numbers mixed into an operation are constants, not inputs.
``_op``        str label of the operation that made the node (``"+"``, ``"*"``,
               ``"/"``, ``"**2"``, ``"exp"``, ``"log"``, ``"tanh"``, ``"relu"``,
               ``"sigmoid"``); ``""`` for a leaf
``_backward``  the closure ``f(out_grad)``: returns the gradient for the one input
               (a float) or the pair for two inputs; ``None`` for a leaf
"""

from __future__ import annotations

import math
from numbers import Real

__all__ = ["Value"]

_new = object.__new__
_exp = math.exp
_log = math.log
_tanh = math.tanh


# Operations whose local derivatives are constants share one module-level
# function instead of making a closure per node.
def _through(g: float) -> float:
    """Backward of ``v + c`` and of a relu that is on: d/dv = 1."""
    return g


def _through_both(g: float) -> tuple[float, float]:
    """Backward of ``a + b``: d/da = d/db = 1."""
    return g, g


def _blocked(g: float) -> float:
    """Backward of a relu that is off: d/dv = 0."""
    return 0.0


def _as_float(x: object, what: str) -> float:
    """``float(x)`` for a real number, else TypeError naming ``what``."""
    if isinstance(x, Value) or not isinstance(x, Real):
        raise TypeError(f"{what} must be a real number, got {type(x).__name__} {x!r}")
    return float(x)


class Value:
    """A scalar that records the operations applied to it, for reverse-mode autograd.

    ``Value(data)`` makes a leaf (a parameter or an input). ``data`` and ``grad``
    are plain float attributes a training loop may assign. Operations: ``+ - * /``
    with Values or real numbers on either side, ``v ** k`` for a number ``k``,
    unary ``-``, and :meth:`exp`, :meth:`log`, :meth:`tanh`, :meth:`relu`,
    :meth:`sigmoid`. See the module docstring for ``_prev``, ``_op`` and
    ``_backward``.
    """

    # Inputs live in two slots rather than a tuple: one object fewer per node
    # for the cycle collector to walk (it walks every live object, cycles or
    # not). ``_b`` is None for one-input operations, ``_a`` is None for leaves.
    __slots__ = ("__weakref__", "_a", "_b", "_backward", "_op", "data", "grad")

    def __init__(self, data) -> None:
        self.data = data if type(data) is float else _as_float(data, "Value data")
        self.grad = 0.0
        self._a = None
        self._b = None
        self._op = ""
        self._backward = None

    @property
    def _prev(self) -> tuple[Value, ...]:
        """The input Values, in operand order; ``()`` for a leaf."""
        if self._a is None:
            return ()
        if self._b is None:
            return (self._a,)
        return (self._a, self._b)

    def __repr__(self) -> str:
        if self._op:
            return f"Value(data={self.data!r}, grad={self.grad!r}, op={self._op!r})"
        return f"Value(data={self.data!r}, grad={self.grad!r})"

    # -------------------------------------------------------------- primitives
    # A closure gets the numbers it needs as default arguments, bound when the
    # node is made. Closure cells would add three objects per node for the cycle
    # collector to track (two cells and their tuple); a defaults tuple is one,
    # and the collector stops tracking it once it sees it holds only floats.

    def __add__(self, other):
        if isinstance(other, Value):
            # _node(...) written out: + and * are most of a network's nodes
            out = _new(Value)
            out.data = self.data + other.data
            out.grad = 0.0
            out._a = self
            out._b = other
            out._op = "+"
            out._backward = _through_both
            return out
        if isinstance(other, Real):
            return _node(self.data + float(other), self, None, "+", _through)
        return NotImplemented

    def __mul__(self, other):
        if isinstance(other, Value):
            a = self.data
            b = other.data
            out = _new(Value)
            out.data = a * b
            out.grad = 0.0
            out._a = self
            out._b = other
            out._op = "*"
            out._backward = lambda g, a=a, b=b: (b * g, a * g)
            return out
        if isinstance(other, Real):
            c = float(other)
            return _node(self.data * c, self, None, "*", lambda g, c=c: c * g)
        return NotImplemented

    def __truediv__(self, other):
        # A primitive rather than self * other**-1, so that (a / b).data is
        # exactly a.data / b.data, as a learner checking by hand expects.
        if isinstance(other, Value):
            a = self.data
            b = other.data
            if b == 0.0:
                raise ZeroDivisionError(f"division by zero: {self!r} / {other!r}")
            return _node(a / b, self, other, "/", lambda g, a=a, b=b: (g / b, -g * a / (b * b)))
        if isinstance(other, Real):
            c = float(other)
            if c == 0.0:
                raise ZeroDivisionError(f"division by zero: {self!r} / {other!r}")
            return _node(self.data / c, self, None, "/", lambda g, c=c: g / c)
        return NotImplemented

    def __rtruediv__(self, other):
        if isinstance(other, Real):
            c = float(other)
            x = self.data
            if x == 0.0:
                raise ZeroDivisionError(f"division by zero: {other!r} / {self!r}")
            return _node(c / x, self, None, "/", lambda g, c=c, x=x: -g * c / (x * x))
        return NotImplemented

    def __pow__(self, exponent):
        if isinstance(exponent, Value):
            raise TypeError(
                f"the exponent must be a number, not a Value: {self!r} ** {exponent!r}; "
                "for a Value exponent write (exponent * base.log()).exp()"
            )
        if not isinstance(exponent, Real):
            return NotImplemented
        k = exponent
        x = self.data
        try:
            y = x**k
        except ZeroDivisionError:
            raise ZeroDivisionError(f"{self!r} ** {k!r}: zero to a negative power") from None
        except OverflowError:
            raise OverflowError(f"{self!r} ** {k!r} overflows a float") from None
        if isinstance(y, complex):  # a negative base to a fractional power
            raise ValueError(f"{self!r} ** {k!r} is not a real number")  # noqa: TRY004
        return _node(float(y), self, None, f"**{k}", lambda g, k=k, x=x: _pow_grad(x, k, g))

    def __rpow__(self, base):
        raise TypeError(
            f"the exponent must be a number, not a Value: {base!r} ** {self!r}; "
            "for a Value exponent write (exponent * math.log(base)).exp()"
        )

    def exp(self) -> Value:
        """e ** self."""
        try:
            e = _exp(self.data)
        except OverflowError:
            raise OverflowError(f"exp of {self!r} overflows a float") from None
        return _node(e, self, None, "exp", lambda g, e=e: e * g)

    def log(self) -> Value:
        """Natural logarithm; ValueError unless data > 0."""
        x = self.data
        if not x > 0.0:
            raise ValueError(f"log needs a positive number, got {self!r}")
        return _node(_log(x), self, None, "log", lambda g, x=x: g / x)

    def tanh(self) -> Value:
        """Hyperbolic tangent."""
        t = _tanh(self.data)
        return _node(t, self, None, "tanh", lambda g, t=t: (1.0 - t * t) * g)

    def relu(self) -> Value:
        """max(0, self); the gradient at 0 is taken to be 0."""
        x = self.data
        if x > 0.0:
            return _node(x, self, None, "relu", _through)
        return _node(x if math.isnan(x) else 0.0, self, None, "relu", _blocked)

    def sigmoid(self) -> Value:
        """1 / (1 + e ** -self), computed without overflow for large |self|."""
        x = self.data
        if x >= 0.0:
            s = 1.0 / (1.0 + _exp(-x))
        else:
            e = _exp(x)
            s = e / (1.0 + e)
        return _node(s, self, None, "sigmoid", lambda g, s=s: s * (1.0 - s) * g)

    # ------------------------------------------------------------ composed ops

    def __neg__(self) -> Value:
        return self * -1.0

    def __radd__(self, other):
        return self.__add__(other)

    def __rmul__(self, other):
        return self.__mul__(other)

    def __sub__(self, other):
        if isinstance(other, (Value, Real)):
            return self + (-other)
        return NotImplemented

    def __rsub__(self, other):
        if isinstance(other, Real):
            return (-self) + other
        return NotImplemented

    # ---------------------------------------------------------------- backward

    def backward(self) -> None:
        """Backpropagate from this Value: every node's ``grad`` gets d(self)/d(node).

        Leaves (made by ``Value(x)``) *accumulate*: d(self)/d(leaf) is added to
        their ``grad``, so a second ``backward`` adds it again; zero them between
        training steps. Interior nodes are reset on every call and hold this
        call's gradient. ``self.grad`` is set to 1.
        """
        order = _topological_order(self)
        self.grad = 1.0
        for node in reversed(order):
            if node._b is None:
                node._a.grad += node._backward(node.grad)
            else:
                ga, gb = node._backward(node.grad)
                node._a.grad += ga
                node._b.grad += gb


def _node(data: float, a: Value, b: Value | None, op: str, backward) -> Value:
    """A new interior Value; skips ``__init__``'s checks (data is a float here)."""
    out = _new(Value)
    out.data = data
    out.grad = 0.0
    out._a = a
    out._b = b
    out._op = op
    out._backward = backward
    return out


def _pow_grad(x: float, k: float, g: float) -> float:
    """d(x ** k)/dx * g, with a clear error where the derivative is infinite."""
    if k == 0:
        return 0.0
    try:
        return k * x ** (k - 1) * g
    except ZeroDivisionError:
        raise ZeroDivisionError(f"the derivative of x ** {k!r} is infinite at x = {x!r}") from None


def _topological_order(root: Value) -> list[Value]:
    """Interior nodes reachable from ``root``, each listed after all of its inputs.

    An iterative depth-first search over an explicit stack. A Value on the stack
    is a node to expand: push a marker ``(node,)``, then its inputs above it. When
    the marker comes off the stack, every input has been listed, so the node is
    listed. Leaves are left out (they have no closure to run) and every listed
    node's ``grad`` is reset to 0. A node is marked visited when it is expanded,
    not when pushed: marking at push time would list a node before a user of it
    that the search finds later.
    """
    order: list[Value] = []
    if root._a is None:
        return order
    visited: set[Value] = set()
    stack: list = [root]
    push = stack.append
    pop = stack.pop
    while stack:
        node = pop()
        if type(node) is tuple:  # the marker: all inputs are listed
            order.append(node[0])
            continue
        if node in visited:  # a stale entry: pushed by another user earlier
            continue
        visited.add(node)
        node.grad = 0.0
        push((node,))
        a = node._a
        if a._a is not None and a not in visited:
            push(a)
        b = node._b
        if b is not None and b._a is not None and b not in visited:
            push(b)
    return order
