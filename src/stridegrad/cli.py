"""The ``stridegrad`` command line.

Each subcommand lives in ``stridegrad.commands.<name>`` and defines
``HELP`` (one line), ``configure(parser)`` and ``run(args) -> int``.
Only subcommands whose module exists are listed, so ``stridegrad --help``
always tells the truth about what is installed.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys

# The order is the order of ``--help``.
COMMANDS = ("lab", "lessons", "build", "check", "yours", "release", "collect", "grade", "train",
            "bench", "doctor")


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors in the CLI's one style: one line,
    ``stridegrad CMD: error: ...``, and where the options are listed (argparse's own
    prints the whole usage first, several lines for a command with many options)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (`{self.prog} --help` lists the "
                     "arguments)\n")


def _available() -> list[str]:
    return [
        name
        for name in COMMANDS
        if importlib.util.find_spec(f"stridegrad.commands.{name}") is not None
    ]


def build_parser() -> argparse.ArgumentParser:
    from stridegrad import __version__

    parser = _Parser(
        prog="stridegrad",
        description="stridegrad: the course and the library that builds deep learning from the bytes up.",
    )
    parser.add_argument("--version", action="version", version=f"stridegrad {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in _available():
        module = importlib.import_module(f"stridegrad.commands.{name}")
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.configure(p)
        p.set_defaults(_run=module.run)
    return parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The parsed command line. A command's module may define ``SUBCOMMANDS``
    (name -> (help, configure, run)), chosen by the command's first argument:
    ``stridegrad grade merge A B --out C``. Any other first argument is the command's
    own (a SUBMITTED folder named ``merge`` is given as ``./merge``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) >= 2 and argv[0] in _available():
        module = importlib.import_module(f"stridegrad.commands.{argv[0]}")
        nested = getattr(module, "SUBCOMMANDS", {}).get(argv[1])
        if nested is not None:
            help_, configure, run = nested
            p = _Parser(prog=f"stridegrad {argv[0]} {argv[1]}", description=help_)
            configure(p)
            p.set_defaults(_run=run, command=f"{argv[0]} {argv[1]}")
            return p.parse_args(argv[2:])
    return build_parser().parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if getattr(args, "_run", None) is None:
        build_parser().print_help()
        return 2
    from stridegrad.commands import CommandError

    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except CommandError as exc:
        return _error(args.command, str(exc), exc.code)
    except BrokenPipeError:
        # the reader went away (`stridegrad check 01 | head`): stop quietly, as cat does;
        # stdout is pointed at devnull so that Python's exit flush does not complain
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as exc:
        # a file or folder the user named (or one we made for them) cannot be used:
        # say which and why, without a traceback
        where = f"{exc.filename}: " if exc.filename else ""
        return _error(args.command, f"{where}{exc.strerror or exc}", 2)


def _error(command: str, message: str, code: int) -> int:
    """One error style for every subcommand, the one argparse uses for bad arguments.
    The message may name students' files or folders: it is printed without their
    control characters and escape sequences (:func:`stridegrad.course._sinks.terminal_text`)."""
    from stridegrad.course._sinks import terminal_text

    print(f"stridegrad {command}: error: {terminal_text(message)}", file=sys.stderr)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
