"""Milestones: a lesson's result, run on your library.

Lessons 04, 08, 09 and 12 end with a cell ``milestone("09")``. It assembles your
library from your saved notebooks (:func:`stridegrad.course.yours.assemble`, only the
lessons up to this one), installs it, and runs what the lesson built on it:

* ``04``: the strided array of the ``python`` device, on your layout functions,
  standardizes a table by column (a broadcast subtraction and division, a transpose
  view, a slice) and must agree with NumPy;
* ``08``: your backward rules give the gradients of a two-layer network with a
  broadcast bias, a sum and a max, and ``sg.gradcheck`` (your ``numerical_gradient``)
  must agree with them;
* ``09``: your ``Linear``, ``log_softmax``, ``nll_loss`` and Adam, through your backward
  rules, train an MLP on the digits: the goal is 95% test accuracy;
* ``12``: your convolution pieces train the CNN on the digits: the goal is 97%.

Every exercise of the lessons up to this one that the library calls is counted while
the milestone runs, so that the report says which of *your* functions did the work and
which were the reference's, and why ("not written yet", "fails `...`"). Nothing of
yours is graded here: a milestone is what your functions do together. Your functions
run in your own process (as in :func:`~stridegrad.course.yours.yours`), each call
limited to :data:`CALL_LIMIT` seconds.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import io
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["CALL_LIMIT", "MILESTONES", "MilestoneResult", "milestone", "run_milestone"]

#: Seconds one call of one of your functions may take during a milestone.
CALL_LIMIT = 20.0


@dataclass
class MilestoneResult:
    """What a milestone did: the value it measured against its goal, and whose functions
    did it."""

    lesson: str
    what: str  # "train the digits to 97.2% test accuracy (goal: 95%)"
    value: float
    goal: float
    met: bool
    yours: list[str] = field(default_factory=list)  # your functions it called
    reference: dict[str, str] = field(default_factory=dict)  # reference it called: why
    problem: str = ""  # an error that stopped it, naming the function of yours

    def report(self) -> str:
        """The milestone in a few lines, for a learner."""
        own = [n for n in self.yours if n in _lesson_names(self.lesson)]
        before = [n for n in self.yours if n not in own]
        who = f"your {_names(own)}" if own else "the library's own functions of this lesson"
        if before:
            who += f", with your {_names(before)},"
        lines = [f"lesson {self.lesson}'s milestone, on your library:"]
        if self.problem:
            lines.append(f"  it stopped: {self.problem}")
        else:
            lines.append(f"  {who} {self.what}" + ("" if self.met else
                                                   "  <- short of the goal"))
        lines.append(f"  yours, called by this run: {_names(self.yours) or 'none yet'}")
        if self.reference:
            groups: dict[str, list[str]] = {}
            for name, why in self.reference.items():
                groups.setdefault(why, []).append(name)
            lines.append("  the reference's, called by this run: " + "; ".join(
                f"{', '.join(names)} ({why})" for why, names in groups.items()))
        return "\n".join(lines)


def _names(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


@functools.lru_cache(maxsize=None)
def _lesson_names(lesson: str) -> frozenset:
    from stridegrad.course.yours import library_exercises

    return frozenset(library_exercises().get(lesson, {}))


# --------------------------------------------------------------------------- the workloads

def _standardize() -> tuple[float, str]:
    """Lesson 04: a table centred by row and standardized by column on the strided
    array, then viewed transposed and sliced, against NumPy."""
    import stridegrad.array as sa

    rng = np.random.default_rng(4)
    table = rng.normal(3.0, 2.0, size=(40, 6))
    x = sa.asarray(table.tolist())
    x = x - sa.mean(x, axis=1, keepdims=True)  # (40, 6) - (40, 1)
    z = (x - sa.mean(x, axis=0)) / sa.std(x, axis=0)  # (40, 6) - (6,), / (6,)
    zt = sa.permute_dims(z, (1, 0))[:, 1::3]  # a transposed view, sliced
    want = table - table.mean(axis=1, keepdims=True)
    want = (want - want.mean(axis=0)) / want.std(axis=0)
    got, got_t = np.asarray(z.tolist()), np.asarray(zt.tolist())
    if got.shape != want.shape or got_t.shape != want.T[:, 1::3].shape:
        return np.inf, (f"standardize a (40, 6) table to the shape {got.shape} (NumPy: "
                        f"{want.shape}), and view it as {got_t.shape} (NumPy: "
                        f"{want.T[:, 1::3].shape})")
    diff = float(max(np.max(np.abs(got - want)), np.max(np.abs(got_t - want.T[:, 1::3]))))
    agree = "exactly" if diff == 0 else f"to {diff:.1e}"
    return diff, ("centre a (40, 6) table by row ((40, 6) - (40, 1)), standardize it by "
                  "column ((40, 6) - (6,), / (6,)) and view it transposed and sliced on the "
                  f"strided array, agreeing with NumPy {agree}")


def _gradients() -> tuple[float, str]:
    """Lesson 08: a two-layer net's gradients against central differences."""
    import stridegrad as sg
    from stridegrad.gradcheck import GradcheckError

    rng = np.random.default_rng(8)
    x = sg.tensor(rng.normal(size=(5, 4)), requires_grad=True)
    w1 = sg.tensor(rng.normal(size=(4, 6)), requires_grad=True)
    b1 = sg.tensor(rng.normal(size=(6,)), requires_grad=True)
    w2 = sg.tensor(rng.normal(size=(6, 3)), requires_grad=True)

    def net(x, w1, b1, w2):
        h = (x @ w1 + b1).tanh()  # a (6,) bias broadcast over 5 rows
        return (h @ w2).max(axis=1).sum() + h.sum(axis=0).sum()

    try:
        sg.gradcheck(net, (x, w1, b1, w2))
    except GradcheckError as e:
        first = str(e).splitlines()[0]
        return 0.0, ("give gradients of a two-layer net that central differences do not "
                     f"agree with: {first}")
    return 1.0, ("give the gradients of a two-layer net (a broadcast bias, matmuls, tanh, "
                 "a max and sums), and central differences agree (sg.gradcheck)")


def _digits(model: str, epochs: int) -> tuple[float, float, str]:
    """The digits, trained for ``epochs``: the lesson 09 MLP or lesson 12's CNN."""
    import stridegrad as sg
    from stridegrad.train import accuracy, cnn

    F = sg.nn.functional
    X, y = sg.data.load_digits()
    X = (X / 16.0).astype(np.float32)
    Xtr, Xte, ytr, yte = sg.data.train_test_split(X, y, test_size=0.2, seed=0)
    sg.manual_seed(0)
    nn = sg.nn
    if model == "cnn":
        Xtr, Xte = Xtr.reshape(-1, 1, 8, 8), Xte.reshape(-1, 1, 8, 8)
        net = cnn((16, 32, 10), 8)
        opt = sg.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
        lr = opt.lr
    else:
        net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
        opt = sg.optim.Adam(net.parameters(), lr=0.01)
    loader = sg.data.DataLoader((Xtr, ytr), batch_size=32, shuffle=True, seed=0)
    for epoch in range(epochs):
        if model == "cnn":  # the learning rate along a half cosine, as `train --model cnn`
            opt.lr = lr * 0.5 * (1.0 + math.cos(math.pi * epoch / epochs))
        for xb, yb in loader:
            loss = F.nll_loss(F.log_softmax(net(sg.tensor(xb))), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return accuracy(net, Xte, yte, "cpu"), len(yte)


def _train(model: str, epochs: int, goal: float, what: str) -> Callable[[], tuple[float, str]]:
    def run() -> tuple[float, str]:
        acc, n = _digits(model, epochs)
        return acc, (f"{what} to {acc:.1%} test accuracy ({n} images it never saw; "
                     f"goal: {goal:.0%})")
    return run


@dataclass(frozen=True)
class Milestone:
    lesson: str
    run: Callable[[], tuple[float, str]]  # -> (value, what it did)
    goal: float
    higher_is_better: bool = True

    def met(self, value: float) -> bool:
        return value >= self.goal if self.higher_is_better else value <= self.goal


#: The milestone of each lesson that has one.
MILESTONES: dict[str, Milestone] = {
    "04": Milestone("04", _standardize, goal=1e-12, higher_is_better=False),
    "08": Milestone("08", _gradients, goal=1.0),
    "09": Milestone("09", _train("mlp", 8, 0.95, "train an MLP 64-128-10 on the digits"), 0.95),
    "12": Milestone("12", _train("cnn", 12, 0.97, "train a CNN (two convolutions, two "
                                 "max-pools) on the digits"), 0.97),
}


# --------------------------------------------------------------------------- running one

@contextlib.contextmanager
def _counting(targets: dict[str, str]):
    """Count the calls of each library exercise in ``targets`` (name -> module:function),
    whoever's function is installed."""
    counts: Counter = Counter()
    saved = []
    for name, target in targets.items():
        module_name, _, attribute = target.partition(":")
        module = importlib.import_module(module_name)
        original = getattr(module, attribute)

        @functools.wraps(original)
        def counted(*args, _f=original, _n=name, **kwargs):
            counts[_n] += 1
            return _f(*args, **kwargs)

        saved.append((module, attribute, original))
        setattr(module, attribute, counted)
    try:
        yield counts
    finally:
        for module, attribute, original in reversed(saved):
            setattr(module, attribute, original)


def _lesson_with_milestone(lesson: str) -> str:
    """``lesson`` as a key of :data:`MILESTONES` (``"9"`` -> ``"09"``); ValueError naming
    the lessons that have one when it has none."""
    key = f"{int(lesson):02d}"
    if key not in MILESTONES:
        raise ValueError(f"lesson {lesson} has no milestone; lessons with one: "
                         f"{', '.join(sorted(MILESTONES))}")
    return key


def run_milestone(lesson: str, library) -> MilestoneResult:
    """Run lesson ``lesson``'s milestone on ``library`` (a
    :class:`~stridegrad.course.yours.Library`, not installed yet)."""
    from stridegrad.course.yours import YourTimeout

    key = _lesson_with_milestone(lesson)
    stone = MILESTONES[key]
    pieces = [p for p in library.library_pieces if p.called and p.lesson <= key]
    targets = {p.name: p.target for p in pieces}
    value, what, problem = (np.inf if not stone.higher_is_better else 0.0), "", ""
    library.install(call_limit=CALL_LIMIT)
    try:
        with _counting(targets) as counts, contextlib.redirect_stdout(io.StringIO()):
            value, what = stone.run()
    except YourTimeout as e:
        problem = str(e)
    except Exception as e:  # an error in a function of yours carries its name (a note)
        notes = " ".join(getattr(e, "__notes__", []))
        problem = f"{type(e).__name__}: {e}" + (f" ({notes})" if notes else "")
    finally:
        library.restore()
    whose = {p.name: p for p in pieces}
    called = [n for n in targets if counts[n]]
    return MilestoneResult(
        key, what, float(value), stone.goal, not problem and stone.met(value),
        yours=[n for n in called if whose[n].yours],
        reference={n: whose[n].why for n in called if not whose[n].yours},
        problem=problem)


def milestone(lesson: str, folder: Path | str | None = None, *, quiet: bool = False,
              ) -> MilestoneResult | None:
    """Run lesson ``lesson``'s milestone on your library, from your saved notebooks in
    ``folder`` (default: the folder this notebook is in, or your copy of the lessons),
    and print what it did and with whose functions (unless ``quiet``).

    Save your notebooks first: your library is read from the saved files.

    While the notebook is graded or checked (``stridegrad grade``, ``stridegrad check``:
    ``STRIDEGRAD_GRADING`` set) it runs nothing, says so and returns None: the grader
    reads one notebook in a sandbox, and ``stridegrad grade --yours`` runs the
    milestone there apart, on the functions that passed their tests.
    """
    import os

    from stridegrad.course.yours import assemble, default_folder

    key = _lesson_with_milestone(lesson)
    if os.environ.get("STRIDEGRAD_GRADING"):
        if not quiet:
            print(f"lesson {key}'s milestone is not run while the notebook is graded or "
                  "checked (`stridegrad grade --yours` runs it on its own)")
        return None
    folder = Path(folder) if folder is not None else default_folder()
    library = assemble(folder, lessons=[f"{e:02d}" for e in range(int(key) + 1)],
                       library_only=True)
    result = run_milestone(key, library)
    if not quiet:
        print(result.report())
    return result
