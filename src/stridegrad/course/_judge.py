"""The grader's judge: a lesson's tests, run outside the sandbox on a notebook inside it.

``python -m stridegrad.course._judge --read-fd R --write-fd W``, started by
:mod:`stridegrad.course.grader` beside each worker. Its stdin carries one JSON line from
the grader (trusted): the lesson, the instructor's hidden tests and points, the time
limits, the notebook's code cells, the token, and the message for the worker. The judge
sends the worker its message on ``W`` (the worker's stdin) and reads the worker's
stdout on ``R``: each cell's outputs (``--keep``), then what the exercises' names hold.
Then it runs the checkpoint, unchanged, with each exercise a
:class:`~stridegrad.course._wire.Remote`: a test's call is sent to the worker as plain
data and the answer comes back as plain data (:mod:`stridegrad.course._wire`). The
tests, expected values, hidden tests, points and the result never enter the sandbox,
and every verdict is computed here. Visible tests run before hidden ones, so that no
visible row's message can carry a hidden test's inputs.

"Not yours" is decided here, from the notebook's source (:func:`not_yours`): an
exercise bound by an import, or a definition that calls the library's own version
of it (directly or through the notebook's other functions), gets no points.

The judge writes what the old in-sandbox worker wrote, to its stdout: the cell-output
lines it got, then one result line with the token. A worker that dies before its
cells finish leaves no result line (exit 3): the grader then reads the worker's exit.
The judge limits its own address space (a notebook can make the judge's objects work
for it through the tests' handles, never without bound).

With ``milestone`` in its config (``stridegrad grade --yours``), once every verdict is
made the judge asks the worker to run the lesson's milestone on the notebook's functions
of the exercises that passed all their tests, the reference everywhere else
(:func:`run_milestone_step`, :mod:`stridegrad.course.observe.milestone`), within a limit
of its own; the answer (plain data, computed in the notebook's process: advisory, never
points) goes into the result line as ``milestone``.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import re
import sys
import time
from pathlib import Path

__all__ = ["main", "not_yours"]

#: The judge's own address-space limit, MB.
MEMORY_MB = 8192


#: The judge's own lines on its stderr (kept with the worker's by ``--keep``).
LOG_PREFIX = "[judge] "


def _log(text: str) -> None:
    sys.stderr.write(f"{LOG_PREFIX}{text}\n")
    sys.stderr.flush()


def _emit(payload: dict) -> None:
    sys.stdout.write("\n" + json.dumps(payload) + "\n")
    sys.stdout.flush()


_MAGIC = re.compile(r"^\s*[%!].*$", re.MULTILINE)


def _parse(cells: list[str]) -> list[ast.stmt]:
    """The top-level statements of the cells that parse (IPython's magics blanked)."""
    body: list[ast.stmt] = []
    for source in cells:
        try:
            body += ast.parse(_MAGIC.sub("", source)).body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return body


def _statements(body: list[ast.stmt]):
    """The statements that run at the notebook's top level, in order: those inside an
    ``if``, ``try``, ``with`` or loop too (not those inside a function or class)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.If, ast.For, ast.While, ast.With, ast.AsyncFor,
                             ast.AsyncWith)):
            yield from _statements(stmt.body + getattr(stmt, "orelse", []))
        elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            yield from _statements(stmt.body + [s for h in stmt.handlers for s in h.body]
                                   + stmt.orelse + stmt.finalbody)


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    """``np.linalg.norm`` as ``numpy.linalg.norm`` (through the notebook's imports)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in aliases:
        return None
    return ".".join([aliases[node.id], *reversed(parts)])


def _resolve(dotted: str):
    """The library's (or NumPy's) object named ``dotted``, or None (nothing else is
    imported here)."""
    if not dotted.startswith(("stridegrad.", "numpy.")):
        return None
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        name = ".".join(parts[:cut])
        if name.startswith(("stridegrad.course.checkpoints", "stridegrad.course.misconceptions")):
            return None
        try:
            obj = sys.modules.get(name) or importlib.import_module(name)
        except Exception:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr, None)
        return obj
    return None


def not_yours(cells: list[str], checkpoint) -> dict[str, tuple[str, str]]:
    """Each exercise the notebook's source shows is not its own: ``{exercise: (status,
    message)}`` with status ``imported`` (the name's last binding is an import, or an
    alias of an imported name) or ``delegates`` (its definition, or a function of the
    notebook it calls, calls the library's own version of it, or NumPy where the lesson
    forbids it)."""
    from stridegrad.course.checks import _reference_codes

    aliases: dict[str, str] = {}
    bound: dict[str, tuple[str, object]] = {}
    for stmt in _statements(_parse(cells)):
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                local = a.asname or a.name.split(".")[0]
                aliases[local] = a.name if a.asname else a.name.split(".")[0]
                bound[local] = ("import", aliases[local])
        elif isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
            for a in stmt.names:
                local = a.asname or a.name
                aliases[local] = f"{stmt.module}.{a.name}"
                bound[local] = ("import", aliases[local])
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound[stmt.name] = ("def", stmt)
            aliases.pop(stmt.name, None)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for t in targets:
                if isinstance(t, ast.Name):
                    dotted = _dotted(stmt.value, aliases) if stmt.value is not None else None
                    bound[t.id] = ("import", dotted) if dotted else ("assign", stmt)
                    if dotted:
                        aliases[t.id] = dotted
                    else:
                        aliases.pop(t.id, None)
    found: dict[str, tuple[str, str]] = {}
    for ex in checkpoint.exercises:
        kind, what = bound.get(ex, ("", None))
        if kind == "import":
            found[ex] = ("imported", f"{ex} comes from {what}, not from this notebook: "
                                     "define it yourself with def")
            continue
        if kind == "assign":  # a lambda is the notebook's own; anything else is made
            value = what.value  # elsewhere (types.FunctionType of the library's code...)
            if not isinstance(value, ast.Lambda):
                found[ex] = ("imported", f"{ex} is not defined in this notebook (it is the "
                                         f"value of an expression, line {what.lineno} of its "
                                         "cell): define it yourself with def")
                continue
        elif kind != "def":
            continue
        codes = _reference_codes(checkpoint, ex)
        modules = {k: v for k, v in codes.items() if isinstance(k, str)}
        said = _inherited(what, aliases, codes)
        if said:
            found[ex] = ("delegates", f"{ex} is a subclass of {said}: write the class "
                                      "yourself, from the lesson's base class")
            continue
        said = _delegation(what, bound, aliases, codes, modules)
        if said:
            found[ex] = ("delegates", f"{ex} calls {said}: write the computation yourself")
    return found


def _class_code(obj, codes) -> str:
    """How to name the library's own class ``obj`` (or one it derives from) when the code
    of a method it defines is in ``codes``, else ""."""
    for klass in getattr(obj, "__mro__", ()):
        for member in vars(klass).values():
            code = getattr(getattr(member, "__func__", member), "__code__", None)
            if code is not None and code in codes:
                return codes[code].rsplit(".", 1)[0] if "." in codes[code] else codes[code]
    return ""


def _inherited(node, aliases, codes) -> str:
    """For a class definition: how to name the library's own version of the exercise
    that it derives from (``class Linear(sg.nn.Linear)``), else ""."""
    if not isinstance(node, ast.ClassDef):
        return ""
    for base in node.bases:
        dotted = _dotted(base, aliases)
        obj = _resolve(dotted) if dotted else None
        if isinstance(obj, type):
            said = _class_code(obj, codes)
            if said:
                return said
    return ""


def _delegation(node, bound, aliases, codes, modules) -> str:
    """How to name the first forbidden call in ``node`` or the notebook's functions it
    calls (by name), or ""."""
    todo, seen = [node], set()
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        for sub in ast.walk(current):
            if not isinstance(sub, ast.Call):
                continue
            if isinstance(sub.func, ast.Name) and bound.get(sub.func.id, ("",))[0] == "def":
                todo.append(bound[sub.func.id][1])
                continue
            dotted = _dotted(sub.func, aliases)
            if dotted is None:
                continue
            top = dotted.split(".")[0]
            if top in modules:
                return f"{modules[top]}'s {dotted.rsplit('.', 1)[-1]}"
            obj = _resolve(dotted)
            code = getattr(obj, "__code__", None)
            if code is not None and code in codes:
                return codes[code]
            said = _class_code(obj, codes) if isinstance(obj, type) else ""
            if said:  # the library's own class made inside: sg.nn.Linear(...)
                return said
    return ""


#: Modules the judge imports when the notebook does, so that the library sees the same
#: world on both sides (array_api_strict registers a device when it is imported).
MIRRORED = ("stridegrad", "numpy", "array_api_strict", "array_api_compat", "math")


def mirror_imports(cells: list[str]) -> list[str]:
    """Import here what the notebook's cells import of :data:`MIRRORED` (never the
    course's checkpoints or solutions); the names imported."""
    done = []
    for stmt in _parse(cells):
        names = [a.name for a in stmt.names] if isinstance(stmt, ast.Import) else (
            [stmt.module] if isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level
            else [])
        for name in names:
            if name.split(".")[0] in MIRRORED and not name.startswith((
                    "stridegrad.course.checkpoints", "stridegrad.course.solutions",
                    "stridegrad.course.misconceptions")) and name not in sys.modules:
                try:
                    importlib.import_module(name)
                    done.append(name)
                except Exception:
                    continue
    return done


def _load(config: dict):
    from stridegrad.course.grader import _load_tests
    from stridegrad.course.points import apply_points

    extra = config.get("extra_tests")
    checkpoint, _ = _load_tests(config["episode"], Path(extra) if extra else None,
                                bool(config.get("show_extra_tests")), None)
    overrides = config.get("points")  # the points file, as the grader read it
    return apply_points(checkpoint, overrides) if overrides else checkpoint


def _visible_first(checkpoint):
    """The checkpoint with its hidden tests after the visible ones."""
    import copy

    ordered = copy.copy(checkpoint)
    ordered.tests = [t for t in checkpoint.tests if not t.hidden] + [
        t for t in checkpoint.tests if t.hidden]
    return ordered


def _judge(checkpoint, namespace: dict, cells: list[str], test_timeout: float,
           origins: dict | None = None):
    from stridegrad.course.checks import STATUSES, diagnose_rows, run_checkpoint

    ordered = _visible_first(checkpoint)
    # a name the notebook's process does not hold is "missing", whatever the source says
    verdicts = {ex: v for ex, v in not_yours(cells, checkpoint).items() if ex in namespace}
    for ex, where in (origins or {}).items():  # what the worker saw (advisory: it can lie)
        if ex not in verdicts and isinstance(where, str):
            verdicts[ex] = ("imported", f"{ex} comes from {where[:200]}, not from this "
                                        "notebook: define it yourself with def")
    judged = {k: v for k, v in namespace.items() if k not in verdicts}
    result = run_checkpoint(ordered, judged, require_local=False, timeout=test_timeout,
                            diagnose=False)
    try:  # advisory: what it finds is feedback, and a worker that stopped answering
        # must not cost the rows their verdicts
        diagnose_rows(ordered, result, judged, timeout=test_timeout)
    except Exception as exc:
        _log(f"diagnosis stopped: {type(exc).__name__}: {exc}")
    order = {t.name: i for i, t in enumerate(checkpoint.tests)}
    result.rows.sort(key=lambda r: order.get(r.test, len(order)))
    for r in result.rows:
        if r.exercise in verdicts:
            r.status, r.message = verdicts[r.exercise]
            r.points, r.expected, r.got, r.call = 0, "", "", ""
            r.diagnosis = r.cause = ""
    assert all(r.status in STATUSES for r in result.rows)
    return result


def _redefined(checkpoint, result, earlier: list, channel, test_timeout: float,
               budget: float) -> list[dict]:
    """:func:`stridegrad.course._worker.rescore` of the earlier definitions the worker
    named (each a handle), re-run here."""
    from stridegrad.course._worker import rescore

    candidates = []
    for e in earlier if isinstance(earlier, list) and channel.closed is None else ():
        if not isinstance(e, dict) or e.get("exercise") not in checkpoint.exercises:
            continue
        try:
            definition = channel.codec.decode(e.get("definition"))
        except ValueError:
            continue
        candidates.append({"exercise": e["exercise"], "definition": definition,
                           **{k: e.get(k) if type(e.get(k)) is int else None
                              for k in ("graded_in", "check_in", "earlier_in")}})
    return rescore(_visible_first(checkpoint), result, candidates, test_timeout, budget,
                   namespace={}, require_local=False)


#: The longest text of a milestone's answer the judge passes on (it comes from the
#: notebook's process).
MILESTONE_CHARS = 600


def run_milestone_step(step: dict, result, namespace: dict, *, remote: bool = True) -> dict:
    """``stridegrad grade --yours``: the lesson's milestone, run in the notebook's process
    (:func:`stridegrad.course.observe.milestone.on_library`) on its functions of the
    exercises that passed every test in ``result``, the reference everywhere else, within
    ``step["timeout"]`` seconds. ``namespace`` holds the exercises as the judge's handles
    (:class:`~stridegrad.course._wire.Remote`), or with ``remote=False`` the notebook's
    own functions (the worker's own tests, ``STRIDEGRAD_JUDGE=inside``). Plain data, the
    answer's texts capped and its names checked against the plan: ``ran`` (False: no
    function of the notebook to run it on), ``seconds``, ``value`` (None when not
    finite), ``what``, ``yours``, ``reference`` (names), ``problem`` (what stopped it;
    "" if nothing). A hang or a crash in it is its ``problem``, never an exception."""
    from stridegrad.course._wire import ChannelClosed, Remote, in_its_process
    from stridegrad.course.checks import _TestTimeout, _Watch
    from stridegrad.course.observe.milestone import library_plan, on_library, passing_exercises

    lesson = str(step.get("lesson"))
    limit = float(step.get("timeout") or 60.0)
    plan = library_plan(lesson, passing_exercises(result.rows))
    functions = {name: namespace[name] for _, name, _, mine in plan
                 if mine and name in namespace
                 and (isinstance(namespace[name], Remote) if remote
                      else callable(namespace[name]))}
    answer: dict = {"ran": bool(functions), "seconds": 0.0, "value": None, "what": "",
                    "yours": [], "reference": [], "problem": ""}
    if not functions:
        _log(f"milestone {lesson}: not run: no function of the notebook passed its tests "
             "and is one the library calls")
        return answer
    start = time.monotonic()
    try:
        with _Watch(limit, {}):
            got = in_its_process(on_library)(next(iter(functions.values())), lesson,
                                             functions, plan)
    except _TestTimeout:
        got = {"problem": f"it did not finish within {limit:g} s and was stopped"}
    except ChannelClosed as exc:
        got = {"problem": str(exc)}  # "the notebook's process ended (...)"
    except Exception as exc:  # the observation itself failed in the notebook's process
        got = {"problem": f"{type(exc).__name__}: {exc}"}
    answer["seconds"] = round(time.monotonic() - start, 3)
    if not isinstance(got, dict):
        got = {"problem": f"the notebook's process answered a {type(got).__name__}"}
    value = got.get("value")
    if type(value) in (int, float) and value == value and abs(value) != float("inf"):
        answer["value"] = float(value)
    names = {name for _, name, _, _ in plan}
    for key in ("what", "problem"):
        answer[key] = str(got.get(key) or "")[:MILESTONE_CHARS]
    for key in ("yours", "reference"):
        listed = got.get(key) if isinstance(got.get(key), list) else []
        answer[key] = [n for n in dict.fromkeys(x for x in listed if isinstance(x, str))
                       if n in names and (key == "reference" or n in functions)]
    _log(f"milestone {lesson} in {answer['seconds']:.3f} s: "
         + (f"stopped: {answer['problem']}" if answer["problem"] else
            f"{answer['value']}: {answer['what']}")[:300])
    return answer


def _limit_memory() -> None:
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_MB << 20, MEMORY_MB << 20))
    except (ImportError, ValueError, OSError):  # pragma: no cover - other platforms
        pass


def main(argv: list[str] | None = None) -> int:
    from stridegrad.course._limits import JSONLimits
    from stridegrad.course._wire import ChannelClosed, JudgeChannel, ProtocolError, write_message

    p = argparse.ArgumentParser(prog="python -m stridegrad.course._judge")
    p.add_argument("--read-fd", type=int, required=True)
    p.add_argument("--write-fd", type=int, required=True)
    args = p.parse_args(argv)
    started = time.monotonic()
    config = json.loads(sys.stdin.buffer.readline())
    _limit_memory()
    checkpoint = _load(config)
    token = config["token"]
    test_timeout = float(config.get("test_timeout") or 10.0)
    channel = JudgeChannel(args.read_fd, args.write_fd,
                           limits=JSONLimits(64 * 1024 * 1024, 80, 4_000_000),
                           default_timeout=test_timeout)
    message = dict(config["worker"], serve=True, lesson=checkpoint.lesson,
                   exercises=checkpoint.exercises, token=token)
    try:
        write_message(args.write_fd, message)
    except OSError:
        return 3
    while True:  # the cells' outputs, then the worker's "ready"
        try:
            msg = channel.read(None)
        except (ChannelClosed, ProtocolError, OSError):
            return 3  # died during the cells: the grader reads its exit
        if msg.get("token") != token:
            continue
        if "cell" in msg:
            _emit(msg)
            continue
        if msg.get("ready"):
            break
        if msg.get("status") == "invalid-notebook":
            _emit(msg)
            return 0
    namespace: dict = {}
    for ex, value in (msg.get("names") or {}).items() if isinstance(msg.get("names"), dict) \
            else ():
        if ex in checkpoint.exercises:
            try:
                namespace[ex] = channel.codec.decode(value)
            except ValueError:
                continue
    cells = [c for c in config.get("cells") or [] if isinstance(c, str)]
    mirror_imports(cells)
    tests_start = time.monotonic()
    origins = msg.get("origins") if isinstance(msg.get("origins"), dict) else {}
    result = _judge(checkpoint, namespace, cells, test_timeout, origins)
    tests_seconds = time.monotonic() - tests_start
    for row in result.rows:  # the kept log (--keep) shows each verdict, as the worker's did
        _log(f"test {row.test} ({row.exercise}): {row.status} {row.points}/{row.max_points}"
             + (f": {row.message}"[:200] if row.message and not row.hidden else ""))
    _log(f"tests done in {tests_seconds:.3f} s: {result.score}/{result.max_score} points")
    cells_seconds = msg.get("cells_seconds") if isinstance(msg.get("cells_seconds"),
                                                           (int, float)) else 0.0
    budget = (float(config.get("cells_timeout") or 0) - cells_seconds
              + len(checkpoint.tests) * test_timeout - tests_seconds - 2.0)
    redefined = _redefined(checkpoint, result, msg.get("earlier"), channel, test_timeout,
                           budget)
    milestone = None
    if isinstance(config.get("milestone"), dict):  # --yours: after every verdict is made
        milestone = run_milestone_step(config["milestone"], result, namespace)
    if channel.closed is None:
        try:
            write_message(args.write_fd, {"op": "done"})
        except OSError:
            pass
    _emit({"status": "graded", "code_cells": msg.get("code_cells"),
           "cell_errors": msg.get("cell_errors"), "limits": msg.get("limits"),
           "result": result.to_dict(), "redefined": redefined,
           **({"milestone": milestone} if milestone is not None else {}),
           "seconds": round(time.monotonic() - started, 3), "token": token})
    return 0


if __name__ == "__main__":
    sys.exit(main())
