"""A learner's "Run All" goes through a fresh lesson.

JupyterLab 4's Run All (``notebook:run-all-cells``) sends every code cell to
the kernel at once, each as an ``execute_request`` with ``stop_on_error`` true
unless the cell is tagged ``raises-exception`` (``OutputArea.execute`` in
``@jupyterlab/outputarea``). When a request with ``stop_on_error`` fails, the
kernel aborts the requests still queued, and the rest of the notebook never
runs. This test speaks that protocol to a real kernel: no cell may be aborted,
and only tagged cells may fail. The control case (tags removed) shows the
same lesson *does* stop, so the test can fail.
"""

from __future__ import annotations

import nbformat
import pytest
from jupyter_client.manager import start_new_kernel

from stridegrad.course.paths import find_lessons

from .conftest import ROOT

LESSONS = find_lessons(ROOT)


def run_all(nb, cwd) -> list[tuple[str, bool, str]]:
    """(status, tagged, ename) per code cell, as JupyterLab's Run All would see them."""
    km, kc = start_new_kernel(kernel_name="python3", cwd=str(cwd))
    try:
        sent = []
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            tagged = "raises-exception" in cell.metadata.get("tags", [])
            sent.append((kc.execute(cell.source, stop_on_error=not tagged), tagged))
        replies, ours = {}, {m for m, _ in sent}
        while len(replies) < len(sent):
            msg = kc.get_shell_msg(timeout=300)
            # other replies can arrive on the shell channel too (a late kernel_info
            # reply from the start, on a loaded machine): only ours count
            if msg["parent_header"].get("msg_id") in ours:
                replies[msg["parent_header"]["msg_id"]] = msg["content"]
        return [(replies[m]["status"], tagged, replies[m].get("ename", "")) for m, tagged in sent]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda l: l.stem)
def test_run_all_goes_through_a_fresh_lesson(lesson):
    nb = nbformat.read(lesson.lesson_path, as_version=4)
    results = run_all(nb, lesson.lesson_path.parent)
    assert [s for s, _, _ in results].count("aborted") == 0
    for k, (status, tagged, ename) in enumerate(results):
        if status == "error":
            assert tagged and ename == "NotImplementedError", (k, ename)
    assert results[-1][0] == "ok"  # the last cell ran


def test_without_the_tags_run_all_stops():
    lesson = next(l for l in LESSONS if l.episode == "01")
    nb = nbformat.read(lesson.lesson_path, as_version=4)
    for cell in nb.cells:
        cell.metadata.pop("tags", None)
    statuses = [s for s, _, _ in run_all(nb, lesson.lesson_path.parent)]
    first_error = statuses.index("error")
    assert statuses[first_error + 1:] and set(statuses[first_error + 1:]) == {"aborted"}


def test_pytest_n_keeps_each_notebook_on_one_worker():
    """`pytest -n 2` on notebooks: without the plugin's `--dist loadfile`, xdist gives
    the cells of one notebook to two kernels and later cells miss earlier names."""
    import subprocess
    import sys

    pytest.importorskip("xdist")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "-q", "-p", "no:cacheprovider",
                           "solutions/01_flat_storage.ipynb"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:]
