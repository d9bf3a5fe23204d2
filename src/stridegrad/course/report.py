"""Tables of checkpoint results, as plain text (terminals, text fallback) and HTML.

Rows whose verdict is about the function rather than the test (not defined,
still a stub, not the learner's own) are folded into one line per exercise, so
a fresh lesson's table says "numel: not implemented (6 tests)" once instead of
six times.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from stridegrad.course.checks import FUNCTION_STATUSES, STATUSES, CheckResult, Row

__all__ = ["display_rows", "result_html", "result_text", "rows_html", "summary_line"]

_HIDDEN = "(hidden test)"


def display_rows(rows: Iterable[Row]) -> list[dict]:
    """Rows as shown: consecutive function-level verdicts of one exercise folded."""
    shown: list[dict] = []
    for r in rows:
        last = shown[-1] if shown else None
        if (r.status in FUNCTION_STATUSES and last is not None and last["folded"]
                and last["exercise"] == r.exercise and last["status"] == r.status):
            last["count"] += 1
            last["points"] += r.points
            last["max_points"] += r.max_points
            continue
        folded = r.status in FUNCTION_STATUSES
        secret = r.hidden
        shown.append({
            "test": r.exercise if folded else r.test,
            "exercise": r.exercise,
            "status": r.status,
            "result": STATUSES.get(r.status, r.status),
            "points": r.points,
            "max_points": r.max_points,
            "expected": "" if folded or secret else r.expected,
            "got": (r.message if folded else ("" if secret else (r.got or r.message))),
            "hint": "" if r.passed or secret else r.hint,
            "folded": folded,
            "count": 1,
            "hidden": secret,
        })
    for s in shown:
        if s["folded"]:
            s["test"] = f"{s['exercise']} ({s['count']} test{'s' if s['count'] != 1 else ''})"
        elif s["hidden"]:
            s["test"] = f"{s['test']} {_HIDDEN}"
    return shown


def summary_line(result: CheckResult) -> str:
    n = len(result.rows)
    passed = sum(r.passed for r in result.rows)
    what = f"checkpoint {result.lesson.split('_', 1)[0]} ({result.title})"
    if result.exercise:
        what += f", exercise {result.exercise}"
    tail = "all passed" if passed == n and n else f"{passed} of {n} tests pass"
    return f"{what}: {result.score}/{result.max_score} points, {tail}"


def _cut(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 3] + "..."


def result_text(result: CheckResult) -> str:
    """A fixed-width table; the text fallback of the HTML one."""
    shown = display_rows(result.rows)
    cols = [("test", 30), ("result", 15), ("points", 6), ("expected", 22), ("got", 34)]
    lines = [summary_line(result)]
    if not shown:
        return lines[0] + "\n(no tests)"
    header = "  ".join(name.ljust(w) for name, w in cols)
    lines += [header.rstrip(), "-" * len(header.rstrip())]
    for s in shown:
        cells = [s["test"], s["result"] if s["status"] == "pass" else s["result"].upper(),
                 f"{s['points']}/{s['max_points']}"]
        text = "  ".join(_cut(c, w).ljust(w) for c, (_, w) in zip(cells, cols))
        if s["expected"]:
            text += "  " + _cut(s["expected"], cols[3][1]).ljust(cols[3][1]) + "  " + \
                _cut(s["got"], cols[4][1])
        else:  # a message with no expected value: let it use both columns
            text += "  " + _cut(s["got"], cols[3][1] + cols[4][1] + 2)
        lines.append(text.rstrip())
        if s["hint"]:
            lines.append(" " * 4 + "hint: " + s["hint"])
    return "\n".join(lines)


_STYLE_OK = "color:#1b5e20;background:#e8f5e9"
_STYLE_BAD = "color:#b71c1c;background:#ffebee"


def rows_html(rows: Iterable[Row]) -> str:
    """An HTML ``<table>`` of rows (inline styles only: it must survive nbviewer,
    Colab and a feedback file opened from disk)."""
    esc = html.escape
    out = ['<table style="border-collapse:collapse;font-size:13px">',
           "<thead><tr>" + "".join(
               f'<th style="text-align:left;padding:3px 8px;border-bottom:1px solid #999">{h}</th>'
               for h in ("test", "result", "points", "expected", "got", "hint")) + "</tr></thead>",
           "<tbody>"]
    for s in display_rows(rows):
        ok = s["status"] == "pass"
        cell = 'style="text-align:left;padding:3px 8px;vertical-align:top;border-bottom:1px solid #eee"'
        badge = (f'<span style="{_STYLE_OK if ok else _STYLE_BAD};padding:1px 6px;border-radius:3px">'
                 f'{"&#10003;" if ok else "&#10007;"} {esc(s["result"])}</span>')
        out.append(
            "<tr>"
            f"<td {cell}><code>{esc(s['test'])}</code></td>"
            f"<td {cell}>{badge}</td>"
            f"<td {cell}>{s['points']}/{s['max_points']}</td>"
            f"<td {cell}><code>{esc(s['expected'])}</code></td>"
            f"<td {cell}>{esc(s['got'])}</td>"
            f"<td {cell}>{esc(s['hint'])}</td>"
            "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def result_html(result: CheckResult) -> str:
    head = html.escape(summary_line(result))
    style = _STYLE_OK if result.passed else _STYLE_BAD
    return (f'<div><p style="{style};padding:4px 8px;margin:4px 0"><b>{head}</b></p>\n'
            f"{rows_html(result.rows)}</div>")
