"""File an LMS download of one lesson's submissions into the grading layout
(``stridegrad collect DOWNLOAD SUBMITTED --lesson NN``).

The download is a ``.zip`` or a folder holding one or more files per student,
named however the LMS or the student named them. Each notebook becomes
``SUBMITTED/<student>/<assignment>/<assignment>.ipynb`` (the layout
``stridegrad grade`` reads; the assignment is the lesson's stem), keeping its
modification time, and ``SUBMITTED/collected-<assignment>.csv`` records which file
each student's notebook came from.

Whose file is it? The first rule that fits, on the path inside the download:

=====================  ==============================================  ================
source                 the download holds                              the student
=====================  ==============================================  ================
``--map CSV``          rows ``pattern,student``: a glob matched to     the row's student
                       the path or its first part (folder or file)     (``-``: skip it)
Moodle                 ``John Smith_12345_assignsubmission_file_/...``  ``John Smith``
                       (or the same as one file name)
Blackboard             ``Lab 1_jsmith_attempt_2026-10-01-10-00-00_x``   ``jsmith``
Canvas                 ``smithjohn_12345_67890_x.ipynb``,               ``smithjohn`` (not
                       late: ``smithjohn_LATE_12345_67890_x.ipynb``     the user id)
GitHub Classroom       folders ``01-flat-storage-jsmith/``: the         ``jsmith``
                       prefix all folders share (it must hold a digit,
                       or the folders be git clones), or the lesson's
                       name for a single folder
any other folder       ``<student>/<anything>.ipynb`` (any depth)       the folder's name
any other file         ``<student>.ipynb``; the lesson's name and a     ``jsmith`` from
                       copy suffix are dropped                          ``01_flat_storage-
                                                                        jsmith (1).ipynb``
=====================  ==============================================  ================

A ``--map`` row may also name a student as derived above (``smithjohn,jsmith``) to
rename them, e.g. to the names of the roster. When two LMS users share a name
(Canvas ``smithjohn`` with two user ids), each becomes ``name_<id>``. One folder
wrapping the whole download (``Lab 1 Download/``) is looked through.

Several notebooks of one student: the newest attempt is taken (Blackboard's
attempt time, Canvas's resubmission number ``-1``, ``-2``), then one named after
the lesson, then the newest file, then the one that defines the most of the
lesson's exercises; the others are reported. A notebook named after another
lesson (``02_...``) that defines none of this lesson's exercises is not taken.

Not placed, and reported with why: files that are not notebooks, notebooks over
the size limit or that cannot be read (an encrypted member), notebooks whose
student cannot be told (a loose ``01_flat_storage.ipynb``), and ties. A notebook
that is not valid JSON is placed: the grader then tells the student to re-save it.

Safety: the download is only read. A zip member with an absolute path or ``..``
(zip slip) makes the whole archive refused; each notebook is read up to the size
limit whatever its header says; ``__MACOSX/``, ``.git/``, ``.ipynb_checkpoints/``
and hidden files are ignored; links in a folder are not followed. A notebook in
SUBMITTED that differs from the one to be placed stops the collect, naming it,
unless ``force``; nothing is written then.
"""

from __future__ import annotations

import csv
import datetime
import fnmatch
import io
import os
import re
import stat
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from stridegrad.course._output import Conflict, WriteReport, write_files

__all__ = ["MAX_MB", "CollectError", "CollectReport", "collect", "read_map"]

#: Largest notebook read, in MB (``--max-mb``).
MAX_MB = 50
#: Most members of a zip looked at, and most bytes of notebooks read in all.
_MAX_MEMBERS = 100_000
_MAX_TOTAL = 4 * 1024**3
_RECORD_COLUMNS = ["student", "source", "rule", "late", "modified", "not_taken", "collected_at"]

_MOODLE_DIR = re.compile(r"^(?P<name>.+?)_(?P<id>\d+)_assignsubmission_(?P<kind>[a-z]+)_?$")
_MOODLE_FILE = re.compile(r"^(?P<name>.+?)_(?P<id>\d+)_assignsubmission_file_(?P<orig>.+)$")
_BLACKBOARD = re.compile(r"^(?P<assignment>.*?)_(?P<name>[^_]+)_attempt_"
                         r"(?P<stamp>\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d)(?:_(?P<orig>.+))?$")
_CANVAS = re.compile(r"^(?P<name>[^_]+)_(?P<late>late_)?(?P<id>\d+)_\d+_(?P<orig>.+)$",
                     re.IGNORECASE)
_COPY = re.compile(r"(?:[ _-]*(?:-?copy\d*|\(\d+\)|\d+))+$", re.IGNORECASE)
_JUNK = {"__MACOSX", "Thumbs.db", "desktop.ini"}


class CollectError(ValueError):
    """A download that cannot be collected (the message says which and why)."""


@dataclass
class _File:
    """One file of the download."""

    path: str                       # relative, posix
    size: int
    mtime: float
    read: Callable[[int], bytes]    # reads at most n bytes
    link: bool = False
    full: str = ""                  # the path in the download, wrapper folders included

    def __post_init__(self):
        self.full = self.full or self.path


@dataclass
class _Notebook:
    file: _File
    student: str
    rule: str
    ident: str = ""                 # the LMS's user id, to tell two of one name apart
    attempt: tuple = ()
    late: bool = False
    inner: tuple[str, ...] = ()     # the names below the student's level
    data: bytes = b""
    defines: int = 0                # of the lesson's exercises
    named: int = 0                  # 1: after this lesson, -1: after another, 0: neither
    readable: bool = True
    problem: str = ""


@dataclass
class CollectReport:
    assignment: str
    placed: dict[str, _Notebook] = field(default_factory=dict)       # student -> notebook
    not_taken: dict[str, list[_Notebook]] = field(default_factory=dict)
    skipped: list[tuple[str, str]] = field(default_factory=list)     # (path, why)
    ignored: int = 0
    notes: list[str] = field(default_factory=list)
    files: WriteReport = field(default_factory=WriteReport)


# ------------------------------------------------------------------ reading the download

def _zip_files(path: Path) -> tuple[list[_File], int, set[str]]:
    """(the files of the zip, how many were ignored, the folders that are git clones)."""
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise CollectError(f"{path} is not a zip archive (a .zip file or a folder, please)") \
            from None
    infos = archive.infolist()
    if len(infos) > _MAX_MEMBERS:
        raise CollectError(f"{path} has {len(infos)} members, more than {_MAX_MEMBERS}: "
                           "not a download of one assignment")
    files, ignored, git = [], 0, set()
    for info in infos:
        name = info.filename.replace("\\", "/")
        parts = PurePosixPath(name).parts
        if name.startswith("/") or re.match(r"^[A-Za-z]:", name) or ".." in parts:
            raise CollectError(f"{path} has a member that points outside it, {info.filename!r} "
                               "(an absolute path or '..'): refusing the whole archive")
        if ".git" in parts:
            git.add("/".join(parts[:parts.index(".git")]))
        if info.is_dir():
            continue
        if _ignored(parts):
            ignored += 1
            continue

        def read(n: int, info=info) -> bytes:
            with archive.open(info) as f:  # header sizes can lie: read at most n bytes
                return f.read(n)

        mtime = datetime.datetime(*info.date_time).timestamp()
        files.append(_File("/".join(parts), info.file_size, mtime, read))
    return files, ignored, git


def _folder_files(root: Path) -> tuple[list[_File], int, set[str]]:
    """(the files below ``root``, how many were ignored, the folders that are git clones)."""
    files, ignored, git = [], 0, set()
    for folder, dirs, names in os.walk(root):
        rel_folder = Path(folder).relative_to(root)
        if ".git" in dirs:
            git.add(rel_folder.as_posix())
        kept = sorted(d for d in dirs if not _ignored((d,)))
        ignored += len(dirs) - len(kept)
        dirs[:] = kept  # os.walk does not go into the others (nor follows links)
        for name in sorted(names):
            rel = (rel_folder / name).as_posix()
            if _ignored((name,)):
                ignored += 1
                continue
            full = Path(folder) / name
            st = full.lstat()

            def read(n: int, full=full) -> bytes:
                with open(full, "rb") as f:
                    return f.read(n)

            files.append(_File(rel, st.st_size, st.st_mtime, read,
                               link=stat.S_ISLNK(st.st_mode)))
    return files, ignored, git


def _ignored(parts: tuple[str, ...]) -> bool:
    """LMS and OS clutter: ``__MACOSX/``, ``.git/``, ``.DS_Store``, ``._x``, checkpoints."""
    return any(p in _JUNK or p.startswith(".") for p in parts)


def _unwrap(files: list[_File]) -> tuple[list[_File], str]:
    """Look through folders that wrap the whole download (``Lab 1 Download/``): a
    single top folder holding several entries."""
    prefix = ""
    while True:
        tops = {f.path.split("/", 1)[0] for f in files}
        if len(tops) != 1 or all("/" not in f.path for f in files):
            return files, prefix
        top = tops.pop()
        if _MOODLE_DIR.match(top):  # one student's folder, not a wrapper
            return files, prefix
        below = {f.path.split("/", 2)[1] for f in files}
        if len(below) < 2:
            return files, prefix
        prefix += top + "/"
        files = [_File(f.path.split("/", 1)[1], f.size, f.mtime, f.read, f.link, f.full)
                 for f in files]


# ------------------------------------------------------------------ whose file is it

def read_map(path: Path) -> list[tuple[str, str]]:
    """``--map CSV``: rows ``pattern,student`` (a header row ``pattern,student`` is
    allowed); ``-`` as the student skips the files the pattern matches."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise CollectError(f"--map {path}: {exc.strerror or exc}") from None
    rows = []
    for number, row in enumerate(csv.reader(io.StringIO(text)), 1):
        if not row or not "".join(row).strip() or row[0].lstrip().startswith("#"):
            continue
        if number == 1 and [c.strip().lower() for c in row[:2]] == ["pattern", "student"]:
            continue
        if len(row) != 2 or not row[0].strip() or not row[1].strip():
            raise CollectError(f"--map {path}, line {number}: expected 'pattern,student', "
                               f"got {','.join(row)!r}")
        rows.append((row[0].strip(), row[1].strip()))
    return rows


def _clean(name: str) -> str:
    """A student's name as a folder name: no slashes or control characters, no
    leading dot (the grader skips hidden folders)."""
    name = re.sub(r"[\\/\x00-\x1f]+", "_", name).strip().lstrip(".").strip()
    return name[:100]


def _lesson_names(assignment: str) -> list[str]:
    slug = assignment[3:]
    forms = {assignment, assignment.replace("_", "-"), assignment.replace("_", " "),
             slug, slug.replace("_", "-"), slug.replace("_", " ")}
    return sorted(forms, key=len, reverse=True)


def _student_from_file(stem: str, assignment: str) -> str:
    """``<student>.ipynb``, also ``01_flat_storage-jsmith (1)``: the lesson's name
    and a copy suffix dropped; '' when nothing like a name is left."""
    for form in _lesson_names(assignment):
        stem = re.sub(re.escape(form), " ", stem, flags=re.IGNORECASE)
    stem = _COPY.sub("", stem.strip(" _-.")).strip(" _-.()")
    stem = re.sub(rf"^{assignment[:2]}(?=[ _-]|$)", "", stem).strip(" _-.")
    return stem if re.search(r"[^\W\d_]", stem) else ""


def _classroom_prefix(folders: set[str], has_git: set[str], assignment: str) -> str:
    """The ``<assignment>-`` prefix of GitHub Classroom's folders, or ''."""
    if len(folders) >= 2:
        common = os.path.commonprefix(sorted(folders))
        common = common[:common.rfind("-") + 1] if "-" in common else ""
        if common and all(len(f) > len(common) for f in folders) and (
                re.search(r"\d", common) or folders <= has_git):
            return common
        return ""
    (folder,) = folders or {""}
    for form in _lesson_names(assignment):
        if folder.lower().startswith(form.replace(" ", "-").lower() + "-"):
            return folder[:len(form) + 1]
    return ""


def _identify(files: list[_File], assignment: str, mapping: list[tuple[str, str]],
              used: set[int], git_folders: set[str]) -> tuple[list[_Notebook], list]:
    notebooks, skipped = [], []
    folders = {f.path.split("/", 1)[0] for f in files if "/" in f.path}
    prefix = _classroom_prefix(
        {d for d in folders if not _MOODLE_DIR.match(d)}, git_folders, assignment)
    for f in files:
        parts = f.path.split("/")
        nb = _who(f, parts, assignment, prefix)
        for i, (pattern, student) in enumerate(mapping):
            if any(fnmatch.fnmatch(s.lower(), pattern.lower())
                   for s in (f.path, f.full, parts[0])):
                nb.student, nb.rule, nb.ident = student, "--map", ""
                used.add(i)
                break
        else:
            for i, (pattern, student) in enumerate(mapping):
                if nb.student and fnmatch.fnmatch(nb.student.lower(), pattern.lower()):
                    nb.student = student
                    nb.rule += " + --map"
                    used.add(i)
                    break
        if nb.student == "-":
            skipped.append((f.path, "skipped by --map"))
            continue
        nb.student = _clean(nb.student)
        notebooks.append(nb)
    return notebooks, skipped


def _who(f: _File, parts: list[str], assignment: str, prefix: str) -> _Notebook:
    """The student and rule for one file, before ``--map``."""
    top, name = parts[0], parts[-1]
    if len(parts) > 1:
        inner = tuple(parts[1:])
        if m := _MOODLE_DIR.match(top):
            return _Notebook(f, m["name"], "Moodle folder", m["id"], inner=inner)
        if prefix and top.startswith(prefix):
            return _Notebook(f, top[len(prefix):], "GitHub Classroom folder", inner=inner)
        return _Notebook(f, top, "folder", inner=inner)
    if m := _MOODLE_FILE.match(name):
        return _Notebook(f, m["name"], "Moodle file", m["id"], inner=(m["orig"],))
    if m := _BLACKBOARD.match(name):
        return _Notebook(f, m["name"], "Blackboard", attempt=(m["stamp"], 0),
                         inner=(m["orig"] or name,))
    if m := _CANVAS.match(name):
        again = re.search(r"-(\d+)$", PurePosixPath(m["orig"]).stem)
        return _Notebook(f, m["name"], "Canvas", m["id"], late=bool(m["late"]),
                         attempt=("", int(again.group(1)) if again else 0), inner=(m["orig"],))
    return _Notebook(f, _student_from_file(PurePosixPath(name).stem, assignment), "file name",
                     inner=(name,))


def _named(inner: tuple[str, ...], assignment: str) -> int:
    """1 if the path below the student names this lesson, -1 another lesson, else 0."""
    stems = [PurePosixPath(p).stem.lower() for p in inner]
    for s in stems:
        m = re.match(r"(\d\d)(?:$|[ _.-])", s)
        if m and m.group(1) != assignment[:2]:
            return -1
    if any(re.match(rf"{assignment[:2]}(?:$|[ _.-])", s) or assignment[3:] in s.replace(
            "-", "_").replace(" ", "_") for s in stems):
        return 1
    return 0


def _defines(data: bytes, exercises: list[str]) -> tuple[int, bool]:
    """(how many of ``exercises`` the notebook defines, whether it is a notebook)."""
    from stridegrad.course._worker import NotebookError, parse_code_cells

    try:
        code = "\n".join(parse_code_cells(data, "notebook"))
    except NotebookError:
        return 0, False
    return sum(bool(re.search(rf"^\s*(def|class)\s+{re.escape(ex)}\b", code, re.MULTILINE))
               for ex in exercises), True


# ------------------------------------------------------------------ collecting

def collect(source: Path, submitted: Path, lesson: str, *, force: bool = False,
            mapping: list[tuple[str, str]] | None = None, max_mb: float = MAX_MB,
            log: Callable[[str], None] = print) -> CollectReport:
    """File the notebooks of ``source`` (a zip or a folder) into ``submitted`` for
    ``lesson``; :class:`CollectError` if nothing can be placed or SUBMITTED holds
    different notebooks (without ``force``)."""
    from stridegrad.course.checks import load_checkpoint

    source, submitted = Path(source), Path(submitted)
    try:
        checkpoint = load_checkpoint(lesson)
    except (LookupError, ValueError) as exc:
        raise CollectError(str(exc)) from None
    assignment = checkpoint.lesson
    if not source.exists():
        raise CollectError(f"no file or folder {source}")
    if source.is_dir():
        s, t = source.resolve(), submitted.resolve()
        if s == t or s in t.parents or t in s.parents:
            raise CollectError(f"SUBMITTED {submitted} and the download {source} overlap: "
                               "put SUBMITTED elsewhere")
    max_bytes = int(max_mb * 1024 * 1024)
    files, ignored, git = _folder_files(source) if source.is_dir() else _zip_files(source)
    files, wrapper = _unwrap(files)
    git = {g[len(wrapper):] for g in git if g.startswith(wrapper)}  # clones: top folders
    report = CollectReport(assignment, ignored=ignored)
    if wrapper:
        report.notes.append(f"looked inside {wrapper} (it wraps the whole download)")

    used: set[int] = set()
    mapping = mapping or []
    candidates, skipped = [], []
    for f in files:
        if f.link:
            skipped.append((f.path, "a link: not followed"))
        elif not f.path.lower().endswith(".ipynb"):
            kind = PurePosixPath(f.path).suffix or "no extension"
            skipped.append((f.path, f"not a notebook ({kind})" + (
                ": a zip inside the download; unpack it and collect the folder"
                if kind.lower() == ".zip" else "")))
        else:
            candidates.append(f)
    notebooks, by_map = _identify(candidates, assignment, mapping, used, git)
    skipped += by_map
    total = 0
    ready = []
    for nb in notebooks:
        if not nb.student:
            skipped.append((nb.file.path, "cannot tell whose notebook it is (its name is the "
                                          "lesson's, not a student's): name it in --map"))
            continue
        if nb.file.size > max_bytes:
            skipped.append((nb.file.path, f"{nb.file.size / 2**20:.0f} MB, over the "
                                          f"{max_mb:g} MB limit (--max-mb)"))
            continue
        try:
            nb.data = nb.file.read(max_bytes + 1)
        except (OSError, RuntimeError, zipfile.BadZipFile, NotImplementedError) as exc:
            skipped.append((nb.file.path, f"cannot be read: {exc}"))
            continue
        if len(nb.data) > max_bytes:
            skipped.append((nb.file.path, f"over the {max_mb:g} MB limit (--max-mb)"))
            continue
        total += len(nb.data)
        if total > _MAX_TOTAL:
            raise CollectError(f"{source}: more than {_MAX_TOTAL // 2**30} GB of notebooks; "
                               "collect it in parts")
        nb.defines, nb.readable = _defines(nb.data, checkpoint.exercises)
        nb.named = _named(nb.inner, assignment)
        if nb.named < 0 and not nb.defines:
            skipped.append((nb.file.path, f"{nb.student}: another lesson's notebook (its name) "
                                          f"that defines none of {assignment}'s exercises"))
            continue
        ready.append(nb)

    _tell_apart(ready, report)
    _choose(ready, report)
    report.skipped = skipped + report.skipped
    for i, (pattern, student) in enumerate(mapping):
        if i not in used:
            report.notes.append(f"--map row {pattern},{student} matched nothing")

    if not report.placed:
        _log_report(report, submitted, log)
        raise CollectError(f"nothing in {source} could be filed as a notebook of {assignment} "
                           + (f"({len(files)} files, none placed: see above)" if files else
                              "(it holds no files)"))
    readable = [nb for nb in report.placed.values() if nb.readable]
    if readable and not any(nb.defines or nb.named > 0 for nb in readable):
        _log_report(report, submitted, log)
        raise CollectError(f"none of the {len(readable)} notebooks in {source} is named after "
                           f"{assignment} or defines one of its exercises "
                           f"({', '.join(checkpoint.exercises)}): wrong --lesson?")
    _write(report, submitted, force, source)
    _log_report(report, submitted, log)
    return report


def _tell_apart(notebooks: list[_Notebook], report: CollectReport) -> None:
    """Two LMS users of one name (two ids): each becomes ``name_<id>``."""
    ids: dict[str, set[str]] = {}
    for nb in notebooks:
        if nb.ident:
            ids.setdefault(nb.student, set()).add(nb.ident)
    for name, idents in ids.items():
        if len(idents) > 1:
            report.notes.append(f"{len(idents)} users are named {name} (ids "
                                f"{', '.join(sorted(idents))}): filed as "
                                f"{', '.join(f'{name}_{i}' for i in sorted(idents))}")
            for nb in notebooks:
                if nb.student == name and nb.ident:
                    nb.student = f"{name}_{nb.ident}"


def _choose(notebooks: list[_Notebook], report: CollectReport) -> None:
    by_student: dict[str, list[_Notebook]] = {}
    for nb in notebooks:
        by_student.setdefault(nb.student, []).append(nb)

    def key(nb):
        return (nb.attempt or ("", 0), nb.named, nb.file.mtime, nb.defines)

    for student, own in sorted(by_student.items()):
        ranked = sorted(own, key=key, reverse=True)
        if len(ranked) > 1 and key(ranked[0]) == key(ranked[1]):
            tied = [nb.file.path for nb in ranked if key(nb) == key(ranked[0])]
            report.skipped.append((", ".join(tied), f"{student}: {len(tied)} notebooks and no "
                                   "way to tell which is the newest; keep one, or skip the "
                                   "others with --map (pattern,-)"))
            continue
        report.placed[student] = ranked[0]
        if len(ranked) > 1:
            report.not_taken[student] = ranked[1:]


def _target(submitted: Path, student: str, assignment: str) -> Path:
    return submitted / student / assignment / f"{assignment}.ipynb"


def _write(report: CollectReport, submitted: Path, force: bool, source: Path) -> None:
    a = report.assignment
    files = {_target(submitted, s, a): nb.data for s, nb in report.placed.items()}
    mtimes = {_target(submitted, s, a): nb.file.mtime for s, nb in report.placed.items()}
    try:
        report.files = write_files(files, force=force, mtimes=mtimes)
    except Conflict as exc:
        raise CollectError(f"{exc}; they are not what {source} holds for these students "
                           "(an earlier collect, or a file put there by hand). Nothing was "
                           "written; --force replaces them") from None
    _record(report, submitted, source)


def _record(report: CollectReport, submitted: Path, source: Path) -> None:
    """``SUBMITTED/collected-<assignment>.csv``: where each student's notebook came from
    (rows of students collected now replace theirs; the others stay)."""
    path = submitted / f"collected-{report.assignment}.csv"
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    rows = []
    if path.is_file():
        with open(path, newline="", encoding="utf-8") as f:
            rows = [r for r in csv.DictReader(f) if r.get("student") not in report.placed]
    for student, nb in report.placed.items():
        rows.append({
            "student": student, "source": f"{source.name}:{nb.file.full}", "rule": nb.rule,
            "late": "late" if nb.late else "",
            "modified": datetime.datetime.fromtimestamp(nb.file.mtime).isoformat(
                timespec="seconds"),
            "not_taken": "; ".join(o.file.full for o in report.not_taken.get(student, [])),
            "collected_at": now})
    rows.sort(key=lambda r: r["student"])
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, _RECORD_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def _log_report(report: CollectReport, submitted: Path, log: Callable[[str], None]) -> None:
    a = report.assignment
    written = set(report.files.written) | set(report.files.replaced)
    if report.placed:
        width = max(len(s) for s in report.placed)
        for student, nb in report.placed.items():
            target = _target(submitted, student, a)
            state = ("" if not (written or report.files.unchanged) else
                     " (unchanged)" if target in report.files.unchanged else
                     " (replaced, --force)" if target in report.files.replaced else "")
            notes = [nb.rule]
            if nb.late:
                notes.append("LATE")
            if not nb.readable:
                notes.append("not a readable notebook: the grader will ask for a re-save")
            others = report.not_taken.get(student, [])
            if others:
                notes.append(f"newest of {len(others) + 1}; not taken: "
                             + ", ".join(o.file.path for o in others))
            log(f"{student.ljust(width)}  <- {nb.file.path}{state}  [{'; '.join(notes)}]")
    for note in report.notes:
        log(f"note: {note}")
    if report.skipped:
        log(f"not placed ({len(report.skipped)}):")
        for path, why in report.skipped:
            log(f"  {path}: {why}")
    if report.placed:
        f = report.files
        log(f"filed {len(report.placed)} notebook{'s' if len(report.placed) != 1 else ''} of "
            f"{a} into {submitted}/<student>/{a}/{a}.ipynb ({len(f.written)} new, "
            f"{len(f.replaced)} replaced, {len(f.unchanged)} unchanged; "
            f"{report.ignored} LMS or OS files and folders ignored); next: stridegrad grade {submitted} "
            f"--lesson {a[:2]} --out DIR")
