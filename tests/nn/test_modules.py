"""Module, Parameter, Linear, Sequential, MLP, losses, state dicts and save/load."""

import gc
import math
import weakref

import numpy as np
import pytest

import stridegrad as sg
from stridegrad import nn
from stridegrad.nn import functional as F

DEVICES = ["cpu", "python"]


class TwoLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = nn.Linear(3, 4)
        self.act = nn.Tanh()
        self.second = nn.Linear(4, 2, bias=False)
        self.scale = nn.Parameter(sg.ones(1))
        self.not_a_param = sg.ones(2)  # a plain tensor is not registered

    def forward(self, x):
        return self.second(self.act(self.first(x))) * self.scale


def test_parameters_are_registered_in_assignment_order():
    m = TwoLayer()
    names = [n for n, _ in m.named_parameters()]
    assert names == ["scale", "first.weight", "first.bias", "second.weight"]
    assert [type(c).__name__ for c in m.children()] == ["Linear", "Tanh", "Linear"]
    assert all(p.requires_grad and p.is_leaf for p in m.parameters())


def test_shared_parameter_is_listed_once():
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(list(seq.parameters())) == 2


def test_forgetting_super_init_is_a_clear_error():
    class Bad(nn.Module):
        def __init__(self):
            self.lin = nn.Linear(2, 2)

    with pytest.raises(RuntimeError, match=r"super\(\).__init__\(\).*Bad"):
        Bad()


def test_linear_matches_numpy_and_pytorch_init_bounds():
    sg.manual_seed(0)
    lin = nn.Linear(100, 30)
    w, b = lin.weight.numpy(), lin.bias.numpy()
    assert w.shape == (30, 100) and b.shape == (30,)
    bound = 1 / math.sqrt(100)
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    # uniform on [-bound, bound]: the spread uses most of the interval
    assert np.abs(w).max() > 0.9 * bound and abs(w.mean()) < 0.1 * bound
    x = np.random.default_rng(1).standard_normal((5, 100)).astype(np.float32)
    np.testing.assert_allclose(lin(sg.tensor(x)).numpy(), x @ w.T + b, rtol=1e-5, atol=1e-6)


def test_manual_seed_makes_init_reproducible():
    sg.manual_seed(3)
    a = nn.MLP([4, 5, 2]).state_dict()
    sg.manual_seed(3)
    b = nn.MLP([4, 5, 2]).state_dict()
    sg.manual_seed(4)
    c = nn.MLP([4, 5, 2]).state_dict()
    assert all(np.array_equal(a[k].numpy(), b[k].numpy()) for k in a)
    assert not np.array_equal(a["0.weight"].numpy(), c["0.weight"].numpy())


def test_linear_wrong_width_names_expected_and_given():
    lin = nn.Linear(64, 10)
    with pytest.raises(ValueError, match=r"Linear\(64, 10\) expects .*64 features.*\(8, 63\).*63 features"):
        lin(sg.zeros(8, 63))
    with pytest.raises(TypeError, match="Tensor input"):
        lin(np.zeros((8, 64)))
    with pytest.raises(ValueError, match="in_features must be a positive int, got 0"):
        nn.Linear(0, 3)


def test_linear_takes_every_positive_width_and_any_leading_axes():
    """The library's checks beyond the lesson's exercise: sizes are positive ints (1
    included, a bool or a float not), a 1-D input and leading batch axes work, and the
    error names the features of the last axis, a 0-d input's as 0."""
    assert nn.Linear(1, 1)(sg.ones(1)).shape == (1,)
    for bad in (0, -1, True, 2.0):
        with pytest.raises(ValueError, match=f"in_features must be a positive int, got {bad!r}"):
            nn.Linear(bad, 3)
        with pytest.raises(ValueError, match=f"out_features must be a positive int, got {bad!r}"):
            nn.Linear(3, bad)
    lin = nn.Linear(4, 2)
    assert lin(sg.ones(4)).shape == (2,) and lin(sg.ones(2, 3, 4)).shape == (2, 3, 2)
    with pytest.raises(ValueError, match=r"got shape \(2, 4, 3\) \(3 features\)"):
        lin(sg.ones(2, 4, 3))
    with pytest.raises(ValueError, match=r"got shape \(\) \(0 features\)"):
        lin(sg.tensor(1.0))
    assert "bias=False" in repr(nn.Linear(4, 2, bias=False)) and "bias=True" in repr(lin)


def test_mlp_layout_repr_and_bad_activation():
    m = nn.MLP([2, 16, 16, 1], activation="tanh")
    assert [type(l).__name__ for l in m] == ["Linear", "Tanh", "Linear", "Tanh", "Linear"]
    text = repr(m)
    assert "(0): Linear(in_features=2, out_features=16, bias=True)" in text
    assert "(1): Tanh()" in text and text.startswith("MLP(")
    with pytest.raises(ValueError, match="unknown activation 'gelu'"):
        nn.MLP([2, 2], activation="gelu")
    with pytest.raises(ValueError, match="at least an input and an output"):
        nn.MLP([2])


@pytest.mark.parametrize("device", DEVICES)
def test_gradients_flow_to_every_parameter(device):
    sg.manual_seed(0)
    m = nn.MLP([3, 5, 2], device=device)
    x = sg.randn(4, 3, device=device)
    loss = nn.CrossEntropyLoss()(m(x), np.array([0, 1, 1, 0]))
    loss.backward()
    for name, p in m.named_parameters():
        assert p.grad is not None and p.grad.shape == p.shape, name
        assert p.grad.device == device
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())


def test_train_eval_flags_reach_every_submodule():
    m = TwoLayer()
    m.eval()
    assert not any(x.training for x in m.modules())
    m.train()
    assert all(x.training for x in m.modules())


def test_to_moves_parameters_in_place_with_their_gradients():
    m = nn.MLP([2, 3, 1])
    params = list(m.parameters())
    opt = sg.optim.SGD(m.parameters(), lr=0.1)
    m(sg.ones(1, 2)).sum().backward()
    before = m.state_dict()
    before = {k: v.numpy().copy() for k, v in before.items()}
    m.to("python")
    assert [id(p) for p in m.parameters()] == [id(p) for p in params]  # the same objects
    assert all(p.grad is not None and p.grad.device == "python" for p in params)
    opt.step()  # the optimizer made before the move still drives them
    with pytest.raises(ValueError, match="tpu"):
        m.to("tpu")
    assert all(p.device == "python" for p in m.parameters())
    after = m.state_dict()
    for k, p in zip(before, params):
        np.testing.assert_allclose(after[k].numpy(), before[k] - 0.1 * p.grad.numpy(), rtol=1e-6)
    assert m(sg.zeros(1, 2, device="python")).device == "python"


def test_state_dict_round_trip_through_a_file(tmp_path):
    sg.manual_seed(0)
    a = nn.MLP([4, 6, 3])
    sg.manual_seed(1)
    b = nn.MLP([4, 6, 3])
    path = tmp_path / "model.npz"
    sg.save(a.state_dict(), path)
    b.load_state_dict(sg.load(path))
    x = sg.randn(2, 4)
    np.testing.assert_array_equal(a(x).numpy(), b(x).numpy())
    # the file holds plain arrays, readable without pickle
    with np.load(path, allow_pickle=False) as f:
        assert sorted(f.files) == sorted(a.state_dict())


def test_load_state_dict_reports_every_problem_and_changes_nothing():
    m = nn.MLP([4, 6, 3])
    before = {k: v.numpy().copy() for k, v in m.state_dict().items()}
    bad = {k: v for k, v in m.state_dict().items() if k != "0.bias"}
    bad["2.weight"] = sg.zeros(3, 5)
    bad["extra"] = sg.zeros(1)
    with pytest.raises(RuntimeError) as exc:
        m.load_state_dict(bad)
    msg = str(exc.value)
    assert "missing keys: 0.bias" in msg and "unexpected keys: extra" in msg
    assert "2.weight: expected shape (3, 6), got (3, 5)" in msg and "nothing was changed" in msg
    for k, v in m.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k])


def test_save_refuses_non_arrays(tmp_path):
    with pytest.raises(TypeError, match="cannot save 'fn'"):
        sg.save({"fn": print}, tmp_path / "x.npz")


def test_mse_and_cross_entropy_modules_match_formulas():
    pred = sg.tensor([[1.0, 2.0], [3.0, 5.0]])
    target = sg.tensor([[1.0, 1.0], [1.0, 1.0]])
    assert nn.MSELoss()(pred, target).item() == pytest.approx((0 + 1 + 4 + 16) / 4)
    logits = np.array([[2.0, 0.5, -1.0], [0.0, 0.0, 3.0]], dtype=np.float32)
    y = np.array([0, 2])
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    expected = -(logp[0, 0] + logp[1, 2]) / 2
    assert nn.CrossEntropyLoss()(sg.tensor(logits), y).item() == pytest.approx(expected, rel=1e-6)


def test_cross_entropy_label_out_of_range_names_label_and_classes():
    with pytest.raises(IndexError, match="label 7 is out of range for 3 classes"):
        F.cross_entropy(sg.zeros(2, 3), np.array([0, 7]))


def _graph_nodes(t):
    """Every autograd node reachable from ``t.grad_fn`` (iteratively)."""
    seen, stack = {}, [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen[id(node)] = node
        stack.extend(n for n, _ in node.next_functions)
    return list(seen.values())


def test_a_dropped_model_graph_is_freed_by_reference_counting_alone():
    # weak references to every node of the graph must die the moment the loss is
    # dropped, with the cycle collector off: no node is part of a reference cycle
    sg.manual_seed(0)
    gc.disable()
    try:
        m = nn.MLP([3, 8, 2])
        loss = F.cross_entropy(m(sg.randn(5, 3)), np.array([0, 1, 0, 1, 1]))
        refs = [weakref.ref(n) for n in _graph_nodes(loss)]
        assert len(refs) >= 6
        loss.backward()
        del loss
        assert [r for r in refs if r() is not None] == []
        loss = F.cross_entropy(m(sg.randn(5, 3)), np.array([0, 1, 0, 1, 1]))
        refs = [weakref.ref(n) for n in _graph_nodes(loss)]
        del loss  # dropped without backward: freed as well
        assert [r for r in refs if r() is not None] == []
    finally:
        gc.enable()
