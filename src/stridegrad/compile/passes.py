"""Graph passes on the traced IR: lesson 11's exercises, run through their module.

==================================  =================================================
pass                                what it does
==================================  =================================================
``constant_fold``                   computes, once, every node whose inputs are all
                                    constants (``2 * 3``, ``zeros(...)``), and keeps
                                    the result as a constant
``eliminate_common_subexpressions`` two nodes with the same op, inputs and attributes
                                    compute the same value: keep the first
``eliminate_dead_code``             drops nodes that no output depends on
``fuse_elementwise``                merges a chain of elementwise ops into one
                                    ``fused`` node: one kernel, no temporaries
==================================  =================================================

Each is a pure function ``Graph -> Graph`` on :mod:`stridegrad.compile.ir` (the input
is left as it was), and each is the function of the same name in
:mod:`stridegrad.compile.graph`, the exercise of lesson 11: the graph is lowered into
that module's IR (:mod:`stridegrad.compile.lowering`), the pass runs there, called as
``graph.<name>`` (so ``stridegrad yours`` can put a learner's in its place), and the
result is raised back, with a kernel program for every fused op.

``optimize(graph)`` runs them in that order (:data:`DEFAULT_PASSES`), lowering once
for a run of such passes; any other ``Graph -> Graph`` function can be put among them.
"""

from __future__ import annotations

from collections.abc import Callable

from stridegrad.compile import graph as _graph
from stridegrad.compile import lowering as _lowering
from stridegrad.compile.ir import Graph

__all__ = [
    "DEFAULT_PASSES",
    "constant_fold",
    "eliminate_common_subexpressions",
    "eliminate_dead_code",
    "fuse_elementwise",
    "optimize",
]


def _exercise_pass(name: str, doc: str) -> Callable[[Graph], Graph]:
    """The library pass that runs ``stridegrad.compile.graph.<name>``."""

    def run(graph: Graph) -> Graph:
        return optimize(graph, (run,))

    run.__name__ = run.__qualname__ = name
    run.__doc__ = (f"{doc}\n\n    Runs :func:`stridegrad.compile.graph.{name}` (looked up on its "
                   "module at each call) on the lowered graph.")
    run.exercise = name  # type: ignore[attr-defined]
    return run


constant_fold = _exercise_pass(
    "constant_fold", "Compute every node whose inputs are all constants (or whose value "
    "depends only on shapes, like ``ones_like(x)``) and keep the result as a constant.")
eliminate_common_subexpressions = _exercise_pass(
    "eliminate_common_subexpressions",
    "Replace a node by an earlier one with the same op, inputs and attributes.")
eliminate_dead_code = _exercise_pass(
    "eliminate_dead_code", "Keep only the nodes some output depends on (placeholders always "
    "stay: they are the function's inputs).")
fuse_elementwise = _exercise_pass(
    "fuse_elementwise", "Merge chains of elementwise nodes into ``fused`` nodes, one kernel "
    "each.")

DEFAULT_PASSES: tuple[Callable[[Graph], Graph], ...] = (
    constant_fold,
    eliminate_common_subexpressions,
    eliminate_dead_code,
    fuse_elementwise,
)


def optimize(graph: Graph, passes: tuple = DEFAULT_PASSES) -> Graph:
    """Run ``passes`` in order; each gets the previous one's graph.

    A run of passes of this module is lowered once, rewritten by the exercises of
    :mod:`stridegrad.compile.graph` one after the other (each result checked with
    :func:`~stridegrad.compile.graph.validate`, so a broken pass is named), and raised
    back once.
    """
    passes = tuple(passes)
    k = 0
    while k < len(passes):
        name = getattr(passes[k], "exercise", None)
        if name is None:
            graph = passes[k](graph)
            k += 1
            continue
        ops, origin = _lowering.lower(graph)
        with _graph.on_backend(graph.xp):
            while k < len(passes) and getattr(passes[k], "exercise", None) is not None:
                name = passes[k].exercise
                ops = getattr(_graph, name)(ops)  # through the module: yours can stand in
                try:
                    _graph.validate(ops)
                except ValueError as exc:
                    raise ValueError(f"{name} gave a graph that is not well formed: "
                                     f"{exc}") from None
                k += 1
        graph = _lowering.raise_graph(ops, origin, graph)
    return graph
