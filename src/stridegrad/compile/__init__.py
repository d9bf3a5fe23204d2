"""Beyond eager: capture a function's graph, rewrite it, and replay it (episode 11).

=================================  ========================================================
name                               what it is
=================================  ========================================================
``compile(fn)``                    trace on the first call per input signature, optimize,
                                   replay; ``@compile`` works as a decorator
``trace(fn, args)``                run ``fn`` once on tracers -> ``(Graph, TraceResult)``
``Graph``, ``Node``                the IR: nodes with op, inputs, attrs, shape, dtype
``constant_fold``                  pass: compute constant-only nodes once
``eliminate_dead_code``            pass: drop nodes no output needs
``eliminate_common_subexpressions``  pass: compute each distinct expression once
``fuse_elementwise``               pass: one kernel per chain of elementwise ops
``optimize(graph)``                the passes in order (``DEFAULT_PASSES``)
``GraphBreak``, ``CompileWarning`` why a function cannot be captured / the eager warning
=================================  ========================================================
"""

from __future__ import annotations

import sys as _sys
from types import ModuleType as _ModuleType

from stridegrad.compile.api import CompiledFunction, CompileWarning, compile
from stridegrad.compile.ir import Graph, Node
from stridegrad.compile.passes import (
    DEFAULT_PASSES,
    constant_fold,
    eliminate_common_subexpressions,
    eliminate_dead_code,
    fuse_elementwise,
    optimize,
)
from stridegrad.compile.trace import GraphBreak, trace

__all__ = [
    "DEFAULT_PASSES",
    "CompileWarning",
    "CompiledFunction",
    "Graph",
    "GraphBreak",
    "Node",
    "compile",
    "constant_fold",
    "eliminate_common_subexpressions",
    "eliminate_dead_code",
    "fuse_elementwise",
    "optimize",
    "trace",
]


class _CallableModule(_ModuleType):
    """``stridegrad.compile`` is both this package and the ``compile()`` function.

    Importing a submodule (``stridegrad.compile.passes``) binds ``stridegrad.compile``
    to the package object, so ``sg.compile(fn)`` and ``@sg.compile`` must work on
    the package too: calling it calls :func:`compile` (as ``sg.tensor`` does).
    """

    def __call__(self, fn=None, *, passes=None, cache_limit=8):
        return compile(fn, passes=passes, cache_limit=cache_limit)


_sys.modules[__name__].__class__ = _CallableModule
