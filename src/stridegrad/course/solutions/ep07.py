"""The solutions of lesson 07's exercises (07_two_autograd_designs), in one module.

Written by ``stridegrad build 07`` from ``course/07_two_autograd_designs.py``: do not edit it,
edit the course source and build again (``stridegrad build --check`` finds a stale copy).
The contracts of checkpoint 07 judge a learner's function against these
(:meth:`stridegrad.course.checks.Checkpoint.contract`). A library exercise is imported
from the library, whose own function it is.
"""


from stridegrad.course.designs import gradient_edge
from stridegrad.course.designs import var_mul
from stridegrad.course.designs import count_dependencies
from stridegrad.course.designs import run_backward
from stridegrad.course.designs import count_cycle_garbage


from stridegrad.course.designs import Node, Var  # as imported at the top


class DivBackward(Node):
    """The backward node of ``a / b``: saves the numbers ``apply`` needs (never the Vars)."""

    def __init__(self, next_functions, a, b):
        super().__init__(next_functions)
        self.a, self.b = a, b

    def apply(self, grad):
        """One gradient per input, in operand order: ``(dL/da, dL/db)`` for ``dL/d(a/b) = grad``."""
        return (grad / self.b, -grad * self.a / (self.b * self.b))


def var_div(a, b):
    """``a / b`` in design B: the output Var and, when a gradient is wanted, its node.

    As ``var_mul``: no history when neither input requires grad; otherwise the
    output's ``grad_fn`` is a ``DivBackward`` with one edge per input, in operand
    order (``gradient_edge(a)``, then ``gradient_edge(b)``), that holds numbers, not
    Vars.

    Example:
        >>> a, b = Var(6.0, requires_grad=True), Var(3.0, requires_grad=True)
        >>> out = var_div(a, b)
        >>> out.data, out.grad_fn.apply(1.0)
        (2.0, (0.3333333333333333, -0.6666666666666666))
    """
    if not (a.requires_grad or b.requires_grad):
        return Var(a.data / b.data)
    node = DivBackward((gradient_edge(a), gradient_edge(b)), a.data, b.data)
    return Var(a.data / b.data, grad_fn=node)


__all__ = ['gradient_edge', 'var_mul', 'count_dependencies', 'run_backward', 'count_cycle_garbage', 'var_div']
