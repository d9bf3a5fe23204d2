"""``stridegrad doctor``: what this machine has, and whether the course will work on it."""

from __future__ import annotations

import importlib.metadata as md
import platform
import shutil
import sys
from pathlib import Path

HELP = "report Python, NumPy, CuPy and the GPU, JupyterLab and widgets: will the course work here?"

__all__ = ["HELP", "configure", "gather", "gpu_report", "run", "widgets_verdict"]


def configure(p):
    pass


def _version(dist: str) -> str | None:
    try:
        return md.version(dist)
    except md.PackageNotFoundError:
        return None


def gpu_report() -> tuple[str, str]:
    """(CuPy line, GPU line)."""
    if _version("cupy") is None and not any(
            (d.metadata["Name"] or "").lower().startswith("cupy") for d in md.distributions()):
        smi = shutil.which("nvidia-smi")
        gpu = ("nvidia-smi is present: a GPU may be there; pip install 'stridegrad[gpu]'"
               if smi else "none found (device 'cuda' needs CuPy and an NVIDIA GPU)")
        return "not installed (pip install 'stridegrad[gpu]')", gpu
    try:
        import cupy
    except Exception as exc:  # a wheel for the wrong CUDA version, a missing libcuda...
        return f"installed but does not import: {type(exc).__name__}: {exc}", "unknown"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
        if count == 0:
            return f"{cupy.__version__}", "none found by CuPy"
        names = []
        for k in range(count):
            name = cupy.cuda.runtime.getDeviceProperties(k)["name"]
            names.append(name.decode() if isinstance(name, bytes) else str(name))
        return f"{cupy.__version__}", f"{count}: " + ", ".join(names)
    except Exception as exc:
        return f"{cupy.__version__}", f"CuPy cannot use a GPU: {type(exc).__name__}: {exc}"


def _labextension_installed() -> bool:
    try:
        from jupyter_core.paths import jupyter_path
    except ImportError:
        return False
    return any((Path(p) / "@jupyter-widgets" / "jupyterlab-manager").is_dir()
               for p in jupyter_path("labextensions"))


def widgets_verdict(ipywidgets: str | None, lab_widgets: str | None, lab: str | None,
                    extension: bool) -> str:
    """Whether ipywidgets will render in JupyterLab, and if not, why."""
    if ipywidgets is None:
        return "no: ipywidgets is not installed (pip install ipywidgets)"
    if lab is None:
        return "no JupyterLab here (widgets may still render in Colab or VS Code)"
    if lab_widgets is None or not extension:
        return "no: the JupyterLab extension is missing (pip install jupyterlab_widgets)"
    want = {"8": "3", "7": "1"}.get(ipywidgets.split(".")[0])
    if want and lab_widgets.split(".")[0] != want:
        return (f"no: ipywidgets {ipywidgets} needs jupyterlab_widgets {want}.x, "
                f"found {lab_widgets}")
    return "yes"


def gather() -> list[tuple[str, str]]:
    import stridegrad
    from stridegrad.course.paths import PACKAGED_NOTEBOOKS, repo_root
    from stridegrad.course.sandbox import limits_verdict
    from stridegrad.course.sandbox import verdict as sandbox_verdict

    root = repo_root()
    numpy = _version("numpy")
    cupy, gpu = gpu_report()
    lab, ipyw, labw = _version("jupyterlab"), _version("ipywidgets"), _version("jupyterlab_widgets")
    lessons = len(list(PACKAGED_NOTEBOOKS.glob("*.ipynb")))
    return [
        ("Python", f"{platform.python_version()} ({sys.executable})"),
        ("platform", platform.platform()),
        ("stridegrad", f"{stridegrad.__version__} " + (f"(clone at {root})" if root else
                                                      f"(installed at {Path(stridegrad.__file__).parent})")),
        ("lesson notebooks", f"{lessons} shipped with the package"),
        ("NumPy", numpy or "MISSING: pip install numpy"),
        ("CuPy", cupy),
        ("GPU", gpu),
        ("JupyterLab", lab or "not installed (pip install jupyterlab)"),
        ("ipykernel", _version("ipykernel") or "not installed (pip install ipykernel)"),
        ("ipywidgets", ipyw or "not installed (pip install ipywidgets)"),
        ("jupyterlab_widgets", labw or "not installed"),
        ("widgets will render", widgets_verdict(ipyw, labw, lab, _labextension_installed())),
        ("matplotlib", _version("matplotlib") or "not installed (pip install matplotlib): "
                                                  "lessons draw pictures with it"),
        ("grading sandbox", sandbox_verdict()),
        ("sandbox limits", limits_verdict()),
    ]


def run(args) -> int:
    rows = gather()
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key.ljust(width)}  {value}")
    return 0 if _version("numpy") else 1
