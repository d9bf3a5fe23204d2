"""Every public name of ``sg`` and of ``Tensor`` has a docstring of its own, ``help()``
never shows a source comment instead, and the examples in the docstrings run.
"""

from __future__ import annotations

import doctest
import inspect
import pydoc
import types

import pytest

import stridegrad as sg
from stridegrad import Tensor

# attributes of the class that are data, not API (``__hash__`` is object's, documented there)
_NOT_API = {"__slots__", "__weakref__", "__module__", "__doc__", "__array_ufunc__", "__hash__",
            "__annotations__", "__dict__"}


def _tensor_api() -> list[str]:
    names = []
    for name in vars(Tensor):
        if name in _NOT_API or (name.startswith("_") and not name.endswith("__")):
            continue  # private helpers (_cast, _unary, ...)
        names.append(name)
    return sorted(names)


def _own_doc(obj) -> str | None:
    """The object's own docstring (``__doc__``), never pydoc's fallback to the comment
    above the definition, nor a property's class doc."""
    if isinstance(obj, property):
        obj = obj.fget
    if isinstance(obj, types.MemberDescriptorType):  # a slot: its doc is in __slots__
        return inspect.getdoc(obj)
    return obj.__doc__


def test_the_tensor_api_list_is_complete():
    names = _tensor_api()
    for expected in ("exp", "log", "tanh", "matmul", "__add__", "__radd__", "cpu", "grad_fn",
                     "any", "all", "softmax", "log_softmax", "shape", "backward", "__init__"):
        assert expected in names, expected


@pytest.mark.parametrize("name", _tensor_api())
def test_every_public_tensor_method_has_a_docstring(name):
    doc = _own_doc(vars(Tensor)[name])
    assert doc and doc.strip(), f"Tensor.{name} has no docstring"
    assert not doc.lstrip().startswith("#")


def test_help_on_operators_shows_their_doc_not_a_source_comment():
    for name in ("__add__", "__radd__", "__sub__", "__eq__", "__iadd__", "__repr__"):
        text = pydoc.render_doc(getattr(Tensor, name), renderer=pydoc.plaintext)
        assert "# ----" not in text and "# in-place" not in text, (name, text)
    text = pydoc.render_doc(Tensor.__add__, renderer=pydoc.plaintext)
    assert "self + other" in text and "broadcasting" in text


def _sg_names() -> list[str]:
    return [n for n in sg.__all__ if n != "__version__"]


@pytest.mark.parametrize("name", _sg_names())
def test_every_public_name_of_sg_has_a_docstring(name):
    obj = getattr(sg, name)
    doc = inspect.getdoc(obj)
    assert doc and doc.strip(), f"sg.{name} has no docstring"
    if isinstance(obj, (types.FunctionType, type)):
        assert obj.__doc__, f"sg.{name}'s docstring is not its own"
    if isinstance(obj, types.FunctionType):  # a function's doc is not the module's
        assert inspect.getmodule(obj).__name__.startswith("stridegrad")


@pytest.mark.parametrize("name", ["cat", "stack", "where", "tensor", "compile"])
def test_new_and_pytorch_functions_are_exported_as_functions(name):
    obj = getattr(sg, name)
    assert inspect.isfunction(obj), (name, obj)
    assert name in dir(sg)


def test_help_on_sg_tensor_covers_devices_dtypes_and_an_example():
    doc = inspect.getdoc(sg.tensor)
    assert len(doc.splitlines()) > 30
    for word in ('"cpu"', '"python"', '"cuda"', "float32", "int64", "float64", "requires_grad",
                 "Raises", ">>> "):
        assert word in doc, word


@pytest.mark.parametrize("fn", [sg.tensor, sg.cat, sg.stack, sg.where])
def test_docstring_examples_run(fn):
    finder = doctest.DocTestFinder(recurse=False)
    tests = finder.find(fn, fn.__name__, globs={})
    examples = sum(len(t.examples) for t in tests)
    assert examples >= 1, f"{fn.__name__} has no example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for t in tests:
        runner.run(t)
    assert runner.failures == 0, f"{runner.failures} failing example(s) in {fn.__name__}"
