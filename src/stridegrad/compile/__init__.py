"""Beyond eager: capture a function's graph, rewrite it, and replay it (episode 11).

=================================  ========================================================
name                               what it is
=================================  ========================================================
``compile(fn)``                    trace on the first call per input signature, optimize,
                                   replay; ``@compile`` works as a decorator
``trace(fn, args)``                run ``fn`` once on tracers -> ``(Graph, TraceResult)``
``Graph``, ``Node``                the trace's IR: nodes with op, inputs, attrs, shape, dtype
``graph`` (module)                 the passes' IR (``Op``, ``Graph``) and lesson 11's
                                   exercises, which the passes below and every replay run
``constant_fold``                  pass: compute constant-only nodes once
``eliminate_dead_code``            pass: drop nodes no output needs
``eliminate_common_subexpressions``  pass: compute each distinct expression once
``fuse_elementwise``               pass: one kernel per chain of elementwise ops
``optimize(graph)``                the passes in order (``DEFAULT_PASSES``)
``GraphBreak``, ``CompileWarning`` why a function cannot be captured / the eager warning
=================================  ========================================================

``sg.compile`` is the function :func:`compile`, as ``torch.compile`` is; this package
is ``stridegrad.compile`` for ``from stridegrad.compile import ...`` and
``importlib.import_module("stridegrad.compile")``.
"""

from __future__ import annotations

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

