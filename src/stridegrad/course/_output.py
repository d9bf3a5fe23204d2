"""Writing a set of files all or nothing, never over a different file without leave.

``stridegrad release`` and ``stridegrad collect`` both write files into a folder
the instructor may already have used (an earlier release, an earlier collect, a
file edited by hand). :func:`write_files` first compares every target with what
would be written: equal files are left alone ("unchanged"), and if any target
exists with other contents the whole write is refused, naming every such file,
unless ``force`` is given. Nothing is written when it refuses.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Conflict", "WriteReport", "write_files"]


class Conflict(Exception):
    """Files exist with other contents than those to be written (``paths``)."""

    def __init__(self, paths: list[Path]):
        self.paths = paths
        shown = ", ".join(str(p) for p in paths[:10]) + (", ..." if len(paths) > 10 else "")
        super().__init__(f"{len(paths)} file{'s' if len(paths) != 1 else ''} already there "
                         f"with other contents: {shown}")


@dataclass
class WriteReport:
    written: list[Path] = field(default_factory=list)    # new files
    replaced: list[Path] = field(default_factory=list)   # different files replaced (force)
    updated: list[Path] = field(default_factory=list)    # replaceable files, replaced
    unchanged: list[Path] = field(default_factory=list)  # already there, equal


def write_files(files: dict[Path, bytes], *, force: bool = False,
                mtimes: dict[Path, float] | None = None,
                replaceable: set[Path] = frozenset()) -> WriteReport:
    """Write ``files`` (path -> bytes); :class:`Conflict` before writing anything if a
    path holds something else and ``force`` is false. ``mtimes`` sets the
    modification time of a written file (a collected notebook keeps its own);
    ``replaceable`` paths hold something the caller wrote and may replace (counted
    as ``updated``)."""
    report = WriteReport()
    todo = []
    for path, data in files.items():
        if path.is_dir():
            raise IsADirectoryError(21, "a folder is where a file would go", str(path))
        if path.exists():
            if path.read_bytes() == data:
                report.unchanged.append(path)
                continue
            (report.updated if path in replaceable else report.replaced).append(path)
        todo.append(path)
    if report.replaced and not force:
        raise Conflict(report.replaced)
    for path in todo:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_bytes(files[path])
        if mtimes and path in mtimes:
            os.utime(tmp, (mtimes[path], mtimes[path]))
        os.replace(tmp, path)  # a reader never sees half a file
        if path not in report.replaced and path not in report.updated:
            report.written.append(path)
    return report
