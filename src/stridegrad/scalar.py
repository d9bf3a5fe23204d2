"""The scalar reverse-mode autograd engine of episode 6.

A :class:`Value` wraps one Python float. Every operation on Values makes a new
Value that remembers its inputs, the *rule* of its operation and the numbers
that rule needs. A rule is a small module-level function, one per kind of
operation (not one per node): ``rule(g, x, y)`` maps the output's gradient ``g``
to its inputs' gradients, given the two numbers ``x`` and ``y`` the node saved
when it was made (``a.data`` and ``b.data`` for ``a * b``; the constant ``c``
for ``a * c``; the result ``t`` for ``tanh``). ``loss.backward()`` orders the
graph so that every node comes after all the nodes that use it (a topological
order), then walks it from the loss down, applying each node's rule and adding
what it returns into its inputs' ``grad``.

Three choices differ from micrograd. The first two are what episode 6 is
about; the third is for speed (issue #30: ``stridegrad bench`` times micrograd's
demo step on both engines).

* The topological sort uses an explicit stack, not recursion, so a chain of
  100,000 operations works at Python's default recursion limit.
* Nothing a node keeps for its backward is a Value other than its inputs, and
  nothing refers back to the node: micrograd's closures capture their own
  output ``out``, so each node is a reference cycle ``out -> closure -> out``,
  and every graph then outlives its loss until the cycle collector finds it,
  which is most of why micrograd is slow. Here a graph is freed the moment its
  loss is dropped.
* A node is one object. micrograd's ``a * b`` makes seven that the cycle
  collector tracks (the Value, its ``_prev`` set, the closure, its three cells
  and their tuple); an earlier version of this engine made two (the Value and a
  closure). The collector runs after every 700 new tracked objects and, every
  hundred runs or so, walks all live objects, the graph being built included,
  so the objects per node set how often it runs and how long it takes: it was
  more than half the time of a training step. The backward pass allocates no
  object per node either (see :func:`_topological_order`), and it runs the
  rules of ``+`` and ``*``, most of a network's nodes, inline, the others by a
  call.

The engine is lesson 06's exercises. :func:`topological_order` and :func:`backward`
are the lesson's reference answers, written against the lesson's ``Value``
(``node._prev``, ``node._backward(g)``), and ``Value.backward()`` calls them through
this module's attributes, so ``stridegrad yours`` runs a learner's own on every
``loss.backward()``. While both attributes are this module's own functions,
``Value.backward()`` runs :func:`_backward_pass` instead: the same pass over this
engine's nodes, written for speed (no set, no tuple per node), in the same order,
so it gives the same gradients to the last bit (``tests/test_scalar.py`` compares
the two on random graphs).

The attributes a graph drawer reads:

``data``       float, the value (a plain attribute: ``p.data -= lr * p.grad``)
``grad``       float, d(root)/d(this node) after ``root.backward()``
``_prev``      tuple of the input Values in operand order (``a + a`` gives
               ``(a, a)``; micrograd uses a set); ``()`` for a leaf. Python
               numbers mixed into an operation are constants, not inputs.
``_op``        str label of the operation that made the node (``"+"``, ``"*"``,
               ``"/"``, ``"**2"``, ``"exp"``, ``"log"``, ``"tanh"``, ``"relu"``,
               ``"sigmoid"``); ``""`` for a leaf
``_backward``  the node's backward ``f(out_grad)``, as lesson 06's closures are:
               it adds the node's rule applied to ``out_grad`` into its inputs'
               ``grad`` (``+=``) and returns None; ``None`` for a leaf. It is the
               node's bound method :meth:`Value._send`, made on request: nothing
               is stored per node, so no node refers to itself.

The saved numbers are those of the forward pass: changing a leaf's ``data``
between an operation and ``backward()`` does not change the gradients that
operation sends back (as the closures of earlier versions captured them).
"""

from __future__ import annotations

import math
import sys
from numbers import Real

__all__ = ["Value", "backward", "topological_order"]

#: this module: ``Value.backward()`` reads its attributes when it runs, so that
#: setting ``stridegrad.scalar.backward`` (``stridegrad yours``) changes what runs
_this = sys.modules[__name__]

_new = object.__new__
_exp = math.exp
_log = math.log
_tanh = math.tanh


# ------------------------------------------------------------------ the rules
# One function per kind of node, named _d_<operation> (_c: with a constant):
# rule(g, x, y) -> the input's gradient (one input) or the pair (two inputs),
# where x and y are the numbers the node saved and g is its own gradient.


def _d_add(g: float, x, y) -> tuple[float, float]:
    """``a + b``: d/da = d/db = 1."""
    return g, g


def _d_add_c(g: float, x, y) -> float:
    """``a + c``: d/da = 1."""
    return g


def _d_mul(g: float, x: float, y: float) -> tuple[float, float]:
    """``a * b`` with x = a.data, y = b.data: d/da = b, d/db = a."""
    return y * g, x * g


def _d_mul_c(g: float, x: float, y) -> float:
    """``a * c`` with x = c: d/da = c."""
    return x * g


def _d_div(g: float, x: float, y: float) -> tuple[float, float]:
    """``a / b`` with x = a.data, y = b.data: d/da = 1/b, d/db = -a/b**2."""
    return g / y, -g * x / (y * y)


def _d_div_c(g: float, x: float, y) -> float:
    """``a / c`` with x = c: d/da = 1/c."""
    return g / x


def _d_c_div(g: float, x: float, y: float) -> float:
    """``c / a`` with x = c, y = a.data: d/da = -c/a**2."""
    return -g * x / (y * y)


def _d_pow(g: float, x, y: float) -> float:
    """``a ** k`` with x = k, y = a.data: d/da = k a**(k-1)."""
    return _pow_grad(y, x, g)


def _d_exp(g: float, x: float, y) -> float:
    """``exp(a)`` with x = e**a: d/da = e**a."""
    return x * g


def _d_log(g: float, x: float, y) -> float:
    """``log(a)`` with x = a.data: d/da = 1/a."""
    return g / x


def _d_tanh(g: float, x: float, y) -> float:
    """``tanh(a)`` with x = tanh(a): d/da = 1 - tanh(a)**2."""
    return (1.0 - x * x) * g


def _d_relu_on(g: float, x, y) -> float:
    """``relu(a)`` for a > 0: d/da = 1."""
    return g


def _d_relu_off(g: float, x, y) -> float:
    """``relu(a)`` for a <= 0 (and NaN): d/da = 0."""
    return 0.0


def _d_sigmoid(g: float, x: float, y) -> float:
    """``sigmoid(a)`` with x = sigmoid(a): d/da = s (1 - s)."""
    return x * (1.0 - x) * g


# the label ``_op`` of each rule's nodes (``a ** k`` makes its own: ``"**k"``)
_LABELS = {
    _d_add: "+", _d_add_c: "+", _d_mul: "*", _d_mul_c: "*", _d_div: "/", _d_div_c: "/", _d_c_div: "/",
    _d_exp: "exp", _d_log: "log", _d_tanh: "tanh", _d_relu_on: "relu",
    _d_relu_off: "relu", _d_sigmoid: "sigmoid",
}


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

    # A node is this one object: inputs in two slots rather than a tuple (``_b``
    # is None for one-input operations, ``_a`` for leaves), its rule (None for a
    # leaf) and the two numbers the rule needs (None where unused).
    __slots__ = ("__weakref__", "_a", "_b", "_rule", "_x", "_y", "data", "grad")

    def __init__(self, data) -> None:
        self.data = data if type(data) is float else _as_float(data, "Value data")
        self.grad = 0.0
        self._a = None
        self._b = None
        self._rule = None
        self._x = None
        self._y = None

    @property
    def _prev(self) -> tuple[Value, ...]:
        """The input Values, in operand order; ``()`` for a leaf."""
        if self._a is None:
            return ()
        if self._b is None:
            return (self._a,)
        return (self._a, self._b)

    @property
    def _op(self) -> str:
        """The label of the operation that made this node; ``""`` for a leaf."""
        rule = self._rule
        if rule is None:
            return ""
        if rule is _d_pow:
            return f"**{self._x}"
        return _LABELS[rule]

    @property
    def _backward(self):
        """This node's backward ``f(out_grad)`` (the bound method :meth:`_send`); None for a leaf."""
        if self._rule is None:
            return None
        return self._send

    def _send(self, g: float) -> None:
        """Add this node's share of ``g``, its own gradient, into its inputs' ``grad``.

        The arithmetic of :func:`_backward_pass`, exactly: the two give the same bits.
        """
        rule = self._rule
        if rule is _d_add:
            self._a.grad += g
            self._b.grad += g
        elif rule is _d_mul:
            self._a.grad += self._y * g
            self._b.grad += self._x * g
        elif self._b is None:
            self._a.grad += rule(g, self._x, self._y)
        else:
            ga, gb = rule(g, self._x, self._y)
            self._a.grad += ga
            self._b.grad += gb

    def __repr__(self) -> str:
        if self._rule is not None:
            return f"Value(data={self.data!r}, grad={self.grad!r}, op={self._op!r})"
        return f"Value(data={self.data!r}, grad={self.grad!r})"

    # -------------------------------------------------------------- primitives

    def __add__(self, other):
        if isinstance(other, Value):
            # _node(...) written out: + and * are most of a network's nodes
            out = _new(Value)
            out.data = self.data + other.data
            out.grad = 0.0
            out._a = self
            out._b = other
            out._rule = _d_add
            out._x = None
            out._y = None
            return out
        if type(other) is float or type(other) is int or isinstance(other, Real):
            return _node(self.data + float(other), self, None, _d_add_c, None, None)
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
            out._rule = _d_mul
            out._x = a
            out._y = b
            return out
        if type(other) is float or type(other) is int or isinstance(other, Real):
            c = float(other)
            return _node(self.data * c, self, None, _d_mul_c, c, None)
        return NotImplemented

    def __truediv__(self, other):
        # A primitive rather than self * other**-1, so that (a / b).data is
        # exactly a.data / b.data, as a learner checking by hand expects.
        if isinstance(other, Value):
            a = self.data
            b = other.data
            if b == 0.0:
                raise ZeroDivisionError(f"division by zero: {self!r} / {other!r}")
            return _node(a / b, self, other, _d_div, a, b)
        if isinstance(other, Real):
            c = float(other)
            if c == 0.0:
                raise ZeroDivisionError(f"division by zero: {self!r} / {other!r}")
            return _node(self.data / c, self, None, _d_div_c, c, None)
        return NotImplemented

    def __rtruediv__(self, other):
        if isinstance(other, Real):
            c = float(other)
            x = self.data
            if x == 0.0:
                raise ZeroDivisionError(f"division by zero: {other!r} / {self!r}")
            return _node(c / x, self, None, _d_c_div, c, x)
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
        # k is kept as given: the label is f"**{k}" and the rule computes with it
        return _node(float(y), self, None, _d_pow, k, x)

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
        return _node(e, self, None, _d_exp, e, None)

    def log(self) -> Value:
        """Natural logarithm; ValueError unless data > 0."""
        x = self.data
        if not x > 0.0:
            raise ValueError(f"log needs a positive number, got {self!r}")
        return _node(_log(x), self, None, _d_log, x, None)

    def tanh(self) -> Value:
        """Hyperbolic tangent."""
        t = _tanh(self.data)
        return _node(t, self, None, _d_tanh, t, None)

    def relu(self) -> Value:
        """max(0, self); the gradient at 0 is taken to be 0."""
        x = self.data
        if x > 0.0:
            return _node(x, self, None, _d_relu_on, None, None)
        return _node(x if math.isnan(x) else 0.0, self, None, _d_relu_off, None, None)

    def sigmoid(self) -> Value:
        """1 / (1 + e ** -self), computed without overflow for large |self|."""
        x = self.data
        if x >= 0.0:
            s = 1.0 / (1.0 + _exp(-x))
        else:
            e = _exp(x)
            s = e / (1.0 + e)
        return _node(s, self, None, _d_sigmoid, s, None)

    # ------------------------------------------------------------ composed ops

    def __neg__(self) -> Value:
        return self * -1.0

    # c + v is v + c, exactly (float addition and multiplication commute)
    __radd__ = __add__
    __rmul__ = __mul__

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

        Runs this module's :func:`backward` (lesson 06's, or whichever function
        ``stridegrad.scalar.backward`` is now); while it and ``topological_order``
        are the module's own, the same pass written for speed.
        """
        if _this.backward is _own_backward and _this.topological_order is _own_topological_order:
            _backward_pass(self)
        else:
            _this.backward(self)


def _backward_pass(root: Value) -> None:
    """:func:`backward` of this engine's own nodes, fast: the same gradients, bit for bit.

    The same order (:func:`_topological_order` lists the interior nodes as
    :func:`topological_order` does, leaves left out: they have nothing to run),
    the same resets (a listed node's ``grad`` is a zero) and the same arithmetic
    (:meth:`Value._send`'s, with the rules of ``+`` and ``*`` written out).
    """
    order = _topological_order(root)
    root.grad = 1.0
    for node in reversed(order):
        g = node.grad
        rule = node._rule
        # the rules of + and * written out (most nodes); the rest by a call
        if rule is _d_add:
            node._a.grad += g
            node._b.grad += g
        elif rule is _d_mul:
            node._a.grad += node._y * g
            node._b.grad += node._x * g
        elif node._b is None:
            node._a.grad += rule(g, node._x, node._y)
        else:
            ga, gb = rule(g, node._x, node._y)
            node._a.grad += ga
            node._b.grad += gb


def _node(data: float, a: Value, b: Value | None, rule, x, y) -> Value:
    """A new interior Value; skips ``__init__``'s checks (data is a float here)."""
    out = _new(Value)
    out.data = data
    out.grad = 0.0
    out._a = a
    out._b = b
    out._rule = rule
    out._x = x
    out._y = y
    return out


def _pow_grad(x: float, k: float, g: float) -> float:
    """d(x ** k)/dx * g, with a clear error where the derivative is infinite."""
    if k == 0:
        return 0.0
    try:
        return k * x ** (k - 1) * g
    except ZeroDivisionError:
        raise ZeroDivisionError(f"the derivative of x ** {k!r} is infinite at x = {x!r}") from None


class _Zero(float):
    """A zero that is also a mark: ``_topological_order`` puts a fresh one in ``grad``.

    A float subclass, so that ``grad += g`` works on it as on ``0.0`` (and gives
    a plain float), and so that two of them are two objects on any Python: the
    identity test ``node.grad is opened`` is true only for the object this pass
    made. Never GC-tracked: it holds no references.
    """

    __slots__ = ()


def _topological_order(root: Value) -> list[Value]:
    """Interior nodes reachable from ``root``, each listed after all of its inputs.

    An iterative depth-first search over an explicit stack. Each listed node's
    ``grad`` is reset to zero, and the zero it gets doubles as its visited mark:
    two zeros of this call's own (:class:`_Zero`), ``opened`` while the node's
    inputs are being listed and ``done`` once it is listed. A node popped with
    neither is expanded: it gets ``opened`` and goes back on the stack under its
    inputs. When it comes off again (``opened``), every input has been listed,
    so it is listed and gets ``done``. A node is marked when it is expanded, not
    when pushed: marking at push time would list a node before a user of it
    that the search finds later, so a node pushed twice comes off ``done`` the
    second time and is skipped. The marks cost no set and no object per node:
    the search allocates nothing the cycle collector counts. Leaves are left
    out (they have no rule to run) and keep their ``grad``.

    The inputs go on the stack in operand order, as :func:`topological_order`
    pushes them (the last one comes off first): the interior nodes are listed in
    exactly its order (it lists the leaves too), and so the backward pass adds
    into each ``grad`` in the same order as :func:`backward` does.
    """
    order: list[Value] = []
    if root._rule is None:
        return order
    opened = _Zero()
    done = _Zero()
    stack: list = [root]
    push = stack.append
    pop = stack.pop
    emit = order.append
    while stack:
        node = pop()
        mark = node.grad
        if mark is done:  # a second entry: listed already
            continue
        if mark is opened:  # back from its inputs: all are listed
            node.grad = done
            emit(node)
            continue
        node.grad = opened
        push(node)
        a = node._a
        if a._rule is not None and a.grad is not done:
            push(a)
        b = node._b
        if b is not None and b._rule is not None and b.grad is not done:
            push(b)
    return order


# ------------------------------------------------------------- lesson 06's exercises
# The reference answers of lesson 06's exercises 4 and 5 (``#| exercise:
# stridegrad.scalar.topological_order`` and ``.backward`` in course/06): the build
# copies their bodies into the solution notebook, where they run on the lesson's
# ``Value``. They read only what every engine of the course has, ``node._prev`` and
# ``node._backward`` (None for a leaf), so they run on this module's Value too, and
# ``Value.backward()`` calls them through the module (see its docstring). Inside this
# module the name ``topological_order`` in ``backward`` is a global, looked up in the
# module when ``backward`` runs: a learner's ``topological_order`` set on the module
# is the one ``backward`` calls.


def topological_order(root):
    """Every Value ``root`` depends on, ``root`` included, each listed once and after all of its inputs.

    The inputs of a node are ``node._prev``; leaves are listed too, and ``root``
    comes last. A chain of 10,000 operations must work at Python's default
    recursion limit.

    Returns:
        a list of the Values.
    """
    order, visited = [], set()
    stack = [(root, False)]
    while stack:
        node, inputs_done = stack.pop()
        if inputs_done:  # everything above it on the stack has been listed
            order.append(node)
        elif node not in visited:
            visited.add(node)
            stack.append((node, True))
            for child in node._prev:  # the last one pushed is the first listed
                if child not in visited:
                    stack.append((child, False))
    return order


def backward(root):
    """Fill in ``grad`` of every Value that ``root`` depends on with d(root)/d(value).

    Afterwards ``root.grad`` is 1.0 and every node that has a ``_backward``
    closure holds the gradient of this call only (it starts again from 0.0);
    leaves keep what they had and accumulate (zero them between training steps).
    When ``root`` is a leaf, ``root.grad`` is 1.0 afterwards too, whatever it held.
    Each closure is called once.
    """
    order = topological_order(root)
    for node in order:
        if node._backward is not None:
            node.grad = 0.0
    root.grad = 1.0
    for node in reversed(order):
        if node._backward is not None:
            node._backward(node.grad)


#: the module's own exercises: while ``stridegrad.scalar`` still holds these,
#: ``Value.backward()`` may run :func:`_backward_pass`, which gives what they give
_own_topological_order = topological_order
_own_backward = backward
