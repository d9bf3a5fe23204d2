"""Encoders for where text from students and from the LMS goes: the terminal, CSV
files and HTML pages.

A notebook's function names, error messages and output, and the names an LMS
gives its students, are untrusted text. The grader and ``collect`` pass them on
to three places, each of which gives some characters a power of its own; every
such value goes through the encoder of its place here, and nowhere else (one
copy of each rule):

=============  ============================================  ==============================
sink           the danger                                    the rule
=============  ============================================  ==============================
terminal       escape sequences redraw the instructor's      :func:`terminal_text`,
               summary (``ESC[2K`` and ``\\r``: "alice        :func:`terminal_line`:
               0/36 crashed"), set the window title,         control characters and escape
               write links (OSC 8); bidi overrides           sequences stripped, bidi
               (U+202E) show text backwards                  controls too
CSV            a spreadsheet runs a cell that starts with    :func:`csv_cell`: such a cell
               ``=``, ``+``, ``-``, ``@``, tab, CR            gets a leading ``'``
               (``=HYPERLINK(...)``, ``=cmd|...``): CSV or   (OWASP's rule); our readers
               formula injection                             take it off (:func:`csv_value`)
HTML           ``<script>``, a ``"`` that ends an            :func:`html_text`: ``& < > " '``
               attribute                                     escaped, in text and attributes
=============  ============================================  ==============================

The CSV rule and the round trip. OWASP's rule is to prefix a single quote to a
cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return; ASVS
adds NUL, and a line feed is treated the same (a cell can hold one). A cell whose
first non-space character is one of these is prefixed too: some spreadsheets skip
leading spaces. A value that is a plain decimal number (``-1.5``, ``+3``, ``2e-3``)
is left as it is: a spreadsheet reads it as that number, and runs nothing, so the
project's numeric columns (points, totals) stay numbers, negative or not. To make the
prefix reversible, a cell that starts with ``'`` itself also gets one more; the
project's readers (:class:`DictReader`) remove one leading ``'`` where the writer
would have added it, so a value read back is exactly the value written (a student
named ``=x``, or ``'x``, is still that student when a later run, ``grade merge`` or
``collect`` reads the file). A spreadsheet shows such a cell with its ``'``, as text.

Each encoder also replaces a lone surrogate (what a file name's bytes that are not
UTF-8 become in a ``str``, or JSON's ``"\\ud800"``) by U+FFFD, so that the text can
be written as UTF-8 at all: a name that cannot be printed or written would stop
the whole run.

HTML has no links built from student text: the feedback page's only links are
``#ex-<exercise>`` anchors within the page, escaped like any attribute, so no
``javascript:`` URL can be made of them.
"""

from __future__ import annotations

import csv
import html
import re
from collections.abc import Callable, Iterable

__all__ = ["DictReader", "DictWriter", "csv_cell", "csv_value", "html_text", "terminal_line",
           "terminal_log", "terminal_text"]

# ------------------------------------------------------------------------------ terminal

#: ANSI/ECMA-48 escape sequences, as a terminal reads them: OSC strings (window title,
#: OSC 8 links; ended by BEL or ST), DCS/SOS/PM/APC strings (ended by ST), CSI sequences
#: (cursor moves, erase line, colours), their 8-bit C1 forms, and the other two- or
#: three-byte ESC sequences. A string that is never ended loses only its introducer
#: (what follows stays visible).
_ESCAPE = re.compile(r"""
      (?:\x1b\]|\x9d) [^\x07\x1b\x9c]* (?:\x07|\x1b\\|\x9c)    # OSC ... BEL/ST
    | (?:\x1b[PX^_]|[\x90\x98\x9e\x9f]) [^\x1b\x9c]* (?:\x1b\\|\x9c)  # DCS, SOS, PM, APC
    | (?:\x1b\[|\x9b) [0-?]* [ -/]* [@-~]                      # CSI
    | \x1b [ -/]* [0-~]                                        # nF, Fp, Fe, Fs
""", re.VERBOSE)
#: Left once the sequences are gone: C0 controls but tab and line feed, DEL, C1
#: controls, and the invisible characters that reorder or hide text: the bidi controls
#: (U+061C, U+200E/F, U+202A-E, U+2066-9) and the line and paragraph separators.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                      "\u202a-\u202e\u2066-\u2069]")
#: A lone surrogate: no UTF-8 for it.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _encodable(text: str) -> str:
    return _SURROGATE.sub("\ufffd", text)


def terminal_text(text: object) -> str:
    """``text`` made safe to print: ANSI and OSC escape sequences stripped whole, then
    every control character but tab and line feed (C0, DEL, C1, a lone ESC or CR) and
    the bidi controls (U+202E...). Nothing is added: ``"\\x1b[2K\\ralice 0/36"`` prints
    as ``"alice 0/36"``, on its own line, never over another."""
    return _encodable(_CONTROL.sub("", _ESCAPE.sub("", str(text))))


def terminal_line(text: object) -> str:
    """:func:`terminal_text` for a value printed within one line (a name in a table, a
    progress line): a line feed is shown as the two characters ``\\n``, so a value can
    never start a line that looks like another student's."""
    return terminal_text(text).replace("\n", "\\n")


def terminal_log(log: Callable[[str], None]) -> Callable[[str], None]:
    """``log`` that prints each line through :func:`terminal_line` (a summary's lines are
    one line each)."""
    def safe(line: str) -> None:
        log(terminal_line(line))
    return safe


# ------------------------------------------------------------------------------ CSV

#: What a spreadsheet may take for the start of a formula (OWASP, ASVS 1.2.10), and the
#: quote that marks a cell as neutralised.
_FORMULA = frozenset("=+-@\t\r\n\0")
_QUOTE = "'"
#: A plain decimal number: a spreadsheet reads it as one (no formula).
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def _risky(text: str) -> bool:
    first = text[:1]
    return (first == _QUOTE or first in _FORMULA or text.lstrip(" ")[:1] in _FORMULA) \
        and not _NUMBER.fullmatch(text)


def csv_cell(value: object) -> object:
    """The cell to write for ``value``: a number (int, float, bool) or None as it is; a
    string that starts with a formula character (``= + - @``, tab, CR, LF, NUL, also
    after spaces) or with ``'`` gets a leading ``'``, unless it is a plain decimal
    number (see the module docstring); any other value as its ``str``. A lone
    surrogate becomes U+FFFD."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    text = _encodable(str(value))
    return _QUOTE + text if text and _risky(text) else text


def csv_value(cell: str) -> str:
    """The value :func:`csv_cell` wrote as ``cell`` (its extra ``'`` removed)."""
    if cell.startswith(_QUOTE) and _risky(cell[1:]):
        return cell[1:]
    return cell


class DictWriter(csv.DictWriter):
    """:class:`csv.DictWriter` whose every cell, the header's too, is :func:`csv_cell`:
    the only way the project writes a CSV."""

    def writerow(self, rowdict: dict):
        return super().writerow({k: csv_cell(v) for k, v in rowdict.items()})

    def writerows(self, rowdicts: Iterable[dict]):
        for row in rowdicts:  # csv.DictWriter.writerows would bypass writerow
            self.writerow(row)


class DictReader(csv.DictReader):
    """:class:`csv.DictReader` that reads the values :class:`DictWriter` wrote
    (:func:`csv_value` on every cell and column name)."""

    @property
    def fieldnames(self):
        names = csv.DictReader.fieldnames.fget(self)
        return None if names is None else [csv_value(n) for n in names]

    @fieldnames.setter
    def fieldnames(self, value):
        csv.DictReader.fieldnames.fset(self, value)

    def __next__(self) -> dict:
        row = super().__next__()
        return {k: (csv_value(v) if isinstance(v, str) else
                    [csv_value(x) for x in v] if isinstance(v, list) else v)
                for k, v in row.items()}


# ------------------------------------------------------------------------------ HTML

def html_text(value: object) -> str:
    """``value`` as HTML text or as an attribute value in double or single quotes:
    ``& < > " '`` escaped (``html.escape`` with ``quote=True``)."""
    return html.escape(_encodable(str(value)), quote=True)
