"""``stridegrad check NOTEBOOK``: run a notebook and print its checkpoint table."""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["HELP", "configure", "run"]

HELP = "run a lesson notebook and print its checkpoint table (what passes, what to fix)"


def configure(p):
    p.add_argument("notebook", type=Path, help="a lesson notebook, e.g. lessons/01_flat_storage.ipynb")
    p.add_argument("--lesson", metavar="NN",
                   help="which checkpoint (default: from the file name, NN_slug.ipynb)")
    p.add_argument("--timeout", type=float, default=120.0, metavar="S",
                   help="wall-clock limit for the whole notebook (default 120)")
    p.add_argument("--memory", type=int, default=2048, metavar="MB",
                   help="memory limit of the notebook's process (default 2048)")


def run(args) -> int:
    from stridegrad.course.checks import CheckResult, load_checkpoint
    from stridegrad.course.grader import run_notebook

    path: Path = args.notebook
    if not path.is_file():
        print(f"error: no notebook {path}", file=sys.stderr)
        return 2
    episode = args.lesson or path.stem.split("_", 1)[0]
    try:
        checkpoint = load_checkpoint(episode)
    except (LookupError, ValueError) as exc:
        print(f"error: {exc} (pass --lesson NN)", file=sys.stderr)
        return 2
    out = run_notebook(path, checkpoint.episode, timeout=args.timeout, memory=args.memory)
    if out["status"] != "graded":
        print(f"{path}: {out['message']}", file=sys.stderr)
        return 1
    for e in out.get("cell_errors", []):
        print(f"cell {e['cell']} raised {e['error']}")
    result = CheckResult.from_dict(out["result"])
    print(result)
    return 0 if result.passed else 1
