"""Untrusted JSON and text, taken in within limits.

Everything the grader reads that a student wrote, directly (a notebook) or through
code of theirs that ran (a worker's result line, the outputs of its cells), is
data from an adversary. :func:`loads` parses such JSON with a cap on its size, its
nesting depth and the number of values it holds, checked *before* ``json.loads``
builds anything: a 100,000-deep ``[[[[...`` is refused in linear time instead of
raising RecursionError in the grader, and a capped input cannot grow into gigabytes
of Python objects (``[[],[],...]`` costs about 30 bytes of memory per byte parsed,
so the value count is capped too). A number of more digits than Python converts is
refused the same way. Every failure is a :class:`UntrustedJSONError` (a ValueError)
whose message says which limit, or where the JSON is wrong.

:func:`clean_text` makes a string from such data safe for the grader's sinks (the
CSV files, the feedback pages, the terminal): capped, without control characters,
and encodable as UTF-8 (a lone surrogate, which JSON allows as ``"\\ud800"``, would
make writing the CSV raise). :func:`printable` shows a file name the same way.
"""

from __future__ import annotations

import json
import re
from array import array
from itertools import accumulate
from dataclasses import dataclass
from typing import Any

__all__ = ["JSONLimits", "UntrustedJSONError", "clean_text", "loads", "printable"]


class UntrustedJSONError(ValueError):
    """Untrusted JSON over a limit (``over_limit``), or not JSON at all; the message
    says which limit, or where the JSON is wrong."""

    def __init__(self, message: str, *, over_limit: bool = True):
        super().__init__(message)
        self.over_limit = over_limit


@dataclass(frozen=True)
class JSONLimits:
    """What :func:`loads` accepts: at most ``max_bytes`` (UTF-8 bytes, or characters of
    a str), lists and dicts nested at most ``max_depth`` deep, at most ``max_values``
    values in all (lists, dicts, and the items in them)."""

    max_bytes: int
    max_depth: int
    max_values: int


# A JSON string, from its opening quote to its closing one, or to the end of the text
# for one that is never closed: a match never fails once begun, and its quantifiers
# never give back (possessive), so stripping every string is linear in the text's
# length, whatever it holds (a plain regex for strings is quadratic on '"\\"\\"\\"...').
_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)', re.DOTALL)
_NOT_STRUCTURE = re.compile(r'[^\[\]{},]++')
#: an opening bracket counts +1, a closing one -1 (0xff as a signed byte), commas go
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")


def _check_structure(text: str, limits: JSONLimits, what: str) -> None:
    """Refuse ``text`` if its lists and dicts nest deeper, or hold more values, than
    ``limits`` allow.

    Outside strings, every ``[`` or ``{`` opens a container and every ``,`` separates
    two values, as ``json.loads`` reads them: with the strings removed, the running
    count of opening minus closing brackets is the depth ``json.loads`` would recurse
    to (up to a stray closing bracket, where it stops with an error), and the counts
    of brackets and commas bound the values it would build. Both are computed at C
    speed (about 0.1 s for 1 million brackets), whatever the text holds."""
    marks = _NOT_STRUCTURE.sub("", _STRING.sub("", text)).encode("ascii")
    containers = marks.count(b"[") + marks.count(b"{")
    values = containers + marks.count(b",") + 1
    if values > limits.max_values:
        raise UntrustedJSONError(f"{what} holds more than {limits.max_values:,} JSON values "
                             f"(about {values:,})")
    depth = max(accumulate(array("b", marks.translate(_STEPS, b","))), default=0)
    if depth > limits.max_depth:
        raise UntrustedJSONError(f"{what} has lists or dicts nested {depth:,} levels deep, more "
                             f"than the limit of {limits.max_depth}")


def loads(data: bytes | str, limits: JSONLimits, what: str = "the data") -> Any:
    """``json.loads(data)`` for untrusted ``data`` (UTF-8 bytes, or a str) within
    ``limits``; :class:`UntrustedJSONError` naming ``what`` and the problem otherwise:
    over a limit, not UTF-8, not valid JSON (with its line and column)."""
    if len(data) > limits.max_bytes:
        raise UntrustedJSONError(f"{what} is {len(data) / 2**20:.1f} MB, over the limit of "
                             f"{limits.max_bytes / 2**20:g} MB")
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise UntrustedJSONError(f"{what} is not UTF-8 text", over_limit=False) from None
    else:
        text = data
    _check_structure(text, limits, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UntrustedJSONError(f"{what} is not valid JSON (line {exc.lineno}, column "
                                 f"{exc.colno}: {exc.msg})", over_limit=False) from None
    except RecursionError:  # not reached past _check_structure; kept as a last guard
        raise UntrustedJSONError(f"{what} nests too deep to parse") from None
    except ValueError as exc:  # a number of more digits than int() converts
        raise UntrustedJSONError(f"{what} holds a value Python cannot read: {exc}") from None


# C0 controls but tab and newline, DEL and the C1 controls (ANSI escapes start with
# ESC, or with the C1 CSI): they move a terminal's cursor and mean nothing in a CSV.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean_text(text: str, max_chars: int) -> str:
    """``text`` from untrusted data, for the grader's CSV, feedback and terminal: at
    most ``max_chars`` characters (cut with " [cut]"), no control characters but tab
    and newline, lone surrogates replaced by U+FFFD (so that it encodes as UTF-8)."""
    text = _CONTROL.sub("", text)
    if len(text) > max_chars:
        text = text[:max(0, max_chars - 6)] + " [cut]"
    return _SURROGATE.sub("\ufffd", text)


#: What a str holds for an escape such as ``"\ud800"`` in JSON, or for a byte that
#: is not UTF-8 in a file name (``os.listdir`` keeps it as U+DC80 to U+DCFF).
_SURROGATE = re.compile("[\ud800-\udfff]")


def printable(name: str) -> str:
    """A file or folder name to show: its control characters, and the bytes of it that
    are not UTF-8, as ``\\xNN`` escapes; the name itself when it has neither."""
    if _SURROGATE.search(name):
        try:
            name = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        except UnicodeEncodeError:  # a surrogate that is no escaped byte
            name = _SURROGATE.sub("\ufffd", name)
    return _NAME_CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", name)


#: In a name, tab and newline are control characters too.
_NAME_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
