"""The solutions of lesson 11's exercises (11_beyond_eager), in one module.

Written by ``stridegrad build 11`` from ``course/11_beyond_eager.py``: do not edit it,
edit the course source and build again (``stridegrad build --check`` finds a stale copy).
The contracts of checkpoint 11 judge a learner's function against these
(:meth:`stridegrad.course.checks.Checkpoint.contract`). A library exercise is imported
from the library, whose own function it is.
"""


from stridegrad.compile.graph import run_graph
from stridegrad.compile.graph import eliminate_dead_code
from stridegrad.compile.graph import eliminate_common_subexpressions
from stridegrad.compile.graph import constant_fold
from stridegrad.compile.graph import fuse_elementwise


from stridegrad.compile.graph import Graph, Op


def simplify_identities(graph):
    """A new graph without the ops that give back one of their arguments unchanged.

    Those are ``add(a, z)``, ``add(z, a)``, ``subtract(a, z)``, ``multiply(a, o)``,
    ``multiply(o, a)`` and ``divide(a, o)``, where ``z`` is a ``const`` op whose
    value is the number 0 (``0`` or ``0.0``) and ``o`` one whose value is the
    number 1 (an array of zeros or ones is not one: it may broadcast ``a`` to
    another shape). ``subtract(z, a)`` is ``-a`` and ``divide(o, a)`` is ``1 / a``:
    they stay. Every reader of a dropped op, outputs included, reads
    ``a`` instead, so chains of them go too. Everything else keeps its order; the
    consts stay (dead-code elimination removes them). ``graph`` is not changed.

    Example:
        >>> g = parse("x = input()\\none = const(value=1.0)\\ny = multiply(x, one)\\n"
        ...           "z = exp(y)\\nreturn z")
        >>> print(simplify_identities(g))
        x = input()
        one = const(value=1.0)
        z = exp(x)
        return z
    """
    consts = {op.name: op.attrs["value"] for op in graph.ops if op.op == "const"}
    replace, kept = {}, []
    for op in graph.ops:
        args = tuple(replace.get(a, a) for a in op.args)
        same = None
        if len(args) == 2:
            a, b = args
            if op.op in ("add", "subtract") and consts.get(b) == 0:
                same = a
            elif op.op == "add" and consts.get(a) == 0:
                same = b
            elif op.op in ("multiply", "divide") and consts.get(b) == 1:
                same = a
            elif op.op == "multiply" and consts.get(a) == 1:
                same = b
        if same is not None:
            replace[op.name] = same
        else:
            kept.append(op if args == tuple(op.args) else Op(op.name, op.op, args, op.attrs))
    return Graph(kept, [replace.get(name, name) for name in graph.outputs])


__all__ = ['run_graph', 'eliminate_dead_code', 'eliminate_common_subexpressions', 'constant_fold', 'fuse_elementwise', 'simplify_identities']
