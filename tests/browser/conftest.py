"""A headless JupyterLab server and a Chromium page driven by Playwright.

The server runs on a free loopback port with a random token, over a temporary copy
of the notebooks (running them in the browser must never rewrite the repository's
files), and is stopped at the end of the session even when a test fails.
Chromium is Debian's (``/usr/bin/chromium``); Playwright never downloads a browser.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from stridegrad.commands.lab import wait_until_ready

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("STRIDEGRAD_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = ROOT / "artifacts" / "browser"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _need_browser() -> None:
    """Skip, saying how to enable the browser tests, where they cannot run.

    Both fixtures call it, whichever pytest sets up first: without it the ``browser``
    fixture would try to launch a missing executable and ERROR instead of skipping."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"browser tests need Chromium, and there is none at {CHROMIUM}: "
                    "`sudo apt-get install chromium` (Debian/Ubuntu; .ci/run does this) or "
                    "set STRIDEGRAD_CHROMIUM=/path/to/chromium, then run `pytest -m browser`")
    pytest.importorskip("playwright.sync_api",
                        reason="browser tests need playwright: pip install -e '.[dev]'")


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory):
    _need_browser()
    root = tmp_path_factory.mktemp("lab")
    for folder in ("lessons", "solutions"):
        shutil.copytree(ROOT / folder, root / folder)
    settings = tmp_path_factory.mktemp("lab-settings")
    notif = settings / "@jupyterlab" / "apputils-extension"
    notif.mkdir(parents=True)
    (notif / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    # JupyterLab 4 renders only the cells near the viewport ("windowing"); a test that
    # clicks a widget further down must find it attached and laid out
    tracker = settings / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True)
    (tracker / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    port, token = _free_port(), secrets.token_hex(16)
    log = (tmp_path_factory.mktemp("lab-log") / "server.log").open("w")
    env = {**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(settings), "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           "--ServerApp.port_retries=0", "--allow-root", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={root}", "--LabApp.expose_app_in_browser=True",
           "--LabApp.news_url=None", f"--LabApp.workspaces_dir={tmp_path_factory.mktemp('ws')}"]
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        # the same readiness poll as `stridegrad lab` (a loaded machine gets 120 s)
        wait_until_ready(proc, base, token, Path(log.name))
        yield {"base": base, "token": token, "root": root}
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()


@pytest.fixture(scope="session")
def browser():
    _need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--disable-gpu", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--disable-quic"])
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    p = ctx.new_page()
    p.set_default_timeout(60_000)
    try:
        yield p
    finally:
        ctx.close()
