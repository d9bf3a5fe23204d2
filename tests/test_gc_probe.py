"""The cycle probe used by the no-cycles tests can see a cycle (it can fail)."""

import gc

from stridegrad.scalar import Value


def test_probe_finds_a_micrograd_style_cycle(collector_finds):
    gc.collect()
    gc.disable()
    try:
        def node_with_a_cycle():
            out = Value(2.0) * Value(3.0)
            node = {"out": out}  # micrograd's node: a __dict__ holding its closure

            def _backward():  # captures its own node, as micrograd's captures out
                return node

            node["_backward"] = _backward
            return out

        v = node_with_a_cycle()
        del v
        found = collector_finds()
        assert any(isinstance(o, Value) for o in found)
        assert collector_finds() == []  # and it cleans up after itself
    finally:
        gc.enable()
