"""The sandbox's launcher when bubblewrap cannot be used, and bubblewrap's prelude
(stdlib only).

Run by path, not as part of the package::

    python -I -S _sandbox_init.py [--cgroup DIR] [--seccomp FD] \
        ROOT DISK_MB RO_PATH... -- COMMAND...
    python -I -S _sandbox_init.py --exec [--cgroup DIR] -- COMMAND...

where ROOT is an empty folder of the grader's, FD a file descriptor that holds the
seccomp program (:class:`stridegrad.course.sandbox.Sandbox` always gives one;
without it there is no filter) and DIR a cgroup made for this sandbox. Built on the
``unshare`` system call:

0. It moves itself into the cgroup DIR when given (a cgroup v2 of the grader's,
   with ``memory.max`` and ``pids.max`` set: everything the sandbox starts stays
   in it), and sets ``RLIMIT_CORE`` to 0, soft and hard, so nothing in the
   sandbox leaves a core file, nor a core for a ``core_pattern`` pipe helper
   that honours the limit. With ``--exec`` it then joins a fresh, empty session
   keyring and ``exec``s COMMAND (bubblewrap) as it is: this is the prelude of
   the bubblewrap launcher, which does the rest.
1. It makes new mount, pid, network, ipc and uts namespaces: as real root
   directly; as any other user inside a new user namespace whose root is that
   user (unprivileged user namespaces). Then it forks: the child is pid 1 of
   the new pid namespace, and the parent waits and exits as the child did.
2. The child mounts a small tmpfs on ROOT and builds the notebook's file system
   there: ``/usr``, ``/lib*``, ``/bin``, ``/sbin``, a few files of ``/etc`` and
   every RO_PATH (the Python installation and the package), all bound
   read-only; a few device nodes in a ``/dev`` that is part of the read-only
   root; :data:`SITE`, whose ``sitecustomize`` makes every Python of the sandbox
   not dumpable; a new ``/proc`` (of the new pid namespace) whose ``keys`` and
   ``key-users`` are masked; and a private ``/tmp``, a tmpfs of DISK_MB
   megabytes. It makes ROOT the root (``pivot_root``, the old root detached)
   and remounts it read-only.
3. It moves itself into a (nested) user namespace as uid and gid 1000, where
   no more user namespaces may be made. Outside, that uid is the grader's own,
   or, when the grader is root, :data:`SANDBOX_KUID`, which no user has (the
   kernel exempts real root from ``RLIMIT_NPROC``, even in a user namespace).
   From there on it holds no capability over any mount or namespace. It joins
   a fresh, empty session keyring of that uid: the keyring of the grader's
   session is no longer its own.
4. Last, with ``no_new_privs`` set, it installs the seccomp filter read from FD
   (the raw ``struct sock_filter`` program of :mod:`stridegrad.course._seccomp`,
   as bubblewrap's ``--seccomp FD`` takes it): from then on ``keyctl``,
   ``ptrace``, ``mount``, ``unshare`` and the rest of its list fail with EPERM,
   for COMMAND and everything it starts.
5. It ``execve``s COMMAND in ``/tmp``: the execve drops the last capabilities,
   and ``no_new_privs`` keeps set-uid programs from giving any back.

COMMAND stays pid 1 of the pid namespace: when it exits, the kernel kills
every process left in the sandbox; and it dies with the launcher's parent
process (``PR_SET_PDEATHSIG``).
"""

import ctypes
import os
import resource
import signal
import sys

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x20000, 0x4000000, 0x8000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP = 1, 4, 38, 22
SECCOMP_MODE_FILTER = 2
KEYCTL_JOIN_SESSION_KEYRING = 1
#: A launcher argument ``HIDE + path``: show that folder empty (sandbox.HIDE).
HIDE = "!hide:"
# statvfs flags that a user namespace may not clear from a bind mount
_LOCKED = {os.ST_NOSUID: MS_NOSUID, os.ST_NODEV: MS_NODEV, os.ST_NOEXEC: MS_NOEXEC,
           os.ST_NOATIME: 1024, os.ST_NODIRATIME: 2048, os.ST_RELATIME: 1 << 21}
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "arm64": 41, "riscv64": 41, "ppc64le": 203,
              "ppc64": 203, "s390x": 217, "armv7l": 218, "i686": 217, "loongarch64": 41}
SYSTEM = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "passwd", "group", "nsswitch.conf",
       "localtime", "mime.types", "fonts")
DEVICES = ("null", "zero", "full", "random", "urandom")
#: The symbolic links of the sandbox's /dev (the same with bubblewrap).
DEV_LINKS = (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
             ("stderr", "/proc/self/fd/2"), ("shm", "/tmp"))
SANDBOX_ID = 1000
#: The uid and gid (outside) of the sandbox when the grader runs as root: no user's.
SANDBOX_KUID = 1_999_999_999
#: A read-only folder of the sandbox at the head of its ``PYTHONPATH``
#: (:func:`stridegrad.course.sandbox.sandbox_env`), holding :data:`SITECUSTOMIZE`.
SITE = "/.stridegrad-site"
#: ``sitecustomize.py`` of the sandbox. ``PR_SET_DUMPABLE`` is reset by every execve,
#: so the launcher cannot set it for the worker: each Python clears it for itself as
#: it starts (the seccomp filter lets nothing set it back). A process that is not
#: dumpable leaves no core dump, even to a ``core_pattern`` pipe, and its ``/proc``
#: files are closed to the sandbox's other processes.
SITECUSTOMIZE = (
    '"""stridegrad\'s grading sandbox: this Python is not dumpable (see _sandbox_init.py)."""\n'
    "import ctypes\n"
    f"ctypes.CDLL(None).prctl({PR_SET_DUMPABLE}, 0, 0, 0, 0)\n")
#: Files of /proc that list the keys (names, not contents) of every process of the same
#: user: /dev/null is bound on them in the sandbox, so they read as empty or not at all
#: (the seccomp filter already denies every key system call).
PROC_MASKED = ("keys", "key-users")

libc = ctypes.CDLL(None, use_errno=True) if os.name == "posix" else None


def _load_seccomp():
    """:mod:`stridegrad.course._seccomp`, for its system call numbers: run by path under
    ``-I -S``, this launcher has no package on ``sys.path``, so its sibling is loaded
    from its file (it needs the standard library only)."""
    if __package__:
        from stridegrad.course import _seccomp

        return _seccomp
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_seccomp.py")
    spec = importlib.util.spec_from_file_location("_stridegrad_seccomp", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _check(result, what):
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def mount(source, target, fstype, flags, data=None):
    enc = (lambda s: None if s is None else os.fsencode(s))
    _check(libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)),
           f"mount {source} on {target}")


def bind_read_only(source, target):
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, "ab").close()
    mount(source, target, None, MS_BIND | MS_REC)
    locked = os.statvfs(source).f_flag
    flags = MS_REMOUNT | MS_BIND | MS_RDONLY
    for st, ms in _LOCKED.items():
        if locked & st:
            flags |= ms
    mount(None, target, None, flags)


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def die_with_parent():
    """This launcher dies with the grader that started it, even by SIGKILL, and with it
    the sandbox (its pid 1 dies with this process, and the kernel then kills every
    process of the pid namespace): no sandbox outlives a grader that was killed."""
    parent = os.getppid()
    _check(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "pdeathsig")
    if os.getppid() != parent:  # the grader died before the line above
        os._exit(1)


def enter_namespaces():
    """New mount, pid, net, ipc and uts namespaces (and a user namespace unless real
    root); returns in the child, pid 1 of the new pid namespace."""
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
    if _privileged():
        os.setgroups([])
        _check(libc.unshare(flags), "unshare")
    else:
        uid, gid = os.geteuid(), os.getegid()
        _check(libc.unshare(flags | CLONE_NEWUSER), "unshare")
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"0 {uid} 1\n")
        _write("/proc/self/gid_map", f"0 {gid} 1\n")
    child = os.fork()
    if child == 0:
        _check(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "pdeathsig")
        return
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: os.kill(child, signal.SIGKILL))
    _, status = os.waitpid(child, 0)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))


def build_root(root, disk_mb, read_only):
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=4m,mode=0755")
    # the private /tmp first: a Python (or a clone) under /tmp is bound inside it
    os.mkdir(os.path.join(root, "tmp"))
    mount("tmpfs", os.path.join(root, "tmp"), "tmpfs", MS_NOSUID | MS_NODEV,
          f"size={int(disk_mb)}m,mode=0700,uid={_inner_owner()},gid={_inner_owner()}")
    for name in SYSTEM:
        path = "/" + name
        if os.path.islink(path):
            os.symlink(os.readlink(path), os.path.join(root, name))
        elif os.path.isdir(path):
            bind_read_only(path, os.path.join(root, name))
    os.mkdir(os.path.join(root, "etc"))
    for name in ETC:
        if os.path.exists("/etc/" + name):
            bind_read_only("/etc/" + name, os.path.join(root, "etc", name))
    covered = [root + "/" + name for name in SYSTEM]
    hidden = [path[len(HIDE):] for path in read_only if path.startswith(HIDE)]
    read_only = [path for path in read_only if not path.startswith(HIDE)]
    for path in sorted(read_only, key=len):
        target = root + path
        if os.path.exists(path) and not any(target == c or target.startswith(c + "/")
                                            for c in covered):
            bind_read_only(path, target)
            covered.append(target)
    for path in hidden:  # shown empty: a read-only tmpfs over it
        target = root + path
        if os.path.isdir(target):
            mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | MS_RDONLY, "size=4k")
    dev = os.path.join(root, "dev")
    os.mkdir(dev)
    for name in DEVICES:
        open(os.path.join(dev, name), "ab").close()
        mount("/dev/" + name, os.path.join(dev, name), None, MS_BIND)
    for name, target in DEV_LINKS:
        os.symlink(target, os.path.join(dev, name))
    site = root + SITE
    os.mkdir(site)
    _write(os.path.join(site, "sitecustomize.py"), SITECUSTOMIZE)
    os.chmod(os.path.join(site, "sitecustomize.py"), 0o444)  # whatever the umask
    os.chmod(site, 0o755)
    os.mkdir(os.path.join(root, "proc"))
    mount("proc", os.path.join(root, "proc"), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    for name in PROC_MASKED:
        target = os.path.join(root, "proc", name)
        if os.path.exists(target):
            mount("/dev/null", target, None, MS_BIND)


def _inner_owner():
    """The owner to give the private /tmp, in this (outer) namespace's ids."""
    return SANDBOX_KUID if _privileged() else 0


def _privileged():
    """Real root (of the initial user namespace): no user namespace is needed to start,
    and the sandbox must run as another uid."""
    if os.geteuid() != 0:
        return False
    with open("/proc/self/uid_map") as f:
        return f.read().split() == ["0", "0", "4294967295"]


def enter_root(root):
    machine = os.uname().machine  # not the platform module: it takes 40 ms to import
    number = PIVOT_ROOT.get(machine)
    if number is None:
        raise OSError(f"pivot_root: unknown system call number on {machine}")
    os.chdir(root)
    _check(libc.syscall(number, b".", b"."), "pivot_root")
    _check(libc.umount2(b".", MNT_DETACH), "detach the old root")
    os.chdir("/")
    mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def drop_privileges():
    """Become uid/gid SANDBOX_ID of a new user namespace that may make no other."""
    privileged = _privileged()
    if privileged:  # a helper outside the new namespace maps it to SANDBOX_KUID
        ready = os.pipe()
        helper = os.fork()
        if helper == 0:
            os.read(ready[0], 1)
            for name in ("uid_map", "gid_map"):
                _write(f"/proc/{os.getppid()}/{name}", f"{SANDBOX_ID} {SANDBOX_KUID} 1\n")
            os._exit(0)
    _check(libc.unshare(CLONE_NEWUSER), "unshare(CLONE_NEWUSER)")
    if privileged:
        os.write(ready[1], b"x")
        _, status = os.waitpid(helper, 0)
        if status != 0:
            raise OSError("could not map the sandbox's user namespace")
    else:  # map uid 1000 to ourselves (root of the outer user namespace)
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{SANDBOX_ID} 0 1\n")
        _write("/proc/self/gid_map", f"{SANDBOX_ID} 0 1\n")
    _write("/proc/sys/user/max_user_namespaces", "0")
    os.setresgid(SANDBOX_ID, SANDBOX_ID, SANDBOX_ID)
    os.setresuid(SANDBOX_ID, SANDBOX_ID, SANDBOX_ID)
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    # a change of credentials clears the parent-death signal: set it again
    _check(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "pdeathsig")


def enter_cgroup(folder):
    """Move this process into the cgroup ``folder``: what it starts from now on is
    counted against that cgroup's ``memory.max`` and ``pids.max``."""
    _write(os.path.join(folder, "cgroup.procs"), f"{os.getpid()}\n")


def no_core_dumps():
    """``RLIMIT_CORE`` 0, soft and hard: no process of the sandbox may raise it again
    (that takes ``CAP_SYS_RESOURCE`` in the first user namespace)."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def join_fresh_keyring():
    """Join a new, empty, anonymous session keyring: the sandbox no longer possesses
    the grader's session keyring, so it could not read, empty or fill it even where
    the seccomp filter let ``keyctl`` through."""
    seccomp = _load_seccomp()
    number = seccomp.SYSCALLS["keyctl"][seccomp.ARCHES.index(seccomp.arch())]
    if libc.syscall(ctypes.c_long(number), ctypes.c_long(KEYCTL_JOIN_SESSION_KEYRING),
                    None) < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"join a new session keyring: {os.strerror(err)}")


def read_program(fd):
    """The seccomp program (raw ``struct sock_filter`` bytes) that the grader wrote to
    ``fd``, which is then closed."""
    chunks = []
    with os.fdopen(fd, "rb") as f:
        while chunk := f.read(65536):
            chunks.append(chunk)
    program = b"".join(chunks)
    if not program or len(program) % 8 or len(program) // 8 > 4096:
        raise OSError(f"seccomp: a program of {len(program)} bytes is not a filter")
    return program


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install_seccomp(program):
    """Install ``program`` as this process's seccomp filter (with ``no_new_privs``,
    which the kernel requires of a process without ``CAP_SYS_ADMIN``). It holds for
    everything this process becomes and starts, and cannot be removed."""
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    _check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    _check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0),
           "seccomp")


USAGE = ("usage: _sandbox_init.py [--cgroup DIR] [--seccomp FD] ROOT DISK_MB RO_PATH... "
         "-- COMMAND...\n       _sandbox_init.py --exec [--cgroup DIR] -- COMMAND...\n")


def _options(argv):
    """({"--cgroup": DIR, "--seccomp": FD, "--exec": True}, the rest of argv)."""
    options = {}
    while argv and argv[0] in ("--cgroup", "--seccomp", "--exec"):
        if argv[0] == "--exec":
            options["--exec"], argv = True, argv[1:]
        elif len(argv) < 2:
            raise ValueError(f"{argv[0]} needs a value")
        else:
            options[argv[0]], argv = argv[1], argv[2:]
    return options, argv


def main(argv):
    try:
        options, argv = _options(argv)
    except ValueError:
        options, argv = {}, []
    exec_only = options.get("--exec", False)
    if ("--" not in argv or argv.index("--") < (0 if exec_only else 2) or argv[-1] == "--"
            or (exec_only and "--seccomp" in options)):  # bubblewrap reads its own
        sys.stderr.write(USAGE)
        return 2
    split = argv.index("--")
    command = argv[split + 1:]
    if not exec_only:  # bubblewrap has --die-with-parent
        die_with_parent()
    try:
        program = read_program(int(options["--seccomp"])) if "--seccomp" in options else None
        if "--cgroup" in options:
            enter_cgroup(options["--cgroup"])
        no_core_dumps()
        if exec_only:
            join_fresh_keyring()
            os.execv(command[0], command)
        root, disk_mb, *read_only = argv[:split]
        enter_namespaces()
        build_root(root, disk_mb, read_only)
        enter_root(root)
        drop_privileges()
        join_fresh_keyring()
        os.chdir("/tmp")
        if program is not None:
            install_seccomp(program)  # the last step: it denies what the steps above need
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"stridegrad sandbox: {exc}\n")
        return 71
    os.execve(command[0], command, dict(os.environ))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
