"""A sandbox for one graded notebook, made of unprivileged Linux namespaces.

Each notebook's worker runs in new user, mount, pid, network, ipc and uts
namespaces, with bubblewrap (``bwrap``) when it is installed and works, else
with util-linux ``unshare`` and :mod:`stridegrad.course._sandbox_init`, a
small launcher of our own. Neither needs root. Inside, the notebook sees:

- ``/usr``, ``/lib*``, ``/bin``, ``/sbin``, a few files of ``/etc``, the Python
  installation and the stridegrad package, all read-only;
- its own ``/tmp``, a private tmpfs of :attr:`Limits.disk_mb` megabytes and its
  working folder, which holds its copy of the notebook;
- a new ``/proc`` that lists only the sandbox's processes (its ``keys`` and
  ``key-users`` masked), and a read-only ``/dev`` with ``null``, ``zero``,
  ``full``, ``random`` and ``urandom`` (``/dev/shm`` is ``/tmp``);
- no network device but a loopback that is down: no connection anywhere, not
  even to 127.0.0.1;

and nothing else: no other submission, no working copy of the grader, no
hidden tests, no output folder, no home folder, no other file of ``/tmp``. The
notebook runs as uid 1000 of a user namespace of its own, with no capability,
``no_new_privs``, and no way to make another user namespace.

Namespaces do not isolate all the kernel's state, so, with both launchers:

- a seccomp filter (:mod:`stridegrad.course._seccomp`) makes ``keyctl``,
  ``add_key``, ``request_key``, ``ptrace``, ``bpf``, the mount calls,
  ``unshare``, ``setns``, namespace flags of ``clone`` and the like fail with
  EPERM (bubblewrap's ``--seccomp``; our launcher's ``prctl(PR_SET_SECCOMP)``);
- the sandbox has a fresh, empty session keyring, not the grader's;
- ``RLIMIT_CORE`` is 0 (hard), and every Python of the sandbox makes itself not
  dumpable as it starts (``PR_SET_DUMPABLE`` 0, which the filter keeps);
- where the machine delegates cgroup v2 to the grader (:func:`cgroups`), each
  sandbox is a cgroup of its own, whose ``memory.max`` counts all its processes
  and its ``/tmp`` together and whose ``pids.max`` counts all its processes; it is
  emptied with SIGKILL and removed when the sandbox's first process is reaped.

The worker then limits itself (:mod:`stridegrad.course._worker`): address
space, file size, open files and at most :attr:`Limits.processes` processes.
``RLIMIT_NPROC`` counts the processes of a uid *per user namespace* since
Linux 5.14, so in a fresh user namespace it counts the sandbox's processes
only, whichever user runs the grader; older kernels count all the user's
processes, and :func:`process_limit` adds those already running. Where there is
no cgroup, these limits are what holds: memory per process (so several
processes may each take ``--memory``), processes per sandbox.

Time is kept from outside: the grader starts each sandbox in a process group of
its own and, past its deadline, kills that group with SIGKILL. The launcher's
first process is in it, and the sandbox's pid 1 dies with it
(``PR_SET_PDEATHSIG``), and with pid 1 the kernel kills every process of the pid
namespace, wherever it moved itself (another session, a stopped tracee).
"""

from __future__ import annotations

import errno
import functools
import itertools
import json
import os
import platform
import re
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from stridegrad.course import _seccomp

__all__ = ["CGROUP_ROOT", "LAUNCHERS", "Limits", "Sandbox", "SandboxUnavailable", "cgroups",
           "find", "limits_verdict", "process_limit", "sandbox_env", "sandbox_uid", "verdict",
           "warm_files"]

LAUNCHERS = ("bwrap", "unshare")
_INIT = Path(__file__).with_name("_sandbox_init.py")
#: Where the cgroup v2 hierarchy is mounted when the machine uses it.
CGROUP_ROOT = Path("/sys/fs/cgroup")
#: The size of bubblewrap's /dev tmpfs (read-only once its nodes and links are made).
_DEV_BYTES = 64 * 1024


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


from stridegrad.course._sandbox_init import HIDE  # noqa: E402 - our launcher's own



def hidden_course_paths() -> tuple[str, ...]:
    """The course's folders a judged lesson's sandbox shows empty: its checkpoints (the
    tests and expected values), solutions and misconceptions (known-wrong versions)."""
    course = Path(__file__).resolve().parent
    return tuple(str(course / name) for name in ("checkpoints", "solutions", "misconceptions"))


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
    from stridegrad.course._sandbox_init import SITE

    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
        # SITE first: its sitecustomize makes each Python of the sandbox not dumpable
        "PYTHONPATH": os.pathsep.join([SITE, str(Path(stridegrad.__file__).resolve().parents[1])]),
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


@functools.lru_cache(maxsize=1)
def _filter() -> bytes:
    """This machine's seccomp program (:func:`stridegrad.course._seccomp.program`)."""
    return _seccomp.program()


def _data_fd(data: bytes) -> int:
    """The read end of a pipe that holds ``data`` and then ends (for a child to read)."""
    if len(data) > 60_000:  # a pipe holds 64 KiB: the write below must not block
        raise ValueError(f"{len(data)} bytes are too many for a pipe of data")
    r, w = os.pipe()
    try:
        os.write(w, data)
    finally:
        os.close(w)
    return r


class _SandboxProcess(subprocess.Popen):
    """The first process of a sandbox. Once it is reaped (:meth:`wait`, :meth:`poll`),
    the sandbox's cgroup, if it has one, is emptied with SIGKILL and removed."""

    cgroup: Path | None = None

    def wait(self, timeout=None):
        code = super().wait(timeout)
        self._release()
        return code

    def poll(self):
        code = super().poll()
        if code is not None:
            self._release()
        return code

    def _release(self) -> None:
        cgroup, self.cgroup = self.cgroup, None
        if cgroup is not None:
            _remove_cgroup(cgroup)


@dataclass(frozen=True)
class Sandbox:
    """A way to start a command in the sandbox: ``bwrap`` or ``unshare`` (our launcher,
    :mod:`stridegrad.course._sandbox_init`, built on the unshare system call)."""

    launcher: str
    executable: str

    def popen(self, argv: list[str], root: Path, disk_mb: int, *, memory_mb: int | None = None,
              processes: int | None = None, hidden: tuple[str, ...] = (),
              **popen) -> subprocess.Popen:
        """Start ``argv`` in a fresh sandbox (``popen``: more subprocess.Popen arguments);
        ``root`` is an empty folder of the grader's (our launcher builds the notebook's
        file system on it). Both launchers install the seccomp filter, join a fresh
        session keyring and set ``RLIMIT_CORE`` to 0 (see the module's docstring);
        bubblewrap is started through our launcher's ``--exec`` prelude for the last two.

        Where the machine delegates cgroup v2 (:func:`cgroups`), the sandbox gets a cgroup
        of its own: ``memory.max`` of ``memory_mb`` plus ``disk_mb`` (its /tmp is memory
        too) and ``pids.max`` of ``processes`` and the launcher's own, when given.

        ``hidden``: folders of the Python installation the sandbox shows empty (the
        course's checkpoints, solutions and misconceptions, for a judged lesson).
        """
        cgroup = _new_cgroup(memory_mb, disk_mb, processes)
        fds: list[int] = []
        try:
            fds.append(_data_fd(_filter()))
            if self.launcher == "unshare":
                cmd = [self.executable, "-I", "-S", str(_INIT), "--seccomp", str(fds[0]),
                       *(["--cgroup", str(cgroup)] if cgroup else []),
                       str(root), str(int(disk_mb)), *_python_paths(),
                       *(HIDE + h for h in hidden), "--", *argv]
            else:
                from stridegrad.course._sandbox_init import SITECUSTOMIZE

                fds.append(_data_fd(SITECUSTOMIZE.encode()))
                # the prelude (our launcher's --exec) enters the cgroup and a fresh keyring
                cmd = [sys.executable, "-I", "-S", str(_INIT), "--exec",
                       *(["--cgroup", str(cgroup)] if cgroup else []), "--",
                       *self._bwrap(argv, disk_mb, seccomp_fd=fds[0], site_fd=fds[1],
                                    hidden=hidden)]
            popen["pass_fds"] = (*popen.get("pass_fds", ()), *fds)
            proc = _SandboxProcess(cmd, cwd="/", **popen)
        except BaseException:
            if cgroup is not None:
                _remove_cgroup(cgroup)
            raise
        finally:
            for fd in fds:
                os.close(fd)
        proc.cgroup = cgroup
        return proc

    def _bwrap(self, argv: list[str], disk_mb: int, *, seccomp_fd: int,
               site_fd: int, hidden: tuple[str, ...] = ()) -> list[str]:
        from stridegrad.course._sandbox_init import (DEV_LINKS, DEVICES, ETC, PROC_MASKED,
                                                     SANDBOX_ID, SITE, SYSTEM)

        cmd = [self.executable, "--unshare-user", "--disable-userns", "--unshare-pid",
               "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
               "--die-with-parent", "--new-session", "--cap-drop", "ALL",
               "--uid", str(SANDBOX_ID), "--gid", str(SANDBOX_ID),
               "--hostname", "sandbox", "--seccomp", str(seccomp_fd)]
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
        for path in hidden:
            if os.path.isdir(path):
                cmd += ["--size", "4096", "--tmpfs", path, "--remount-ro", path]
        # /dev as our launcher makes it, read-only (bwrap's --dev is a writable tmpfs of
        # half the memory); the device nodes stay writable: they are other mounts
        cmd += ["--size", str(_DEV_BYTES), "--perms", "0755", "--tmpfs", "/dev"]
        for name in DEVICES:
            cmd += ["--dev-bind", "/dev/" + name, "/dev/" + name]
        for name, target in DEV_LINKS:
            cmd += ["--symlink", target, "/dev/" + name]
        cmd += ["--remount-ro", "/dev", "--perms", "0444",
                "--ro-bind-data", str(site_fd), SITE + "/sitecustomize.py", "--proc", "/proc"]
        for name in PROC_MASKED:
            if os.path.exists("/proc/" + name):
                cmd += ["--ro-bind", "/dev/null", "/proc/" + name]
        return cmd + ["--remount-ro", "/", "--chdir", "/tmp", "--", *argv]


# cgroup v2: each sandbox's memory and processes counted together, where delegated

#: Tasks in a sandbox's cgroup besides the notebook's: the launcher's outer process
#: and bubblewrap's pid 1.
_CGROUP_SLACK = 4
_CONTROLLERS = ("memory", "pids")
_CGROUP_LOCK = threading.Lock()
_CGROUP_STATE: dict = {}  # {"base": Path | None, "why": str} once set up in this process
_CGROUP_COUNT = itertools.count()


def _words(path: Path) -> set[str]:
    try:
        return set(path.read_text().split())
    except OSError:
        return set()


def cgroups(root: Path | None = None,
            self_cgroup: Path = Path("/proc/self/cgroup")) -> tuple[Path | None, str]:
    """Whether this process may give each sandbox a cgroup v2 of its own: (the cgroup
    under which they would go, "") or (None, why not). It only looks.

    It may where ``root`` (default :data:`CGROUP_ROOT`) is a cgroup v2 hierarchy, this
    process's cgroup has the memory and pids controllers and is writable by its user
    (delegated), and holds no other process: cgroup v2 lets a cgroup that holds
    processes give no controller to its children, so the grader moves itself into a
    leaf of its own first (:func:`_cgroup_base`).
    """
    root = CGROUP_ROOT if root is None else root
    if not (root / "cgroup.controllers").is_file():
        return None, (f"{root} is not a cgroup v2 hierarchy (this machine mounts cgroup v1, "
                      "or v1 beside v2)")
    try:
        lines = self_cgroup.read_text().splitlines()
    except OSError as exc:
        return None, f"cannot read {self_cgroup}: {exc.strerror}"
    own = next((line[3:] for line in lines if line.startswith("0::")), None)
    if own is None:
        return None, f"{self_cgroup} names no cgroup v2 of this process"
    base = root / own.strip().lstrip("/")
    missing = [c for c in _CONTROLLERS if c not in _words(base / "cgroup.controllers")]
    if missing:
        return None, (f"the {' and '.join(missing)} controller{'s' * (len(missing) > 1)} "
                      f"{'are' if len(missing) > 1 else 'is'} not delegated to {base}")
    if not all(os.access(p, os.W_OK) for p in
               (base, base / "cgroup.procs", base / "cgroup.subtree_control")):
        return None, f"{base} is not delegated to this user (not writable)"
    if set(_CONTROLLERS) <= _words(base / "cgroup.subtree_control"):
        return base, ""
    others = _words(base / "cgroup.procs") - {str(os.getpid())}
    if others:
        return None, (f"{base} holds {len(others)} other process{'es' * (len(others) > 1)}, "
                      "so it cannot give cgroups to sandboxes; run the grader in a cgroup "
                      "of its own (systemd-run --user --scope -p Delegate=yes stridegrad "
                      "grade ...)")
    return base, ""


def _cgroup_base() -> Path | None:
    """The cgroup under which this process makes the sandboxes' cgroups, set up at the
    first call (None where :func:`cgroups` says no, or the set-up failed): this process
    moves into a leaf ``stridegrad-grader-PID`` of its cgroup, which then gives the
    memory and pids controllers to its children. Leftovers of dead graders are removed."""
    with _CGROUP_LOCK:
        if "base" not in _CGROUP_STATE:
            base, why = cgroups()
            if base is not None:
                try:
                    _sweep(base)
                    if not set(_CONTROLLERS) <= _words(base / "cgroup.subtree_control"):
                        leaf = base / f"stridegrad-grader-{os.getpid()}"
                        leaf.mkdir(exist_ok=True)
                        (leaf / "cgroup.procs").write_text(f"{os.getpid()}\n")
                        (base / "cgroup.subtree_control").write_text(
                            " ".join("+" + c for c in _CONTROLLERS) + "\n")
                except OSError as exc:
                    base, why = None, f"cannot set up cgroups under {base}: {exc}"
            _CGROUP_STATE.update(base=base, why=why)
        return _CGROUP_STATE["base"]


def _sweep(base: Path) -> None:
    """Remove the empty cgroups that graders now dead left under ``base``."""
    for path in base.glob("stridegrad-*"):
        m = re.fullmatch(r"stridegrad-(?:grader|sandbox)-(\d+)(?:-\d+)?", path.name)
        if not m or not path.is_dir():
            continue
        try:
            os.kill(int(m.group(1)), 0)
            continue  # that grader is alive
        except ProcessLookupError:
            pass
        except PermissionError:
            continue
        try:
            path.rmdir()
        except OSError:
            pass


def _new_cgroup(memory_mb: int | None, disk_mb: int, processes: int | None) -> Path | None:
    """A new cgroup for one sandbox, or None where there are none (:func:`cgroups`):
    ``memory.max`` of ``memory_mb`` + ``disk_mb`` (tmpfs pages count as memory; no swap)
    and ``pids.max`` of ``processes`` + the launcher's, those given; on out-of-memory the
    kernel kills the whole sandbox (``memory.oom.group``)."""
    base = _cgroup_base()
    if base is None:
        return None
    path = base / f"stridegrad-sandbox-{os.getpid()}-{next(_CGROUP_COUNT)}"
    path.mkdir()
    settings = {}
    if processes:
        settings["pids.max"] = processes + _CGROUP_SLACK
    if memory_mb:
        settings.update({"memory.max": (int(memory_mb) + int(disk_mb)) << 20,
                         "memory.swap.max": 0, "memory.oom.group": 1})
    try:
        for name, value in settings.items():
            if name == "pids.max" or name == "memory.max" or (path / name).exists():
                (path / name).write_text(f"{value}\n")
    except OSError:
        path.rmdir()
        raise
    return path


def _remove_cgroup(path: Path, wait: float = 5.0) -> None:
    """Kill whatever is left in the cgroup ``path`` (SIGKILL) and remove it, waiting at
    most ``wait`` seconds for its processes to go."""
    deadline = time.monotonic() + wait
    while True:
        try:
            if (path / "cgroup.kill").exists():  # Linux 5.14
                (path / "cgroup.kill").write_text("1\n")
            else:
                for pid in _words(path / "cgroup.procs"):
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:  # EBUSY: its processes are still dying
            if time.monotonic() > deadline:
                return
            time.sleep(0.02)


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
import ctypes, json, os, resource, socket, stridegrad.course.checks
s = socket.socket()
try:
    s.connect(('127.0.0.1', 9))
    net = 'connected'
except OSError as e:
    net = type(e).__name__
libc = ctypes.CDLL(None, use_errno=True)
keyctl = libc.syscall($keyctl, 0, -3, 0)  # KEYCTL_GET_KEYRING_ID of the session keyring
keyctl = ctypes.get_errno() if keyctl == -1 else 0
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
                  'tmp': os.listdir('/tmp'), 'cwd': os.getcwd(), 'keyctl': keyctl,
                  'core': resource.getrlimit(resource.RLIMIT_CORE),
                  'dumpable': libc.prctl(3, 0, 0, 0, 0), 'dev': os.access('/dev', os.W_OK)}))
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
    try:
        _filter()
        keyctl = _seccomp.numbers(["keyctl"], _seccomp.arch())[0]
    except _seccomp.SeccompUnsupported as exc:
        raise SandboxUnavailable(f"{launcher}: {exc}") from None
    box = Sandbox(launcher, exe)
    probe = _PROBE.replace("$nproc", str(process_limit(4))).replace("$keyctl", str(keyctl))
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
        ("uid", seen["uid"] != 0), ("cwd", seen["cwd"] == "/tmp"), ("forks", seen["forks"] < 8),
        ("keyctl", seen["keyctl"] == errno.EPERM), ("core", seen["core"] == [0, 0]),
        ("dumpable", seen["dumpable"] == 0), ("dev", not seen["dev"]))
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


def limits_verdict() -> str:
    """One line for ``stridegrad doctor``: what limits each sandbox's memory and processes
    here, cgroup v2 or the rlimits alone (and why not cgroup v2)."""
    with _CGROUP_LOCK:
        state = dict(_CGROUP_STATE)
    base, why = (state["base"], state["why"]) if state else cgroups()
    if base is not None:
        return (f"cgroup v2 under {base}: memory.max (all of a sandbox's processes and its "
                "/tmp together) and pids.max per sandbox, besides the rlimits")
    return ("rlimits only: memory per process (RLIMIT_AS, --memory), processes per sandbox "
            f"(RLIMIT_NPROC), /tmp by its size; no cgroup v2 because {why}")
