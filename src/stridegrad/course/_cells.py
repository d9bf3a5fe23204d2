"""Run a notebook's code cells in the grader's worker, and keep what they show.

:class:`CellRunner` runs cells one after the other in an in-process IPython shell
(magics, ``display`` and ``__main__`` semantics as in a kernel, without a kernel's
start-up cost and ZeroMQ sockets), or with plain ``exec`` where IPython is missing.
Cell ``run`` is numbered as JupyterLab numbers it after Restart Kernel and Run All
(``In [run]``, empty cells skipped), in tracebacks too.

Each cell's outputs are kept as a kernel sends them, as nbformat 4 output dicts:
``stream`` (stdout, stderr), ``display_data``, ``execute_result`` (not after a
trailing ``;``) and ``error`` with the full traceback. They are bounded
(:data:`STREAM_CHARS` of each stream per cell, :data:`OUTPUT_CHARS` per rich
output, :data:`OUTPUTS_CHARS` for the whole notebook, in JSON characters); what
is cut is replaced by a note saying how much. ``stridegrad grade --keep`` writes
them into the executed notebook; the notebook's stderr also reaches the worker's
own stderr (the worker's log), as before.
"""

from __future__ import annotations

import base64
import io
import json
import sys
import traceback

__all__ = ["OUTPUTS_CHARS", "OUTPUT_CHARS", "STREAM_CHARS", "CellRunner", "Outputs"]

#: Stream text kept per cell and stream (stdout, stderr), in JSON characters.
STREAM_CHARS = 64 * 1024
#: The largest rich output kept (a plot, an HTML table), in JSON characters.
OUTPUT_CHARS = 1024 * 1024
#: All the outputs of one notebook together, in JSON characters.
OUTPUTS_CHARS = 4 * 1024 * 1024


def _cost(value) -> int:
    return len(json.dumps(value))


def _head(text: str, room: int) -> str:
    """The longest head of ``text`` whose JSON takes at most ``room`` characters."""
    if room <= 2:
        return ""
    text_head = text[:room]  # a character takes at least one JSON character
    if _cost(text_head) <= room:
        return text_head
    lo, hi = 0, len(text_head)  # _cost(text_head[:lo]) <= room < _cost(text_head[:hi])
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if _cost(text_head[:mid]) <= room else (lo, mid)
    return text_head[:lo]


class Outputs:
    """The outputs of the cell running now, bounded (see the module docstring)."""

    def __init__(self, total: int = OUTPUTS_CHARS):
        self.left = total
        self.begin()

    def begin(self) -> None:
        """Start a new cell."""
        self.items: list[dict] = []
        self.stream_used: dict[str, int] = {}
        self.cut: dict[str, int] = {}
        self.dropped: list[str] = []

    def stream(self, name: str, text: str) -> None:
        if name in self.cut:  # cut once: the rest of the cell's stream too, not a middle
            self.cut[name] += len(text)
            return
        room = min(STREAM_CHARS - self.stream_used.get(name, 0), self.left)
        kept = _head(text, room)
        if len(kept) < len(text):
            self.cut[name] = self.cut.get(name, 0) + len(text) - len(kept)
        if not kept:
            return
        cost = _cost(kept)
        self.stream_used[name] = self.stream_used.get(name, 0) + cost
        self.left -= cost
        last = self.items[-1] if self.items else None
        if last is not None and last["output_type"] == "stream" and last["name"] == name:
            last["text"].append(kept)
        else:
            self.items.append({"output_type": "stream", "name": name, "text": [kept]})

    def rich(self, output: dict) -> None:
        """Keep a display_data, execute_result or error output if it fits."""
        cost = _cost(output)
        if cost > min(OUTPUT_CHARS, self.left):
            what = ", ".join(output.get("data", {})) or output["output_type"]
            self.dropped.append(f"{what}, {cost} characters")
            return
        self.left -= cost
        self.items.append(output)

    def end(self) -> list[dict]:
        """The cell's outputs, with a note for what was cut."""
        items = self.items
        for item in items:
            if item["output_type"] == "stream":
                item["text"] = "".join(item["text"])
        notes = [f"[stridegrad: {n} more characters of {name} cut]"
                 for name, n in self.cut.items()]
        notes += [f"[stridegrad: an output ({what}) cut: past the grader's limit]"
                  for what in self.dropped]
        if notes:
            items.append({"output_type": "stream", "name": "stderr",
                          "text": "\n" + "\n".join(notes) + "\n"})
        self.begin()
        return items


class _Stream(io.TextIOBase):
    """``sys.stdout`` or ``sys.stderr`` while a cell runs: its text goes into the
    cell's outputs (and, for stderr, on to ``tee``, the worker's log)."""

    def __init__(self, outputs: Outputs, name: str, fd: int, tee=None):
        super().__init__()
        self._outputs, self.name, self._fd, self._tee = outputs, name, fd, tee

    @property
    def encoding(self) -> str:
        return "utf-8"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return self._fd

    def write(self, text) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._outputs.stream(self.name, text)
        if self._tee is not None:
            try:
                self._tee.write(text)
            except (OSError, ValueError):
                pass
        return len(text)

    def flush(self) -> None:
        if self._tee is not None:
            try:
                self._tee.flush()
            except (OSError, ValueError):
                pass


def _json_data(data: dict) -> dict:
    """A display's MIME bundle as nbformat stores it (bytes as base64, JSON kept)."""
    out = {}
    for mime, value in (data or {}).items():
        if isinstance(value, bytes):
            value = base64.b64encode(value).decode("ascii")
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            value = str(value)
        out[str(mime)] = value
    return out


class CellRunner:
    """Runs cells one after the other; IPython when installed, else plain exec."""

    def __init__(self, outputs: Outputs):
        self.outputs = outputs
        self.source = ""
        self.run_number = 0
        self._stdout = _Stream(outputs, "stdout", 1)
        self._stderr = _Stream(outputs, "stderr", 2, tee=sys.stderr)
        try:
            from IPython.core.interactiveshell import InteractiveShell
            from traitlets.config import Config
        except ImportError:
            self.shell = None
            self.namespace = {"__name__": "__main__", "__builtins__": __builtins__}
            return
        config = Config()
        config.HistoryManager.enabled = False
        config.InteractiveShell.colors = "nocolor"
        shell = self.shell = InteractiveShell.instance(config=config)
        self.namespace = shell.user_ns
        # what a kernel would send to JupyterLab, kept in the cell's outputs
        shell.display_pub.publish = self._publish
        hook = shell.displayhook
        hook.write_output_prompt = lambda: None
        hook.write_format_data = self._execute_result
        if hasattr(hook, "semicolon_at_end_of_expression"):  # `x;` shows nothing
            hook.quiet = lambda: hook.semicolon_at_end_of_expression(self.source)
        shell._showtraceback = self._traceback

    def _publish(self, data, metadata=None, *args, **kwargs) -> None:
        self.outputs.rich({"output_type": "display_data", "data": _json_data(data),
                           "metadata": _json_data(metadata or {})})

    def _execute_result(self, format_dict, md_dict=None) -> None:
        self.outputs.rich({"output_type": "execute_result", "execution_count": self.run_number,
                           "data": _json_data(format_dict),
                           "metadata": _json_data(md_dict or {})})

    def _traceback(self, etype, evalue, stb) -> None:
        self.outputs.rich({"output_type": "error", "ename": getattr(etype, "__name__", "Error"),
                           "evalue": str(evalue)[:2000], "traceback": [str(s) for s in stb]})

    def _line(self, err: BaseException) -> int | None:
        """The line of the running cell where ``err`` came from (its innermost frame there)."""
        names = getattr(getattr(self.shell, "compile", None), "_filename_map", {}) or {}
        line = None
        tb = err.__traceback__
        while tb is not None:
            filename = tb.tb_frame.f_code.co_filename
            if names.get(filename) == self.run_number or filename == self._filename:
                line = tb.tb_lineno
            tb = tb.tb_next
        if line is None and isinstance(err, SyntaxError) and err.lineno:
            line = err.lineno
        return line

    def run(self, source: str, run: int) -> dict | None:
        """Run one cell as ``In [run]``; None, or its error: ``{"error": "Type: message",
        "line": the line of the cell it came from (or None)}``."""
        self.source, self.run_number = source, run
        self._filename = f"<cell In [{run}]>"
        sys.stdout, sys.stderr = self._stdout, self._stderr
        if self.shell is not None:
            self.shell.execution_count = run  # tracebacks say "Cell In[run]"
            result = self.shell.run_cell(source, store_history=False, silent=False)
            err = result.error_before_exec or result.error_in_exec
        else:
            err = None
            try:
                exec(compile(source, self._filename, "exec"), self.namespace)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:
                err = exc
                self.outputs.rich({
                    "output_type": "error", "ename": type(exc).__name__,
                    "evalue": str(exc)[:2000],
                    "traceback": traceback.format_exception(type(exc), exc, exc.__traceback__)})
        if err is None:
            return None
        return {"error": f"{type(err).__name__}: {str(err)[:2000]}", "line": self._line(err)}

    def restore(self, stdout, stderr) -> None:
        """Give ``sys.stdout`` and ``sys.stderr`` back after the last cell."""
        sys.stdout, sys.stderr = stdout, stderr
