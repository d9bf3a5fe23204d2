"""``stridegrad train digits|moons [--model mlp|cnn]``: the finished library, headless, on real data."""

from __future__ import annotations

from stridegrad.commands import CommandError

HELP = "train an MLP (or a CNN on digits) headless: progress, accuracy, a loss-curve PNG"


def configure(p):
    from stridegrad.train import RECIPES

    p.add_argument("dataset", choices=sorted(RECIPES), help="what to learn")
    p.add_argument("--device", default="cpu", help="python, cpu or cuda[:N] (default: cpu)")
    p.add_argument("--model", choices=("mlp", "cnn"), default="mlp",
                   help="mlp, or cnn for image datasets (digits) (default: mlp)")
    p.add_argument("--epochs", type=int, default=None, help="passes over the training set")
    p.add_argument("--lr", type=float, default=None, help="learning rate")
    p.add_argument("--batch-size", type=int, default=None, help="examples per step")
    p.add_argument("--optimizer", choices=("sgd", "adam"), default=None, help="update rule")
    p.add_argument("--seed", type=int, default=0, help="seed for init, split and shuffling")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="where the loss curve and the weights go (default: runs/<dataset>)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--yours", nargs="?", const="", default=None, metavar="DIR",
                   help="train with your library: the exercises of your notebooks in DIR "
                        "(default: your copy of the lessons, my-lessons/ in a clone) that "
                        "pass their checkpoint, in place of the library's own (give it "
                        "after the dataset: `stridegrad train digits --yours`)")


def run(args) -> int:
    import contextlib

    from stridegrad.train import TrainingError, train

    library = _your_library(args.yours) if args.yours is not None else None
    try:
        with library if library is not None else contextlib.nullcontext():
            train(args.dataset, device=args.device, epochs=args.epochs, lr=args.lr,
                  batch_size=args.batch_size, optimizer=args.optimizer, seed=args.seed,
                  out=args.out, progress=not args.no_progress, model=args.model)
    except TrainingError as e:
        raise CommandError(str(e)) from e
    if library is not None:
        print(_calls_report(library, args.device))
    return 0


def _your_library(given: str):
    """Your library from the folder ``given`` ("" for your copy of the lessons)."""
    from pathlib import Path

    from stridegrad.commands.yours import folder_of
    from stridegrad.course.yours import assemble

    folder = folder_of(Path(given) if given else None)
    print(f"reading your notebooks in {folder} ...", flush=True)
    library = assemble(folder, library_only=True)
    print(f"your library: {library.summary()}", flush=True)
    return library


def _calls_report(library, device: str) -> str:
    """Which of your functions this run called, and how often; the others said so."""
    called = [f"{p.name} ({library.calls[p.name]:,})" for p in library.mine
              if library.calls.get(p.name)]
    idle = [p.name for p in library.mine if not library.calls.get(p.name)]
    line = ("your functions this run called (times): " + ", ".join(called) if called
            else "this run called none of your functions")
    if idle:
        line += f"; not called by this run: {', '.join(idle)}"
        if device != "python":
            line += (f" (on the {device} device the arrays are not the strided array that "
                     "calls your layout functions: --device python runs them)")
    return line
