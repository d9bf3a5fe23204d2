"""Where the course lives on the web: defined once, used by the build, the
setup cell of every lesson, and the docs.

``REPO_URL`` is a placeholder until the repository is published; change it
here (and rebuild with ``stridegrad build``) and every lesson follows.
"""

from __future__ import annotations

__all__ = ["BINDER_URL", "BRANCH", "REPO_URL", "binder_url", "colab_url", "pip_spec"]

#: The public GitHub repository (placeholder until published).
REPO_URL = "https://github.com/stridegrad/stridegrad"
#: The branch that Binder and Colab links open.
BRANCH = "main"


def _gh_path() -> str:
    prefix = "https://github.com/"
    if not REPO_URL.startswith(prefix):
        raise ValueError(f"REPO_URL must be a GitHub URL starting with {prefix}, got {REPO_URL!r}")
    return REPO_URL[len(prefix):].rstrip("/")


def binder_url(lesson: str = "00_welcome") -> str:
    """mybinder.org link opening JupyterLab at ``lessons/<lesson>.ipynb``."""
    return (f"https://mybinder.org/v2/gh/{_gh_path()}/{BRANCH}"
            f"?urlpath=lab/tree/lessons/{lesson}.ipynb")


def colab_url(lesson: str) -> str:
    """Google Colab link opening ``lessons/<lesson>.ipynb`` from GitHub."""
    return f"https://colab.research.google.com/github/{_gh_path()}/blob/{BRANCH}/lessons/{lesson}.ipynb"


def pip_spec() -> str:
    """What the setup cell installs on Colab."""
    return f"stridegrad @ git+{REPO_URL}@{BRANCH}"


BINDER_URL = binder_url()
