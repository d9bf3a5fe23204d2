"""The CLI dispatcher and the bench table renderer."""

import os
import subprocess
import sys

import pytest

from stridegrad import cli
from stridegrad.commands import bench


def test_help_lists_exactly_the_commands_that_exist(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    available = cli._available()
    assert "bench" in available
    for name in cli.COMMANDS:
        listed = f"\n    {name} " in out or f"\n    {name}\n" in out
        assert listed == (name in available), name


def test_no_command_prints_help_and_fails(capsys):
    assert cli.main([]) == 2
    assert "usage: stridegrad" in capsys.readouterr().out


def test_unknown_command_is_an_argparse_error(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["frobnicate"])
    assert exc.value.code == 2
    assert "frobnicate" in capsys.readouterr().err


@pytest.mark.parametrize("argv, prog, what", [
    (["train", "--epochs", "x"], "stridegrad train", "argument --epochs: invalid int value"),
    (["grade", "merge"], "stridegrad grade merge", "the following arguments are required"),
    (["check"], "stridegrad check", "the following arguments are required"),
])
def test_a_bad_argument_is_one_line_naming_the_command(capsys, argv, prog, what):
    """As every other error of the CLI: one line, ``stridegrad CMD: error: ...``, exit 2,
    not argparse's usage block first."""
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"{prog}: error: {what}")
    assert f"`{prog} --help`" in err


def test_python_dash_m_runs_the_cli():
    out = subprocess.run([sys.executable, "-m", "stridegrad", "--version"],
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith("stridegrad ")


def test_bench_render_text_and_markdown():
    rows = [bench.normalise({"group": "g", "case": "add", "size": "10x10",
                             "stridegrad_s": 2e-3, "numpy_s": 1e-5, "ratio": 200.0}),
            bench.normalise({"group": "g", "case": "skipped", "stridegrad_s": None,
                             "reference_s": None, "ratio": None, "note": "no GPU"})]
    text = bench.render(rows, ["date: D"], markdown=False)
    assert "add (10x10)" in text and "200.00x" in text and "2.00 ms" in text
    assert "10.0 µs" in text and "no GPU" in text
    md = bench.render(rows, ["date: D"], markdown=True)
    assert md.count("\n| g |") == 2 and "|---|" in md


def test_bench_table_rows_stay_one_line_and_a_shared_note_is_said_once():
    """Six skipped CUDA rows share one note: a footnote under the table, not six copies
    that wrap every row over several lines."""
    why = "skipped: no CUDA device (CuPy is not installed: pip install 'stridegrad[gpu]')"
    rows = [bench.normalise({"group": "cuda", "case": f"matmul {n}x{n}", "stridegrad_s": None,
                             "reference_s": None, "ratio": None, "note": why})
            for n in (64, 128, 256, 512, 1024, 2048)]
    rows.append(bench.normalise({"group": "g", "case": "add", "stridegrad_s": 1e-3,
                                 "numpy_s": 1e-3, "ratio": 1.0, "note": "short"}))
    for markdown in (False, True):
        text = bench.render(rows, ["date: D"], markdown=markdown)
        assert text.count(why) == 1 and text.count("[1]") == 7  # six rows and the footnote
        assert "short" in text
    lines = bench.render(rows, ["date: D"], markdown=False).splitlines()
    table = lines[lines.index("") + 3:lines.index("", lines.index("") + 1)]
    assert len(table) == 7 and all(len(line) <= bench.TEXT_WIDTH for line in lines)


def test_bench_without_benchmarks_folder_says_where_it_looked(tmp_path, capsys):
    assert cli.main(["bench", "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("stridegrad bench: error: ")
    assert str(tmp_path) in err and "benchmarks/" in err


def test_bench_text_table_fits_120_columns():
    long = {"group": "mlp step 64-256-256-10, batch 256 (cpu)", "case": "1 BLAS thread(s), "
            "default malloc and a long case name", "stridegrad_s": 1.2e-3, "reference_s": 1.5e-3,
            "ratio": 0.8, "note": "skipped: CuPy is not installed; to use 'cuda' devices run: "
            "pip install 'stridegrad[gpu]' " * 2}
    text = bench.render([long, {**long, "note": "short"}], ["date: D"], markdown=False)
    assert max(len(line) for line in text.splitlines()) <= 120, text
    # wrapped at word boundaries: every word of the note is still there, none cut
    assert text.split().count("'stridegrad[gpu]'") == 2


def test_bench_updates_only_the_marked_block_of_a_readme(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("intro\n<!-- BENCH:START -->\nold table\n<!-- BENCH:END -->\nrest\n")
    bench.update_readme(readme, "| new | table |\n")
    assert readme.read_text() == "intro\n<!-- BENCH:START -->\n| new | table |\n<!-- BENCH:END -->\nrest\n"
    (tmp_path / "bad.md").write_text("no markers")
    with pytest.raises(ValueError, match="lacks the markers"):
        bench.update_readme(tmp_path / "bad.md", "x")


def test_a_reader_that_goes_away_stops_the_output_quietly():
    # `stridegrad ... | head -1` once head has exited: every write fails with EPIPE
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        writer = subprocess.run([sys.executable, "-m", "stridegrad", "doctor"], stdout=write_end,
                                stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert "Broken pipe" not in writer.stderr and "Traceback" not in writer.stderr, writer.stderr
    assert writer.returncode == 141


def test_an_error_naming_a_file_prints_no_escape_sequence(tmp_path, capsys):
    """A student's file name with an ANSI escape in it reaches the terminal without it
    (it could redraw the line above)."""
    bad = tmp_path / "evil\x1b[2K\rname.npz"
    bad.write_bytes(b"")
    assert cli.main(["check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\r" not in err and "name.npz is not a notebook" in err
