"""What a student reads about a graded notebook: the feedback page and the CSV messages.

Cells are named as JupyterLab shows them after Restart Kernel and Run All:
``In [7]`` and the cell's first line (:func:`cell_name`), and a failing cell is
quoted around the line the error came from (:func:`cell_quote`). A problem of
the whole notebook (not valid JSON, timed out, out of memory) is said once, at the
top, with what to do (:data:`REMEDY`), not on every test's row. The page gives
the total, then each exercise with its subtotal and its tests' table
(:func:`exercise_totals`), and, on an exercise whose ``check()`` ran on another
definition than the one graded (a later cell replaced it), a note naming both
cells and what each scores (:func:`redefinition_note`). Status pills never wrap.
"""

from __future__ import annotations

import dataclasses

from stridegrad.course._sinks import html_text
from stridegrad.course.checks import Row
from stridegrad.course.report import PILL, milestone_html, rows_html

__all__ = ["REMEDY", "cell_name", "cell_quote", "csv_message", "exercise_notes",
           "exercise_totals", "feedback_html", "redefinition_note"]

#: What a student can do about a notebook that could not be graded.
REMEDY = {
    "invalid-notebook": "re-save it in JupyterLab (File > Save) and resubmit",
    "no-notebook": "submit the lesson's notebook where the course says",
    "notebook-timeout": "look for a cell that never ends, fix it, and resubmit",
    "out-of-memory": "look for a cell that builds something huge, fix it, and resubmit",
    "crashed": "run it with Restart Kernel and Run All, fix what stops it, and resubmit",
    "tampered": "submit a notebook that leaves the grader alone",
}

_OK = "color:#1b5e20;background:#e8f5e9"
_BAD = "color:#b71c1c;background:#ffebee"
_PART = "color:#8a4b00;background:#fff3e0"
_NOTE = "color:#5d4037;background:#fff8e1;padding:4px 8px;margin:4px 0"
#: Lines of a failing cell quoted in the feedback: up to the failing line and before it.
QUOTE_LINES = 4


def _in(run) -> str:
    return f"In [{run}]" if run else "a later cell"


def cell_name(e: dict) -> str:
    """A cell as JupyterLab shows it after Restart Kernel and Run All:
    ``In [5]: numel((2, 3, 4))`` (its execution count and first line)."""
    run = e.get("run", e.get("cell", 0) + 1)
    return f"In [{run}]: {e.get('first_line', '')}".rstrip()


def cell_quote(e: dict, lines: int = QUOTE_LINES) -> str:
    """A few lines of a failing cell, numbered, the line the error came from marked
    ``---->`` as in IPython's tracebacks (the cell's first lines if that is unknown)."""
    source = (e.get("source") or "").splitlines()
    if not source:
        return ""
    line = e.get("line")
    if isinstance(line, int) and 1 <= line <= len(source):
        first, last = max(1, line - lines + 1), line
    else:
        line, first, last = None, 1, min(len(source), lines)
    shown = [f"{'---->' if n == line else '     '} {n} {source[n - 1]}"
             for n in range(first, last + 1)]
    if first > 1:
        shown.insert(0, f"      ... ({first - 1} line{'s' if first > 2 else ''} above)")
    if last < len(source):
        more = len(source) - last
        shown.append(f"      ... ({more} more line{'s' if more != 1 else ''})")
    return "\n".join(shown)


def redefinition_note(r: dict) -> str:
    """The note on an exercise whose last ``check()`` ran on an earlier definition."""
    text = (f"graded the definition from {_in(r.get('graded_in'))}; check() in "
            f"{_in(r.get('check_in'))} ran on the earlier one from {_in(r.get('earlier_in'))}")
    if r.get("earlier_points") is None:
        return text + " (not re-run: the notebook used up its time)"
    return (text + f", which scores {r['earlier_points']}/{r['max_points']} (the graded one: "
            f"{r['points']}/{r['max_points']}). The grade counts the final definitions, as "
            "after Restart Kernel and Run All: fix or delete the later cell")


def exercise_notes(redefined: list[dict]) -> dict[str, str]:
    """Exercise -> its note (:func:`redefinition_note`)."""
    return {r["exercise"]: redefinition_note(r) for r in redefined}


def csv_message(row: Row, notes: dict[str, str] | None = None) -> str:
    """A row's message in ``grades.csv``: why it failed (a hidden test says only that
    it failed), and the note of its exercise, if any."""
    if row.status == "pass":
        text = ""
    elif row.hidden and row.status in ("fail", "error"):
        text = "hidden test failed" if row.status == "fail" else "hidden test raised an error"
    else:
        text = row.message
    note = (notes or {}).get(row.exercise)
    return f"{text}; note: {note}" if text and note else (f"note: {note}" if note else text)


def exercise_totals(rows: list[Row], notes: dict[str, str] | None = None) -> list[dict]:
    """Per exercise, in order: ``exercise``, ``points``, ``max_points``, ``passed`` and
    ``tests`` (counts), ``stretch`` (an optional exercise) and ``note``."""
    order = list(dict.fromkeys(r.exercise for r in rows))
    out = []
    for ex in order:
        mine = [r for r in rows if r.exercise == ex]
        out.append({"exercise": ex, "points": sum(r.points for r in mine),
                    "max_points": sum(r.max_points for r in mine),
                    "passed": sum(r.passed for r in mine), "tests": len(mine),
                    "stretch": all(getattr(r, "stretch", False) for r in mine),
                    "note": (notes or {}).get(ex, "")})
    return out


def _pill(points: int, max_points: int) -> str:
    style = _OK if points == max_points else _BAD if points == 0 else _PART
    return f'<span style="{style};{PILL}">{html_text(points)}/{html_text(max_points)}</span>'


def feedback_html(g, run_id: str, digest: str, statuses: dict[str, str]) -> str:
    """The feedback page of a :class:`~stridegrad.course.grader.StudentGrade` ``g``;
    ``statuses`` names the whole-notebook statuses. Every value on the page, numbers
    too, is escaped (:func:`~stridegrad.course._sinks.html_text`): whatever a
    notebook's names, messages and error lines hold, they are text on the page. With
    ``stridegrad grade --yours`` the milestone's section (:func:`milestone_html`) comes
    after the exercises."""
    esc = html_text
    milestone = getattr(g, "milestone", "")
    milestone = milestone_html(getattr(g, "milestone_report", "") or milestone) if milestone \
        else ""
    notes = exercise_notes(getattr(g, "redefined", []))
    errors = "".join(
        f"<li><b>In [{esc(str(e.get('run', '?')))}]</b> "
        f"<code>{esc(e.get('first_line', ''))}</code>: <code>{esc(e['error'])}</code>"
        + (f" (line {esc(e['line'])})" if e.get("line") else "")
        + (f'<pre style="background:#f6f6f6;padding:4px;margin:2px 0 8px">'
           f"{esc(cell_quote(e))}</pre>" if e.get("source") else "") + "</li>"
        for e in g.cell_errors)
    if g.status == "graded":
        notebook = f"<p>Notebook: {esc(g.message)}</p>"
        rows = g.rows
    else:  # one problem for the whole notebook: said once, at the top, not on every row
        remedy = REMEDY.get(g.status, "")
        notebook = (f'<p style="{_BAD};padding:6px 10px">'
                    f"<b>Not graded: {esc(statuses.get(g.status, g.status))}.</b> "
                    f"{esc(g.message)}" + (f". What to do: {esc(remedy)}." if remedy else "")
                    + "</p>")
        rows = [dataclasses.replace(r, message="") for r in g.rows]
    totals = exercise_totals(rows, notes)
    summary = "".join(
        f'<tr><td style="padding:2px 8px"><a href="#ex-{esc(t["exercise"])}"><code>'
        f'{esc(t["exercise"])}</code></a></td>'
        f'<td style="padding:2px 8px">{_pill(t["points"], t["max_points"])}</td>'
        f'<td style="padding:2px 8px;white-space:nowrap">{esc(t["passed"])} of {esc(t["tests"])} '
        f'tests'
        f'</td><td style="padding:2px 8px">'
        + ("optional stretch, not in the total; " if t["stretch"] else "")
        + ("a later cell replaced the definition check() ran on" if t["note"] else "")
        + "</td></tr>" for t in totals)
    sections = "".join(
        f'<h2 id="ex-{esc(t["exercise"])}" style="font-size:1.1em;margin:1.4em 0 0.3em">'
        f'<code>{esc(t["exercise"])}</code> {_pill(t["points"], t["max_points"])}'
        + (' <span style="color:#666;font-weight:normal">optional stretch exercise</span>'
           if t["stretch"] else "") + "</h2>"
        + (f'<p style="{_NOTE}"><b>Note:</b> {esc(t["note"])}.</p>' if t["note"] else "")
        + rows_html([r for r in rows if r.exercise == t["exercise"]])
        for t in totals)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{esc(g.assignment)}: feedback for {esc(g.student)}</title></head>
<body style="font-family:system-ui,sans-serif;max-width:70em;margin:2em auto">
<h1>{esc(g.assignment)}</h1>
<p>Student: <b>{esc(g.student)}</b></p>
<p style="font-size:1.3em">Total: <b>{esc(g.points)} / {esc(g.max_points)}</b> points</p>
{notebook}
{f"<p>Cells that raised an error or were stopped (skipped; the cells after them ran), "
  f"numbered as JupyterLab numbers them after Restart Kernel and Run All:</p>"
  f"<ul>{errors}</ul>" if errors else ""}
<table style="border-collapse:collapse;font-size:14px">{summary}</table>
{sections}
{milestone}
<p style="color:#666;font-size:0.9em">Graded {esc(g.graded_at)} (run {esc(run_id)}, tests
{esc(digest)}). Every cell ran in order, then the tests ran once, on the notebook's final
definitions (as after Restart Kernel and Run All); a test marked hidden shows its name and
points only.</p>
</body></html>
"""
