"""The course in a real browser: JupyterLab + Debian Chromium, driven by Playwright.

Run alone with ``pytest -m browser``. Each test opens a notebook, runs all cells
the way a learner does, and checks what the learner sees. Screenshots go to
``artifacts/browser/`` (ignored by git).
"""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "browser"

pytestmark = pytest.mark.browser

# JavaScript run in the page: wait until the notebook and its kernel are ready,
# then run every cell. Waiting on each of the document context, the session context
# and the kernel's info reply, in that order, is what made "run all" reliable: a
# command sent earlier can reach a kernel that is still starting and be dropped.
_RUN_ALL = """
async () => {
  const app = window.jupyterapp;
  const w = app.shell.currentWidget;
  await w.context.ready;
  await w.sessionContext.ready;
  const kernel = w.sessionContext.session.kernel;
  await kernel.info;
  await app.commands.execute('notebook:run-all-cells');
  return true;
}
"""

# Every code cell: its tags, execution count and error outputs (ename, evalue).
_CELLS = """
() => {
  const w = window.jupyterapp.shell.currentWidget;
  return w.content.widgets.filter(c => c.model.type === 'code').map((c, i) => {
    const outs = c.model.outputs.toJSON();
    return {
      index: i,
      tags: c.model.getMetadata('tags') || [],
      count: c.model.executionCount,
      errors: outs.filter(o => o.output_type === 'error').map(o => `${o.ename}: ${o.evalue}`),
      source: c.model.sharedModel.getSource().slice(0, 80),
    };
  });
}
"""


def _find(folder: str, prefix: str) -> str:
    matches = sorted((ROOT / folder).glob(f"{prefix}_*.ipynb"))
    if not matches:
        pytest.fail(f"no {folder}/{prefix}_*.ipynb in the repository")
    return f"{folder}/{matches[0].name}"


def open_and_run(page, lab, path: str, timeout_s: float = 120) -> list[dict]:
    """Open ``path`` in JupyterLab, run all cells, wait for every one; return the cells."""
    page.goto(f"{lab['base']}/lab/tree/{path}?token={lab['token']}")
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
        " && window.jupyterapp.shell.currentWidget.sessionContext"
        f" && window.jupyterapp.shell.currentWidget.context.path === {json.dumps(path)}")
    page.evaluate(_RUN_ALL)
    page.wait_for_function(
        """() => {
          const w = window.jupyterapp.shell.currentWidget;
          const cells = w.content.widgets.filter(c => c.model.type === 'code');
          const busy = w.sessionContext.session.kernel.status !== 'idle';
          return !busy && cells.every(c => c.model.executionCount !== null);
        }""", timeout=timeout_s * 1000, polling=500)
    return page.evaluate(_CELLS)


def unexpected_errors(cells: list[dict]) -> list[str]:
    return [f"cell {c['index']} ({c['source']!r}): {e}" for c in cells for e in c["errors"]
            if "raises-exception" not in c["tags"]]


def shutdown_sessions(lab) -> None:
    req = urllib.request.Request(f"{lab['base']}/api/sessions",
                                 headers={"Authorization": f"token {lab['token']}"})
    for s in json.load(urllib.request.urlopen(req, timeout=10)):
        urllib.request.urlopen(urllib.request.Request(
            f"{lab['base']}/api/sessions/{s['id']}", method="DELETE",
            headers={"Authorization": f"token {lab['token']}"}), timeout=10)


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path


def stub_hints(path: str) -> list[str]:
    """The NotImplementedError messages of the stubs in a lesson notebook."""
    nb = json.loads((ROOT / path).read_text())
    hints = []
    for cell in nb["cells"]:
        src = "".join(cell["source"])
        hints += re.findall(r"""raise NotImplementedError\(\s*(?:"([^"]+)"|'([^']+)')""", src)
    hints = [a or b for a, b in hints]
    return hints


def test_lesson_02_stride_explorer_is_live_and_stubs_show_hints(page, lab_server):
    path = _find("lessons", "02")
    try:
        cells = open_and_run(page, lab_server, path)
        errors = unexpected_errors(cells)
        assert not errors, "cells failed that are not tagged raises-exception:\n" + "\n".join(errors)

        # a live widget view, not the text fallback or a broken frontend
        widget = page.locator(".jp-OutputArea-output .jupyter-widgets").first
        widget.wait_for(state="visible")
        body = page.locator(".jp-Notebook").inner_text()
        assert "Error displaying widget" not in body and "model not found" not in body
        select = page.locator(".jp-OutputArea-output .widget-dropdown select").first
        select.scroll_into_view_if_needed()
        view = select.locator("xpath=ancestor::div[contains(@class,'jp-OutputArea-output')][1]")
        before = view.inner_text()
        options = select.locator("option").all_inner_texts()
        current = select.evaluate("el => el.options[el.selectedIndex].text")
        others = [o for o in options if o != current]
        assert others, f"the stride explorer offers one view only: {options}"
        select.select_option(label=others[-1])
        page.wait_for_function("([el, old]) => el.innerText !== old", arg=[view.element_handle(), before],
                               timeout=15_000, polling=200)
        after = view.inner_text()
        assert after != before, "changing the stride explorer's view did not change what it shows"
        view.evaluate("el => el.scrollIntoView({block: 'start'})")
        screenshot(page, "lesson02_stride_explorer")

        # the unfilled exercises raise with the stub's hint, in the page
        hints = stub_hints(path)
        assert hints, "the lesson has no stubs with hints"
        shown = [c for c in cells if any("NotImplementedError" in e for e in c["errors"])]
        assert shown, "no cell showed a NotImplementedError from a stub"
        page_errors = " ".join(e for c in cells for e in c["errors"])
        shown_hints = [h for h in hints if h in page_errors]
        assert shown_hints, (hints, page_errors[:500])
        # and the learner sees it rendered in an error output, not only in the model
        assert page.locator(".jp-OutputArea-output", has_text=shown_hints[0]).count() >= 1
    finally:
        shutdown_sessions(lab_server)


def test_solution_06_shows_the_graph_and_a_full_checkpoint(page, lab_server):
    path = _find("solutions", "06")
    try:
        cells = open_and_run(page, lab_server, path)
        errors = unexpected_errors(cells)
        assert not errors, "cells failed in the solution:\n" + "\n".join(errors)
        images = page.locator(".jp-OutputArea-output img")
        assert images.count() >= 1, "no picture was rendered (the computation graph)"
        summary = page.locator(".jp-OutputArea-output", has_text=re.compile(r"lesson 06 .*points, all passed"))
        assert summary.count() >= 1, "the check() table with every test passing is not on the page"
        summary.last.scroll_into_view_if_needed()
        screenshot(page, "solution06_graph_and_checkpoint")
        images.first.scroll_into_view_if_needed()
        screenshot(page, "solution06_graph")
    finally:
        shutdown_sessions(lab_server)
