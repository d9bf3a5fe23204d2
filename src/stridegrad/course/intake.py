"""Taking a class folder in: regular files only, within limits, never through a link.

``stridegrad grade`` often runs as root, over folders that students filled (a
shared drive, one clone per student). What it takes from them, and how:

- The class folder (SUBMITTED) is the instructor's: given as a link, it is
  followed. Each entry of it whose name does not start with ``.`` and that is a
  folder is a student's. An entry that is a link to a folder (to another student's,
  to the instructor's ``solutions/``, to ``/``) is a student too, whose folder is
  refused (:attr:`Listing.problem`) and never entered: the gradebook says so. Files
  in it (``collected-*.csv``) are nobody's.
- A student's folder is walked iteratively, never through a link, at most
  :data:`MAX_DEPTH` folders deep and :data:`MAX_ENTRIES` files and folders in all;
  hidden entries (``.ipynb_checkpoints``, ``.git``) are skipped. What lies past a
  limit is not looked at, and the listing says so (:attr:`Listing.cut`).
- A file is taken only if it is a regular file with one name (``st_nlink == 1``: a
  hard link to another student's notebook, or to a file of the instructor's, has
  two) of at most :data:`MAX_NOTEBOOK_MB` MB. Links, hard-linked files, FIFOs,
  devices and bigger files are listed with the reason they are not taken
  (:attr:`Entry.problem`), and never opened.
- A file is opened one path component at a time from the class folder (``openat``
  with ``O_NOFOLLOW``; the file itself also with ``O_NONBLOCK``), checked again on
  the open descriptor (``fstat``: a regular file, one link, the size cap) and read
  from it, never more than the cap (:func:`read_file`). A file swapped after the
  walk for a link, a FIFO or a bigger one is refused: never followed, waited on or
  read past the cap. A link to ``/proc/kmsg`` or ``/etc/shadow`` is never opened.

What is read is parsed within :data:`NOTEBOOK_JSON`'s limits
(:mod:`stridegrad.course._limits`). This needs ``openat`` (``dir_fd``), which
Linux and macOS have (:data:`SUPPORTED`).
"""

from __future__ import annotations

import itertools
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from stridegrad.course._limits import JSONLimits, printable

__all__ = ["MAX_DEPTH", "MAX_ENTRIES", "MAX_NOTEBOOK_MB", "NOTEBOOK_JSON", "SUPPORTED",
           "TAKES", "Entry", "Listing", "Refused", "list_folder", "read_file", "read_path",
           "student_folders"]

#: The largest notebook the grader takes, in MB (40 times the course's largest
#: solution notebook; ``stridegrad collect --max-mb`` takes up to 50 MB).
MAX_NOTEBOOK_MB = 20
MAX_BYTES = MAX_NOTEBOOK_MB * 1024 * 1024
#: Folder levels below a student's folder that are looked into (the layout needs 1).
MAX_DEPTH = 32
#: Files and folders looked at in one student's folder.
MAX_ENTRIES = 10_000
#: What a notebook's JSON may be (:func:`stridegrad.course._limits.loads`): the size
#: cap, nested 64 deep (the course's notebooks nest 7; ipywidgets' state and JSON
#: outputs nest more) and 2 million values (as many as 20 MB of 10-character source
#: lines hold), so that parsing one takes about 200 MB of memory at most.
NOTEBOOK_JSON = JSONLimits(MAX_BYTES, 64, 2_000_000)
#: What the grader takes, said where it refuses something.
TAKES = (f"the grader takes real folders and regular files with one name, of at most "
         f"{MAX_NOTEBOOK_MB} MB, and follows no link")
#: Whether this platform can open files without following links (``openat``).
SUPPORTED = os.open in os.supports_dir_fd and os.scandir in os.supports_fd

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | _CLOEXEC
# O_NONBLOCK: a FIFO swapped in after the walk must not make open() wait for a writer
_FILE_FLAGS = (os.O_RDONLY | _NOFOLLOW | _CLOEXEC | getattr(os, "O_NONBLOCK", 0)
               | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0))


class Refused(Exception):
    """A file or folder the grader does not take; the message says what it is."""


@dataclass(frozen=True)
class Entry:
    """A file of a student's folder (anything but a folder)."""

    #: its path below the student's folder
    parts: tuple[str, ...]
    #: why it is not taken ("a symbolic link", "hard-linked (2 names)"...); "" when it
    #: is a regular file the grader may read
    problem: str = ""

    @property
    def shown(self) -> str:
        """The path, as the feedback shows it (:func:`~stridegrad.course._limits.printable`)."""
        return "/".join(printable(p) for p in self.parts)


@dataclass
class Listing:
    """What a student's folder holds, as far as the grader looks."""

    #: every file below it, in path order
    files: list[Entry] = field(default_factory=list)
    #: why the folder itself is not taken ("a symbolic link"), or ""
    problem: str = ""
    #: what a limit left unlooked at ("has folders more than 32 levels deep..."), or ""
    cut: str = ""


def _problem(st: os.stat_result, max_bytes: int, *, one_name: bool = True) -> str:
    """Why a file of this ``lstat`` or ``fstat`` is not taken, or "" (``one_name``:
    a file with more than one name, a hard link, is not taken)."""
    mode = st.st_mode
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if not stat.S_ISREG(mode):
        kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "special")
        return f"not a regular file ({kind})"
    if one_name and st.st_nlink > 1:
        return f"hard-linked ({st.st_nlink} names for one file)"
    if st.st_size > max_bytes:
        return f"{st.st_size / 2**20:.1f} MB, over the limit of {max_bytes / 2**20:g} MB"
    return ""


def _why(exc: OSError, name: str | None = None, dir_fd: int | None = None) -> str:
    """What an entry is that ``open`` with ``O_NOFOLLOW`` refused with ``exc`` (Linux
    says ENOTDIR, not ELOOP, for a link opened with ``O_DIRECTORY``: an ``lstat`` of
    ``name`` in ``dir_fd``, which follows nothing, tells a link from a file)."""
    import errno

    if exc.errno in (errno.ELOOP, errno.ENOTDIR) and name is not None:
        try:
            if stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode):
                return "a symbolic link"
        except OSError:
            pass
    if exc.errno == errno.ELOOP:
        return "a symbolic link"
    if exc.errno == errno.ENOTDIR:
        return "not a folder"
    return f"unreadable ({exc.strerror or exc})"


def _open_folder(folder: Path) -> int:
    """A descriptor of ``folder``: its parent as given (the instructor's path, links
    followed), the folder itself never through a link; :class:`Refused` otherwise."""
    folder = Path(folder)
    if not SUPPORTED:
        raise Refused("unreadable here: this system cannot open files without following "
                      "links (openat); grade on Linux or macOS")
    try:
        parent = os.open(folder.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
                         | _CLOEXEC)
    except OSError as exc:
        raise Refused(f"unreadable ({exc.strerror or exc})") from None
    try:
        return os.open(folder.name, _DIR_FLAGS, dir_fd=parent)
    except OSError as exc:
        raise Refused(_why(exc, folder.name, parent)) from None
    finally:
        os.close(parent)


def student_folders(submitted: Path) -> list[str]:
    """The names of the student folders in the class folder ``submitted``, sorted:
    entries not starting with ``.`` that are folders, or links to folders (those are
    refused when listed; telling needs a ``stat`` of the target, which opens nothing)."""
    names = []
    with os.scandir(submitted) as entries:
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False) or (entry.is_symlink() and
                                                            entry.is_dir()):
                    names.append(entry.name)
            except OSError:
                continue
    return sorted(names)


def list_folder(folder: Path, *, max_depth: int = MAX_DEPTH, max_entries: int = MAX_ENTRIES,
                max_bytes: int = MAX_BYTES) -> Listing:
    """What the student's ``folder`` holds (see the module docstring): walked without
    recursion and without following a link, one open descriptor per level."""
    try:
        root = _open_folder(folder)
    except Refused as exc:
        return Listing(problem=str(exc))
    listing = Listing()
    seen = 0
    deep = False
    # (descriptor, path below the student's folder, subfolders still to visit)
    stack: list[tuple[int, tuple[str, ...], list[str]]] = []

    def enter(fd: int, parts: tuple[str, ...]) -> None:
        nonlocal seen, deep
        stack.append((fd, parts, []))
        try:
            with os.scandir(fd) as it:
                # a folder of a million entries costs no more than the cap
                entries = sorted(itertools.islice(it, max_entries - seen + 1),
                                 key=lambda e: e.name)
        except OSError as exc:
            listing.cut = (f"{'/'.join(map(printable, parts)) or 'it'} could not be listed "
                           f"({exc.strerror or exc})")
            return
        folders = stack[-1][2]
        for entry in entries:
            if seen >= max_entries:
                listing.cut = (f"holds more than {max_entries:,} files and folders: the "
                               "rest were not looked at")
                break
            seen += 1
            if entry.name.startswith("."):
                continue
            path = parts + (entry.name,)
            try:
                if entry.is_dir(follow_symlinks=False):
                    if len(path) > max_depth:
                        deep = True
                    else:
                        folders.append(entry.name)
                    continue
                problem = _problem(entry.stat(follow_symlinks=False), max_bytes)
            except OSError as exc:
                problem = _why(exc)
            listing.files.append(Entry(path, problem))
        folders.reverse()  # popped from the end: visited in name order

    try:
        enter(root, ())
        while stack:
            fd, parts, folders = stack[-1]
            if not folders:
                os.close(fd)
                stack.pop()
                continue
            name = folders.pop()
            try:
                child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:  # replaced by a link, or removed, since it was listed
                listing.files.append(Entry(parts + (name,), _why(exc, name, fd)))
                continue
            enter(child, parts + (name,))
    finally:
        for fd, _, _ in stack:
            os.close(fd)
    if deep and not listing.cut:
        listing.cut = (f"has folders more than {max_depth} levels deep: those were not "
                       "looked into")
    listing.files.sort(key=lambda e: e.parts)
    return listing


def _read_fd(fd: int, max_bytes: int, one_name: bool) -> bytes:
    """Read the open file ``fd`` whole, after checking on ``fstat`` that it is a regular
    file (with one name, if ``one_name``) of at most ``max_bytes``."""
    problem = _problem(os.fstat(fd), max_bytes, one_name=one_name)
    if problem:
        raise Refused(problem)
    chunks, size = [], 0
    while size <= max_bytes:  # read one byte past the cap: a file that grew is refused
        chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > max_bytes:
        raise Refused(f"over the limit of {max_bytes / 2**20:g} MB")
    return b"".join(chunks)


def read_file(folder: Path, parts: tuple[str, ...], max_bytes: int = MAX_BYTES) -> bytes:
    """The bytes of ``folder/parts...``, a student's file: each folder on the way opened
    without following a link, the file too, then checked on its descriptor and read
    from it (see the module docstring); :class:`Refused` saying what it is otherwise."""
    fd = _open_folder(folder)
    try:
        for name in parts[:-1]:
            try:
                inner = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                raise Refused(f"in {printable(name)}/, which is {_why(exc, name, fd)}") \
                    from None
            os.close(fd)
            fd = inner
        try:
            file = os.open(parts[-1], _FILE_FLAGS, dir_fd=fd)
        except OSError as exc:
            raise Refused(_why(exc, parts[-1], fd)) from None
    finally:
        os.close(fd)
    try:
        return _read_fd(file, max_bytes, one_name=True)
    finally:
        os.close(file)


def read_path(path: Path, max_bytes: int = MAX_BYTES) -> bytes:
    """The bytes of a file the caller names (``stridegrad check FILE``: the caller's
    own, so links are followed): a regular file of at most ``max_bytes``, opened
    without waiting on a FIFO; :class:`Refused` saying what it is otherwise."""
    try:
        fd = os.open(path, _FILE_FLAGS & ~_NOFOLLOW)
    except OSError as exc:
        raise Refused(_why(exc)) from None
    try:
        return _read_fd(fd, max_bytes, one_name=False)
    finally:
        os.close(fd)
