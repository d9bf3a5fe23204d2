"""The graph IR as data: ``Graph.diagram()``, and compile/ never loading viz/ to give it."""

from __future__ import annotations

import subprocess
import sys

import stridegrad as sg
from stridegrad.compile import Graph, compile
from stridegrad.compile.ir import DiagramNode


def test_diagram_gives_labels_kinds_columns_edges_and_outputs():
    f = compile(lambda x, y, b: x * y + b)
    args = sg.randn(2, 3), sg.randn(2, 3), sg.randn(3)
    raw = f.graph(*args, optimized=False)
    nodes, edges = raw.diagram()
    assert all(isinstance(n, DiagramNode) for n in nodes) and len(nodes) == len(raw.nodes)
    assert [n.kind for n in nodes] == ["placeholder"] * 3 + ["op", "op"]
    assert [n.column for n in nodes] == [0, 0, 0, 1, 2]
    assert [n.output for n in nodes] == [False] * 4 + [True]
    assert sorted(edges) == [(0, 3), (1, 3), (2, 4), (3, 4)]
    mul, add = raw.nodes[3], raw.nodes[4]
    assert nodes[3].label == f"{mul.name} multiply\nfloat32[2, 3]"
    assert nodes[4].label == f"{add.name} add\nfloat32[2, 3]"
    assert nodes[0].label.endswith("\nfloat32[2, 3]") and nodes[2].label.endswith("\nfloat32[3]")


def test_diagram_of_a_fused_chain_shows_its_expression():
    g = compile(lambda x, y: (x * y).exp() + 1.0).graph(sg.randn(4), sg.randn(4))
    nodes, edges = g.diagram()
    fused = [n for n in nodes if n.kind == "fused"]
    assert len(fused) == 1 and fused[0].output and fused[0].column == 1
    head, expr, ty = fused[0].label.split("\n")
    assert head.endswith(" fused") and "exp" in expr and ty == "float32[4]"
    assert sorted(edges) == [(0, 2), (1, 2)]


def test_diagram_of_an_empty_graph():
    g = Graph(xp=None, device="cpu")
    assert g.diagram() == ([], [])


def test_importing_and_running_compile_does_not_import_viz():
    """compile/ gives the IR as data; drawing it is viz/'s job (and only viz loads matplotlib)."""
    code = """
import sys
import stridegrad as sg
import stridegrad.compile
f = sg.compile(lambda x, y: (x * y).exp() + 1.0)
x, y = sg.randn(3), sg.randn(3)
f(x, y)
nodes, edges = f.graph(x, y).diagram()
assert any(n.kind == 'fused' for n in nodes)
print(str(f.graph(x, y)).splitlines()[0])
loaded = sorted(m for m in sys.modules if m.startswith(("stridegrad.viz", "matplotlib")))
assert not loaded, loaded
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("graph on cpu: 2 inputs")


def test_cse_keys_a_float_by_its_sign():
    """-0.0 == 0.0 in Python, but 1 / -0.0 is -inf: the keys of the library's CSE keep
    them apart, and a float apart from an int of the same value."""
    from stridegrad.compile.graph import freeze as _freeze

    assert _freeze(-0.0) != _freeze(0.0) and _freeze(1.0) != _freeze(1)
    assert _freeze(0.5) == _freeze(0.5)
