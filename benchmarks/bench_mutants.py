"""How strong the checks are: mutants of each exercise's solution, and how many survive.

    python benchmarks/bench_mutants.py [--lessons 01 02 03 04] [--show-survivors]

Each exercise that has a contract is mutated in its lesson's solution
(``stridegrad.course.solutions.epNN``: the library's own function for a library
exercise, the solution cell for an inline one), one operator at a time, by a small
AST mutator of our own: an arithmetic operator swapped (``+`` and ``-``, ``*`` and
``//``, ``%`` and ``//``), a comparison swapped (``<`` and ``<=``, ``>`` and ``>=``,
``==`` and ``!=``), ``and`` and ``or`` swapped, a ``not`` dropped, an integer
constant moved by one, a unary minus dropped.
Each mutant is defined as a learner's notebook would define it and run through
``run_checkpoint`` for its exercise: once with the hand-written tests only, once with
the contract row too. The table gives, per lesson, the mutants, how many each
set of tests kills, and the survivors; ``--show-survivors`` prints each surviving
mutation so that a reader can tell an equivalent mutant (one that computes the same
function, ``d >= 1`` for ``d > 0`` on ints) from a hole in the tests.
"""

from __future__ import annotations

import argparse
import ast
import copy
import importlib
import inspect
import textwrap
import time

from stridegrad.course.checks import (SOLUTIONS, Checkpoint, is_contract_test, load_checkpoint,
                                     run_checkpoint)

SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult,
         ast.Mod: ast.FloorDiv, ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE,
         ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.And: ast.Or, ast.Or: ast.And,
         ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}


def _preorder(tree: ast.AST) -> list[ast.AST]:
    """The nodes in the order a NodeTransformer visits them."""
    out = [tree]
    for child in ast.iter_child_nodes(tree):
        out += _preorder(child)
    return out


def _sites(tree: ast.AST) -> list[tuple[int, str]]:
    """Every place one mutation can be made: (node number in visiting order, what)."""
    sites = []
    for k, node in enumerate(_preorder(tree)):
        if isinstance(node, (ast.BinOp, ast.AugAssign, ast.BoolOp)) and type(node.op) in SWAPS:
            sites.append((k, "op"))
        elif isinstance(node, ast.Compare):
            sites += [(k, f"cmp{i}") for i, op in enumerate(node.ops) if type(op) in SWAPS]
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
            sites.append((k, "unary"))
        elif (isinstance(node, ast.Constant) and type(node.value) is int
              and not isinstance(node.value, bool)):
            sites += [(k, "+1"), (k, "-1")]
    return sites


class _Mutate(ast.NodeTransformer):
    def __init__(self, target: int, what: str):
        self.target, self.what, self.count, self.said = target, what, -1, ""

    def visit(self, node):
        self.count += 1
        if self.count == self.target:
            return self._change(node)
        return super().visit(node)

    def _change(self, node):
        w = self.what
        if w == "op":
            old = type(node.op)
            node.op = SWAPS[old]()
            self.said = f"{old.__name__} -> {type(node.op).__name__}"
        elif w.startswith("cmp"):
            i = int(w[3:])
            old = type(node.ops[i])
            node.ops[i] = SWAPS[old]()
            self.said = f"{old.__name__} -> {type(node.ops[i]).__name__}"
        elif w == "unary":
            self.said = f"drop {type(node.op).__name__}"
            return node.operand
        else:
            new = node.value + (1 if w == "+1" else -1)
            self.said = f"{node.value} -> {new}"
            node.value = new
        self.generic_visit(node)
        return node


def mutants(fn) -> list[tuple[str, str]]:
    """(what changed, the mutant's source) for each single mutation of ``fn``."""
    source = textwrap.dedent(inspect.getsource(fn))
    tree = ast.parse(source)
    fdef = tree.body[0]
    fdef.body = [s for s in fdef.body if not (isinstance(s, ast.Expr)
                                              and isinstance(s.value, ast.Constant)
                                              and isinstance(s.value.value, str))]
    out = []
    for k, what in _sites(tree):
        t = copy.deepcopy(tree)
        m = _Mutate(k, what)
        m.visit(t)
        if m.said:
            out.append((f"{m.said} (node {k})", ast.unparse(ast.fix_missing_locations(t))))
    return out


def _namespace(fn, source: str) -> dict:
    """The mutant defined in a notebook-like namespace that also holds the module's other
    names (its helpers), as a learner's notebook holds their earlier exercises."""
    module = importlib.import_module(fn.__module__)
    ns = {k: v for k, v in vars(module).items() if not k.startswith("__")}
    ns["__name__"] = "__main__"
    exec(compile(source, "<mutant>", "exec"), ns)
    return ns


def _killed(cp: Checkpoint, exercise: str, ns: dict, contract: bool) -> bool:
    sub = Checkpoint(cp.lesson, reference=cp.reference)
    sub.tests = [t for t in cp.tests if t.exercise == exercise
                 and (contract or not is_contract_test(t.name))]
    result = run_checkpoint(sub, ns, timeout=2.0, diagnose=False)
    return not all(r.passed for r in result.rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lessons", nargs="*", default=[f"{n:02d}" for n in range(13)],
                        help="the lessons to mutate (default: all; a lesson without "
                             "contracts has no row)")
    parser.add_argument("--show-survivors", action="store_true")
    args = parser.parse_args(argv)
    rows, survivors = [], []
    start = time.perf_counter()
    for ep in args.lessons:
        cp = load_checkpoint(ep)
        contracted = [t.exercise for t in cp.tests if is_contract_test(t.name)]
        total = hand = both = 0
        for exercise in contracted:
            fn = getattr(importlib.import_module(f"{SOLUTIONS}.ep{ep}"), exercise)
            for said, source in mutants(fn):
                try:
                    ns = _namespace(fn, source)
                except Exception:
                    continue  # not valid Python after the change: no mutant
                total += 1
                by_hand = _killed(cp, exercise, ns, contract=False)
                by_both = by_hand or _killed(cp, exercise, ns, contract=True)
                hand += by_hand
                both += by_both
                if not by_both:
                    survivors.append((ep, exercise, said, source))
        if contracted:
            rows.append((ep, len(contracted), total, hand, both))
    print(f"mutants of the contracted exercises' solutions ({time.perf_counter() - start:.0f} s)")
    print(f"{'lesson':<7} {'exercises':>9} {'mutants':>8} {'killed by tests':>16} "
          f"{'+ contract':>11} {'survive':>8}")
    for ep, n_ex, total, hand, both in rows:
        print(f"{ep:<7} {n_ex:>9} {total:>8} {hand:>9} ({100 * hand / max(total, 1):3.0f}%) "
              f"{both:>4} ({100 * both / max(total, 1):3.0f}%) {total - both:>8}")
    if args.show_survivors:
        for ep, exercise, said, source in survivors:
            print(f"\n--- {ep} {exercise}: {said}\n{source}")


if __name__ == "__main__":
    main()
