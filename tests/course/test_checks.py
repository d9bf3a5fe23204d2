"""Checkpoints and check(): the reference passes, known-wrong code fails, and
nothing a learner's function does can stop the caller."""

from __future__ import annotations

import time

import numpy as np
import pytest

from stridegrad.array import layout
from stridegrad.course import Checkpoint, check, expect, fail, run_checkpoint
from stridegrad.course.build import build_lesson, reference_namespace
from stridegrad.course.checkpoints import available
from stridegrad.course.checks import (
    CheckFailure,
    CheckResult,
    Row,
    load_checkpoint,
    load_checkpoint_file,
    _format_call,
    _names,
    short_repr,
    raised,
)
from stridegrad.course.misconceptions import Misconception, for_episode
from stridegrad.course.misconceptions import by_episode as misconceptions_by_episode
from stridegrad.course.paths import find_lessons
from stridegrad.course.report import TEXT_WIDTH, result_text

from .conftest import ROOT, define
from .wrong import WRONG, by_episode

LESSONS = {l.episode: l for l in find_lessons(ROOT)}
EPISODES = available()


def test_every_lesson_has_a_checkpoint_and_back():
    assert EPISODES == sorted(LESSONS), (
        f"checkpoints {EPISODES} and course/ lessons {sorted(LESSONS)} should match")


@pytest.mark.parametrize("episode", EPISODES)
def test_reference_passes_every_test(episode):
    if episode not in LESSONS:
        pytest.fail(f"checkpoint ep{episode} has no course/{episode}_*.py lesson yet")
    cp = load_checkpoint(episode)
    result = run_checkpoint(cp, reference_namespace(LESSONS[episode]), require_local=False)
    failing = [(r.test, r.status, r.message) for r in result.rows if not r.passed]
    assert not failing
    assert result.score == result.max_score == cp.max_points > 0
    assert not any(r.diagnosis or r.cause for r in result.rows)


@pytest.mark.parametrize("episode", EPISODES)
def test_lesson_standard_five_hinted_tests_per_exercise(episode):
    cp = load_checkpoint(episode)
    assert 1 <= len(cp.exercises)
    for ex in cp.exercises:
        tests = [t for t in cp.tests if t.exercise == ex]
        assert len(tests) >= 5, f"{ex}: only {len(tests)} tests"
        assert all(t.hint for t in tests), f"{ex}: a test without a hint"


def _all_exercises():
    return [(ep, ex) for ep in EPISODES for ex in load_checkpoint(ep).exercises]


@pytest.mark.parametrize("episode, exercise", _all_exercises())
def test_every_exercise_has_known_wrong_implementations(episode, exercise):
    assert by_episode().get(episode, {}).get(exercise), (
        f"add a known-wrong {exercise} to tests/course/wrong/ep{episode}.py")


@pytest.mark.parametrize("episode, exercise, label, source",
                         [(ep, ex, label, src) for ep, cases in by_episode().items()
                          for ex, pairs in cases.items() for label, src in pairs])
def test_checkpoint_fails_known_wrong_implementation(episode, exercise, label, source):
    ns = define(source)
    result = run_checkpoint(load_checkpoint(episode), ns, exercise=exercise)
    assert not result.passed, f"{exercise} ({label}) passes the checkpoint"
    assert (result.score + result.stretch_score
            < result.max_score + result.stretch_max_score)
    # a wrong answer is a wrong answer, not a tooling problem
    assert {r.status for r in result.rows} <= {"pass", "fail", "error", "timeout"}, result


MISCONCEPTIONS = [(ep, ex, m) for ep, by_ex in misconceptions_by_episode().items()
                  for ex, ms in by_ex.items() for m in ms]


@pytest.mark.parametrize("episode, exercise, m", MISCONCEPTIONS,
                         ids=[f"{ep}-{ex}-{m.label}" for ep, ex, m in MISCONCEPTIONS])
def test_every_misconception_is_rejected_with_its_own_diagnosis(episode, exercise, m):
    result = run_checkpoint(load_checkpoint(episode), m.define(), exercise=exercise)
    failing = [r for r in result.rows if not r.passed]
    assert failing, f"{exercise} ({m.label}) passes the checkpoint"
    assert {r.diagnosis for r in failing} == {m.diagnosis}, (
        f"{exercise} ({m.label}) is diagnosed as {[r.diagnosis for r in failing]}")
    assert not any(r.cause for r in result.rows)
    # the table shows the diagnosis once, every line within the width, values whole
    text = result_text(result)
    assert _unwrapped(text).count(" ".join(m.diagnosis.split())) == 1
    _assert_fits_and_whole(text, failing)


def test_a_number_is_evidence_not_noise():
    """A numel that always returns 7 fails the tests 'counts dimensions' fails, with other
    numbers: it is not diagnosed as that mistake (numbers are masked only for a
    misconception marked ``varies``, whose counts change from run to run)."""
    seven = Misconception("always 7", "returns 7", "def numel(shape):\n    return 7\n")
    result = run_checkpoint(load_checkpoint("01"), seven.define(), exercise="numel")
    failing = [r for r in result.rows if not r.passed]
    assert len(failing) == len(result.rows) and {r.status for r in failing} == {"fail"}
    assert not any(r.diagnosis for r in failing), [r.diagnosis for r in failing]
    varies = [(ep, ex, m.label) for ep, ex, m in MISCONCEPTIONS if m.varies]
    assert varies == [("07", "count_cycle_garbage", "leaves the automatic collector on")]


def test_a_varying_count_still_looks_like_its_mistake():
    """A hint for 'leaves the automatic collector on' (whose count varies from run to run)
    is kept when the learner's count differs from the misconception's only in its
    numbers; for a misconception not marked varies, other numbers are another mistake."""
    from stridegrad.course.checks import _alike
    varies = next(m for m in for_episode("07")["count_cycle_garbage"] if m.varies)
    fixed = for_episode("01")["numel"][0]
    ours, theirs = ("fail", "returned 97, expected 100"), ("fail", "returned 93, expected 100")
    assert _alike(varies, theirs, ours) and not _alike(fixed, theirs, ours)
    assert _alike(fixed, ours, ours) and not _alike(varies, None, ours)


def _unwrapped(text: str) -> str:
    return " ".join(text.split())


def _assert_fits_and_whole(text: str, rows) -> None:
    assert max(len(line) for line in text.splitlines()) <= TEXT_WIDTH, text
    flat = _unwrapped(text)
    for r in rows:
        for value in (r.call, r.expected, r.got):
            assert _unwrapped(value) in flat, (value, text)


@pytest.mark.parametrize("episode", sorted(misconceptions_by_episode()))
def test_misconceptions_are_labelled_and_explained(episode):
    exercises = load_checkpoint(episode).exercises
    for ex, ms in for_episode(episode).items():
        assert ex in exercises, f"misconceptions of {ex}, not an exercise of {episode}"
        assert all(isinstance(m, Misconception) for m in ms)
        labels = [m.label for m in ms]
        assert len(set(labels)) == len(labels), f"{ex}: a label used twice"
        diagnoses = [m.diagnosis for m in ms]
        assert len(set(diagnoses)) == len(diagnoses), f"{ex}: a diagnosis used twice"
        for m in ms:
            # what the mistake is, then what it visibly does
            assert (": " in m.diagnosis or "; " in m.diagnosis) and \
                len(m.diagnosis) > len(m.label) + 20, m.label


def test_knock_on_failures_name_the_exercise_they_follow_from():
    ns = define("""
        def iter_offsets(shape, strides, offset=0):
            positions = [offset]
            for d, s in zip(shape, strides):
                positions = [p + i * s for i in range(d) for p in positions]
            return positions

        def map_unary(fn, x):
            storage, shape, strides, offset = x
            return [fn(storage[p]) for p in iter_offsets(shape, strides, offset)]
    """)
    cp = load_checkpoint("03")
    result = run_checkpoint(cp, ns, exercise="map_unary")
    failing = [r for r in result.rows if not r.passed]
    assert failing and all(r.cause == "iter_offsets" and not r.diagnosis for r in failing)
    text = str(result)
    assert "map_unary calls iter_offsets, which fails its own tests" in text
    # checked together: iter_offsets's own rows carry the root cause and come first
    result = run_checkpoint(cp, ns)
    iter_rows = [r for r in result.rows if r.exercise == "iter_offsets" and not r.passed]
    assert iter_rows and {r.diagnosis for r in iter_rows} == {
        dict((m.label, m.diagnosis) for m in for_episode("03")["iter_offsets"])[
            "first axis fastest (column-major)"]}
    text = str(result)
    first_root = text.index(iter_rows[0].test)
    first_knock_on = text.index(failing[0].test)
    first_pass = text.index(next(r.test for r in result.rows if r.passed))
    assert first_root < first_knock_on < first_pass


def test_a_mistake_of_its_own_is_not_blamed_on_another_exercise():
    # numel is wrong for () only, and offset_to_index reverses the index: the reversed
    # rows are its own mistake, diagnosed as such; only the row that needs numel(()) is
    # blamed on numel
    ns = define("""
        def numel(shape):
            if not shape:
                return 0
            n = 1
            for d in shape:
                n *= d
            return n

        def offset_to_index(offset, shape):
            if not 0 <= offset < numel(shape):
                raise ValueError(f"offset {offset} is not in range for shape {shape}")
            index = []
            for d in reversed(shape):
                index.append(offset % d)
                offset //= d
            return tuple(index)
    """)
    result = run_checkpoint(load_checkpoint("01"), ns, exercise="offset_to_index")
    failing = {r.test: r for r in result.rows if not r.passed}
    reversed_index = dict((m.label, m.diagnosis) for m in for_episode("01")["offset_to_index"])[
        "peeled index not reversed"]
    assert failing["index_in_a_matrix"].diagnosis == reversed_index
    assert not failing["index_in_a_matrix"].cause
    assert failing["scalar_offset"].cause == "numel" and not failing["scalar_offset"].diagnosis
    # the contract's smallest failing case is offset_to_index(0, ()) too: numel's
    assert {r.test for r in failing.values() if r.cause} == {
        "scalar_offset", "offset_to_index_on_generated_inputs"}


def test_two_mistakes_at_once_each_named_on_its_own_rows():
    # the index comes out reversed AND there is no range check: no misconception has
    # both, but every failure of "peeled index not reversed" is the learner's too
    ns = define("""
        def offset_to_index(offset, shape):
            index = []
            for d in reversed(shape):
                index.append(offset % d)
                offset //= d
            return tuple(index)
    """)
    rows = {r.test: r for r in run_checkpoint(load_checkpoint("01"), ns,
                                              exercise="offset_to_index").rows}
    diagnoses = dict((m.label, m.diagnosis) for m in for_episode("01")["offset_to_index"])
    # named as a likely cause: the whole function matches no known mistake
    probably = "probably " + diagnoses["peeled index not reversed"]
    assert rows["index_in_a_matrix"].diagnosis == probably
    assert rows["index_in_a_3d_array"].diagnosis == probably
    # the range rows are not blamed on the reversal
    assert rows["rejects_an_offset_past_the_end"].diagnosis != diagnoses[
        "peeled index not reversed"]
    # a function that shares only one failure with a misconception is not diagnosed
    ns = define("""
        def numel(shape):
            return shape[0] if shape else 1
    """)
    result = run_checkpoint(load_checkpoint("01"), ns, exercise="numel")
    assert not any(r.diagnosis for r in result.rows)


def test_a_hint_about_one_mistake_is_shown_only_for_that_mistake():
    # a flatten that reverses fails returns_a_new_list by its value: the hint about
    # returning the input itself would blame the wrong thing
    ns = define("""
        def flatten(data):
            if not isinstance(data, list):
                return [data]
            return [flatten(x)[0] if isinstance(x, list) else x for x in reversed(data)]
    """)
    rows = {r.test: r for r in run_checkpoint(load_checkpoint("00"), ns).rows}
    assert not rows["returns_a_new_list"].passed
    assert not rows["returns_a_new_list"].diagnosis
    assert rows["returns_a_new_list"].hint.startswith("check() does not know this mistake")
    assert rows["flattens_a_matrix"].hint  # a general hint stays
    # neither_changes_nor_shares_the_input looks at the inputs and at what the result
    # shares with them only: a wrong value does not fail it
    assert rows["neither_changes_nor_shares_the_input"].passed
    # one that empties its input (and also forgets to wrap a number) gets it
    ns = define("""
        def flatten(data):
            if not isinstance(data, list):
                return data
            out = []
            while data:
                item = data.pop(0)
                out.extend(flatten(item) if isinstance(item, list) else [item])
            return out
    """)
    row = run_checkpoint(load_checkpoint("00"), ns).row("neither_changes_nor_shares_the_input")
    assert not row.diagnosis and "no pop" in row.hint


@pytest.mark.parametrize("label", ["empties the input", "extends the caller's first row",
                                   "returns a flat input itself"])
def test_flatten_that_changes_or_shares_its_input_fails(label):
    m = {m.label: m for m in for_episode("00")["flatten"]}[label]
    result = run_checkpoint(load_checkpoint("00"), m.define(), exercise="flatten")
    failing = {r.test for r in result.rows if not r.passed}
    assert failing & {"neither_changes_nor_shares_the_input", "returns_a_new_list"}
    if label != "empties the input":  # that one also cannot take a lone number
        assert failing <= {"neither_changes_nor_shares_the_input", "returns_a_new_list",
                           "flatten_on_generated_inputs"}


def test_offset_to_index_from_the_wrong_end_fails_every_nonzero_offset():
    m = {m.label: m for m in for_episode("01")["offset_to_index"]}["peels from the wrong end"]
    result = run_checkpoint(load_checkpoint("01"), m.define(), exercise="offset_to_index")
    failing = {r.test for r in result.rows if not r.passed}
    assert failing == {"index_in_a_matrix", "index_in_a_3d_array", "index_in_a_tall_matrix",
                       "inverts_index_to_offset", "offset_to_index_on_generated_inputs"}


def test_an_error_message_must_name_the_values():
    def bad(offset, shape):
        raise ValueError("bad")

    def good(offset, shape):
        raise ValueError(f"offset {offset} is out of range for shape {shape}")

    with pytest.raises(CheckFailure) as info:
        expect(bad, 6, (2, 3), raises=ValueError, naming=(6, (2, 3)))
    assert info.value.got == "raised ValueError: bad"
    assert info.value.expected == "raises ValueError naming 6 and (2, 3)"
    assert expect(good, 6, (2, 3), raises=ValueError, naming=(6, (2, 3))) is None
    ns = define("""
        def offset_to_index(offset, shape):
            raise ValueError("bad")
    """)
    rows = run_checkpoint(load_checkpoint("01"), ns, exercise="offset_to_index").rows
    assert {r.test for r in rows if not r.passed} >= {"rejects_an_offset_past_the_end",
                                                        "rejects_a_negative_offset"}


def _tensor(values):
    from stridegrad import tensor
    return tensor(values)


@pytest.mark.parametrize("make, change", [
    (lambda: [1, 2], lambda a: a.pop()),
    (lambda: [[1, 2], [3]], lambda a: a[0].extend(a[1])),
    (lambda: {"a": [1]}, lambda a: a["a"].append(2)),
    (lambda: {"a": 1}, lambda a: a.update(b=2)),
    (lambda: np.array([1.0, 2.0]), lambda a: a.__setitem__(0, 5.0)),
    (lambda: (np.zeros(2), [1]), lambda a: a[0].__iadd__(1)),
    (lambda: _tensor([1.0, 2.0]), lambda a: a.mul_(2.0)),
    (lambda: [_tensor([1.0]), 3], lambda a: a[0].__setitem__(0, 5.0)),
])
def test_unchanged_notices_any_change_in_place(make, change):
    def changes(a):
        change(a)
        return 0

    with pytest.raises(CheckFailure, match="changed in place"):
        expect(changes, make(), returns=0, unchanged=True)
    assert expect(lambda a: 0, make(), returns=0, unchanged=True) == 0


def test_unchanged_notices_a_result_that_is_an_input():
    data = [1, 2]
    with pytest.raises(CheckFailure) as info:
        expect(lambda a: a, data, returns=[1, 2], unchanged=True)
    assert info.value.got == "the input itself"
    with pytest.raises(CheckFailure, match="holds the input's own"):
        expect(lambda a: [a[0]], [[1]], returns=[[1]], unchanged=True)


def test_text_table_wraps_long_values_without_cutting_them():
    row = Row("a_test_with_a_rather_long_name_that_keeps_going_and_going", "ex", "fail", 0, 1,
              call="ex(" + ", ".join(str(k) for k in range(60)) + ")",
              expected=str(list(range(100, 160))), got=str(list(range(200, 260))),
              hint="a hint " * 30)
    result = CheckResult("01_flat_storage", "flat storage", [row])
    text = result_text(result)
    assert len(text.splitlines()) > 8
    _assert_fits_and_whole(text, [row])
    assert _unwrapped(row.hint) in _unwrapped(text)


def test_passing_rows_draw_no_empty_boxes():
    result = check("01", "numel", namespace=define("""
        def numel(shape):
            n = 1
            for d in shape:
                n *= d
            return n
    """))
    html = result._repr_html_()
    assert "<code></code>" not in html and html.count('colspan="4"') == 7  # 6 + contract
    assert all(len(line.split()) == 3 for line in str(result).splitlines()[3:])


def test_reversed_strides_fail_with_expected_and_got():
    ns = define(WRONG["contiguous_strides"][0][1])
    row = run_checkpoint(load_checkpoint("01"), ns).row("strides_of_a_3d_shape")
    assert row.status == "fail" and row.points == 0
    assert row.expected == "(12, 4, 1)" and row.got == "(1, 4, 12)"
    assert row.call == "contiguous_strides((2, 3, 4))" and row.call in row.message
    assert row.diagnosis.startswith("builds the strides from the right")
    # the diagnosis names the mistake; the test's hint (about other mistakes) is not shown
    assert "last axis" in row.diagnosis and row.hint == ""


def test_check_uses_the_callers_globals():
    ns = define("""
        from stridegrad.course import check
        def numel(shape):
            n = 1
            for d in shape:
                n *= d
            return n
        result = check("01", "numel")
    """)
    result = ns["result"]
    assert isinstance(result, CheckResult)
    assert result.passed and result.score == result.max_score == 7  # 6 tests + contract
    assert result.exercise == "numel"


def test_missing_and_stub_are_reported_as_such():
    ns = define("""
        def numel(shape):
            raise NotImplementedError("multiply the sizes")
        def offset_to_index(offset, shape):
            if numel(shape) <= offset:
                raise ValueError(offset)
            return ()
    """)
    result = check("01", namespace=ns)
    statuses = {r.exercise: r.status for r in result.rows}
    assert statuses["numel"] == "stub"
    assert statuses["contiguous_strides"] == "missing"
    assert "not defined" in result.row("strides_of_a_3d_shape").message
    # offset_to_index is not a stub itself: it calls one
    row = result.row("index_in_a_matrix")
    assert row.status == "stub" and "calls numel" in row.message
    assert result.score == 0


def test_a_stub_is_not_credited_when_the_test_swallows_its_error():
    # NotImplementedError is a RuntimeError: a test expecting a RuntimeError would
    # otherwise pass a stub
    cp = Checkpoint("99_demo", "demo")

    @cp.test("halve", hint="h")
    def rejects_odd(halve):
        try:
            halve(3)
        except RuntimeError:
            return
        fail("halve(3)", "raises RuntimeError", "returned")

    ns = define("""
        def halve(n):
            raise NotImplementedError("divide by 2")
    """)
    result = run_checkpoint(cp, ns)
    assert [r.status for r in result.rows] == ["stub"] and result.score == 0
    ns = define("""
        def halve(n):
            if n % 2:
                raise RuntimeError("odd")
            return n // 2
    """)
    assert run_checkpoint(cp, ns).score == 1


def test_imported_reference_is_not_credited():
    ns = define("from stridegrad.array.layout import numel, contiguous_strides")
    ns["index_to_offset"] = layout.index_to_offset  # assigned, not defined
    result = check("01", namespace=ns)
    for ex in ("numel", "contiguous_strides", "index_to_offset"):
        rows = [r for r in result.rows if r.exercise == ex]
        assert {r.status for r in rows} == {"imported"}
        assert "stridegrad.array.layout" in rows[0].message
    assert result.score == 0


def test_wrapping_the_reference_is_not_credited():
    ns = define("""
        from stridegrad.array import layout
        def numel(shape):
            return layout.numel(shape)
    """)
    rows = check("01", "numel", namespace=ns).rows
    assert {r.status for r in rows} == {"delegates"}
    assert all(r.points == 0 for r in rows)


@pytest.mark.parametrize("exercise, body", [
    ("shape_of", "return sga.asarray(data).shape"),
    ("dtype_of", "return str(sga.asarray(flat).dtype)"),
    ("flatten", "return list(sga.asarray(data).storage)"),
])
def test_a_function_that_calls_the_librarys_own_version_is_not_credited(exercise, body):
    # lesson 00's exercises are what stridegrad.array.asarray does with a nested list:
    # a wrapper around it passes every test, and must get no credit
    params = {"shape_of": "data", "dtype_of": "flat", "flatten": "data"}[exercise]
    ns = define(f"import stridegrad.array as sga\ndef {exercise}({params}):\n    {body}\n")
    rows = check("00", exercise, namespace=ns).rows
    # every row it would pass is marked (flatten's ragged lists make asarray raise)
    assert "delegates" in {r.status for r in rows} and "pass" not in {r.status for r in rows}
    assert all(r.points == 0 for r in rows)
    assert all("asarray" in r.message for r in rows if r.status == "delegates")


def test_a_mistake_is_named_whatever_the_function_is_called():
    # lesson 00 checks a one-level flatten given as namespace={"flatten": one_level_flatten}:
    # the rows' calls say one_level_flatten(...), the misconception's flatten(...)
    ns = define("def one_level_flatten(data):\n    return [x for row in data for x in row]\n")
    result = check("00", "flatten", namespace={"flatten": ns["one_level_flatten"]})
    failing = [r for r in result.rows if not r.passed]
    assert "what one_level_flatten(" in " ".join(r.call for r in failing)
    assert {r.diagnosis for r in failing} == {
        m.diagnosis for m in for_episode("00")["flatten"] if m.label == "one level only"}


def test_numpy_does_not_count_as_your_own_code_in_lesson_00():
    ns = define("""
        import numpy as np
        def to_bytes(flat, dtype):
            if dtype not in ("bool", "int64", "float64"):
                raise ValueError(f"{dtype!r}: not bool, int64 or float64")
            return np.asarray(flat, dtype=dtype).tobytes()
    """)
    result = check("00", "to_bytes", namespace=ns)
    rows = result.rows
    # every row, the unknown-dtype one too (its own code, but the same function)
    assert result.score == 0 and {r.status for r in rows} == {"delegates"}
    assert "to_bytes calls NumPy's asarray: write the computation yourself" in {
        r.message for r in rows}
    # named by what the learner called, not by the helper NumPy runs first for it
    ns = define("""
        import numpy as np
        def unflatten(flat, shape):
            return np.reshape(flat, shape).tolist()
    """)
    assert {r.message for r in check("00", "unflatten", namespace=ns).rows} == {
        "unflatten calls NumPy's reshape: write the computation yourself"}
    # struct is fine, and so is the test's own use of NumPy (comparing, copying inputs)
    ns = define("""
        import struct
        def to_bytes(flat, dtype):
            formats = {"bool": "?", "int64": "q", "float64": "d"}
            if dtype not in formats:
                raise ValueError(f"{dtype!r}: not bool, int64 or float64")
            return struct.pack("<" + formats[dtype] * len(flat), *flat)
    """)
    assert check("00", "to_bytes", namespace=ns).passed


def test_bytes_must_be_bytes():
    # a bytearray equals the bytes it holds, but the docstring asks for a bytes object
    ns = define("""
        import struct
        def to_bytes(flat, dtype):
            formats = {"bool": "?", "int64": "q", "float64": "d"}
            if dtype not in formats:
                raise ValueError(f"{dtype!r}: not bool, int64 or float64")
            return bytearray(struct.pack("<" + formats[dtype] * len(flat), *flat))
    """)
    row = check("00", "to_bytes", namespace=ns).row("packs_float64")
    assert not row.passed and row.got.endswith("(a bytearray, not a bytes)")
    # the one wrong type on every failing row is named as the cause
    assert row.diagnosis.startswith("returns a bytearray where a bytes is expected")


def test_a_recursion_that_never_ends_is_named_as_such():
    # no known mistake of shape_of recurses on data itself; every failing row is a
    # RecursionError, and that is the cause whatever else is wrong
    ns = define("""
        def shape_of(data):
            if not isinstance(data, (list, tuple)):
                return ()
            return (len(data),) + shape_of(data)
    """)
    failing = [r for r in check("00", "shape_of", namespace=ns).rows if not r.passed]
    assert failing and all(r.diagnosis.startswith("recurses without end") for r in failing)


def test_while_grading_a_check_of_other_functions_is_not_a_check_of_the_learners(monkeypatch):
    # check(..., namespace=...) in a scratch cell (as lesson 00 shows) is not a check() of
    # the notebook's own definitions: the grader must not compare the graded ones with it
    import stridegrad.course.checks as checks
    monkeypatch.setenv("STRIDEGRAD_GRADING", "1")
    monkeypatch.setattr(checks, "GRADING_CALLS", [])
    ns = define("""
        from stridegrad.course import check
        def flatten(data):
            return [data]
        def other(data):
            return [data]
        check("00", "flatten", namespace={"flatten": other})
        check("00", "flatten")
    """)
    assert checks.GRADING_CALLS == [("00_welcome", {"flatten": ns["flatten"]})]


def test_an_endless_loop_costs_one_time_limit_not_one_per_test(monkeypatch):
    import stridegrad.course.checks as checks
    monkeypatch.setattr(checks, "AFTER_A_TIMEOUT", 0.1)
    ns = define("def flatten(data):\n    while True:\n        pass\n")
    rows = run_checkpoint(load_checkpoint("00"), ns, exercise="flatten", timeout=0.5).rows
    assert {r.status for r in rows} == {"timeout"}
    assert "within 0.5 s" in rows[0].message
    assert all("within 0.1 s" in r.message for r in rows[1:])


def test_rows_that_are_one_list_are_pointed_out():
    ns = define("""
        def unflatten(flat, shape):
            rows, cols = shape
            out = [[None] * cols] * rows
            for i in range(rows):
                for j in range(cols):
                    out[i][j] = flat[i * cols + j]
            return out
    """)
    row = check("00", "unflatten", namespace=ns).row("unflattens_a_matrix")
    assert row.got.startswith("[[4, 5, 6], [4, 5, 6]] (items 0 and 1 are one and the same list")


def test_an_error_message_may_write_a_shape_as_numpy_does():
    assert _names("cannot reshape array of size 5 into shape (2,3)", (2, 3))
    assert not _names("cannot reshape array of size 5 into shape (3,2)", (2, 3))


def test_a_hint_about_changing_the_input_stays_for_any_change_of_the_input():
    # no known misconception rewrites the rows in place, but the row's own hint (do not
    # change the input) is about exactly what this failure shows; not a nudge about recursion
    ns = define("""
        def flatten(data):
            if not isinstance(data, (list, tuple)):
                return [data]
            out = []
            for item in data:
                if isinstance(item, list):
                    item[:] = flatten(item)
                    out.extend(item)
                else:
                    out.extend(flatten(item))
            return out
    """)
    result = check("00", "flatten", namespace=ns)
    failing = [r for r in result.rows if not r.passed]
    assert [r.test for r in failing] == ["neither_changes_nor_shares_the_input",
                                         "flatten_on_generated_inputs"]
    hint = next(t.hint for t in load_checkpoint("00").tests
                if t.name == "neither_changes_nor_shares_the_input")
    assert failing[0].hint == hint and not failing[0].diagnosis


def test_a_mutable_default_argument_is_named_as_the_cause():
    # def flatten(data, out=[]): right on the first call, then each call adds to the
    # numbers the calls before it left in the one shared list
    ns = define("""
        def flatten(data, out=[]):
            if not isinstance(data, (list, tuple)):
                out.append(data)
            for item in data if isinstance(data, (list, tuple)) else ():
                flatten(item, out)
            return out
    """)
    result = check("00", "flatten", namespace=ns)
    failing = [r for r in result.rows if not r.passed]
    assert failing and result.grown_defaults == {"flatten": ["out"]}
    assert all("default value of out" in r.diagnosis and "if out is None" in r.diagnosis
               for r in failing), [(r.test, r.diagnosis) for r in failing]
    # the same code with a new list per call passes: the diagnosis is not a guess
    right = define("""
        def flatten(data, out=None):
            out = [] if out is None else out
            if not isinstance(data, (list, tuple)):
                out.append(data)
            for item in data if isinstance(data, (list, tuple)) else ():
                flatten(item, out)
            return out
    """)
    assert check("00", "flatten", namespace=right).passed


def test_a_near_miss_is_not_taken_for_a_known_mistake_it_does_not_make():
    # numbers.Number also accepts complex numbers: one wrong call (dtype_of([1, 2j])),
    # which "accepts anything" also gets wrong, with the same 'float64'; its other calls
    # (a string, None) are right, so the diagnosis must not say it accepts anything
    ns = define("""
        import numbers
        def dtype_of(flat):
            for x in flat:
                if not isinstance(x, numbers.Number):
                    raise TypeError(f"{x!r} is a {type(x).__name__}, not a number")
            if not flat:
                return "float64"
            if all(isinstance(x, bool) for x in flat):
                return "bool"
            if all(isinstance(x, int) for x in flat):
                return "int64"
            return "float64"
    """)
    result = check("00", "dtype_of", namespace=ns)
    failing = [r for r in result.rows if not r.passed]
    assert [r.test for r in failing] == ["rejects_what_is_not_a_number",
                                         "dtype_of_on_generated_inputs"]
    assert not failing[0].diagnosis and "complex" in failing[0].hint
    assert not failing[1].diagnosis
    assert failing[0].call == "dtype_of([1, 2j])"


def test_library_passes_when_local_code_is_not_required():
    result = run_checkpoint(load_checkpoint("01"), vars(layout), require_local=False)
    assert result.passed


@pytest.mark.parametrize("body, status", [
    ("while True:\n        pass", "timeout"),
    ("raise SystemExit(3)", "error"),
    ("return numel(shape)", "error"),  # RecursionError
    ("import sys\n    sys.setrecursionlimit(10**6) if False else None\n    raise MemoryError", "error"),
])
def test_nothing_the_function_does_escapes(body, status):
    ns = define(f"def numel(shape):\n    {body}\n")
    start = time.monotonic()
    result = check("01", "numel", namespace=ns, timeout=0.3)
    assert time.monotonic() - start < 120  # it stops (no hang); not a speed test
    assert {r.status for r in result.rows} == {status}
    assert result.score == 0


def test_keyboard_interrupt_still_stops_the_check():
    ns = define("def numel(shape):\n    raise KeyboardInterrupt\n")
    with pytest.raises(KeyboardInterrupt):
        check("01", "numel", namespace=ns)


def test_broken_repr_and_weird_returns_are_described():
    ns = define("""
        class Weird:
            def __repr__(self):
                raise RuntimeError("no repr")
            def __eq__(self, other):
                raise RuntimeError("no eq")
        def numel(shape):
            return Weird()
    """)
    row = check("01", "numel", namespace=ns).rows[0]
    assert row.status == "fail" and "broken repr" in row.got


def test_result_renders_as_text_and_html_and_round_trips():
    ns = define(WRONG["numel"][0][1])
    result = check("01", "numel", namespace=ns)
    text = str(result)
    assert text.startswith("lesson 01 (flat storage), exercise numel: ")
    assert "FAIL" in text and "cause:" in text and "call:     numel((2, 3, 4))" in text
    assert "adds the sizes instead of multiplying" in text
    html = result._repr_html_()
    assert "<table" in html and "numel((2, 3, 4))" in html
    assert "&#10007;" in html and "24" in html and "adds the sizes" in html
    # a test's name is never broken mid-word; long values in the other cells may be
    import re
    names = re.findall(r'<tr><td style="([^"]*)"><code>(\w+)</code></td>', html)
    assert names and all("overflow-wrap:normal" in style for style, _ in names), names
    assert "overflow-wrap:anywhere" in html
    again = CheckResult.from_dict(result.to_dict())
    assert again.to_dict() == result.to_dict() and again.score == result.score


def test_fresh_lesson_table_folds_stub_rows():
    ns = define("def numel(shape):\n    raise NotImplementedError('hint')\n")
    text = str(check("01", "numel", namespace=ns))
    assert "numel (7 tests)" in text and text.count("NOT IMPLEMENTED") == 1


def test_a_failing_check_never_raises_under_nbgrader(monkeypatch, capsys):
    """nbgrader reads the points from the check cell's value (partial credit,
    tests/course/test_nbgrader.py); an exception would make them 0. What the function
    writes to stderr goes to stdout: nbgrader gives a cell with stderr output 0."""
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    ns = define("""
        import sys
        from stridegrad.course import check
        def numel(shape):
            print("noisy", file=sys.stderr)
            return 1 if not shape else 0
        result = check("01", "numel")
    """)
    assert 0 < ns["result"].score < ns["result"].max_score
    out, err = capsys.readouterr()
    assert "noisy" in out and "noisy" not in err


def test_expect_and_fail():
    assert expect(len, [1, 2], returns=2) == 2
    assert expect(int, "x", raises=ValueError) is None
    with pytest.raises(CheckFailure, match=r"int\('3'\): expected raises ValueError, got returned 3"):
        expect(int, "3", raises=ValueError)
    with pytest.raises(CheckFailure) as info:
        expect(list, (3, 1), returns=(3, 1))
    assert "a list, not a tuple" in info.value.got
    with pytest.raises(TypeError, match="exactly one"):
        expect(len, [], returns=0, raises=ValueError)
    assert expect(lambda: 0.1 + 0.2, returns=0.3) == pytest.approx(0.3)


def test_checkpoint_definition_errors(tmp_path):
    with pytest.raises(ValueError, match="NN_slug"):
        Checkpoint("flat")
    cp = Checkpoint("01_flat_storage")
    cp.test("numel", hint="h")(lambda numel: None)
    with pytest.raises(ValueError, match="two tests named"):
        cp.test("numel")(lambda numel: None)
    with pytest.raises(ValueError, match="Python name"):
        cp.test("not a name")
    with pytest.raises(ValueError, match="episodes 02 and 01 differ"):
        cp.extend(Checkpoint("02_strides"))
    with pytest.raises(LookupError, match="lesson 77 has no checkpoint; lessons with checkpoints: 00, 01"):
        load_checkpoint(77)
    with pytest.raises(ValueError, match="has no exercise 'nope'"):
        run_checkpoint(load_checkpoint("01"), {}, exercise="nope")
    bad = tmp_path / "bad.py"
    bad.write_text("def oops(:\n")
    with pytest.raises(ValueError, match="syntax error on line 1"):
        load_checkpoint_file(bad)
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    with pytest.raises(ValueError, match="must define `checkpoint"):
        load_checkpoint_file(empty)


def test_a_function_that_writes_into_its_input_cannot_change_later_tests():
    data = [1, 2, 3]
    cp = Checkpoint("99_demo", "demo")

    @cp.test("total", hint="h")
    def first(total):
        expect(total, data, returns=6)

    @cp.test("total", hint="h")
    def second(total):
        expect(total, data, returns=6)

    ns = define("""
        def total(xs):
            s = sum(xs)
            xs[0] = 100  # a bug: scribbles over its input
            return s
    """)
    result = run_checkpoint(cp, ns)
    assert [r.status for r in result.rows] == ["pass", "pass"] and data == [1, 2, 3]


# ------------------------------------------------------------------ stretch exercises

STRETCH_EPISODES = ["00", "01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12"]


@pytest.mark.parametrize("episode", STRETCH_EPISODES)
def test_each_lesson_has_a_stretch_exercise_with_known_mistakes(episode):
    cp = load_checkpoint(episode)
    assert cp.stretch_exercises, f"checkpoint {episode} has no stretch exercise"
    for ex in cp.stretch_exercises:
        assert cp.points_for(ex) > 0
        assert len(for_episode(episode).get(ex, [])) >= 3, f"{ex}: fewer than 3 misconceptions"
    # the lesson has a cell for it (the build lets a lesson leave a stretch exercise out)
    assert set(cp.stretch_exercises) <= set(build_lesson(LESSONS[episode], execute=False).exercises)
    # the lesson's points leave the stretch out
    assert cp.max_points == sum(t.points for t in cp.tests if not t.stretch)
    assert cp.stretch_points == sum(cp.points_for(ex) for ex in cp.stretch_exercises)


def test_stretch_points_are_counted_apart():
    cp = load_checkpoint("01")
    ns = reference_namespace(LESSONS["01"])
    ns.pop("locate")
    result = run_checkpoint(cp, ns, require_local=False)
    assert result.score == result.max_score == cp.max_points
    assert result.stretch_score == 0 and result.stretch_max_score == cp.stretch_points
    assert result.passed  # an optional exercise left out does not fail the lesson
    assert f"stretch: 0/{cp.stretch_points}, optional" in str(result)
    assert f"{cp.max_points}/{cp.max_points} points, all passed" in str(result)
    only = run_checkpoint(cp, reference_namespace(LESSONS["01"]), exercise="locate",
                          require_local=False)
    assert only.passed and only.max_score == 0
    assert str(only).split("\n")[0].endswith(
        f"exercise locate: stretch: {cp.stretch_points}/{cp.stretch_points}, optional")


def test_an_untried_stretch_exercise_comes_last_marked_optional():
    # the lesson's check("01") cell runs before the stretch cell: its rows are no failure
    ns = reference_namespace(LESSONS["01"])
    ns.pop("locate")
    text = str(run_checkpoint(load_checkpoint("01"), ns, require_local=False))
    last = text.splitlines()[-2:]
    assert last[0].startswith("optional") and "locate" in last[0]
    assert "a stretch exercise, not tried yet" in last[1]
    assert "NOT DEFINED" not in text
    # a stretch exercise tried and wrong is a failure like any other, and comes first
    ns["locate"] = define("def locate(position, shape, strides, offset=0):\n"
                          "    return (0,)\n")["locate"]
    rows = str(run_checkpoint(load_checkpoint("01"), ns, require_local=False)).splitlines()
    assert rows[3].startswith("FAIL") and not any(r.startswith("optional") for r in rows)


def test_a_row_shows_functions_by_name_and_big_arrays_summarised():
    def outer():
        def available(name):
            return True, ""
        return available

    assert short_repr(outer()) == "available" and short_repr(lambda v: v) == "a lambda"
    assert short_repr(np) == "numpy" and short_repr(str) == "str"  # no file path, no <class ...>
    assert " at 0x" not in short_repr(object())
    call = _format_call("conv2d", (np.zeros((1, 3, 5, 5)), np.arange(6.0).reshape(2, 3)), {})
    assert call == ("conv2d(array of shape (1, 3, 5, 5), float64: [0., 0., 0., ..., 0., 0., 0.] "
                    "(flattened), array([[0., 1., 2.], [3., 4., 5.]]))")
    # an answer that fits is shown whole, however many numbers it has
    assert short_repr(np.arange(20.0)).count(",") == 19

    class Listing:  # a repr of one statement per line, as the graphs of lesson 11
        def __repr__(self):
            return "x = input()\ny = exp(x)\nreturn y"

    assert short_repr(Listing()) == "x = input(); y = exp(x); return y"


def test_an_error_message_in_got_is_whole():
    message = "Implicit conversion to a NumPy array is not allowed. Please use `.get()` ..."
    assert raised(TypeError(message)) == f"raised TypeError: {message}"


def test_a_stretch_check_never_fails_an_nbgrader_grade(monkeypatch):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    ns = {"__name__": "__main__"}
    exec("def locate(position, shape, strides, offset=0):\n    return (0,)\n", ns)
    exec("from stridegrad.course import check\nresult = check('01', 'locate')\n", ns)
    assert not ns["result"].passed and ns["result"].stretch_score < ns["result"].stretch_max_score


def test_stretch_tests_must_agree_per_exercise():
    cp = Checkpoint("07_x")
    cp.test("f", hint="h")(lambda f: None)
    with pytest.raises(ValueError, match="with and without stretch=True"):
        @cp.test("f", hint="h", stretch=True)
        def other(f):
            pass


# one hint about one mistake per lesson (hint_for): (exercise, test, the mistake's label)
_ONE_MISTAKE_HINTS = {
    "02": ("slice_layout", "reverse_slice", "negative step starts at 0"),
    "03": ("argmax_axis", "a_tie_gives_the_first_index", "last index on a tie"),
    "04": ("broadcast_shapes", "missing_dims_count_as_one", "aligns from the left"),
    "05": ("mse", "squares_not_absolute_values", "absolute errors instead of squares"),
    "06": ("central_difference", "uses_the_given_step", "ignores the given h"),
    "07": ("count_dependencies", "two_edges_to_one_node_count_two", "counts nodes, not edges"),
    "08": ("numerical_gradient", "numerical_gradient_is_central", "forward difference"),
    "09": ("log_softmax", "log_softmax_large_logits", "naive, no max subtracted"),
    "10": ("pick_device", "one_string_is_one_device", "iterates over the letters of a string"),
    "11": ("run_graph", "keeps_argument_order", "args in sorted order"),
    "12": ("max_pool2d", "negative_values", "starts the maximum at 0"),
}


def _off(value):
    """``value`` made wrong: every number in it moved by 1000."""
    if isinstance(value, str):
        return value + "?"
    if isinstance(value, (tuple, list)):
        return type(value)(_off(v) for v in value)
    if isinstance(value, dict):
        return {k: _off(v) for k, v in value.items()}
    return value + 1000


def _same(a, b) -> bool:
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    try:
        return np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    except (TypeError, ValueError):
        return a == b


@pytest.mark.parametrize("episode", sorted(_ONE_MISTAKE_HINTS))
def test_a_hint_about_one_mistake_is_hidden_for_another_one_per_lesson(episode):
    exercise, test, label = _ONE_MISTAKE_HINTS[episode]
    cp = load_checkpoint(episode)
    hint = next(t for t in cp.tests if t.name == test).hint
    assert label in next(t for t in cp.tests if t.name == test).hint_for
    right = reference_namespace(LESSONS[episode])[exercise]
    mistake = next(m for m in for_episode(episode)[exercise] if m.label == label)
    wrong = mistake.define()[exercise]

    def also_wrong_where_the_mistake_is_right(*args, **kwargs):
        # the mistake, plus another bug on every call it gets right: no known
        # misconception as a whole, yet ``test`` fails exactly as the mistake does
        try:
            expected = right(*args, **kwargs)
        except Exception:
            expected = None
        got = wrong(*args, **kwargs)
        return _off(got) if expected is not None and _same(expected, got) else got

    def unrelated(*args, **kwargs):  # right, but every number 1000 off
        return _off(right(*args, **kwargs))

    row = run_checkpoint(cp, {exercise: also_wrong_where_the_mistake_is_right},
                         exercise=exercise, require_local=False).row(test)
    # the mistake and more: named on the rows it explains, or (when another known
    # mistake fails those rows the same way) shown by the hint about it
    assert not row.passed
    assert row.diagnosis == f"probably {mistake.diagnosis}" if row.diagnosis else \
        row.hint == hint
    rows = run_checkpoint(cp, {exercise: unrelated}, exercise=exercise,
                          require_local=False).rows
    row = next(r for r in rows if r.test == test)
    # no hint about the mistake it does not make; a pointer to hint() instead of nothing
    assert not row.passed and not row.diagnosis
    assert row.hint.startswith(f'check() does not know this mistake: hint("{episode}", ')
    assert hint not in " ".join(r.hint for r in rows)


@pytest.mark.parametrize("body", [
    # array's native order, swapped when the machine is big-endian
    """
        import array
        import sys

        def to_bytes(flat, dtype):
            codes = {"bool": "B", "int64": "q", "float64": "d"}
            if dtype not in codes:
                raise ValueError(f"unknown dtype {dtype!r}: bool, int64 or float64")
            block = array.array(codes[dtype], flat)
            if sys.byteorder == "big":
                block.byteswap()
            return block.tobytes()
    """,
    # struct's standard sizes in the machine's own order ('='), each slot reversed on a
    # big-endian machine (from sys import byteorder, read when the call runs)
    """
        import struct
        from sys import byteorder

        def to_bytes(flat, dtype):
            codes = {"bool": "?", "int64": "q", "float64": "d"}
            if dtype not in codes:
                raise ValueError(f"unknown dtype {dtype!r}: bool, int64 or float64")
            size = struct.calcsize("=" + codes[dtype])
            block = struct.pack(f"={len(flat)}{codes[dtype]}", *flat)
            if byteorder == "big":
                block = b"".join(block[k:k + size][::-1] for k in range(0, len(block), size))
            return block
    """,
])
def test_a_portable_to_bytes_that_swaps_on_a_big_endian_machine_is_right(body):
    """Code that asks the machine's byte order and swaps on a big-endian one writes
    little-endian bytes everywhere: the simulated machines change sys.byteorder (and a
    notebook's `from sys import byteorder`) with struct and array, so it is credited,
    in the hand-written test and in the contract that runs it on each machine."""
    result = check("00", "to_bytes", namespace=define(body))
    assert result.passed, [(r.test, r.call, r.expected, r.got) for r in result.rows
                           if not r.passed]
    assert any(r.test == "to_bytes_on_generated_inputs" for r in result.rows)
