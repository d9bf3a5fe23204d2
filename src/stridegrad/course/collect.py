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
Canvas                 ``smithjohn_12345_67890_x.ipynb``,               ``smithjohn`` (its
                       late: ``smithjohn_LATE_12345_67890_x.ipynb``     id: 12345)
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

Where the download holds files named in more than one LMS's way, the way most of
its files are named is tried first (a file can fit two: a Canvas upload that its
student named ``alice_attempt_2099-01-01-00-00-00_x.ipynb`` also looks like
Blackboard's ``alice``; in a Canvas download it is its uploader's).

Several notebooks of one student: the newest attempt is taken (Blackboard's
attempt time, Canvas's resubmission number ``-1``, ``-2``), then one named after
the lesson, then the newest file, then the one that defines the most of the
lesson's exercises; the others are reported, and the rule that decided is said
and recorded (``taken``: "newest of 2" for an attempt or a newer file, "named after
the lesson (of 2)", "defines the most exercises (of 2)"). A notebook named after another
lesson (``02_...``) that defines none of this lesson's exercises is not taken.

Identities. The LMS's own id of a student, where the export has one, goes into the
record's ``student_id`` column, for an export back to the LMS: Canvas's user id,
Moodle's participant id, Blackboard's user name, GitHub Classroom's login. It is
who the student is: two users of one name are told apart by it (above), a
student's newest file is chosen among the files of their id only, and a file of
another id than the one the record holds for that name (``alice`` collected before
as id 111, now a file of id 222 named ``alice``) is not filed as theirs. The name a
student gives their own file never decides whose it is where the LMS names it
(Canvas, Moodle, Blackboard, a folder per student). Without an id (``<student>.ipynb``),
a file named like a copy (``alice (1).ipynb``, ``alice-1.ipynb``, ``alice copy.ipynb``)
is not taken as the resubmission of a student who has a file of their very name:
nothing says who uploaded it, so it is reported, and ``--map`` files it if it is
theirs (the newest of their files is then taken); a copy alone is taken, as
``<student>``'s.

Names. Every name is NFKC-normalised (the fullwidth ``ａｌｉｃｅ`` is ``alice``), and
refused, reported with why, when it

- is reserved: ``.``, ``..``, a name that starts with ``.`` (a hidden folder, which the
  grader skips), that holds ``/`` or ``\\``, a lesson's stem (a student called
  ``01_flat_storage`` would be a folder that ``stridegrad grade`` takes for a
  lesson's), the record's file name, or a device name of Windows (``CON``, ``NUL``,
  ``COM1``...);
- holds a control or invisible character (an escape, U+202E RIGHT-TO-LEFT OVERRIDE);
- mixes scripts (Latin with Cyrillic or Greek: ``Аlice`` whose ``А`` is Cyrillic;
  Latin with Han, kana or Hangul is one name), unless the ``--roster`` lists it;
- looks like another name: it differs from a name of the roster, of a folder in
  SUBMITTED or of the record only by look-alike letters (Cyrillic or Greek ones that
  look Latin) or by case, and the message names both, so that it is filed neither as
  that student nor beside them. Of two such names in one download that none of
  these lists, the one with look-alike letters is refused (both, if they differ in
  case only).

A name that ``--map`` gives is the instructor's: it is only refused if reserved, so
``--map`` files a refused notebook under the name it gives.
The look-alikes are Cyrillic and Greek letters that look like Latin ones; Latin
letters that look alike (``l`` and ``I``, ``rn`` and ``m``) are not compared.

Not placed, and reported with why: files that are not notebooks, notebooks over
the size limit or that cannot be read (an encrypted member), notebooks whose
student cannot be told (a loose ``01_flat_storage.ipynb``), and ties. A notebook
that is not valid JSON is placed: the grader then tells the student to re-save it.
A student who has files in the download and none placed (only a PDF, only another
lesson's notebook, a tie) gets a row in the record all the same, with why in its
``not_placed`` column, where the file is known to be theirs: the LMS names it, it
lies in their folder, ``--map`` names them, or its file name is a name known already
(the roster, SUBMITTED, the record). The grader carries the record into the
gradebook (:func:`stridegrad.course.gradebook.carry_collected`).

Safety: the download is only read. A zip member with an absolute path or ``..``
(zip slip) makes the whole archive refused; each notebook is read up to the size
limit whatever its header says; ``__MACOSX/``, ``.git/``, ``.ipynb_checkpoints/``
and hidden files are ignored; links in a folder are not followed. A notebook in
SUBMITTED that differs from the one to be placed stops the collect, naming it,
unless ``force``; nothing is written then. What collect prints has the control
characters and escape sequences of names and paths stripped
(:func:`~stridegrad.course._sinks.terminal_line`), and the record's cells are
neutralised for spreadsheets (:func:`~stridegrad.course._sinks.csv_cell`).
"""

from __future__ import annotations

import csv
import datetime
import fnmatch
import io
import os
import re
import stat
import unicodedata
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from stridegrad.course._output import Conflict, WriteReport, write_files
from stridegrad.course._sinks import DictReader, DictWriter, terminal_log

__all__ = ["MAX_MB", "CollectError", "CollectReport", "collect", "read_map"]

#: Largest notebook read, in MB (``--max-mb``).
MAX_MB = 50
#: Most members of a zip looked at, and most bytes of notebooks read in all.
_MAX_MEMBERS = 100_000
_MAX_TOTAL = 4 * 1024**3
#: The record's columns: ``student_id`` is the LMS's id of the student ('' if the export
#: has none), see the module docstring.
#: ``taken``: why the notebook placed was chosen over the student's others ("newest of 2");
#: ``not_placed``: why none of a student's files was placed (a PDF, another lesson's
#: notebook, a tie), for a student whose files the LMS names (the grader carries both
#: into the gradebook's notes).
_RECORD_COLUMNS = ["student", "student_id", "source", "rule", "late", "modified", "not_taken",
                   "taken", "not_placed", "collected_at"]

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
    ident: str = ""                 # the LMS's id of the student (Canvas user id...)
    attempt: tuple = ()
    late: bool = False
    inner: tuple[str, ...] = ()     # the names below the student's level
    data: bytes = b""
    defines: int = 0                # of the lesson's exercises
    named: int = 0                  # 1: after this lesson, -1: after another, 0: neither
    readable: bool = True
    problem: str = ""
    copy: bool = False              # named <student> + a copy suffix, with no LMS id
    chosen: str = ""                # why it was taken over the student's others


@dataclass
class CollectReport:
    assignment: str
    placed: dict[str, _Notebook] = field(default_factory=dict)       # student -> notebook
    not_taken: dict[str, list[_Notebook]] = field(default_factory=dict)
    skipped: list[tuple[str, str]] = field(default_factory=list)     # (path, why)
    #: student -> ["path: why", ...]: the files of a student whose owner is known (their
    #: LMS names them, or their folder) that were not placed; only students with no
    #: notebook placed are kept (:func:`_owners`)
    unplaced: dict[str, list[str]] = field(default_factory=dict)
    unplaced_ids: dict[str, str] = field(default_factory=dict)       # student -> LMS id
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
    """A student's name, NFKC-normalised, without spaces around it, at most 100
    characters (whether it can be a folder name is :func:`_refusal`'s to say)."""
    return unicodedata.normalize("NFKC", name).strip()[:100].strip()


def _lesson_names(assignment: str) -> list[str]:
    slug = assignment[3:]
    forms = {assignment, assignment.replace("_", "-"), assignment.replace("_", " "),
             slug, slug.replace("_", "-"), slug.replace("_", " ")}
    return sorted(forms, key=len, reverse=True)


def _student_from_file(stem: str, assignment: str) -> str:
    """``<student>.ipynb``, also ``01_flat_storage-jsmith (1)``: the lesson's name
    and a copy suffix dropped; '' when nothing like a name is left."""
    return _name_and_copy(stem, assignment)[0]


def _name_and_copy(stem: str, assignment: str) -> tuple[str, bool]:
    """(:func:`_student_from_file`, whether a copy suffix was dropped: ``(1)``, ``-1``,
    ``copy``)."""
    for form in _lesson_names(assignment):
        stem = re.sub(re.escape(form), " ", stem, flags=re.IGNORECASE)
    stem = stem.strip(" _-.")
    copy = _COPY.search(stem) is not None
    stem = _COPY.sub("", stem).strip(" _-.()")
    stem = re.sub(rf"^{assignment[:2]}(?=[ _-]|$)", "", stem).strip(" _-.")
    return (stem, copy) if re.search(r"[^\W\d_]", stem) else ("", False)


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


def _naming(files: list[_File], assignment: str, git_folders: set[str]) -> tuple[str, list]:
    """(GitHub Classroom's folder prefix or '', the order the file rules are tried in),
    as the notebooks ``files`` of the download show them."""
    folders = {f.path.split("/", 1)[0] for f in files if "/" in f.path}
    prefix = _classroom_prefix(
        {d for d in folders if not _MOODLE_DIR.match(d)}, git_folders, assignment)
    return prefix, _file_rules(files)


def _identify(files: list[_File], assignment: str, mapping: list[tuple[str, str]],
              used: set[int], git_folders: set[str],
              naming: tuple[str, list] | None = None) -> tuple[list[_Notebook], list]:
    notebooks, skipped = [], []
    prefix, order = naming or _naming(files, assignment, git_folders)
    for f in files:
        parts = f.path.split("/")
        nb = _who(f, parts, assignment, prefix, order)
        nb.student = unicodedata.normalize("NFKC", nb.student)
        for i, (pattern, student) in enumerate(mapping):
            if any(fnmatch.fnmatch(s.lower(), pattern.lower())
                   for s in (f.path, f.full, parts[0])):
                # the instructor names the student; the LMS's id stays for the record
                nb.student, nb.rule, nb.copy = student, "--map", False
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


#: The LMSs that name the files of a flat download, in the order they are tried when
#: as many of the download's files fit each (see :func:`_file_rules`).
_FILE_RULES = {"Moodle file": _MOODLE_FILE, "Blackboard": _BLACKBOARD, "Canvas": _CANVAS}


def _file_rules(files: list[_File]) -> list[str]:
    """The LMSs of :data:`_FILE_RULES`, the one that most of the download's files fit
    first: a download comes from one LMS, and a name the student chose comes after
    the LMS's part of the file name, where it may fit another LMS's pattern (a Canvas
    file ``mallory_999_5_alice_attempt_2099-01-01-00-00-00_x.ipynb``)."""
    names = [f.path for f in files if "/" not in f.path]
    fits = {rule: sum(bool(pattern.match(n)) for n in names)
            for rule, pattern in _FILE_RULES.items()}
    return sorted(_FILE_RULES, key=lambda rule: -fits[rule])  # stable: ties keep the order


def _who(f: _File, parts: list[str], assignment: str, prefix: str,
         order: list[str]) -> _Notebook:
    """The student and rule for one file, before ``--map``; the LMSs that name files
    are tried in ``order``."""
    top, name = parts[0], parts[-1]
    if len(parts) > 1:
        inner = tuple(parts[1:])
        if m := _MOODLE_DIR.match(top):
            return _Notebook(f, m["name"], "Moodle folder", m["id"], inner=inner)
        if prefix and top.startswith(prefix):
            login = top[len(prefix):]
            return _Notebook(f, login, "GitHub Classroom folder", login, inner=inner)
        return _Notebook(f, top, "folder", inner=inner)
    for rule in order:
        m = _FILE_RULES[rule].match(name)
        if m is None:
            continue
        if rule == "Moodle file":
            return _Notebook(f, m["name"], rule, m["id"], inner=(m["orig"],))
        if rule == "Blackboard":  # the user name is Blackboard's id
            return _Notebook(f, m["name"], rule, m["name"], attempt=(m["stamp"], 0),
                             inner=(m["orig"] or name,))
        again = re.search(r"-(\d+)$", PurePosixPath(m["orig"]).stem)
        return _Notebook(f, m["name"], rule, m["id"], late=bool(m["late"]),
                         attempt=("", int(again.group(1)) if again else 0), inner=(m["orig"],))
    student, copy = _name_and_copy(PurePosixPath(name).stem, assignment)
    return _Notebook(f, student, "file name", inner=(name,), copy=copy)


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


# ------------------------------------------------------------------ names and identities

#: Cyrillic and Greek letters that look like Latin ones, as the Latin letter (after NFKC;
#: upper and lower case apart, since their look-alikes differ: Greek ``Η`` is an ``H``,
#: ``η`` an ``n``). From Unicode's confusables (UTS #39), the letters that fonts draw
#: alike; enough to tell ``Аlice`` from ``alice``, not a full skeleton.
_LOOKALIKE = str.maketrans({
    # Cyrillic
    "А": "A", "В": "B", "Е": "E", "Ё": "Ë", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
    "С": "C", "Т": "T", "У": "Y", "Х": "X", "І": "I", "Ї": "Ï", "Ј": "J", "Ѕ": "S", "Ԁ": "D",
    "Ԛ": "Q", "Ԝ": "W", "Һ": "H", "Ӏ": "I", "Ү": "Y", "З": "3", "Ь": "b",
    "а": "a", "в": "b", "е": "e", "ё": "ë", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p",
    "с": "c", "т": "t", "у": "y", "х": "x", "і": "i", "ї": "ï", "ј": "j", "ѕ": "s", "ԁ": "d",
    "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l", "ү": "y", "ь": "b", "п": "n", "г": "r",
    # Greek
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "Ϲ": "C", "Ϳ": "J",
    "α": "a", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x",
    "γ": "y", "η": "n", "ω": "w", "ϲ": "c", "ϳ": "j",
})
#: Scripts that one name may mix (UTS #39's "highly restrictive" level): Latin with
#: Japanese, Chinese or Korean writing.
_COMPATIBLE = ({"LATIN", "HAN", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA"},
               {"LATIN", "HAN", "BOPOMOFO"}, {"LATIN", "HAN", "HANGUL"})
#: Unicode categories of characters that no name holds: controls, format characters
#: (bidi overrides, zero-width ones), surrogates (an undecodable file name), private
#: use, line and paragraph separators.
_INVISIBLE = {"Cc", "Cf", "Cs", "Co", "Zl", "Zp"}
#: Device names of Windows, which cannot be a folder there (with any extension).
_DEVICES = {"con", "prn", "aux", "nul", *(f"{d}{i}" for d in ("com", "lpt") for i in range(10))}


def _record_name(assignment: str) -> str:
    return f"collected-{assignment}.csv"


def _read_record(path: Path) -> dict[str, dict]:
    """The record of earlier collects: student -> their row (none if it is missing)."""
    if not path.is_file():
        return {}
    with open(path, newline="", encoding="utf-8") as f:
        return {r["student"]: r for r in DictReader(f) if r.get("student")}


def _known_names(submitted: Path, record: dict[str, dict], roster: list[str]) -> dict[str, str]:
    """Names known before this download (NFKC) -> where from: the roster, the student
    folders in SUBMITTED, the record."""
    known: dict[str, str] = {}
    for name in roster:
        known.setdefault(unicodedata.normalize("NFKC", name), "on the roster")
    if submitted.is_dir():
        for p in sorted(submitted.iterdir()):
            if p.is_dir() and not p.name.startswith("."):
                known.setdefault(unicodedata.normalize("NFKC", p.name),
                                 f"a student folder in {submitted}")
    for name in record:
        known.setdefault(unicodedata.normalize("NFKC", name), "collected before")
    return known


def _key(name: str) -> str:
    """What ``name`` looks like: NFKC, the look-alike letters as the Latin ones, case
    folded. Two names of one key and different spellings are confusable."""
    return unicodedata.normalize("NFKC", name).translate(_LOOKALIKE).casefold()


def _lookalikes(name: str) -> list[str]:
    """The letters of ``name`` that look like Latin letters and are not."""
    return [c for c in dict.fromkeys(name) if ord(c) in _LOOKALIKE]


def _letters(chars) -> str:
    """``'А' is CYRILLIC CAPITAL LETTER A`` for each of ``chars``."""
    return ", ".join(f"{c!r} is {unicodedata.name(c, f'U+{ord(c):04X}')}" for c in chars)


def _reserved(name: str, assignment: str) -> str:
    """Why ``name`` cannot be a student's folder, or ''."""
    if name in (".", ".."):
        return f"{name!r} is not a folder name"
    if "/" in name or "\\" in name:
        return f"{name!r} holds a path separator"
    if name.startswith("."):
        return f"{name!r} starts with '.' (a hidden folder, which the grader skips)"
    odd = [c for c in dict.fromkeys(name) if unicodedata.category(c) in _INVISIBLE]
    if odd:
        return (f"{name!r} holds control or invisible characters ("
                + ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, '')}".rstrip() for c in odd)
                + ")")
    from stridegrad.course.paths import PACKAGED_NOTEBOOKS

    lessons = {p.stem for p in PACKAGED_NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")} | {assignment}
    if name.casefold() in {s.casefold() for s in lessons}:
        return (f"{name!r} is a lesson's name: SUBMITTED/{name}/ would be taken for the "
                "lesson's folder, not a student's")
    if name.split(".", 1)[0].strip().casefold() in _DEVICES:
        return f"{name!r} is a device name of Windows (no folder can have it there)"
    if re.fullmatch(r"collected-.*\.csv", name, re.IGNORECASE):
        return f"{name!r} is the name of collect's record"
    return ""


def _mixed(name: str) -> str:
    """Why ``name`` mixes scripts (``Аlice``: Cyrillic and Latin letters), or ''."""
    scripts: dict[str, str] = {}  # script -> its first letter in the name
    for c in name:
        if c.isalpha():
            word = unicodedata.name(c, "").split(" ", 1)[0]
            if word and word != "MODIFIER":
                scripts.setdefault({"CJK": "HAN"}.get(word, word), c)
    if len(scripts) < 2 or any(set(scripts) <= ok for ok in _COMPATIBLE):
        return ""
    return (f"{name!r} mixes {' and '.join(s.title() for s in scripts)} letters "
            f"({_letters(c for s, c in scripts.items() if s != 'LATIN')})")


def _refusal(name: str, assignment: str, group: set[str], known: dict[str, str],
             roster: set[str], by_map: bool = False) -> str:
    """Why ``name`` is not filed as a student (see the module docstring), or ''.
    ``group``: the names known or in this download that look like it, itself included;
    ``by_map``: the instructor gave the name (``--map``), which is only checked for
    being reserved."""
    what = "; name the student in --map (pattern,student) if the file is theirs"
    why = _reserved(name, assignment)
    if why or by_map:
        return f"{why}: not filed{what}" if why else ""
    mine = _lookalikes(name)
    others = sorted(group - {name}) if name not in known else []
    trusted = [o for o in others if o in known]
    plain = [o for o in others if not _lookalikes(o)]
    if trusted:
        other = trusted[0]
        how = (_letters(mine) if mine else f"the other's {_letters(_lookalikes(other))}"
               if _lookalikes(other) else "they differ in upper and lower case only")
        return (f"{name!r} looks like {other!r} ({known[other]}) but is another name "
                f"({how}): filed neither as {other} nor beside them{what}")
    if others and mine:
        other = (plain or others)[0]
        return (f"{name!r} looks like {other!r}, another name in this download "
                f"({_letters(mine)}): not filed{what}")
    if plain:  # neither has look-alike letters: they differ in case only
        return (f"{name!r} and {plain[0]!r} differ in upper and lower case only: not filed "
                f"(on macOS and Windows they are one folder){what}")
    why = "" if name in roster else _mixed(name)
    return f"{why}: not filed{what}" if why else ""


def _check_names(notebooks: list[_Notebook], assignment: str, known: dict[str, str],
                 roster: set[str], report: CollectReport) -> list[_Notebook]:
    """The notebooks whose student's name may be filed; the others are reported."""
    groups: dict[str, set[str]] = {}
    for name in [*known, *(nb.student for nb in notebooks)]:
        groups.setdefault(_key(name), set()).add(name)
    refusals: dict[tuple[str, bool], str] = {}
    kept = []
    for nb in notebooks:
        key = (nb.student, nb.rule.endswith("--map"))  # "--map", "Canvas + --map"
        if key not in refusals:
            refusals[key] = _refusal(nb.student, assignment, groups[_key(nb.student)], known,
                                     roster, by_map=key[1])
        if refusals[key]:
            report.skipped.append((nb.file.path, refusals[key]))
        else:
            kept.append(nb)
    return kept


def _check_ids(notebooks: list[_Notebook], record: dict[str, dict], record_name: str,
               report: CollectReport) -> list[_Notebook]:
    """The notebooks not of another LMS id than the record's for their student."""
    kept = []
    for nb in notebooks:
        before = (record.get(nb.student) or {}).get("student_id") or ""
        if nb.ident and before and nb.ident != before and nb.rule != "--map":
            report.skipped.append((nb.file.path, (
                f"{nb.student}: the LMS id of this file is {nb.ident}, but {nb.student} was "
                f"collected before as id {before} ({record_name}): another user of that "
                f"name, not filed as {nb.student}'s; name it in --map if it is theirs")))
        else:
            kept.append(nb)
    return kept


def _drop_copies(notebooks: list[_Notebook], report: CollectReport) -> list[_Notebook]:
    """Without an LMS id, a file named like a copy (``alice (1).ipynb``) is not taken as
    the resubmission of a student who has a file of their own name: nothing says who
    uploaded it. It is reported."""
    own: dict[str, list[_Notebook]] = {}
    for nb in notebooks:
        own.setdefault(nb.student, []).append(nb)
    kept = []
    for nb in notebooks:
        original = next((o for o in own[nb.student] if not o.copy), None)
        if nb.copy and original is not None:
            report.skipped.append((nb.file.path, (
                f"{nb.student}: named like a copy of {original.file.path}, and no LMS id says "
                f"who uploaded it: not taken as {nb.student}'s resubmission; if it is, name "
                f"it in --map (pattern,{nb.student}) and the newest is taken")))
        else:
            kept.append(nb)
    return kept


# ------------------------------------------------------------------ collecting

def collect(source: Path, submitted: Path, lesson: str, *, force: bool = False,
            mapping: list[tuple[str, str]] | None = None, max_mb: float = MAX_MB,
            roster: list[str] | None = None,
            log: Callable[[str], None] = print) -> CollectReport:
    """File the notebooks of ``source`` (a zip or a folder) into ``submitted`` for
    ``lesson``; :class:`CollectError` if nothing can be placed or SUBMITTED holds
    different notebooks (without ``force``). ``roster``: the class's names
    (``--roster``), which names are checked against (see the module docstring)."""
    from stridegrad.course.checks import load_checkpoint

    log = terminal_log(log)  # names and paths as the students and the LMS made them
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
    candidates, skipped, others = [], [], []
    for f in files:
        if f.link:
            skipped.append((f.path, "a link: not followed"))
        elif not f.path.lower().endswith(".ipynb"):
            kind = PurePosixPath(f.path).suffix or "no extension"
            skipped.append((f.path, f"not a notebook ({kind})" + (
                ": a zip inside the download; unpack it and collect the folder"
                if kind.lower() == ".zip" else "")))
            others.append(f)
        else:
            candidates.append(f)
    naming = _naming(candidates, assignment, git)
    notebooks, by_map = _identify(candidates, assignment, mapping, used, git, naming)
    skipped += by_map
    # whose the files are that are no notebooks (a PDF): "submitted, not placed"
    whys = dict(skipped)
    owned = [(nb, whys[nb.file.path])
             for nb in _identify(others, assignment, mapping, used, git, naming)[0]]
    unplaced: list[tuple[_Notebook, str]] = []

    def skip(nb: _Notebook, why: str) -> None:
        skipped.append((nb.file.path, why))
        unplaced.append((nb, why))

    total = 0
    ready = []
    for nb in notebooks:
        if not nb.student:
            skipped.append((nb.file.path, "cannot tell whose notebook it is (its name is the "
                                          "lesson's, not a student's): name it in --map"))
            continue
        if nb.file.size > max_bytes:
            skip(nb, f"{nb.file.size / 2**20:.0f} MB, over the {max_mb:g} MB limit (--max-mb)")
            continue
        try:
            nb.data = nb.file.read(max_bytes + 1)
        except (OSError, RuntimeError, zipfile.BadZipFile, NotImplementedError) as exc:
            skip(nb, f"cannot be read: {exc}")
            continue
        if len(nb.data) > max_bytes:
            skip(nb, f"over the {max_mb:g} MB limit (--max-mb)")
            continue
        total += len(nb.data)
        if total > _MAX_TOTAL:
            raise CollectError(f"{source}: more than {_MAX_TOTAL // 2**30} GB of notebooks; "
                               "collect it in parts")
        nb.defines, nb.readable = _defines(nb.data, checkpoint.exercises)
        nb.named = _named(nb.inner, assignment)
        if nb.named < 0 and not nb.defines:
            skip(nb, f"{nb.student}: another lesson's notebook (its name) that defines none "
                     f"of {assignment}'s exercises")
            continue
        ready.append(nb)

    record = _read_record(submitted / _record_name(assignment))
    known = _known_names(submitted, record, roster or [])
    ready = _check_names(ready, assignment, known,
                         {unicodedata.normalize("NFKC", n) for n in roster or []}, report)
    _tell_apart(ready, report)
    ready = _check_ids(ready, record, _record_name(assignment), report)
    ready = _drop_copies(ready, report)
    _choose(ready, report, unplaced)
    report.skipped = skipped + report.skipped
    _owners(owned + unplaced, report, assignment, known, roster or [])
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
    """Two LMS users of one name (two ids): each becomes ``name_<id>`` (not a notebook
    that ``--map`` filed by its path: the instructor named its student)."""
    ids: dict[str, set[str]] = {}
    for nb in notebooks:
        if nb.ident and nb.rule != "--map":
            ids.setdefault(nb.student, set()).add(nb.ident)
    for name, idents in ids.items():
        if len(idents) > 1:
            report.notes.append(f"{len(idents)} users are named {name} (ids "
                                f"{', '.join(sorted(idents))}): filed as "
                                f"{', '.join(f'{name}_{i}' for i in sorted(idents))}")
            for nb in notebooks:
                if nb.student == name and nb.ident and nb.rule != "--map":
                    nb.student = f"{name}_{nb.ident}"


#: Why the notebook taken beat the next one, by the first part of the ranking that
#: tells them apart (:func:`_choose`): an attempt or a newer file is a resubmission.
_CHOSEN = ("newest", "named after the lesson", "newest", "defines the most exercises")


def _choose(notebooks: list[_Notebook], report: CollectReport,
            unplaced: list[tuple[_Notebook, str]]) -> None:
    by_student: dict[str, list[_Notebook]] = {}
    for nb in notebooks:
        by_student.setdefault(nb.student, []).append(nb)

    def key(nb):
        return (nb.attempt or ("", 0), nb.named, nb.file.mtime, nb.defines)

    for student, own in sorted(by_student.items()):
        ranked = sorted(own, key=key, reverse=True)
        if len(ranked) > 1 and key(ranked[0]) == key(ranked[1]):
            tied = [nb.file.path for nb in ranked if key(nb) == key(ranked[0])]
            why = (f"{student}: {len(tied)} notebooks and no way to tell which is the newest; "
                   "keep one, or skip the others with --map (pattern,-)")
            report.skipped.append((", ".join(tied), why))
            unplaced.append((ranked[0], why.replace(f"{student}: ", f"{', '.join(tied)}: ")))
            continue
        report.placed[student] = ranked[0]
        if len(ranked) > 1:
            report.not_taken[student] = ranked[1:]
            first, second = key(ranked[0]), key(ranked[1])
            ranked[0].chosen = _CHOSEN[next(i for i in range(4) if first[i] != second[i])]


def _taken(nb: _Notebook, n: int) -> str:
    """Why ``nb`` was taken of the student's ``n`` notebooks: ``newest of 2`` (a later
    attempt or file: a resubmission), ``named after the lesson (of 2)``, ``defines the
    most exercises (of 2)``."""
    return f"newest of {n}" if nb.chosen == "newest" else f"{nb.chosen} (of {n})"


def _owners(unplaced: list[tuple[_Notebook, str]], report: CollectReport, assignment: str,
            known: dict[str, str], roster: list[str]) -> None:
    """``report.unplaced``: for each student who has files in the download but none placed,
    those files and why. A file counts as a student's where the LMS names it (Canvas,
    Moodle, Blackboard, GitHub Classroom), it lies in a folder of its own, ``--map``
    names its student, or its file name is a name already known (the roster, SUBMITTED,
    the record); a loose ``notes.pdf`` is nobody's. Names that could not be filed (a
    reserved name, mixed scripts) are left out: they are in ``report.skipped``."""
    roster_names = {unicodedata.normalize("NFKC", n) for n in roster}
    for nb, why in unplaced:
        student = nb.student
        if not student or student in report.placed or student == "-":
            continue
        if nb.rule == "file name" and student not in known:
            continue
        if _refusal(student, assignment, {student}, known, roster_names,
                    by_map=nb.rule.endswith("--map")):
            continue
        prefix = f"{student}: "
        report.unplaced.setdefault(student, []).append(
            f"{nb.file.path}: {why.removeprefix(prefix)}" if not why.startswith(
                nb.file.path) else why)
        if nb.ident and nb.rule != "--map":
            report.unplaced_ids.setdefault(student, nb.ident)


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
    """``SUBMITTED/collected-<assignment>.csv``: where each student's notebook came from,
    and their LMS id (rows of students collected now replace theirs; the others stay).
    Its cells are neutralised for spreadsheets, and read back as they were
    (:mod:`stridegrad.course._sinks`)."""
    path = submitted / _record_name(report.assignment)
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    before = _read_record(path)
    rows = [r for student, r in before.items()
            if student not in report.placed and student not in report.unplaced]
    for student, nb in report.placed.items():
        others = report.not_taken.get(student, [])
        rows.append({
            "student": student, "student_id": nb.ident,
            "source": f"{source.name}:{nb.file.full}", "rule": nb.rule,
            "late": "late" if nb.late else "",
            "modified": datetime.datetime.fromtimestamp(nb.file.mtime).isoformat(
                timespec="seconds"),
            "not_taken": "; ".join(o.file.full for o in others),
            "taken": _taken(nb, len(others) + 1) if others else "",
            "not_placed": "", "collected_at": now})
    for student, whys in report.unplaced.items():
        # an earlier collect's notebook of theirs stays (and is graded); this one's files
        # were not placed
        row = dict(before.get(student) or {
            "student": student, "student_id": report.unplaced_ids.get(student, ""),
            "collected_at": now})
        row["not_placed"] = "; ".join(whys)
        rows.append(row)
    rows.sort(key=lambda r: r["student"])
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = DictWriter(f, _RECORD_COLUMNS, extrasaction="ignore")
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
                notes.append(f"{_taken(nb, len(others) + 1)}; not taken: "
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
