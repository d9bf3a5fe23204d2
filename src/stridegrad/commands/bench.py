"""``stridegrad bench``: one table of ratios, all measured in one run.

The benchmark modules live in the repository's ``benchmarks/`` folder; each defines
``rows()`` returning dicts with ``group``, ``case``, ``stridegrad_s``, a reference time
(``reference_s`` or ``numpy_s``), ``ratio`` and an optional ``note``. Timings are
never asserted by tests: machines are shared and noisy, so only ratios from one run
are reported.
"""

from __future__ import annotations

import datetime as _dt
import importlib.util
import os
import platform
import sys
import textwrap
from pathlib import Path

from stridegrad.commands import CommandError

HELP = "measure stridegrad against NumPy, micrograd and hand-written loops (a table of ratios)"

# module stem -> what it compares (the order of the table)
SUITES = {
    "bench_array": "strided array (python) vs NumPy",
    "bench_scalar": "scalar engine vs micrograd",
    "bench_tensor": "Tensor on cpu vs hand-written NumPy",
    "bench_train": "digits epoch vs hand-written NumPy",
    "bench_compile": "sg.compile vs eager",
    "bench_conv": "conv layer vs hand-written NumPy im2col and PyTorch",
    "bench_cuda": "Tensor on cuda vs cpu and hand-written CuPy",
}


def configure(p):
    p.add_argument("--only", action="append", choices=sorted(SUITES), metavar="SUITE",
                   help=f"run only this suite (repeatable): {', '.join(SUITES)}")
    p.add_argument("--markdown", metavar="FILE", help="also write the table as Markdown")
    p.add_argument("--plot", metavar="FILE", help="also write a bar chart of the ratios as PNG")
    p.add_argument("--dir", metavar="DIR", help="benchmarks folder (default: the clone's benchmarks/)")
    p.add_argument("--update-readme", metavar="README",
                   help="replace the table between <!-- BENCH:START --> and <!-- BENCH:END --> in README")


def find_benchmarks(explicit: str | None = None) -> Path:
    """The ``benchmarks/`` folder: given, next to the package source, or under the cwd."""
    candidates = [Path(explicit)] if explicit else [
        Path(__file__).resolve().parents[3] / "benchmarks",
        Path.cwd() / "benchmarks",
    ]
    for c in candidates:
        if (c / "bench_array.py").is_file():
            return c
    raise FileNotFoundError(
        "no benchmarks/ folder found (looked in: "
        + ", ".join(str(c) for c in candidates)
        + "); run `stridegrad bench` from a clone of the repository or pass --dir"
    )


def load_suite(folder: Path, stem: str):
    path = folder / f"{stem}.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location(f"stridegrad_bench_{stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def machine_line() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def versions_line() -> str:
    import numpy

    import stridegrad

    parts = [f"Python {platform.python_version()}", f"NumPy {numpy.__version__}",
             f"stridegrad {stridegrad.__version__}"]
    try:
        import cupy  # noqa: F401

        parts.append(f"CuPy {cupy.__version__}")
    except Exception:
        parts.append("CuPy absent")
    return ", ".join(parts)


def normalise(row: dict) -> dict:
    ref = row.get("reference_s", row.get("numpy_s"))
    case = row["case"] if "size" not in row else f"{row['case']} ({row['size']})"
    return {
        "group": row["group"],
        "case": case,
        "stridegrad_s": row.get("stridegrad_s"),
        "reference_s": ref,
        "ratio": row.get("ratio"),
        "note": row.get("note", ""),
    }


def _fmt_time(t):
    if t is None:
        return "-"
    if t < 1e-3:
        return f"{t * 1e6:.1f} µs"
    if t < 1:
        return f"{t * 1e3:.2f} ms"
    return f"{t:.2f} s"


#: a note longer than this, or one that several rows share, is a footnote under the table
NOTE_INLINE = 32


def _footnotes(rows: list[dict]) -> tuple[list[str], list[str]]:
    """Each row's note cell, and the notes written once under the table: a note that
    several rows share ("skipped: no GPU" on every CUDA row) or a long one becomes
    ``[k]`` in its rows, so that rows stay one line and no note is printed twice."""
    notes = [r["note"] for r in rows]
    counts: dict[str, int] = {}
    for n in notes:
        counts[n] = counts.get(n, 0) + 1
    numbered: dict[str, int] = {}
    cells = []
    for n in notes:
        if n and (counts[n] > 1 or len(n) > NOTE_INLINE):
            k = numbered.setdefault(n, len(numbered) + 1)
            cells.append(f"[{k}]")
        else:
            cells.append(n)
    return cells, [f"[{k}] {n}" for n, k in numbered.items()]


def render(rows: list[dict], header: list[str], markdown: bool) -> str:
    cols = ["group", "case", "stridegrad", "reference", "ratio", "note"]
    notes, footnotes = _footnotes(rows)
    cells = [[r["group"], r["case"], _fmt_time(r["stridegrad_s"]), _fmt_time(r["reference_s"]),
              "-" if r["ratio"] is None else f"{r['ratio']:.2f}x", n]
             for r, n in zip(rows, notes)]
    if markdown:
        out = [f"_{h}_  " for h in header] + ["", "| " + " | ".join(cols) + " |",
                                              "|" + "---|" * len(cols)]
        out += ["| " + " | ".join(c) + " |" for c in cells]
        if footnotes:
            out += [""] + [f"{f}  " for f in footnotes]
        return "\n".join(out) + "\n"
    widths = _text_widths(cols, cells, TEXT_WIDTH)
    line = "  ".join(h.ljust(w) for h, w in zip(cols, widths)).rstrip()
    out = header + ["", line, "-" * len(line)]
    for c in cells:
        # the long columns (case, note) wrap at word boundaries, never mid-value
        wrapped = [textwrap.wrap(v, w, break_long_words=False) or [""] for v, w in zip(c, widths)]
        for k in range(max(len(w) for w in wrapped)):
            out.append("  ".join((w[k] if k < len(w) else "").ljust(n)
                                 for w, n in zip(wrapped, widths)).rstrip())
    if footnotes:
        out += [""] + [textwrap.fill(f, TEXT_WIDTH, subsequent_indent="    ")
                       for f in footnotes]
    return "\n".join(out) + "\n"


#: the text table fits a terminal this wide (the README's table is Markdown)
TEXT_WIDTH = 120


def _text_widths(cols: list[str], cells: list[list[str]], total: int) -> list[int]:
    """Column widths: as wide as the widest cell, except that ``case`` and ``note``
    shrink (and wrap) until the row fits in ``total`` characters."""
    widths = [max([len(cols[i])] + [len(c[i]) for c in cells]) for i in range(len(cols))]
    shrinkable = [cols.index("note"), cols.index("case")]
    while sum(widths) + 2 * (len(cols) - 1) > total:
        i = max(shrinkable, key=lambda k: widths[k])
        if widths[i] <= 16:
            break
        widths[i] -= 1
    return widths


README_START, README_END = "<!-- BENCH:START -->", "<!-- BENCH:END -->"


def update_readme(path: str | Path, table: str) -> None:
    """Put ``table`` between the README's bench markers (both must be there, in order)."""
    path = Path(path)
    text = path.read_text()
    start, end = text.find(README_START), text.find(README_END)
    if start < 0 or end < start:
        raise ValueError(f"{path} lacks the markers {README_START} ... {README_END}")
    path.write_text(text[:start + len(README_START)] + "\n" + table + text[end:])


def plot(rows: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in rows if r["ratio"] is not None]
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(rows) + 1.2))
    labels = [f"{r['group']}: {r['case']}" for r in rows]
    ax.barh(range(len(rows)), [r["ratio"] for r in rows], color="tab:blue")
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    ax.axvline(1.0, color="k", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("time ratio: stridegrad / reference (log scale)")
    ax.invert_yaxis()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run(args) -> int:
    try:
        folder = find_benchmarks(args.dir)
    except FileNotFoundError as e:
        raise CommandError(str(e)) from e
    header = [
        f"date: {_dt.date.today().isoformat()}",
        f"machine: {machine_line()}",
        f"versions: {versions_line()}",
    ]
    rows: list[dict] = []
    for stem, title in SUITES.items():
        if args.only and stem not in args.only:
            continue
        module = load_suite(folder, stem)
        if module is None:
            continue
        print(f"running {stem}: {title} ...", file=sys.stderr, flush=True)
        rows.extend(normalise(r) for r in module.rows())
    text = render(rows, header, markdown=False)
    print(text, end="")
    if args.markdown:
        Path(args.markdown).write_text(render(rows, header, markdown=True))
        print(f"wrote {args.markdown}")
    if args.update_readme:
        update_readme(args.update_readme, render(rows, header, markdown=True))
        print(f"updated {args.update_readme}")
    if args.plot:
        plot(rows, args.plot)
        print(f"wrote {args.plot}")
    return 0
