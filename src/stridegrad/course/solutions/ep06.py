"""The solutions of lesson 06's exercises (06_scalar_autograd), in one module.

Written by ``stridegrad build 06`` from ``course/06_scalar_autograd.py``: do not edit it,
edit the course source and build again (``stridegrad build --check`` finds a stale copy).
The contracts of checkpoint 06 judge a learner's function against these
(:meth:`stridegrad.course.checks.Checkpoint.contract`). A library exercise is imported
from the library, whose own function it is.
"""


from stridegrad.course.designs import add
from stridegrad.course.designs import mul
from stridegrad.course.designs import tanh
from stridegrad.scalar import topological_order
from stridegrad.scalar import backward
from stridegrad.course.designs import central_difference
from stridegrad.course.designs import power


__all__ = ['add', 'mul', 'tanh', 'topological_order', 'backward', 'central_difference', 'power']
