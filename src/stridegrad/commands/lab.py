"""``stridegrad lab``: open JupyterLab on the lessons, at the welcome lesson."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

__all__ = ["HELP", "command", "configure", "lessons_dir", "run"]

HELP = "open JupyterLab on the lessons, at 00_welcome.ipynb"

DEFAULT_COPY = Path("stridegrad-lessons")
FIRST = "00_welcome.ipynb"


def configure(p):
    p.add_argument("--dir", type=Path, metavar="DIR",
                   help="folder of lesson notebooks (default: lessons/ in a clone, else "
                        f"./{DEFAULT_COPY}, made with `stridegrad lessons` if missing)")
    p.add_argument("--port", type=int, help="port for the server (default: JupyterLab's)")
    p.add_argument("--no-browser", action="store_true", help="start the server only")
    p.add_argument("--print-command", action="store_true",
                   help="print the JupyterLab command instead of running it")


def lessons_dir(explicit: Path | None, log=print) -> Path:
    from stridegrad.commands.lessons import copy_lessons
    from stridegrad.course.paths import repo_root

    if explicit is not None:
        return explicit
    root = repo_root()
    if root is not None and (root / "lessons" / FIRST).is_file():
        return root / "lessons"
    if not (DEFAULT_COPY / FIRST).is_file():
        log(f"making your copy of the lessons in ./{DEFAULT_COPY}")
        copy_lessons(DEFAULT_COPY, log=log)
    return DEFAULT_COPY


def command(folder: Path, port: int | None = None, no_browser: bool = False) -> list[str]:
    start = FIRST if (folder / FIRST).is_file() else ""
    cmd = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={folder.resolve()}",
           f"--LabApp.default_url=/lab/tree/{start}"]
    if port:
        cmd.append(f"--ServerApp.port={port}")
    if no_browser:
        cmd.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        # JupyterLab refuses to start as root (containers, Binder-like VMs) without this
        cmd.append("--allow-root")
    return cmd


def run(args) -> int:
    try:
        folder = lessons_dir(args.dir)
    except (FileNotFoundError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not folder.is_dir():
        print(f"error: no folder {folder}", file=sys.stderr)
        return 2
    cmd = command(folder, args.port, args.no_browser)
    if args.print_command:
        print(" ".join(cmd))
        return 0
    if importlib.util.find_spec("jupyterlab") is None:
        print("error: JupyterLab is not installed for this Python: "
              "pip install jupyterlab ipywidgets matplotlib", file=sys.stderr)
        return 2
    print(f"opening JupyterLab on {folder} (Ctrl-C to stop)")
    try:
        return subprocess.call(cmd)
    except KeyboardInterrupt:
        return 0
