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


def run(args) -> int:
    from stridegrad.train import TrainingError, train

    try:
        train(args.dataset, device=args.device, epochs=args.epochs, lr=args.lr,
              batch_size=args.batch_size, optimizer=args.optimizer, seed=args.seed,
              out=args.out, progress=not args.no_progress, model=args.model)
    except TrainingError as e:
        raise CommandError(str(e)) from e
    return 0
