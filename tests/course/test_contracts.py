"""Contracts: every exercise is judged on generated inputs against the lesson's own
solution, on plain data, and its cases are the same in every run."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import strategies as st

from stridegrad.course import run_checkpoint
from stridegrad.course.checks import Checkpoint, is_contract_test, load_checkpoint
from stridegrad.course.contracts import Call, Contract, Invalid, plain, same_plain
from stridegrad.course.misconceptions import by_episode as misconceptions_by_episode

from .conftest import define

EPISODES = [f"{n:02d}" for n in range(13)]
CONTRACTED = {ep: {t.exercise: t for t in load_checkpoint(ep).tests if is_contract_test(t.name)}
              for ep in EPISODES}


def _alone(episode: str, exercise: str) -> Checkpoint:
    """The checkpoint of ``episode`` with the contract of ``exercise`` as its only test."""
    cp = load_checkpoint(episode)
    sub = Checkpoint(cp.lesson, reference=cp.reference)
    sub.tests = [CONTRACTED[episode][exercise]]
    return sub


@pytest.mark.parametrize("episode", EPISODES)
def test_every_exercise_has_a_contract(episode):
    """Each exercise of every lesson, stretch exercises too, has its contract."""
    exercises = load_checkpoint(episode).exercises
    assert [e for e in exercises if e not in CONTRACTED[episode]] == []


@pytest.mark.parametrize("episode", EPISODES)
def test_every_contract_has_a_lesson_solution_as_its_oracle(episode):
    """The oracle is importable: the lesson's solutions module, written by the build."""
    module = importlib.import_module(f"stridegrad.course.solutions.ep{episode}")
    assert set(load_checkpoint(episode).exercises) <= set(module.__all__)
    for exercise in CONTRACTED[episode]:
        assert callable(getattr(module, exercise))


KNOWN = [(ep, ex, m) for ep, by in CONTRACTED.items()
         for ex in by for m in misconceptions_by_episode()[ep].get(ex, [])]


@pytest.mark.parametrize("episode, exercise, m", KNOWN,
                         ids=[f"{ep}-{ex}-{m.label}" for ep, ex, m in KNOWN])
def test_every_known_mistake_fails_its_contract_alone(episode, exercise, m):
    """Without the hand-written tests: the contract's generated inputs catch it."""
    row = run_checkpoint(_alone(episode, exercise), m.define(), diagnose=False).rows[0]
    assert row.status in ("fail", "error"), (m.label, row.status, row.message)
    assert row.call and row.expected and row.got


def test_the_cases_are_the_same_in_another_process():
    """Derandomized: another interpreter, with another hash seed, draws the same cases
    (so the grader and every learner see the same rows)."""
    code = ("import json; from stridegrad.course.checks import load_checkpoint\n"
            "cp = load_checkpoint('03')\n"
            "t = [t for t in cp.tests if t.name == 'sum_axis_on_generated_inputs'][0]\n"
            "print(json.dumps([repr(c) for c, _, _ in t.prepare()]))")
    runs = [json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                      text=True, check=True,
                                      env={"PYTHONHASHSEED": seed, "PATH": ""}).stdout)
            for seed in ("1", "2")]
    here = [repr(c) for c, _, _ in CONTRACTED["03"]["sum_axis"].prepare()]
    assert runs[0] == runs[1] == here and len(here) >= 40


def test_cases_come_smallest_first_and_cover_the_edges():
    cases = [c for c, bad, _ in CONTRACTED["01"]["numel"].prepare()]
    assert repr(cases[0]) == "Call(())"  # the scalar first
    shapes = [c.args[0] for c in cases]
    assert any(0 in s for s in shapes) and any(1 in s for s in shapes)
    assert {len(s) for s in shapes} == {0, 1, 2, 3, 4}
    assert any(len(set(s)) == len(s) > 1 for s in shapes)  # unequal sizes


# ------------------------------------------------------------------ the invariants

class Anything:
    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


def test_an_object_equal_to_everything_gets_nothing():
    ns = define("""
        class Anything:
            def __eq__(self, other):
                return True
            __hash__ = object.__hash__

        def numel(shape):
            return Anything()
    """)
    result = run_checkpoint(load_checkpoint("01"), ns, exercise="numel")
    assert result.score == 0 and {r.status for r in result.rows} == {"fail"}


@pytest.mark.parametrize("body, note", [
    ("return float(math.prod(shape))", "(a float, not an int)"),
    ("return np.prod(shape, dtype=np.int64)", "(a NumPy array, not an int)"),
])
def test_the_type_is_part_of_the_answer(body, note):
    ns = define(f"import math\nimport numpy as np\ndef numel(shape):\n    {body}\n")
    row = run_checkpoint(_alone("01", "numel"), ns).rows[0]
    assert row.status == "fail" and note in row.got, row.got


def test_right_answers_written_otherwise_pass():
    """Another algorithm, another error wording that names the values, a list where a
    sequence is iterated: every contract row passes."""
    ns = define("""
        import math

        def numel(shape):
            return math.prod(shape)

        def contiguous_strides(shape):
            out = []
            for k in range(len(shape)):
                out.append(math.prod(max(d, 1) for d in shape[k + 1:]))
            return tuple(out)

        def index_to_offset(index, strides, offset=0):
            return offset + sum(i * s for i, s in zip(index, strides))

        def offset_to_index(offset, shape):
            if offset < 0 or offset >= math.prod(shape):
                raise ValueError(f"{offset} does not fit in an array of shape {shape}")
            out = []
            for d in reversed(shape):
                offset, i = divmod(offset, d)
                out.insert(0, i)
            return tuple(out)

        def locate(position, shape, strides, offset=0):
            import itertools
            for index in itertools.product(*map(range, shape)):
                if offset + sum(i * s for i, s in zip(index, strides)) == position:
                    return index
            raise ValueError(f"position {position} is in no element of shape {list(shape)} "
                             f"with strides {list(strides)}")
    """)
    assert sorted(CONTRACTED["01"]) == sorted(k for k in ns if k[0] != "_" and k != "math")
    for exercise in CONTRACTED["01"]:
        row = run_checkpoint(_alone("01", exercise), ns).rows[0]
        assert row.passed, (exercise, row.message)


def test_writing_into_the_input_is_named():
    ns = define("""
        def map_unary(fn, x):
            storage, shape, strides, offset = x
            out = []
            for p in _offsets(shape, strides, offset):
                storage[p] = fn(storage[p])
                out.append(storage[p])
            return out

        def _offsets(shape, strides, offset):
            pos = [offset]
            for d, s in zip(shape, strides):
                pos = [p + i * s for p in pos for i in range(d)]
            return pos
    """)
    row = run_checkpoint(_alone("03", "map_unary"), ns).rows[0]
    assert row.status == "fail" and row.call.startswith("argument 2 after map_unary(")
    assert row.expected == "unchanged" and row.got.startswith("changed in place to (")


def test_the_calls_of_a_function_argument_are_compared():
    """map_unary calls fn once per element in row-major order: calling it once per
    stored value (then picking) is caught by what fn saw."""
    ns = define("""
        def map_unary(fn, x):
            storage, shape, strides, offset = x
            mapped = [fn(v) for v in storage]
            pos = [offset]
            for d, s in zip(shape, strides):
                pos = [p + i * s for p in pos for i in range(d)]
            return [mapped[p] for p in pos]
    """)
    row = run_checkpoint(_alone("03", "map_unary"), ns).rows[0]
    assert row.status == "fail" and row.call.startswith("the calls of "), row.call
    assert " call" in row.expected and " call" in row.got


def test_an_alias_of_an_argument_is_refused_unless_allowed():
    spec = Contract("same", "builtins.list", st.just(Call(([1, 2],))))
    with pytest.raises(AssertionError, match="holds one of the inputs' own lists"):
        spec.run(lambda xs: xs)
    Contract("same", "builtins.list", st.just(Call(([1, 2],))), may_alias=True).run(
        lambda xs: xs)


def test_a_view_of_an_input_is_an_alias():
    """im2col must return a new array: a reshape of the window view is x itself for a
    1 x 1 kernel, and np.shares_memory says so."""
    ns = define("""
        import numpy as np
        from numpy.lib.stride_tricks import as_strided

        def im2col(x, kernel, stride=(1, 1)):
            if x.ndim != 3:
                raise ValueError(f"x must be (C, H, W), got shape {x.shape}")
            (kh, kw), (sh, sw) = kernel, stride
            c, h, w = x.shape
            if kh > h or kw > w:
                raise ValueError(f"kernel {kernel} does not fit in {x.shape}")
            oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
            s0, s1, s2 = x.strides
            view = as_strided(x, (c, kh, kw, oh, ow), (s0, s1, s2, s1 * sh, s2 * sw))
            return view.reshape(c * kh * kw, oh * ow)
    """)
    row = run_checkpoint(_alone("12", "im2col"), ns).rows[0]
    assert row.status == "fail" and row.call.startswith("what im2col("), row.call
    assert "a view of one" in row.got


def test_a_view_keeps_its_layout_in_every_call():
    """The copy each call gets is laid out as the drawn case: a transposed or reversed
    image reaches the function with its own strides."""
    cases = CONTRACTED["12"]["im2col"].prepare()
    seen = []
    spy = {"im2col": lambda x, *a, **k: seen.append(x.strides) or
           __import__("stridegrad.nn.im2col").nn.im2col.im2col(
               x, *a, **k)}
    run_checkpoint(_alone("12", "im2col"), spy, require_local=False)
    assert len(seen) == len(cases)
    assert any(s[-1] < 0 for s in seen) and any(abs(s[-2]) < abs(s[-1]) for s in seen)


def test_an_argument_that_comes_to_hold_another_is_named():
    """sgd_step keeping the caller's grad itself as the momentum buffer: the next step's
    in-place update would change the caller's array. The reference never does that."""
    ns = define("""
        def sgd_step(param, grad, state, lr, momentum=0.0, weight_decay=0.0):
            g = grad if not weight_decay else grad + weight_decay * param
            if momentum:
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = g
                else:
                    buf = momentum * buf + g
                state["momentum_buffer"] = buf
                g = buf
            return param - lr * g
    """)
    row = run_checkpoint(_alone("09", "sgd_step"), ns).rows[0]
    assert row.status == "fail" and row.call.startswith("arguments 2 and 3 after sgd_step(")
    assert "one and the same" in row.got


def test_a_dict_in_another_key_order_is_the_same_state():
    ns = define("""
        import numpy as np

        def adam_step(param, grad, state, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
            b1, b2 = betas
            m = b1 * state.get("exp_avg", 0.0) + (1 - b1) * grad
            v = b2 * state.get("exp_avg_sq", 0.0) + (1 - b2) * grad ** 2
            t = state.get("step", 0) + 1
            state["exp_avg_sq"], state["exp_avg"], state["step"] = v, m, t
            return param - lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
    """)
    assert run_checkpoint(_alone("09", "adam_step"), ns).rows[0].passed


def test_an_invalid_input_must_raise_the_type_and_name_the_values():
    spec = CONTRACTED["01"]["offset_to_index"]
    cases = [(c, bad) for c, bad, _ in spec.prepare() if bad is not None]
    assert cases and all(isinstance(bad, Invalid) for _, bad in cases)

    def wrong_type(offset, shape):
        raise IndexError(f"offset {offset} out of range for {shape}")

    def vague(offset, shape):
        if not 0 <= offset < np.prod(shape, dtype=int):
            raise ValueError("bad offset")
        return tuple(int(i) for i in np.unravel_index(offset, shape))

    for fn, kind, text in ((wrong_type, "error", "raised IndexError"),
                           (vague, "fail", "raised ValueError: bad offset")):
        ns = {"offset_to_index": fn}
        row = run_checkpoint(_alone("01", "offset_to_index"), ns, require_local=False).rows[0]
        assert row.status == kind and row.got.startswith(text), row.got
        assert "naming" in row.expected or kind == "error"


def test_plain_forms_say_the_type_at_every_depth():
    assert plain((1, [2.0, True])) == ["tuple", [["int", 1], ["list", [["float", 2.0],
                                                                     ["bool", True]]]]]
    assert plain(np.arange(3)) [0:3] == ["ndarray", np.arange(3).dtype.str, [3]]
    assert plain(np.float32(1.5)) == plain(np.array(1.5, dtype=np.float32))  # 0-d
    assert plain(Anything())[0] == "object"
    assert same_plain(plain(0.1 + 0.2), plain(0.3))
    assert same_plain(plain(float("nan")), plain(float("nan")))
    assert not same_plain(plain(1), plain(1.0)) and not same_plain(plain(1), plain(True))
    assert not same_plain(plain((1,)), plain([1]))


def test_a_reference_that_returns_for_an_invalid_input_is_a_bug_in_the_contract():
    spec = Contract("abs", "builtins.abs", st.just(Call((1,))), invalid=[
        Invalid(st.just(Call((-1,))), ValueError, "negative numbers")])
    with pytest.raises(AssertionError, match="the reference returned for an input meant "
                                             "to be invalid"):
        spec.prepared()


def test_a_contract_is_registered_as_a_test_is():
    """Its name is unique (a second contract of one exercise is refused) and its stretch
    flag must be the exercise's."""
    cp = Checkpoint("01_flat_storage", reference="stridegrad.array.layout")
    cp.test("numel")(lambda numel: None)
    cp.contract("numel", valid=st.just(Call(((2, 3),))))
    with pytest.raises(ValueError, match="two tests named 'numel_on_generated_inputs'"):
        cp.contract("numel", valid=st.just(Call(((2, 3),))))
    other = Checkpoint("01_flat_storage", reference="stridegrad.array.layout")
    other.test("numel")(lambda numel: None)
    with pytest.raises(ValueError, match="with and without stretch=True"):
        other.contract("numel", valid=st.just(Call(((2, 3),))), stretch=True)
    assert [t.name for t in cp.tests][-1] == "numel_on_generated_inputs"
    assert run_checkpoint(cp, {"numel": __import__("math").prod}, require_local=False).passed


def _grads_of_a_chain(topological_order, values):
    """A scenario: a chain of nodes built from plain numbers; what is observed is the
    order in which ``topological_order`` lists them, by name."""
    class Node:
        def __init__(self, name, prev):
            self.name, self._prev = name, prev
    nodes = []
    for k, _ in enumerate(values):
        nodes.append(Node(f"n{k}", (nodes[-1],) if nodes else ()))
    return [n.name for n in topological_order(nodes[-1])]


def test_a_scenario_judges_live_objects_on_what_it_observes():
    """An exercise about objects (a graph) is run by the contract's scenario, which
    returns plain data: that is what is compared with the reference's."""
    def reference(root):
        order, seen = [], set()

        def visit(v):
            if id(v) not in seen:
                seen.add(id(v))
                for p in v._prev:
                    visit(p)
                order.append(v)
        visit(root)
        return order

    cp = Checkpoint("06_scalar_autograd")
    spec = cp.contract("topological_order", reference="builtins.id",
                       valid=st.lists(st.integers(), min_size=1, max_size=4)
                       .map(lambda xs: Call((xs,))), scenario=_grads_of_a_chain)
    spec.oracle = lambda: reference  # the oracle of this test, not a lesson's
    assert run_checkpoint(cp, {"topological_order": reference}, require_local=False).passed
    backwards = run_checkpoint(cp, {"topological_order": lambda r: reference(r)[::-1]},
                               require_local=False).rows[0]
    assert backwards.status == "fail"
    assert backwards.expected == "['n0', 'n1']" and backwards.got == "['n1', 'n0']"
