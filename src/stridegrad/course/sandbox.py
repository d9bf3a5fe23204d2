"""A sandbox for one graded notebook, made of unprivileged Linux namespaces.

Each notebook's worker runs in new user, mount, pid, network, ipc and uts
namespaces, with bubblewrap (``bwrap``) when it is installed and works, else
with util-linux ``unshare`` and :mod:`stridegrad.course._sandbox_init`, a
small launcher of our own. Neither needs root. Inside, the notebook sees:

- ``/usr``, ``/lib*``, ``/bin``, ``/sbin``, a few files of ``/etc``, the Python
  installation and the stridegrad package, all read-only;
- its own ``/tmp``, a private tmpfs of :attr:`Limits.disk_mb` megabytes and its
  working folder, which holds its copy of the notebook;
- a new ``/proc`` that lists only the sandbox's processes, and ``/dev/null``,
  ``zero``, ``full``, ``random`` and ``urandom``;
- no network device but a loopback that is down: no connection anywhere, not
  even to 127.0.0.1;

and nothing else: no other submission, no working copy of the grader, no
hidden tests, no output folder, no home folder, no other file of ``/tmp``. The
notebook runs as uid 1000 of a user namespace of its own, with no capability,
``no_new_privs``, and no way to make another user namespace.

The worker then limits itself (:mod:`stridegrad.course._worker`): address
space, file size, open files and at most :attr:`Limits.processes` processes.
``RLIMIT_NPROC`` counts the processes of a uid *per user namespace* since
Linux 5.14, so in a fresh user namespace it counts the sandbox's processes
only, whichever user runs the grader; older kernels count all the user's
processes, and :func:`process_limit` adds those already running.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import re
import shutil
import site
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LAUNCHERS", "Limits", "Sandbox", "SandboxUnavailable", "find", "process_limit",
           "sandbox_env", "sandbox_uid", "verdict", "warm_files"]

LAUNCHERS = ("bwrap", "unshare")
_INIT = Path(__file__).with_name("_sandbox_init.py")


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot start on this machine (the message says why)."""


@dataclass(frozen=True)
class Limits:
    """What one sandboxed notebook may use besides time and memory."""

    disk_mb: int = 256        # its private /tmp (a tmpfs: this is memory too)
    processes: int = 64       # processes and threads, the worker included
    file_size_mb: int = 128   # largest file it may write
    open_files: int = 256


def _kernel() -> tuple[int, int]:
    m = re.match(r"(\d+)\.(\d+)", platform.release())
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def process_limit(processes: int) -> int:
    """The ``RLIMIT_NPROC`` that lets a sandbox start ``processes`` processes.

    Linux 5.14 and later count a uid's processes per user namespace: the sandbox's
    own namespace starts empty. Older kernels count all the user's processes, so
    those running now are added (the sandbox can still start only ``processes``).
    """
    if _kernel() >= (5, 14):
        return processes
    uid, mine = sandbox_uid(), 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                mine += entry.stat().st_uid == uid
            except OSError:
                pass
    return processes + mine


def _python_paths() -> list[str]:
    """Folders the worker's Python needs: installation, site-packages, the package."""
    import stridegrad

    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             str(Path(sys.executable).resolve().parent.parent),
             str(Path(stridegrad.__file__).resolve().parent.parent), *site.getsitepackages()}
    for folder in site.getsitepackages():  # editable installs put their paths in .pth files
        for pth in Path(folder).glob("*.pth"):
            try:
                lines = pth.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                continue
            paths.update(line.strip() for line in lines
                         if line.strip().startswith("/") and Path(line.strip()).is_dir())
    resolved = sorted({os.path.realpath(p) for p in paths if p and os.path.isdir(p)}, key=len)
    keep: list[str] = []
    for p in resolved:
        if p != "/" and not any(p == k or p.startswith(k + "/") for k in keep):
            keep.append(p)
    return keep


def sandbox_env() -> dict:
    """The worker's whole environment inside the sandbox (nothing of the grader's)."""
    import stridegrad

    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
        "PYTHONPATH": str(Path(stridegrad.__file__).resolve().parent.parent),
        "PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1",
        "IPYTHONDIR": "/tmp/.ipython", "MPLCONFIGDIR": "/tmp/.matplotlib", "MPLBACKEND": "Agg",
        "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
    }


def sandbox_uid() -> int:
    """The uid (outside) that the sandbox's processes have: the grader's own, or
    ``SANDBOX_KUID`` of :mod:`stridegrad.course._sandbox_init` when the grader runs as
    root (the kernel exempts real root from ``RLIMIT_NPROC``, even in a user namespace)."""
    from stridegrad.course._sandbox_init import SANDBOX_KUID

    return SANDBOX_KUID if os.geteuid() == 0 else os.geteuid()


@functools.lru_cache(maxsize=1)
def warm_files() -> tuple[tuple[str, str], ...]:
    """Files to put in the sandbox's working folder before the notebook runs: this
    user's matplotlib font list, which matplotlib would otherwise rebuild in every
    sandbox (a quarter of a second each). Relative to the working folder, which is
    the sandbox's HOME."""
    base = os.environ.get("MPLCONFIGDIR") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "matplotlib")
    files = []
    for path in sorted(Path(base).glob("fontlist-v*.json"))[-1:]:
        try:
            files.append((f".matplotlib/{path.name}", path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError):
            pass
    return tuple(files)


@dataclass(frozen=True)
class Sandbox:
    """A way to start a command in the sandbox: ``bwrap`` or ``unshare`` (our launcher,
    :mod:`stridegrad.course._sandbox_init`, built on the unshare system call)."""

    launcher: str
    executable: str

    def popen(self, argv: list[str], root: Path, disk_mb: int, **popen) -> subprocess.Popen:
        """Start ``argv`` in a fresh sandbox (``popen``: more subprocess.Popen arguments);
        ``root`` is an empty folder of the grader's (our launcher builds the notebook's
        file system on it)."""
        if self.launcher == "unshare":
            cmd = [self.executable, "-I", "-S", str(_INIT), str(root), str(int(disk_mb)),
                   *_python_paths(), "--", *argv]
            return subprocess.Popen(cmd, cwd="/", **popen)
        return subprocess.Popen(self._bwrap(argv, disk_mb), cwd="/", **popen)

    def _bwrap(self, argv: list[str], disk_mb: int) -> list[str]:
        from stridegrad.course._sandbox_init import ETC, SANDBOX_ID, SYSTEM

        cmd = [self.executable, "--unshare-user", "--disable-userns", "--unshare-pid",
               "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
               "--die-with-parent", "--new-session", "--cap-drop", "ALL",
               "--uid", str(SANDBOX_ID), "--gid", str(SANDBOX_ID),
               "--hostname", "sandbox"]
        for name in SYSTEM:
            path = "/" + name
            if os.path.islink(path):
                cmd += ["--symlink", os.readlink(path), path]
            elif os.path.isdir(path):
                cmd += ["--ro-bind", path, path]
        for name in ETC:
            cmd += ["--ro-bind-try", "/etc/" + name, "/etc/" + name]
        # the private /tmp first: a Python (or a clone) under /tmp is bound inside it
        cmd += ["--size", str(int(disk_mb) * 1024 * 1024), "--perms", "0700", "--tmpfs", "/tmp"]
        for path in _python_paths():
            if not any(path == f"/{s}" or path.startswith(f"/{s}/") for s in SYSTEM):
                cmd += ["--ro-bind", path, path]
        return cmd + ["--dev", "/dev", "--proc", "/proc", "--remount-ro", "/",
                      "--chdir", "/tmp", "--", *argv]


def _why_not() -> str:
    """What in this system's set-up stops unprivileged namespaces, if we can tell."""
    if platform.system() != "Linux":
        return f"it needs Linux namespaces, and this is {platform.system()}"
    for path, bad, what in (
            ("/proc/sys/user/max_user_namespaces", "0",
             "user namespaces are switched off (sysctl user.max_user_namespaces = 0)"),
            ("/proc/sys/kernel/unprivileged_userns_clone", "0",
             "unprivileged user namespaces are switched off "
             "(sysctl kernel.unprivileged_userns_clone = 0)"),
            ("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1",
             "AppArmor restricts unprivileged user namespaces "
             "(kernel.apparmor_restrict_unprivileged_userns = 1; install bubblewrap, "
             "whose AppArmor profile allows them)")):
        try:
            if Path(path).read_text().strip() == bad:
                return what
        except OSError:
            pass
    return ""


_PROBE = """
import json, os, resource, socket, stridegrad.course.checks
s = socket.socket()
try:
    s.connect(('127.0.0.1', 9))
    net = 'connected'
except OSError as e:
    net = type(e).__name__
resource.setrlimit(resource.RLIMIT_NPROC, ($nproc, $nproc))
r, w = os.pipe()
pids = []
try:
    for _ in range(8):
        pid = os.fork()
        if pid == 0:
            os.close(w)
            os.read(r, 1)
            os._exit(0)
        pids.append(pid)
except OSError:
    pass
os.close(w)
for pid in pids:
    os.waitpid(pid, 0)
print(json.dumps({'uid': os.getuid(), 'pid': os.getpid(), 'net': net, 'forks': len(pids),
                  'tmp': os.listdir('/tmp'), 'cwd': os.getcwd()}))
"""


@functools.lru_cache(maxsize=None)
def _probe(launcher: str) -> Sandbox:
    """Start a sandbox with ``launcher`` and check, from inside, that it isolates."""
    if launcher == "bwrap":
        exe = shutil.which("bwrap")
        if exe is None:
            raise SandboxUnavailable("bwrap is not installed (apt install bubblewrap)")
        if os.geteuid() == 0:
            raise SandboxUnavailable("bwrap run by root gives the sandbox uid 0, which the "
                                     "kernel exempts from the process limit")
    else:
        from stridegrad.course._sandbox_init import PIVOT_ROOT

        if platform.machine() not in PIVOT_ROOT:
            raise SandboxUnavailable(f"unshare: no pivot_root number known for {platform.machine()}")
        exe = sys.executable
    box = Sandbox(launcher, exe)
    probe = _PROBE.replace("$nproc", str(process_limit(4)))
    with tempfile.TemporaryDirectory(prefix="stridegrad-probe-") as tmp:
        (Path(tmp) / "root").mkdir()
        try:
            proc = box.popen([sys.executable, "-c", probe], Path(tmp) / "root", 8,
                             env=sandbox_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
            out, err = proc.communicate(timeout=60)
        except (OSError, subprocess.SubprocessError) as exc:
            raise SandboxUnavailable(f"{launcher} did not start: {exc}") from None
    if proc.returncode != 0:
        lines = [ln for ln in err.strip().splitlines() if ln.strip()]
        why = _why_not()
        raise SandboxUnavailable(f"{launcher} failed (exit code {proc.returncode}"
                                 + (f": {lines[-1].strip()}" if lines else "") + ")"
                                 + (f": {why}" if why else ""))
    try:
        seen = json.loads(out.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        raise SandboxUnavailable(f"{launcher} ran, but the probe printed {out!r}") from None
    wrong = [f"{k} = {seen[k]!r}" for k, ok in (
        ("pid", seen["pid"] <= 3), ("net", seen["net"] != "connected"),
        ("tmp", set(seen["tmp"]) <= {p.split("/")[2] for p in _python_paths()
                                     if p.startswith("/tmp/")}),
        ("uid", seen["uid"] != 0), ("cwd", seen["cwd"] == "/tmp"), ("forks", seen["forks"] < 8))
        if not ok]
    if wrong:
        raise SandboxUnavailable(f"{launcher} started but does not isolate: {', '.join(wrong)}")
    return box


def find(prefer: str | None = None) -> Sandbox:
    """The first sandbox launcher that works here (``prefer`` only tries that one).

    Raises :class:`SandboxUnavailable` naming, for each launcher, why not.
    """
    if prefer is not None and prefer not in LAUNCHERS:
        raise ValueError(f"unknown sandbox launcher {prefer!r}; expected one of {LAUNCHERS}")
    if platform.system() != "Linux":
        raise SandboxUnavailable(_why_not())
    reasons = []
    for launcher in [prefer] if prefer else LAUNCHERS:
        try:
            return _probe(launcher)
        except SandboxUnavailable as exc:
            reasons.append(str(exc))
    raise SandboxUnavailable("; ".join(reasons))


def verdict() -> str:
    """One line for ``stridegrad doctor``: does the grading sandbox work here, and how."""
    try:
        box = find()
    except SandboxUnavailable as exc:
        return f"no: {exc} (stridegrad grade refuses unless --no-sandbox)"
    if box.launcher == "bwrap":
        return f"yes (bubblewrap, {box.executable})"
    try:
        _probe("bwrap")
        why = ""
    except SandboxUnavailable as exc:
        why = f"; not bubblewrap: {exc}"
    return f"yes (stridegrad's unshare launcher{why})"
