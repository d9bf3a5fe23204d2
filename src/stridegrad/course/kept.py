"""``stridegrad grade --keep DIR``: what one student's grading did, to debug it.

Per student, ``DIR/<student>/``:

- ``<assignment>.executed.ipynb``: the submitted notebook with the outputs the
  grader saw, as nbformat 4 (JupyterLab opens it): each code cell that ran has its
  execution count (``In [n]`` after Restart Kernel and Run All) and its outputs,
  errors with their full traceback; a cell stopped at its time limit shows where;
  a cell that was not run has none, and says why. Outputs are bounded
  (:mod:`stridegrad.course._cells`), with a note where they were cut. Notebook
  metadata ``stridegrad`` records the student, status, points and run. A notebook
  that is not valid JSON gets none (its log says so).
- ``<assignment>.worker.log``: the worker's stderr: its own lines (``[worker] ...``:
  the limits, each cell's start and its time or error, each test's verdict), and
  whatever the notebook wrote to stderr; head and tail kept if it is long.

The worker runs in the sandbox, which cannot write here: it sends each cell's
outputs to the grader as the cell finishes, and the grader writes the files, so a
notebook that dies still leaves the outputs of the cells before. The submitted
notebook is parsed within :data:`stridegrad.course.intake.NOTEBOOK_JSON`'s limits (a
100,000-deep one is no notebook, and raises nothing), and a string the notebook
holds that is no UTF-8 (a lone surrogate, ``"\\ud800"``) is written back as the
same JSON escape.
"""

from __future__ import annotations

import json
from pathlib import Path

from stridegrad.course._limits import UntrustedJSONError, loads
from stridegrad.course.intake import NOTEBOOK_JSON

__all__ = ["executed_notebook", "kept_paths", "write_kept"]


def kept_paths(folder: Path, assignment: str) -> tuple[Path, Path]:
    """``(executed notebook, worker log)`` of one student's folder under ``--keep``."""
    return folder / f"{assignment}.executed.ipynb", folder / f"{assignment}.worker.log"


def _note(text: str) -> dict:
    return {"output_type": "stream", "name": "stderr", "text": f"[stridegrad: {text}]\n"}


def executed_notebook(raw: bytes, cells: dict[int, dict], errors: list[dict],
                      metadata: dict, running: int | None = None) -> dict | None:
    """The notebook ``raw`` with the outputs the worker sent (``cells``: code cell
    number -> run, outputs); a cell in ``errors`` that has no outputs says why
    (not run); ``running`` is the code cell a dead notebook was running. None if
    ``raw`` is not a notebook (or over :data:`~stridegrad.course.intake.NOTEBOOK_JSON`'s
    limits)."""
    try:
        nb = loads(raw, NOTEBOOK_JSON, "the notebook")
    except UntrustedJSONError:
        return None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        return None
    why = {e["cell"]: e["error"] for e in errors if isinstance(e.get("cell"), int)}
    number = -1
    for cell in nb["cells"]:
        if not (isinstance(cell, dict) and cell.get("cell_type") == "code"):
            continue
        number += 1  # as the worker counts code cells
        got = cells.get(number)
        cell["execution_count"] = got["run"] if got else None
        cell["outputs"] = list(got["outputs"]) if got else []
        if got is None and number in why:
            cell["outputs"].append(_note(why[number]))
        elif got is None and number == running:
            cell["outputs"].append(_note("the notebook was stopped while this cell ran"))
    meta = nb.get("metadata")
    if not isinstance(meta, dict):
        nb["metadata"] = meta = {}
    meta["stridegrad"] = metadata
    return nb


def write_kept(folder: Path, assignment: str, notebook: dict | None, log: str) -> None:
    """Write (or replace) one student's kept files; an old executed notebook is removed
    when there is no new one (an unreadable submission)."""
    folder.mkdir(parents=True, exist_ok=True)
    nb_path, log_path = kept_paths(folder, assignment)
    if notebook is None:
        nb_path.unlink(missing_ok=True)
    else:
        # a lone surrogate cannot be UTF-8: backslashreplace writes it as \udXXX, which
        # inside a JSON string is the very escape the notebook had
        nb_path.write_bytes((json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
                            .encode("utf-8", "backslashreplace"))
    log_path.write_text(log, encoding="utf-8", errors="replace")
