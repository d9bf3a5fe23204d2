"""pytest plugin wiring nbval for the course notebooks.

Loaded from the project's pytest configuration (``addopts = "-p
stridegrad.course.pytest_plugin"``), so it applies from the project root
whatever paths are given:

* With ``--nbval`` or ``--nbval-lax`` (nbval collects the notebooks itself):
  the kernel is this Python (``--nbval-current-env``) unless
  ``--nbval-kernel-name`` is given, and outputs are sanitized with
  ``tests/nbval_sanitize.cfg`` unless ``--nbval-sanitize-with`` is given. So
  ``pytest --nbval solutions/01_flat_storage.ipynb`` and ``pytest --nbval-lax
  lessons/01_flat_storage.ipynb`` work as they are.
* With ``pytest -n N`` (pytest-xdist), files are distributed whole
  (``--dist loadfile``), so that each notebook runs in one kernel.
* Without those flags, notebooks under ``solutions/`` are collected strictly
  (stored outputs must reproduce) and notebooks under ``lessons/`` laxly (only
  errors fail, and cells tagged ``raises-exception`` may raise), all in one
  pytest run: ``pytest`` with ``testpaths = tests lessons solutions``
  validates everything. Every notebook item carries the ``notebook`` marker:
  ``pytest -m "not notebook"`` skips them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

__all__ = ["pytest_collect_file", "pytest_collection_modifyitems", "pytest_configure"]

SANITIZE_FILE = Path("tests") / "nbval_sanitize.cfg"
STRICT_DIR, LAX_DIR = "solutions", "lessons"


def _nbval_flags(config) -> bool:
    opt = config.option
    return bool(getattr(opt, "nbval", False) or getattr(opt, "nbval_lax", False))


def pytest_configure(config):
    opt = config.option
    # pytest-xdist's default "load" scheduling hands the cells of one notebook to
    # different workers, each with its own kernel, so a cell misses the names an
    # earlier cell defined; "loadfile" keeps each file (each notebook) on one worker
    if getattr(opt, "dist", None) == "load":
        opt.dist = "loadfile"
    if not hasattr(opt, "nbval_current_env"):
        return  # nbval is not installed: notebooks are not collected
    if not opt.nbval_kernel_name and not getattr(opt, "current_env", False):
        opt.nbval_current_env = True
    if not opt.nbval_sanitize_with and not getattr(opt, "sanitize_with", None):
        sanitize = Path(config.rootpath) / SANITIZE_FILE
        if sanitize.is_file():
            opt.nbval_sanitize_with = str(sanitize)


def _mode(file_path: Path, rootpath: Path) -> str | None:
    try:
        rel = file_path.resolve().relative_to(rootpath.resolve())
    except ValueError:
        return None
    top = rel.parts[0] if len(rel.parts) > 1 else None
    return {STRICT_DIR: "strict", LAX_DIR: "lax"}.get(top)


def pytest_collect_file(file_path: Path, parent):
    if file_path.suffix != ".ipynb" or _nbval_flags(parent.config):
        return None
    mode = _mode(file_path, Path(parent.config.rootpath))
    if mode is None:
        return None
    try:
        from nbval.plugin import IPyNbFile
    except ImportError:  # pragma: no cover - nbval is a dev dependency
        return None
    collector = IPyNbFile.from_parent(parent, path=file_path)
    collector.compare_outputs = mode == "strict"
    return collector


def pytest_collection_modifyitems(session, config, items):
    notebooks = False
    for item in items:
        if Path(str(item.fspath)).suffix == ".ipynb":
            item.add_marker(pytest.mark.notebook)
            notebooks = True
    if notebooks:
        # matplotlib writes "building the font cache" to stderr on its first import in
        # a fresh environment: do that here, not in a notebook whose stderr nbval compares
        try:
            import matplotlib.font_manager  # noqa: F401
        except Exception:
            pass
