"""Tables of checkpoint results, as plain text (terminals, text fallback) and HTML.

Rows whose verdict is about the function rather than the test (not defined,
still a stub, not the learner's own) are folded into one line per exercise, so
a fresh lesson's table says "numel: not implemented (6 tests)" once instead of
six times. Failing rows come first, those with a cause of their own before those
that follow from another exercise's failure; each failing row shows the call, what
was expected and what came back, whole (wrapped, never cut), and the cause of the
failure when it is known (else the test's hint). An optional stretch exercise not
started yet comes last, marked "optional", not as a failure.

:func:`milestone_html` is the feedback page's paragraph of ``stridegrad grade --yours``:
the lesson's milestone run on the student's own functions (advisory, never points).
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable

from stridegrad.course._sinks import html_text, terminal_text
from stridegrad.course.checks import FUNCTION_STATUSES, STATUSES, CheckResult, Row

__all__ = ["PILL", "TEXT_WIDTH", "display_rows", "milestone_html", "result_html",
           "result_text", "rows_html", "summary_line"]

_HIDDEN = "(hidden test)"
#: The text table's width: every line fits, longer values wrap onto more lines.
TEXT_WIDTH = 100


def _untried(r: Row) -> bool:
    """An optional stretch exercise the learner has not started: no failure of theirs."""
    return r.stretch and r.status in ("missing", "stub")


def _order(r: Row) -> tuple[int, int]:
    """Failing rows first, function-level verdicts ("not yours", "not implemented")
    before the others so that they fold into one row; then knock-on failures, passes,
    untried stretch exercises."""
    if _untried(r):
        return (3, 0)
    if r.passed:
        return (2, 0)
    return (1 if r.cause else 0, 0 if r.status in FUNCTION_STATUSES else 1)


def display_rows(rows: Iterable[Row]) -> list[dict]:
    """Rows as shown: failing rows first (root causes, then knock-on failures, then
    passes), consecutive function-level verdicts of one exercise folded, and each test
    named with its exercise when there are several."""
    shown: list[dict] = []
    explained: dict[tuple[str, str], str] = {}  # (exercise, diagnosis) -> first test
    for r in sorted(rows, key=_order):
        last = shown[-1] if shown else None
        status = "untried" if _untried(r) else r.status
        if (r.status in FUNCTION_STATUSES and last is not None and last["folded"]
                and last["exercise"] == r.exercise and last["status"] == status):
            last["count"] += 1
            last["points"] += r.points
            last["max_points"] += r.max_points
            continue
        folded = r.status in FUNCTION_STATUSES
        secret = r.hidden
        cause = hint = ""
        if not r.passed and r.diagnosis:
            if (r.exercise, r.diagnosis) in explained:
                # a guess (two mistakes at once) stays a guess where it is referred to
                hedge = "probably " if r.diagnosis.startswith("probably ") else ""
                cause = f"{hedge}the same mistake as in {explained[r.exercise, r.diagnosis]}"
            else:
                cause = r.diagnosis
                explained[r.exercise, r.diagnosis] = r.test
        elif not r.passed and r.cause:
            cause = (f"{r.exercise} calls {r.cause}, which fails its own tests: "
                     f"fix {r.cause} first")
        elif not (r.passed or secret or folded or r.status == "timeout"):
            hint = r.hint  # a timeout's or a missing function's message says it all
        shown.append({
            "test": r.exercise if folded else r.test,
            "exercise": r.exercise,
            "status": status,
            "result": "optional" if _untried(r) else STATUSES.get(r.status, r.status),
            "points": r.points,
            "max_points": r.max_points,
            "call": "" if folded or secret or r.passed else r.call,
            "expected": "" if folded or secret or r.passed else r.expected,
            "got": ("a stretch exercise, not tried yet (optional)" if _untried(r)
                    else r.message if folded
                    else ("" if secret or r.passed else (r.got or r.message))),
            "cause": cause,
            "knock_on": bool(r.cause) and not r.passed,
            "hint": hint,
            "folded": folded,
            "count": 1,
            "hidden": secret,
        })
    # in a table of several exercises, each test says whose it is (empty_list of
    # flatten and empty_lists of shape_of are otherwise easy to mix up)
    several = len({s["exercise"] for s in shown}) > 1
    for s in shown:
        if s["folded"]:
            s["test"] = f"{s['exercise']} ({s['count']} test{'s' if s['count'] != 1 else ''})"
            continue
        if s["hidden"]:
            s["test"] = f"{s['test']} {_HIDDEN}"
        elif several:
            s["test"] = f"{s['test']} ({s['exercise']})"
    return shown


def summary_line(result: CheckResult) -> str:
    """``lesson 01 (flat storage): 20/26 points, 20 of 26 tests pass``, and the
    optional stretch exercises apart: ``; stretch: 2/5, optional``."""
    main = [r for r in result.rows if not r.stretch]
    stretch = [r for r in result.rows if r.stretch]
    what = f"lesson {result.lesson.split('_', 1)[0]} ({result.title})"
    if result.exercise:
        what += f", exercise {result.exercise}"
    parts = []
    if main or not stretch:
        n, passed = len(main), sum(r.passed for r in main)
        tail = "all passed" if passed == n and n else f"{passed} of {n} tests pass"
        parts.append(f"{result.score}/{result.max_score} points, {tail}")
    if stretch:
        parts.append(f"stretch: {result.stretch_score}/{result.stretch_max_score}, optional")
    return f"{what}: " + "; ".join(parts)


def _wrap(text: str, width: int, first: str, rest: str) -> list[str]:
    """``text`` on lines of at most ``width`` characters, the first starting with
    ``first`` and the others with ``rest``; nothing is dropped (a word longer than a
    line is split across lines). Control characters and escape sequences of a value
    from a notebook are stripped (:func:`~stridegrad.course._sinks.terminal_text`):
    the table is printed on terminals."""
    return textwrap.wrap(" ".join(terminal_text(text).split()), width, initial_indent=first,
                         subsequent_indent=rest, break_on_hyphens=False,
                         break_long_words=True, drop_whitespace=True) or [first.rstrip()]


_LABEL = 10  # width of "expected  "
_INDENT = "    "


def result_text(result: CheckResult, width: int = TEXT_WIDTH) -> str:
    """The table as plain text, no line longer than ``width``: one line per test,
    and under a failing one its call, expected and got values and cause or hint."""
    shown = display_rows(result.rows)
    lines = _wrap(summary_line(result), width, "", "  ")
    if not shown:
        return "\n".join(lines + ["(no tests)"])
    head = f"{'result':<16}{'points':>7}  test"
    lines += [head, "-" * len(head)]
    rest = " " * (16 + 7 + 2)
    for s in shown:
        word = s["result"] if s["status"] in ("pass", "untried") else s["result"].upper()
        first = f"{word:<16}{s['points']:>3}/{s['max_points']:<3}  "
        lines += _wrap(s["test"], width, first, rest)
        details = [("call", s["call"]), ("expected", s["expected"]),
                   ("got" if s["expected"] or s["call"] else "why", s["got"]),
                   ("cause", s["cause"]), ("hint", s["hint"])]
        for label, text in details:
            if text:
                lines += _wrap(text, width, f"{_INDENT}{label + ':':<{_LABEL}}",
                               " " * (len(_INDENT) + _LABEL))
    return "\n".join(lines)


_STYLE_OK = "color:#1b5e20;background:#e8f5e9"
_STYLE_BAD = "color:#b71c1c;background:#ffebee"
_STYLE_CAUSE = "color:#4a148c"
_STYLE_OPTIONAL = "color:#424242;background:#f5f5f5"
#: A status pill: never wrapped onto two lines, however narrow its column gets.
PILL = "padding:1px 6px;border-radius:3px;white-space:nowrap"


def rows_html(rows: Iterable[Row]) -> str:
    """An HTML ``<table>`` of rows (inline styles only: it must survive nbviewer,
    Colab and a feedback file opened from disk). A passing row is one line with no
    empty cells drawn. Every value is escaped
    (:func:`~stridegrad.course._sinks.html_text`)."""
    esc = html_text
    out = ['<table style="border-collapse:collapse;font-size:13px">',
           "<thead><tr>" + "".join(
               f'<th style="text-align:left;padding:3px 8px;border-bottom:1px solid #999">{h}</th>'
               for h in ("test", "result", "points", "call", "expected", "got",
                         "cause or hint")) + "</tr></thead>",
           "<tbody>"]
    cell = ('style="text-align:left;padding:3px 8px;vertical-align:top;'
            'border-bottom:1px solid #eee;white-space:pre-wrap;overflow-wrap:anywhere"')

    def code(text: str) -> str:
        return f"<code>{esc(text)}</code>" if text else ""

    for s in display_rows(rows):
        ok = s["status"] == "pass"
        style, mark = ((_STYLE_OK, "&#10003;") if ok else (_STYLE_OPTIONAL, "&#9675;")
                       if s["status"] == "untried" else (_STYLE_BAD, "&#10007;"))
        badge = f'<span style="{style};{PILL}">{mark} {esc(s["result"])}</span>'
        # a test's name is one word: it is never broken (the column is as wide as it)
        head = (f'<td {cell[:-1].replace("anywhere", "normal")}"><code>{esc(s["test"])}'
                "</code></td>"
                f"<td {cell}>{badge}</td>"
                f'<td {cell[:-1]};white-space:nowrap">{esc(s["points"])}/{esc(s["max_points"])}'
                "</td>")
        if ok:
            out.append(f'<tr>{head}<td colspan="4" {cell}></td></tr>')
            continue
        if s["cause"]:
            why = f'<span style="{_STYLE_CAUSE}"><b>cause:</b> {esc(s["cause"])}</span>'
        else:
            why = esc(s["hint"])
        got = code(s["got"]) if s["expected"] or s["call"] else esc(s["got"])
        out.append(f"<tr>{head}<td {cell}>{code(s['call'])}</td>"
                   f"<td {cell}>{code(s['expected'])}</td><td {cell}>{got}</td>"
                   f"<td {cell}>{why}</td></tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def result_html(result: CheckResult) -> str:
    head = html_text(summary_line(result))
    style = _STYLE_OK if result.passed else _STYLE_BAD
    return (f'<div><p style="{style};padding:4px 8px;margin:4px 0"><b>{head}</b></p>\n'
            f"{rows_html(result.rows)}</div>")


_STYLE_MILESTONE = "color:#0d47a1;background:#e3f2fd"


def milestone_html(report: str) -> str:
    """The feedback page's milestone section: ``report`` (the lines of
    :meth:`stridegrad.course.milestones.MilestoneResult.report`, or the grader's one
    line), escaped, and that it is advice, not points (it was computed in the
    student's sandbox)."""
    lines = [html_text(line.strip()) for line in report.splitlines() if line.strip()]
    if not lines:
        return ""
    head, rest = lines[0], lines[1:]
    items = "".join(f"<li>{line}</li>" for line in rest)
    return (f'<h2 style="font-size:1.1em;margin:1.4em 0 0.3em">Milestone '
            f'<span style="{_STYLE_MILESTONE};{PILL};font-weight:normal">advisory, not '
            f"points</span></h2>\n<p>{head}</p>" + (f"<ul>{items}</ul>" if items else ""))
