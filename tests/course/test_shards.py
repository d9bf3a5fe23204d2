"""Past one machine: ``--shard I/N`` splits the class by a rule every machine agrees
on, ``stridegrad grade merge`` joins the folders as runs join, three shards merged
equal one run, and the README's Slurm and Kubernetes examples run the CLI as it is."""

from __future__ import annotations

import csv
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from stridegrad.cli import main as cli
from stridegrad.cli import parse_args
from stridegrad.course.gradebook import RecordError, read_rows, write_rows
from stridegrad.course.gradebook import GRADES_COLUMNS, TOTALS_COLUMNS
from stridegrad.course.grader import GradeError, grade
from stridegrad.course.shards import merge_gradebooks, parse_shard, shard_of

from .conftest import ROOT
from .test_grader import CP, STEM, _replace_exercise, _solution

FULL = CP.max_points
LIMITS = {"timeout": 30, "cell_timeout": 10, "test_timeout": 2, "sandbox": False,
          "log": lambda s: None}


def _csv(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


# ------------------------------------------------------------------------ the rule

def test_the_shard_rule_is_pinned():
    """The rule is part of the on-disk format (a rerun of shard 2 must regrade the same
    students): these values may never change."""
    assert [shard_of(n, 3) for n in ("alice", "bob", "dave", "erin", "judy")] == [3, 3, 2, 1, 1]
    assert [shard_of(n, 7) for n in ("alice", "carol", "heidi", "ivan")] == [2, 7, 4, 1]
    assert all(shard_of(n, 1) == 1 for n in ("alice", "bob", ""))


def test_the_shard_rule_does_not_depend_on_the_process():
    """Not Python's salted hash(): two interpreters with other hash seeds agree."""
    names = [f"student{k:03d}" for k in range(50)] + ["José", "李雷"]
    code = ("import json, sys; from stridegrad.course.shards import shard_of; "
            "print(json.dumps([shard_of(n, 5) for n in json.loads(sys.argv[1])]))")
    seen = []
    for seed in ("1", "2"):
        proc = subprocess.run([sys.executable, "-c", code, json.dumps(names)], check=True,
                              capture_output=True, text=True,
                              env={**os.environ, "PYTHONHASHSEED": seed})
        seen.append(json.loads(proc.stdout))
    assert seen[0] == seen[1] == [shard_of(n, 5) for n in names]


def test_a_decomposed_name_lands_where_the_composed_one_does():
    composed = "José"
    decomposed = unicodedata.normalize("NFD", composed)
    assert composed != decomposed
    assert all(shard_of(composed, n) == shard_of(decomposed, n) for n in range(1, 12))


def test_every_student_is_in_exactly_one_shard_and_shards_are_filled():
    names = [f"s{k}" for k in range(300)]
    for n in (1, 2, 3, 8):
        counts = [sum(shard_of(s, n) == i for s in names) for i in range(1, n + 1)]
        assert sum(counts) == len(names)
        assert min(counts) > 0.6 * len(names) / n, counts  # random-like, not lopsided


@pytest.mark.parametrize("text, shard", [("1/3", (1, 3)), ("3/3", (3, 3)), (" 2 / 3 ", (2, 3)),
                                         ("1/1", (1, 1))])
def test_parse_shard(text, shard):
    assert parse_shard(text) == shard


@pytest.mark.parametrize("text, message", [
    ("0/3", "0/3: I must be between 1 and 3 (shards are counted from 1; a 0-based index"),
    ("4/3", "4/3: I must be between 1 and 3"),
    ("x", "expected I/N, shard I of N counted from 1 (e.g. 2/3), got 'x'"),
    ("2", "got '2'"),
    ("-1/3", "got '-1/3'"),
    ("1/2/3", "got '1/2/3'"),
    ("1/0", "1/0: N (the number of shards) must be at least 1"),
])
def test_a_bad_shard_is_an_error(tmp_path, capsys, text, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_shard(text)
    with pytest.raises(SystemExit) as exit_:  # argparse's own error, exit code 2
        cli(["grade", str(tmp_path), "--lesson", "01", "--out", str(tmp_path / "o"),
             f"--shard={text}"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "stridegrad grade: error: argument --shard: " in err and message in err, err


def test_grade_checks_its_shard_argument(tmp_path):
    with pytest.raises(GradeError, match=re.escape("--shard 4/3: I must be between 1 and 3")):
        grade(tmp_path, "01", tmp_path / "o", shard=(4, 3), **LIMITS)
    with pytest.raises(GradeError, match="--shard 1/3 and --student alice: give one"):
        grade(tmp_path, "01", tmp_path / "o", shard=(1, 3), students=["alice"], **LIMITS)


# ------------------------------------------------------------------ shards vs one run

# the seven students fall in all three shards: erin, judy | dave, heidi | alice, bob, carol
def _class(sub: Path) -> None:
    lesson = (ROOT / "lessons" / f"{STEM}.ipynb").read_text()
    partial = _replace_exercise(_solution(), "contiguous_strides",
                                "def contiguous_strides(shape):\n"
                                "    return tuple(1 for _ in shape)\n")
    nb = f"{STEM}/{STEM}.ipynb"
    _write(sub / "alice" / nb, json.dumps(_solution()))
    _write(sub / "bob" / nb, lesson)
    _write(sub / "carol" / nb, json.dumps(partial))
    _write(sub / "dave" / nb, lesson[:100])  # not JSON
    _write(sub / "erin" / nb, json.dumps(_solution()))
    _write(sub / "heidi" / nb, json.dumps(_replace_exercise(
        _solution(), "numel", "def numel(shape):\n    return len(shape)\n")))
    _write(sub / "judy" / "notes.txt", "no notebook")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("shards")
    sub = base / "submitted"
    _class(sub)
    roster = base / "class.txt"
    roster.write_text("alice\nbob\ncarol\ndave\nerin\nheidi\njudy\nzed\n")
    whole = {g.student: g for g in grade(sub, "01", base / "all", roster=roster, jobs=2,
                                         **LIMITS)}
    shards, logs = {}, {}
    for i in (1, 2, 3):
        logs[i] = []
        shards[i] = {g.student: g for g in grade(
            sub, "01", base / f"shard-{i}", roster=roster, jobs=2, shard=(i, 3),
            **{**LIMITS, "log": logs[i].append})}
    merge_log: list[str] = []
    merge_gradebooks([base / f"shard-{i}" for i in (1, 2, 3)], base / "merged",
                     log=merge_log.append)
    return {"base": base, "sub": sub, "whole": whole, "shards": shards, "logs": logs,
            "merge_log": merge_log}


def _without_run(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in ("run_id", "graded_at")} for r in rows]


def test_each_shard_grades_its_own_students(runs):
    graded = [set(runs["shards"][i]) for i in (1, 2, 3)]
    assert graded == [{"erin", "judy"}, {"dave", "heidi"}, {"alice", "bob", "carol"}]
    assert runs["logs"][2][0] == "shard 2/3: 2 of the 7 student folders"
    for i in (1, 2, 3):
        runs_ids = {r["run_id"] for r in _csv(runs["base"] / f"shard-{i}" / STEM / "totals.csv")}
        assert len(runs_ids) == 1 and runs_ids.pop().endswith(f"-shard{i}of3")


def test_three_shards_merged_equal_one_run(runs):
    base = runs["base"]
    # the run's grades are what they should be (so that equal means right, not both empty)
    points = {s: g.points for s, g in runs["whole"].items()}
    assert {s: p for s, p in points.items() if s not in ("carol", "heidi")} == {
        "alice": FULL, "bob": 0, "dave": 0, "erin": FULL, "judy": 0}
    assert 0 < points["carol"] < FULL and 0 < points["heidi"] < FULL  # partial credit
    assert _csv(base / "merged" / "gradebook.csv") == _csv(base / "all" / "gradebook.csv")
    files = sorted(p.name for p in (base / "all" / STEM).glob("*.csv"))
    assert {"grades.csv", "totals.csv"} <= set(files)  # and exercises.csv, per exercise
    assert sorted(p.name for p in (base / "merged" / STEM).glob("*.csv")) == files
    for name in files:
        merged = _csv(base / "merged" / STEM / name)
        assert _without_run(merged) == _without_run(_csv(base / "all" / STEM / name)), name
    book = {r["student"]: r for r in _csv(base / "merged" / "gradebook.csv")}
    assert book["zed"]["notes"] == f"{STEM}: no submission"  # on the roster, no folder
    assert (base / "merged" / "roster.txt").read_text() == (base / "class.txt").read_text()
    # each feedback page is the one its shard wrote
    pages = sorted(p.relative_to(base / "merged") for p in (base / "merged").rglob("*.html"))
    assert pages == sorted(p.relative_to(base / "all") for p in (base / "all").rglob("*.html"))
    for student, i in (("alice", 3), ("dave", 2), ("judy", 1)):
        page = Path("feedback") / student / f"{STEM}.html"
        assert (base / "merged" / page).read_bytes() == (base / f"shard-{i}" / page).read_bytes()
    assert runs["merge_log"][-1].startswith("merged 3 gradebook folders (")
    assert f"{STEM}: 7 students" in runs["merge_log"][-1]
    assert not any("warning" in line for line in runs["merge_log"])


def _edit(folder: Path, student: str, **changes) -> None:
    """Change a student's result in a gradebook folder, in both CSVs alike."""
    for name, columns in (("totals.csv", TOTALS_COLUMNS), ("grades.csv", GRADES_COLUMNS)):
        path = folder / STEM / name
        rows = read_rows(path, columns)
        for r in rows:
            if r["student"] == student or student == "*":
                r.update(changes)
        write_rows(path, columns, rows)


def _copy(runs, i: int, tmp_path: Path, name: str) -> Path:
    return Path(shutil.copytree(runs["base"] / f"shard-{i}", tmp_path / name))


def test_the_newest_result_wins_and_the_merge_says_so(runs, tmp_path):
    late = _copy(runs, 3, tmp_path, "late")
    _edit(late, "alice", graded_at="2099-01-01T00:00:00+00:00", points="5")
    logs: list[str] = []
    shards = [runs["base"] / f"shard-{i}" for i in (1, 2, 3)]
    # the time decides, not the order of the folders
    merge_gradebooks([*shards, late], tmp_path / "m2", log=lambda s: None)
    merge_gradebooks([late, *shards], tmp_path / "m", log=logs.append)
    for out in ("m", "m2"):
        totals = {r["student"]: r for r in _csv(tmp_path / out / STEM / "totals.csv")}
        assert totals["alice"]["points"] == "5"
    assert totals["bob"]["graded_at"] != "2099-01-01T00:00:00+00:00"
    said = [line for line in logs if line.startswith("alice, ")]
    assert len(said) == 1 and said[0].endswith(f"kept the newest, {late}'s"), logs
    assert f"graded in {shards[2]} (" in said[0]
    # bob and carol are the same results in both folders: nothing to say
    assert not any(line.startswith(("bob", "carol")) for line in logs)


def test_results_made_with_other_tests_are_refused(runs, tmp_path, capsys):
    other = _copy(runs, 2, tmp_path, "other")
    _edit(other, "*", tests_hash="0123456789abcdef")
    ours = _csv(runs["base"] / "shard-1" / STEM / "totals.csv")[0]["tests_hash"]
    folders = [runs["base"] / "shard-1", other, runs["base"] / "shard-3"]
    args = ["grade", "merge", *map(str, folders), "--out", str(tmp_path / "m")]
    assert cli(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("stridegrad grade merge: error: results made with different tests")
    assert (f"{STEM}: alice (in {runs['base'] / 'shard-3'}) with tests {ours} but "
            f"dave (in {other}) with tests 0123456789abcdef (5 graded with {ours}, "
            "2 graded with 0123456789abcdef)") in err, err
    assert "--allow-mixed-tests" in err
    assert not (tmp_path / "m").exists()  # nothing written
    assert cli([*args, "--allow-mixed-tests"]) == 0
    book = {r["student"]: r for r in _csv(tmp_path / "m" / "gradebook.csv")}
    assert "graded with other tests (0123456789abcdef" in book["dave"]["notes"]
    assert "other tests" not in book["alice"]["notes"]


def test_a_missing_shard_is_named(runs, tmp_path):
    logs: list[str] = []
    merge_gradebooks([runs["base"] / "shard-1", runs["base"] / "shard-3"], tmp_path / "m",
                     log=logs.append)
    assert f"warning: {STEM}: no results of shard 2/3 in these folders: if that shard " \
           "graded anyone, merge its --out folder too" in logs
    book = {r["student"]: r for r in _csv(tmp_path / "m" / "gradebook.csv")}
    assert book["dave"]["notes"] == f"{STEM}: no submission"  # from the roster


def test_merging_into_a_gradebook_keeps_what_it_holds(runs, tmp_path):
    """Merging shard by shard into one folder ends where merging all at once does; a
    page of a result that was replaced by one without a page is not kept."""
    out = tmp_path / "m"
    merge_gradebooks([runs["base"] / "shard-1"], out, log=lambda s: None)
    merge_gradebooks([runs["base"] / "shard-2", runs["base"] / "shard-3"], out,
                     log=lambda s: None)
    assert _csv(out / "gradebook.csv") == _csv(runs["base"] / "merged" / "gradebook.csv")
    assert _csv(out / STEM / "grades.csv") == _csv(runs["base"] / "merged" / STEM / "grades.csv")
    late = _copy(runs, 1, tmp_path, "late")
    _edit(late, "erin", graded_at="2099-01-01T00:00:00+00:00")
    (late / "feedback" / "erin" / f"{STEM}.html").unlink()
    merge_gradebooks([late], out, log=lambda s: None)
    assert not (out / "feedback" / "erin" / f"{STEM}.html").exists()
    assert (out / "feedback" / "judy" / f"{STEM}.html").exists()


def test_unusable_folders_are_refused(runs, tmp_path):
    shard1 = runs["base"] / "shard-1"
    with pytest.raises(RecordError, match="no such folder"):
        merge_gradebooks([tmp_path / "nowhere"], tmp_path / "m")
    (tmp_path / "empty").mkdir()
    with pytest.raises(RecordError, match="holds no results .* not the --out folder"):
        merge_gradebooks([tmp_path / "empty"], tmp_path / "m")
    with pytest.raises(RecordError, match="is given twice"):
        merge_gradebooks([shard1, Path(str(shard1) + "/")], tmp_path / "m")
    broken = _copy(runs, 1, tmp_path, "broken")
    rows = read_rows(broken / STEM / "grades.csv", GRADES_COLUMNS)
    write_rows(broken / STEM / "grades.csv", GRADES_COLUMNS,
               [r for r in rows if r["student"] != "erin"])
    with pytest.raises(RecordError, match=r"grades.csv does not hold erin.s rows of run "):
        merge_gradebooks([broken], tmp_path / "m")
    assert not (tmp_path / "m").exists()


# ------------------------------------------------------------- the README's examples

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README, re.S | re.M)


def _stub_path(tmp_path: Path) -> str:
    """A PATH whose ``stridegrad`` prints its arguments as JSON and does nothing else."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stub = bin_dir / "stridegrad"
    stub.write_text(f"#!{sys.executable}\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n")
    stub.chmod(0o755)
    return f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin"


def _run(shell: str, script: str, tmp_path: Path, **env) -> list[str]:
    proc = subprocess.run([shell, "-c", script], capture_output=True, text=True, check=True,
                          cwd=tmp_path, env={"PATH": _stub_path(tmp_path), **env})
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_slurm_array_job_runs_one_shard_per_task(tmp_path):
    script = next(b for b in _blocks("bash") if "#SBATCH --array" in b)
    first, last = map(int, re.search(r"^#SBATCH --array=(\d+)-(\d+)$", script, re.M).groups())
    assert first == 1
    outs = []
    for task in range(first, last + 1):
        argv = _run("bash", script, tmp_path, SLURM_ARRAY_TASK_ID=str(task))
        args = parse_args(argv)  # the real parser: every flag as the CLI knows it
        assert (args.command, args.shard, args.lesson) == ("grade", (task, last), "01")
        outs.append(str(args.out))
        shutil.rmtree(tmp_path / "bin")
    assert len(set(outs)) == last  # every task writes a folder of its own
    merge = next(b for b in _blocks("bash") if "grade merge" in b)
    line = " ".join(merge.replace("\\\n", " ").split())
    wrapped = shlex.split(line)
    argv = shlex.split(wrapped[wrapped.index("--wrap") + 1])
    assert argv[0] == "stridegrad"
    args = parse_args(argv[1:])
    assert args.command == "grade merge" and [str(f) for f in args.folders] == outs
    assert "afterok" in line  # the merge waits for every task to succeed


def test_the_kubernetes_indexed_job_runs_one_shard_per_index(tmp_path):
    yaml = pytest.importorskip("yaml")
    (block,) = _blocks("yaml")
    job = yaml.safe_load(block)
    assert (job["apiVersion"], job["kind"]) == ("batch/v1", "Job")
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed"
    n = spec["completions"]
    assert spec["parallelism"] == n and n >= 2
    pod = spec["template"]["spec"]
    assert pod["restartPolicy"] in ("Never", "OnFailure")  # what a Job accepts
    (container,) = pod["containers"]
    assert container["name"] and container["image"]
    mounts = {m["name"] for m in container["volumeMounts"]}
    assert mounts <= {v["name"] for v in pod["volumes"]}
    assert container["command"] == ["sh", "-c"]
    (script,) = container["args"]
    outs = []
    for index in range(n):  # Kubernetes sets JOB_COMPLETION_INDEX to 0 .. n-1
        argv = _run("sh", script, tmp_path, JOB_COMPLETION_INDEX=str(index))
        args = parse_args(argv)
        assert (args.command, args.shard) == ("grade", (index + 1, n))
        outs.append(str(args.out))
        shutil.rmtree(tmp_path / "bin")
    assert len(set(outs)) == n


def test_an_empty_shard_writes_an_empty_result_and_merges(tmp_path, capsys):
    """More shards than students (the README's Slurm array on a small class): a shard
    with nobody exits 0 with its header-only table, and the merge after it runs."""
    sub = tmp_path / "sub"
    _write(sub / "alice" / STEM / f"{STEM}.ipynb", "{not json")  # alice is shard 3 of 3
    for i in (1, 2, 3):
        assert cli(["grade", str(sub), "--lesson", "01", "--out", str(tmp_path / f"s{i}"),
                    "--shard", f"{i}/3", "--no-sandbox"]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "shard 1/3: 0 of the 1 student folders" in out
    assert "Traceback" not in out
    assert cli(["grade", "merge", *(str(tmp_path / f"s{i}") for i in (1, 2, 3)),
                "--out", str(tmp_path / "merged")]) == 0, capsys.readouterr().err
    rows = _csv(tmp_path / "merged" / "gradebook.csv")
    assert [r["student"] for r in rows] == ["alice"]
