"""Layer 3 of :mod:`stridegrad.tensor`: the iterative backward engine."""

from __future__ import annotations

from typing import Any

from stridegrad.tensor._nodes import VIEW, AccumulateGrad, Node

_FREED = (
    "Trying to backward through the graph a second time (or directly access saved "
    "tensors after they have already been freed) in {name}. Saved intermediate values "
    "of the graph are freed when you call .backward(). Specify retain_graph=True if you "
    "need to backward through the graph a second time."
)



def _run_backward(root: Node, grad: Any, owned: bool, retain_graph: bool) -> None:
    """Reverse-mode sweep from ``root`` without recursion.

    1. Count, for each node reachable from ``root``, how many edges point at it
       (an explicit-stack depth-first walk).
    2. Process nodes whose consumers have all delivered their gradient (Kahn's
       algorithm), so each node's ``apply`` runs once with the summed gradient.
    """
    deps: dict[Node, int] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        for nxt in node._edges:
            if nxt is not None:
                if nxt in deps:
                    deps[nxt] += 1
                else:
                    deps[nxt] = 1
                    stack.append(nxt)

    grads: dict[Node, list] = {root: [grad, owned]}  # node -> [gradient, owned by us]
    ready = [root]
    while ready:
        node = ready.pop()
        entry = grads.pop(node, None)
        if node.__class__ is AccumulateGrad:
            if entry is not None:
                node.accumulate(entry[0], entry[1])
            continue
        if node._released:
            raise RuntimeError(_FREED.format(name=type(node).__name__))
        edges = node._edges
        g = entry[0] if entry is not None else None
        in_grads = node.apply(g) if entry is not None else (None,) * len(edges)
        if not retain_graph and node._saves:
            node._release()
            node._released = True
        fresh = node._fresh
        if fresh is VIEW:
            fresh = entry is not None and entry[1]  # a view of g: ours when g was
        for nxt, gi in zip(edges, in_grads):
            if nxt is None:
                continue
            if gi is not None:
                e = grads.get(nxt)
                if e is None:
                    # _fresh None: new arrays are ours, the incoming one passed on is not
                    grads[nxt] = [gi, fresh if fresh is not None else gi is not g]
                elif e[1]:
                    e[0] += gi  # in place: this buffer is ours alone
                else:
                    e[0] = e[0] + gi
                    e[1] = True
            d = deps[nxt] - 1
            if d:
                deps[nxt] = d
            else:
                ready.append(nxt)


