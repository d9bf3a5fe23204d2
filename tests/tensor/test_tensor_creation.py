"""Creation, dtypes, conversion, repr, shape and device errors, and the backend registry."""

from __future__ import annotations

import subprocess
import sys

import array_api_strict
import numpy as np
import pytest

import stridegrad as sg
from stridegrad import backend


def test_dtype_inference(device):
    assert sg.tensor([1.0, 2.0], device=device).dtype == sg.float32
    assert sg.tensor([1, 2], device=device).dtype == sg.int64
    assert sg.tensor(3, device=device).dtype == sg.int64
    assert sg.tensor([True, False], device=device).dtype == "bool"
    assert sg.tensor(np.array([1.0], dtype=np.float64), device=device).dtype == sg.float64
    assert sg.tensor(np.array([1, 2], dtype=np.int32), device=device).dtype == "int32"
    assert sg.tensor([1, 2], device=device, dtype=sg.float64).dtype == sg.float64
    assert sg.tensor([1.5], device=device, dtype="float64").dtype == sg.float64
    assert sg.tensor(2.5, device=device).shape == ()


def test_creation_errors():
    with pytest.raises(ValueError, match="ragged"):
        sg.tensor([[1.0, 2.0], [3.0]])
    with pytest.raises(TypeError, match="dtype"):
        sg.tensor([1.0], dtype="float128x")
    with pytest.raises(TypeError):
        sg.tensor(["a", "b"])
    with pytest.raises(ValueError, match="negative"):
        sg.zeros(2, -1)


def test_factories(device):
    assert sg.zeros(2, 3, device=device).shape == (2, 3)
    assert sg.zeros((2, 3), device=device).dtype == sg.float32
    np.testing.assert_array_equal(sg.ones([2], device=device).numpy(), [1.0, 1.0])
    f = sg.full((2,), 7, device=device)
    assert f.dtype == sg.int64 and f.tolist() == [7, 7]
    assert sg.full(3, 0.5, device=device).tolist() == [0.5, 0.5, 0.5]
    a = sg.arange(5, device=device)
    assert a.dtype == sg.int64 and a.tolist() == [0, 1, 2, 3, 4]
    assert sg.arange(0, 1, 0.25, device=device).dtype == sg.float32
    x = sg.ones(2, 2, dtype=sg.float64, device=device)
    z = sg.zeros_like(x)
    assert z.dtype == sg.float64 and z.device == device and z.shape == (2, 2)
    o = sg.ones_like(x, requires_grad=True)
    assert o.requires_grad and o.is_leaf
    assert sg.zeros(device=device).shape == ()


def test_manual_seed_same_numbers_on_every_device(device):
    sg.manual_seed(42)
    a = sg.randn(3, 4, device=device).numpy()
    b = sg.rand(5, device=device).numpy()
    sg.manual_seed(42)
    np.testing.assert_array_equal(sg.randn(3, 4).numpy(), a)
    np.testing.assert_array_equal(sg.rand(5).numpy(), b)
    assert (b >= 0).all() and (b < 1).all()
    sg.manual_seed(42)
    assert sg.randn(3, 4, dtype=sg.float64, device=device).dtype == sg.float64
    with pytest.raises(TypeError):
        sg.randn(2, dtype=sg.int64)
    with pytest.raises(TypeError):
        sg.manual_seed("x")


def test_conversions(device):
    x = sg.tensor([[1.0, 2.0, 3.0]], device=device)
    assert isinstance(x.numpy(), np.ndarray)
    assert x.tolist() == [[1.0, 2.0, 3.0]]
    assert x.size() == (1, 3) and x.size(1) == 3 and x.size(-1) == 3
    assert x.dim() == 2 and x.ndim == 2 and x.numel() == 3 and len(x) == 1
    assert x[0, 1].item() == 2.0 and isinstance(x[0, 1].item(), float)
    assert float(x[0, 2]) == 3.0
    assert x.long().dtype == sg.int64 and x.long().tolist() == [[1, 2, 3]]
    assert x.long().float().dtype == sg.float32
    assert x.double().dtype == sg.float64
    with pytest.raises(ValueError, match=r"one element.*\(1, 3\)"):
        x.item()
    with pytest.raises(ValueError, match="ambiguous"):
        bool(x)
    np.testing.assert_array_equal(np.asarray(x), [[1.0, 2.0, 3.0]])
    assert [r.tolist() for r in x] == [[1.0, 2.0, 3.0]]


def test_repr(device):
    a = sg.tensor([[1.0, 2.0]], requires_grad=True, device=device)
    suffix = "" if device == "cpu" else f", device='{device}'"
    assert repr(a) == f"tensor([[1., 2.]]{suffix}, requires_grad=True)"
    assert repr(a * 2) == f"tensor([[2., 4.]]{suffix}, grad_fn=<MulBackward>)"
    assert repr(sg.tensor([1, 2], device=device)) == f"tensor([1, 2]{suffix})"
    assert (
        repr(sg.tensor(1.5, dtype=sg.float64, device=device))
        == f"tensor(1.5000{suffix}, dtype=float64)"
    )
    # PyTorch's print options: 4 decimals, fixed width, scientific for wide ranges
    assert repr(sg.tensor([0.47709674, 2.0], device=device)) == f"tensor([0.4771, 2.0000]{suffix})"
    assert repr(sg.tensor([1e-8, 1.0], device=device)) == f"tensor([1.0000e-08, 1.0000e+00]{suffix})"


def test_comparisons_and_argmax(device):
    a = sg.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]], device=device, requires_grad=True)
    m = a > 2.5
    assert m.dtype == "bool" and not m.requires_grad
    assert m.tolist() == [[False, True, True], [True, False, True]]
    assert (a == a.detach()).tolist() == [[True] * 3] * 2
    assert (a <= 2).tolist() == [[True, False, False], [False, True, False]]
    assert (a != 5.0).tolist()[0] == [True, False, True]
    assert a.argmax(axis=1).tolist() == [1, 2]
    assert a.argmax(dim=0, keepdim=True).tolist() == [[1, 0, 1]]
    assert a.argmax().item() == 5
    assert a.argmax(1).dtype == sg.int64


def test_dtype_promotion(device):
    a = sg.tensor([1.0, 2.0], device=device, requires_grad=True)  # float32
    b = sg.tensor([1.0, 2.0], device=device, dtype=sg.float64, requires_grad=True)
    c = a * b
    assert c.dtype == sg.float64
    c.sum().backward()
    assert a.grad.dtype == sg.float32 and b.grad.dtype == sg.float64
    assert (a * 2).dtype == sg.float32 and (2.5 * a).dtype == sg.float32
    i = sg.tensor([1, 2], device=device)
    assert (i * 2).dtype == sg.int64
    assert (i * 2.5).dtype == sg.float32 and (i * 2.5).tolist() == [2.5, 5.0]
    assert (i + a).dtype == sg.float32
    assert (a + np.float64(1.0)).dtype == sg.float32


def test_broadcast_shape_errors_name_both_shapes(device):
    a = sg.ones(2, 3, device=device)
    b = sg.ones(4, device=device)
    for op in (lambda: a + b, lambda: a * b, lambda: a - b, lambda: a / b, lambda: a < b):
        with pytest.raises(ValueError, match=r"\(2, 3\).*\(4,\)"):
            op()


def test_matmul_shape_errors_name_both_shapes(device):
    a = sg.ones(2, 3, device=device)
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(2, 3\)"):
        a @ a
    with pytest.raises(ValueError, match=r"\(2, 2, 3\).*\(3, 3, 4\)"):
        sg.ones(2, 2, 3, device=device) @ sg.ones(3, 3, 4, device=device)
    with pytest.raises(ValueError, match=r"\(\).*\(3,\)"):
        sg.tensor(1.0, device=device) @ sg.ones(3, device=device)


def test_shape_op_errors(device):
    a = sg.ones(2, 3, device=device)
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(4,\)"):
        a.reshape(4)
    with pytest.raises(ValueError, match=r"\(2, 3\)"):
        a.reshape(-1, -1)
    assert a.reshape(3, -1).shape == (3, 2) and a.reshape((6,)).shape == (6,)
    with pytest.raises(ValueError, match="permutation"):
        a.permute(0, 0)
    with pytest.raises(IndexError, match="axis 2"):
        a.sum(axis=2)
    with pytest.raises(IndexError, match="index 5.*dimension 1 with size 3"):
        a[0, 5]
    with pytest.raises(IndexError, match="too many indices"):
        a[0, 0, 0]
    with pytest.raises(IndexError, match="index 2 is out of bounds for dimension 0 with size 2"):
        a[[0, 2]]
    with pytest.raises(TypeError, match="axis=.*dim="):
        a.sum(axis=0, dim=0)
    with pytest.raises(TypeError, match="floating"):
        sg.tensor([1, 2], device=device).mean()


def test_slicing_values(device):
    host = np.arange(24.0).reshape(4, 6)
    a = sg.tensor(host, device=device)
    for key in [
        (slice(1, None), slice(None, None, 2)),
        (slice(None, None, -1),),
        (1,),
        (Ellipsis, 2),
        (None, 0),
        (slice(0, 3), None, -1),
    ]:
        np.testing.assert_array_equal(a[key].numpy(), host[key])
    b = sg.zeros(3, 3, device=device)
    b[1:, ::2] = 5.0
    b[0] = sg.tensor([1.0, 2.0, 3.0], device=device)
    np.testing.assert_array_equal(b.numpy(), [[1, 2, 3], [5, 0, 5], [5, 0, 5]])


def test_reductions_values(device):
    host = np.random.default_rng(0).standard_normal((3, 4, 2))
    a = sg.tensor(host, device=device)
    np.testing.assert_allclose(a.sum().item(), host.sum())
    np.testing.assert_allclose(a.sum(axis=(0, 2)).numpy(), host.sum(axis=(0, 2)))
    np.testing.assert_allclose(
        a.mean(dim=1, keepdim=True).numpy(), host.mean(axis=1, keepdims=True)
    )
    np.testing.assert_allclose(a.max(axis=-1).numpy(), host.max(axis=-1))
    np.testing.assert_allclose(
        a.min(axis=0, keepdims=True).numpy(), host.min(axis=0, keepdims=True)
    )
    np.testing.assert_allclose(a.T.numpy(), host.T)
    np.testing.assert_allclose(a.transpose(0, 1).numpy(), host.transpose(1, 0, 2))


def test_max_ties_split_gradient(device):
    a = sg.tensor([1.0, 3.0, 3.0], device=device, requires_grad=True)
    a.max().backward()
    np.testing.assert_allclose(a.grad.numpy(), [0.0, 0.5, 0.5])


def test_numpy_operand_gives_tensor():
    a = sg.tensor([1.0, 2.0])
    r = np.array([1.0, 1.0], dtype=np.float32) + a
    assert isinstance(r, sg.Tensor)
    r = a * np.array([2.0, 3.0], dtype=np.float32)
    assert isinstance(r, sg.Tensor) and r.tolist() == [2.0, 6.0]


# ------------------------------------------------------------------ backend


def test_default_device_and_validation():
    assert sg.get_default_device() == "cpu"
    try:
        sg.set_default_device("strict")
        assert sg.tensor([1.0]).device == "strict"
        assert sg.zeros(2).device == "strict" and sg.randn(2).device == "strict"
    finally:
        sg.set_default_device("cpu")
    with pytest.raises(ValueError, match=r"'gpu'.*'python'.*'cpu'"):
        sg.set_default_device("gpu")
    with pytest.raises(ValueError, match="'cuda:x'"):
        backend.canonical_device("cuda:x")
    with pytest.raises(TypeError):
        backend.canonical_device(3)
    assert backend.canonical_device("cuda") == "cuda:0"
    assert backend.canonical_device("cuda:1") == "cuda:1"
    with pytest.raises(ValueError):
        sg.tensor([1.0], device="tpu")


def test_cpu_namespace_is_numpy_itself():
    assert backend.get_namespace("cpu") is np
    assert type(sg.tensor([1.0])._data) is np.ndarray


def test_cuda_without_cupy_says_how_to_install():
    ok, reason = backend.device_available("cuda")
    if ok:
        pytest.skip("a GPU is present")
    assert "pip install 'stridegrad[gpu]'" in reason or "CUDA" in reason
    with pytest.raises(RuntimeError, match="stridegrad\\[gpu\\]|CUDA"):
        sg.tensor([1.0], device="cuda")


def test_register_device():
    with pytest.raises(ValueError, match="built-in"):
        backend.register_device("cpu", np)
    with pytest.raises(TypeError):
        backend.register_device("bad", object())
    backend.register_device("strict2", array_api_strict)
    try:
        assert "strict2" in backend.available_devices()
        x = sg.tensor([1.0, 2.0], device="strict2")
        assert x.device == "strict2" and (x * 2).tolist() == [2.0, 4.0]
    finally:
        backend.unregister_device("strict2")
    with pytest.raises(ValueError):
        sg.tensor([1.0], device="strict2")
    with pytest.raises(ValueError, match="no registered device"):
        backend.unregister_device("strict2")


def test_every_device_comes_home_through_backend_to_host(monkeypatch):
    """Lesson 10's to_host is the library's: to_numpy calls backend.to_host, looked up
    at call time, for the built-in devices and a registered one; a registered device
    falls back to DLPack when to_host fails."""
    seen = []
    real = backend.to_host

    def spy(x):
        seen.append(type(x).__name__)
        return real(x)

    monkeypatch.setattr(backend, "to_host", spy)
    assert sg.tensor([1.0, 2.0], device="python").numpy().tolist() == [1.0, 2.0]
    assert sg.tensor([[3.0]]).item() == 3.0
    backend.register_device("strict2", array_api_strict)
    try:
        assert sg.tensor([4.0], device="strict2").tolist() == [4.0]
        assert seen == ["StridedArray", "ndarray", "Array"]

        def refuses(x):
            raise TypeError(f"no host copy of a {type(x).__name__}")

        monkeypatch.setattr(backend, "to_host", refuses)
        assert backend.to_numpy(array_api_strict.asarray([5.0]), "strict2").tolist() == [5.0]
        with pytest.raises(TypeError, match="no host copy of a ndarray"):
            sg.tensor([6.0]).numpy()
    finally:
        backend.unregister_device("strict2")
    x = np.arange(6.0).reshape(2, 3).T
    assert real(x) is x  # a NumPy array as it is, strides and all


def test_gradcheck_callable_whatever_the_import_order():
    """``stridegrad.gradcheck`` is a module *and* the function (see its _CallableModule)."""
    import stridegrad.gradcheck as gc_module

    x = sg.tensor([1.0], requires_grad=True)
    assert gc_module(lambda x: x * x, (x,)) and sg.gradcheck(lambda x: x.exp(), (x,))


# Each snippet runs in a fresh interpreter: the import order is the point.
_SG_TENSOR_CHECKS = """
import importlib, types
import stridegrad as sg
{first}
from stridegrad.tensor import Tensor, Node, _edge, _wrap, no_grad, tensor
package = importlib.import_module("stridegrad.tensor")
assert isinstance(package, types.ModuleType) and package.__name__ == "stridegrad.tensor", package
assert package.__path__, "stridegrad.tensor is a package"
assert package.Tensor is Tensor and package.tensor is tensor
assert sg.tensor is tensor, sg.tensor
assert not isinstance(sg.tensor, types.ModuleType) and not callable(package)
assert sg.tensor.__doc__ == tensor.__doc__ and "from a list" in sg.tensor.__doc__
assert isinstance(sg.tensor([1.0, 2.0]), sg.Tensor) and sg.tensor([1.0]).tolist() == [1.0]
"""


@pytest.mark.parametrize("first", [
    "",  # sg.tensor looked up before anything imported the package
    "import stridegrad.tensor",  # the import system binds the loaded package on stridegrad
    "from stridegrad.tensor import Tensor\nimport stridegrad.nn",
    "sg.tensor([0.0])",
])
def test_sg_tensor_is_the_function_and_the_package_stays_importable(first):
    """``sg.tensor`` is PyTorch's function (no callable module); ``stridegrad.tensor``
    is still the package for ``importlib`` and ``from stridegrad.tensor import ...``."""
    code = _SG_TENSOR_CHECKS.format(first=first)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_help_on_sg_tensor_shows_the_function():
    code = "import stridegrad as sg, pydoc; print(pydoc.render_doc(sg.tensor, renderer=pydoc.plaintext))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "function tensor in module stridegrad.tensor._creation" in run.stdout
    assert "A tensor from a list, scalar, NumPy array or Tensor" in run.stdout
    assert "Layers, bottom to top" not in run.stdout  # the package's docs are not shown
