"""``stridegrad lab``: open JupyterLab on your copy of the lessons, at the welcome lesson.

Your copy is a folder of your own, never the course's ``lessons/``: ``my-lessons/``
in a clone of the repository (git ignores it, so ``git pull`` never conflicts with
your work), else ``./stridegrad-lessons``. It is made on the first run and brought
up to date on every run after: new lessons are added, and a lesson you edited is
never overwritten (see :mod:`stridegrad.course.learner_copy`).

The JupyterLab it starts is the learner's: the instructor's tools that a development
install brings along (nbgrader's menus and panels, jupytext's commands) are switched
off, and so is JupyterLab's news pop-up, by a configuration folder of this run's own
that ``JUPYTER_CONFIG_PATH`` puts in front of the environment's (:func:`learner_config`;
the learner's own settings still win over its defaults). Each run has its own folder,
``stridegrad-lab-*`` in the temporary directory, holding that configuration and the
server's log, named in the first line printed; the address to open is printed last.
"""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from stridegrad.commands import CommandError

__all__ = ["HELP", "command", "configure", "learner_config", "learner_folder", "lessons_dir",
           "run", "wait_until_ready"]

HELP = "open JupyterLab on your own copy of the lessons, at 00_welcome.ipynb"

DEFAULT_COPY = Path("stridegrad-lessons")
CLONE_COPY = "my-lessons"
FIRST = "00_welcome.ipynb"

#: Jupyter server extensions and JupyterLab extensions an instructor's or a developer's
#: install adds, which a learner's lab leaves out (each is switched off only where it
#: is installed; the names are those ``jupyter server/labextension list`` shows).
INSTRUCTOR_SERVER_EXTENSIONS = (
    "nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.validate_assignment",
    "nbgrader.server_extensions.assignment_list", "nbgrader.server_extensions.course_list",
    "jupyterlab_jupytext")
INSTRUCTOR_LAB_EXTENSIONS = ("@jupyter/nbgrader", "jupyterlab-jupytext")
#: JupyterLab's news and update check: the "Would you like to get notified about
#: official Jupyter news?" pop-up (``--LabApp.news_url=None`` alone does not remove it)
NO_NEWS = {"@jupyterlab/apputils-extension:notification":
           {"fetchNews": "false", "checkForUpdates": False}}


def configure(p):
    p.add_argument("--dir", type=Path, metavar="DIR",
                   help=f"open this folder as it is (default: your copy, {CLONE_COPY}/ in a "
                        f"clone, else ./{DEFAULT_COPY}; made or updated from the course first)")
    p.add_argument("--port", type=int, help="port for the server (default: 8888 or the next free one)")
    p.add_argument("--no-browser", action="store_true", help="start the server only")
    p.add_argument("--print-command", action="store_true",
                   help="print the JupyterLab command instead of running it (it makes or "
                        "updates no copy)")


def learner_folder() -> Path:
    """Where the learner's own copy of the lessons lives (see the module docstring)."""
    from stridegrad.course.paths import repo_root

    root = repo_root()
    return root / CLONE_COPY if root is not None else DEFAULT_COPY


def lessons_dir(explicit: Path | None, log=print) -> Path:
    """The folder to open: ``explicit`` as it is, else the learner's copy, made or
    brought up to date first."""
    from stridegrad.commands.lessons import copy_lessons

    if explicit is not None:
        if not explicit.is_dir():
            raise CommandError(f"no folder {explicit}")
        return explicit
    folder = learner_folder()
    if not (folder / FIRST).is_file():
        log(f"making your copy of the lessons in {folder}")
    copy_lessons(folder, log=log)
    return folder


def learner_config(folder: Path) -> Path:
    """Write the learner's JupyterLab configuration into ``folder`` (see the module doc)
    and return ``folder``: the instructor's extensions off, and defaults without news.
    Put it first in ``JUPYTER_CONFIG_PATH``."""
    labconfig = folder / "labconfig"
    labconfig.mkdir(parents=True, exist_ok=True)
    (folder / "jupyter_server_config.json").write_text(json.dumps(
        {"ServerApp": {"jpserver_extensions": dict.fromkeys(INSTRUCTOR_SERVER_EXTENSIONS,
                                                            False)}}, indent=1))
    (labconfig / "page_config.json").write_text(json.dumps(
        {"disabledExtensions": dict.fromkeys(INSTRUCTOR_LAB_EXTENSIONS, True)}, indent=1))
    (labconfig / "default_setting_overrides.json").write_text(json.dumps(NO_NEWS, indent=1))
    return folder


def _environment(config: Path) -> dict:
    """This process's environment, with ``config`` first in the Jupyter config path."""
    path = [str(config)] + [p for p in os.environ.get("JUPYTER_CONFIG_PATH", "").split(
        os.pathsep) if p]
    return {**os.environ, "JUPYTER_CONFIG_PATH": os.pathsep.join(path)}


def _free_port(start: int = 8888, tries: int = 50) -> int:
    for port in range(start, start + tries):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise CommandError(f"no free port in {start}..{start + tries - 1}; pass --port")


def _start_path(folder: Path, welcome: bool | None = None) -> str:
    """The page JupyterLab opens: the welcome lesson if the folder has it (or, with
    ``welcome``, will have it), else the folder."""
    if welcome is None:
        welcome = (folder / FIRST).is_file()
    return f"/lab/tree/{FIRST if welcome else ''}"


def command(folder: Path, port: int | None = None, no_browser: bool = False,
            token: str | None = None, welcome: bool | None = None) -> list[str]:
    cmd = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={folder.resolve()}",
           f"--LabApp.default_url={_start_path(folder, welcome)}"]
    if port:
        cmd += [f"--ServerApp.port={port}", "--ServerApp.port_retries=0"]
    if token:
        cmd.append(f"--IdentityProvider.token={token}")
    if no_browser:
        cmd.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        # JupyterLab refuses to start as root (containers, Binder-like VMs) without this
        cmd.append("--allow-root")
    cmd.append("--LabApp.news_url=None")
    return cmd


def wait_until_ready(proc: subprocess.Popen, base: str, token: str, log_path: Path,
                     limit: float = 120.0) -> None:
    """Poll the server's status until it answers; a clear error, with the end of its
    log, if it exits first or stays silent for ``limit`` seconds."""
    deadline = time.monotonic() + limit
    while True:
        if proc.poll() is not None:
            tail = "".join(log_path.read_text(errors="replace").splitlines(True)[-15:])
            raise CommandError(f"JupyterLab stopped (exit code {proc.returncode}); the end of "
                               f"its log, {log_path}:\n{tail}")
        try:
            with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise CommandError(f"JupyterLab did not answer within {limit:g} s; see {log_path}")
        time.sleep(0.3)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def run(args) -> int:
    if args.print_command:  # the command `stridegrad lab` would run; it writes nothing
        if args.dir is not None and not args.dir.is_dir():
            raise CommandError(f"no folder {args.dir}")
        folder = args.dir if args.dir is not None else learner_folder()
        print(" ".join(command(folder, args.port, args.no_browser,
                               welcome=True if args.dir is None else None)))
        if not folder.is_dir():
            print(f"({folder} does not exist yet: `stridegrad lab` makes it, or `stridegrad "
                  f"lessons {folder}`; --print-command writes nothing)", file=sys.stderr)
        return 0
    folder = lessons_dir(args.dir)
    if importlib.util.find_spec("jupyterlab") is None:
        raise CommandError("JupyterLab is not installed for this Python: "
                           "pip install -e '.[course]' (or: pip install 'stridegrad[course]')")
    port = args.port or _free_port()
    token = secrets.token_hex(24)
    # the server's own log goes to a file of this run's own, so that the address to open
    # is what the learner sees last; it is named in the first line, and shown if the
    # server fails
    run_dir = Path(tempfile.mkdtemp(prefix=f"stridegrad-lab-{port}-"))
    log_path = run_dir / "jupyterlab.log"
    learner_config(run_dir / "config")
    url = f"http://localhost:{port}{_start_path(folder)}?token={token}"
    print(f"starting JupyterLab on {folder} (its log: {log_path}) ...", flush=True)
    # stopped from outside (kill, a closed terminal) as by Ctrl-C: the server is stopped
    # too, not left running on its port with nobody to stop it
    previous = {}
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name) and threading.current_thread() is threading.main_thread():
            previous[name] = signal.signal(getattr(signal, name), _interrupt)
    try:
        return _serve(folder, args, port, token, url, log_path,
                      _environment(run_dir / "config"))
    finally:
        for name, handler in previous.items():
            signal.signal(getattr(signal, name), handler)


def _serve(folder: Path, args, port: int, token: str, url: str, log_path: Path,
           env: dict) -> int:
    """Start JupyterLab, say where to open it, and stop it when this command stops."""
    with log_path.open("w") as log:
        proc = subprocess.Popen(command(folder, port, args.no_browser, token),
                                stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            wait_until_ready(proc, f"http://localhost:{port}", token, log_path)
            # the one thing to do next, last and plain, not buried in the server's log
            print("\nJupyterLab is running (Ctrl-C here stops it). Open this address in your "
                  f"browser:\n\n    {url}", flush=True)
            return proc.wait()
        except KeyboardInterrupt:
            return 0
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
