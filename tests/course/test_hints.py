"""Hints in levels: every exercise has them, hint() walks through them, check() shows
level 1 where it cannot name the mistake, and the stubs point to them."""

from __future__ import annotations

import pytest

from stridegrad.course import hint, run_checkpoint
from stridegrad.course import hints as hints_module
from stridegrad.course.build import build_lesson
from stridegrad.course.checkpoints import available
from stridegrad.course.checks import load_checkpoint
from stridegrad.course.hints import by_episode, levels, nudge
from stridegrad.course.paths import find_lessons

from .conftest import ROOT, define

EXERCISES = [(ep, ex) for ep in available() for ex in load_checkpoint(ep).exercises]


@pytest.fixture(autouse=True)
def fresh_kernel(monkeypatch):
    """Each test starts as a fresh kernel: no level shown yet."""
    monkeypatch.setattr(hints_module, "_SHOWN", {})


@pytest.mark.parametrize("episode", sorted(by_episode()))
def test_hints_belong_to_exercises(episode):
    exercises = load_checkpoint(episode).exercises
    for ex in by_episode()[episode]:
        assert ex in exercises, f"hints for {ex}, not an exercise of checkpoint {episode}"


@pytest.mark.parametrize("episode, exercise", EXERCISES)
def test_every_exercise_has_two_to_four_levels(episode, exercise):
    texts = levels(episode, exercise)
    assert 2 <= len(texts) <= 4, f"{exercise}: {len(texts)} levels"
    assert all(t.strip() for t in texts)
    assert len(set(texts)) == len(texts), f"{exercise}: a level repeated"
    # from a nudge to the full idea: the last level is the whole algorithm
    assert texts[-1].startswith("In full"), f"{exercise}: the last level is not the full idea"


def test_each_call_shows_the_next_level_then_says_there_is_no_more(capsys):
    texts = levels("01", "numel")
    n = len(texts)
    for k in range(1, n + 1):
        hint("01", "numel")
        out = capsys.readouterr().out
        assert out.startswith(f"Hint {k} of {n} for numel (lesson 01)")
        assert " ".join(texts[k - 1].split()[:4]) in " ".join(out.split())
        if k < n:
            assert 'Next level: hint("01", "numel")' in out
        else:
            assert "the full idea" in out and "last level" in out
    hint("01", "numel")
    out = capsys.readouterr().out
    assert out.startswith("No more hints for numel") and f"all {n} levels" in out
    # another exercise has its own count; 1, "01" and "01_flat_storage" are one lesson
    hint(1, "contiguous_strides")
    assert capsys.readouterr().out.startswith("Hint 1 of")
    hint("01_flat_storage", "contiguous_strides")
    assert capsys.readouterr().out.startswith("Hint 2 of")


def test_level_jumps_and_goes_on_from_there(capsys):
    n = len(levels("03", "iter_offsets"))
    hint("03", "iter_offsets", level=n)
    assert capsys.readouterr().out.startswith(f"Hint {n} of {n}")
    hint("03", "iter_offsets", level=1)
    capsys.readouterr()
    hint("03", "iter_offsets")
    assert capsys.readouterr().out.startswith("Hint 2 of")


def test_unknown_names_are_clear_errors():
    with pytest.raises(ValueError, match=r"lesson 01 has no exercise 'numl'; its exercises are "
                                         r'"numel", "contiguous_strides"'):
        hint("01", "numl")
    with pytest.raises(LookupError, match=r'lesson 42 has no hints; lessons with hints: "00", '
                                          r'"01"'):
        hint("42", "numel")
    with pytest.raises(ValueError, match="a lesson is a number"):
        hint("flat", "numel")
    n = len(levels("01", "numel"))
    with pytest.raises(ValueError, match=rf"numel \(lesson 01\) has hint levels 1 to {n}, not 9"):
        hint("01", "numel", level=9)
    with pytest.raises(ValueError, match="not 0"):
        hint("01", "numel", level=0)
    with pytest.raises(TypeError, match="level must be an int"):
        hint("01", "numel", level="2")


def test_check_shows_level_one_when_it_cannot_name_the_mistake():
    # a numel no misconception explains: level 1 and how to get more, on its first failing row
    ns = define("""
        def numel(shape):
            return shape[0] if shape else 1
    """)
    result = run_checkpoint(load_checkpoint("01"), ns, exercise="numel")
    failing = [r for r in result.rows if not r.passed]
    assert failing and not any(r.diagnosis for r in failing)
    # the row's own hint says what its test checks; level 1 comes after it
    own = next(t.hint for t in load_checkpoint("01").tests if t.name == failing[0].test)
    assert failing[0].hint == f"{own} Stuck on numel? {nudge('01', 'numel')}"
    assert levels("01", "numel")[0] in failing[0].hint and 'hint("01", "numel")' in failing[0].hint
    assert 'hint("01", "numel")' in " ".join(str(result).split())
    # level 1 once; a row whose hint is about another mistake points to hint() instead
    assert sum(levels("01", "numel")[0] in r.hint for r in result.rows) == 1
    assert all(r.hint == own or levels("01", "numel")[0] in r.hint
               or r.hint.startswith("check() does not know this mistake")
               for own, r in ((next(t.hint for t in load_checkpoint("01").tests
                                    if t.name == r.test), r) for r in failing))
    # a known mistake gets its diagnosis, no nudge
    ns = define("""
        def numel(shape):
            return sum(shape)
    """)
    rows = run_checkpoint(load_checkpoint("01"), ns, exercise="numel").rows
    assert all(r.diagnosis and "hint(" not in r.hint for r in rows if not r.passed)


def test_stubs_are_nudges_that_point_to_the_levels():
    lesson = next(l for l in find_lessons(ROOT) if l.episode == "01")
    built = build_lesson(lesson, execute=False)
    for name, ex in built.exercises.items():
        stub_line = ex.stub.strip().split("\n")[-1].strip()
        assert stub_line.startswith("raise NotImplementedError(")
        assert f'hint("01", "{name}")' in stub_line, stub_line


def test_a_momentum_bug_gets_no_hint_about_weight_decay():
    # damps the buffer from the second step on: no known mistake, fails two momentum tests
    ns = define("""
        def sgd_step(param, grad, state, lr, momentum=0.0, weight_decay=0.0):
            g = grad + weight_decay * param
            if momentum:
                buf = state.get("momentum_buffer")
                buf = g if buf is None else momentum * buf + (1 - momentum) * g
                state["momentum_buffer"] = buf
                g = buf
            return param - lr * g
    """)
    rows = run_checkpoint(load_checkpoint("09"), ns, exercise="sgd_step").rows
    failing = [r for r in rows if not r.passed]
    # the hand-written rows, then the contract's (a generic hint: it names no mistake)
    assert [r.test for r in failing] == ["sgd_momentum_two_steps", "sgd_momentum_with_weight_decay",
                                         "sgd_step_on_generated_inputs"]
    assert not any(r.diagnosis for r in failing)
    assert "Weight decay" not in " ".join(r.hint for r in failing)
    # its second step looks like a damped buffer's: the momentum hint stays there
    assert "buffer" in failing[0].hint
    assert failing[1].hint.startswith('check() does not know this mistake: hint("09", "sgd_step")')


@pytest.mark.parametrize("episode", available())
def test_hints_about_one_mistake_name_known_misconceptions(episode):
    from stridegrad.course.misconceptions import for_episode
    known = {ex: {m.label for m in ms} for ex, ms in for_episode(episode).items()}
    for t in load_checkpoint(episode).tests:
        for label in t.hint_for:
            assert label in known.get(t.exercise, set()), (t.name, label)
