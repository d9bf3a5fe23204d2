"""The sandbox's launcher when bubblewrap cannot be used (stdlib only).

Run by path, not as part of the package:
``python -I -S _sandbox_init.py ROOT DISK_MB RO_PATH... -- COMMAND...``, where
ROOT is an empty folder of the grader's. Built on the ``unshare`` system call:

1. It makes new mount, pid, network, ipc and uts namespaces: as real root
   directly; as any other user inside a new user namespace whose root is that
   user (unprivileged user namespaces). Then it forks: the child is pid 1 of
   the new pid namespace, and the parent waits and exits as the child did.
2. The child mounts a small tmpfs on ROOT and builds the notebook's file system
   there: ``/usr``, ``/lib*``, ``/bin``, ``/sbin``, a few files of ``/etc`` and
   every RO_PATH (the Python installation and the package), all bound
   read-only; a few device nodes; a new ``/proc`` (of the new pid namespace);
   and a private ``/tmp``, a tmpfs of DISK_MB megabytes. It makes ROOT the root
   (``pivot_root``, the old root detached) and remounts it read-only.
3. It moves itself into a (nested) user namespace as uid and gid 1000, where
   no more user namespaces may be made. Outside, that uid is the grader's own,
   or, when the grader is root, :data:`SANDBOX_KUID`, which no user has (the
   kernel exempts real root from ``RLIMIT_NPROC``, even in a user namespace).
   From there on it holds no capability over any mount or namespace.
4. It ``execve``s COMMAND in ``/tmp``: the execve drops the last capabilities,
   and ``no_new_privs`` keeps set-uid programs from giving any back.

COMMAND stays pid 1 of the pid namespace: when it exits, the kernel kills
every process left in the sandbox; and it dies with the launcher's parent
process (``PR_SET_PDEATHSIG``).
"""

import ctypes
import os
import platform
import signal
import sys

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x20000, 0x4000000, 0x8000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 1, 4, 38
# statvfs flags that a user namespace may not clear from a bind mount
_LOCKED = {os.ST_NOSUID: MS_NOSUID, os.ST_NODEV: MS_NODEV, os.ST_NOEXEC: MS_NOEXEC,
           os.ST_NOATIME: 1024, os.ST_NODIRATIME: 2048, os.ST_RELATIME: 1 << 21}
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "arm64": 41, "riscv64": 41, "ppc64le": 203,
              "ppc64": 203, "s390x": 217, "armv7l": 218, "i686": 217, "loongarch64": 41}
SYSTEM = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "passwd", "group", "nsswitch.conf",
       "localtime", "mime.types", "fonts")
DEVICES = ("null", "zero", "full", "random", "urandom")
SANDBOX_ID = 1000
#: The uid and gid (outside) of the sandbox when the grader runs as root: no user's.
SANDBOX_KUID = 1_999_999_999

libc = ctypes.CDLL(None, use_errno=True) if os.name == "posix" else None


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
    for path in sorted(read_only, key=len):
        target = root + path
        if os.path.exists(path) and not any(target == c or target.startswith(c + "/")
                                            for c in covered):
            bind_read_only(path, target)
            covered.append(target)
    dev = os.path.join(root, "dev")
    os.mkdir(dev)
    for name in DEVICES:
        open(os.path.join(dev, name), "ab").close()
        mount("/dev/" + name, os.path.join(dev, name), None, MS_BIND)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2"),
                         ("shm", "/tmp")):
        os.symlink(target, os.path.join(dev, name))
    os.mkdir(os.path.join(root, "proc"))
    mount("proc", os.path.join(root, "proc"), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)


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
    number = PIVOT_ROOT.get(platform.machine())
    if number is None:
        raise OSError(f"pivot_root: unknown system call number on {platform.machine()}")
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


def main(argv):
    if "--" not in argv or argv.index("--") < 2:
        sys.stderr.write("usage: _sandbox_init.py ROOT DISK_MB RO_PATH... -- COMMAND...\n")
        return 2
    split = argv.index("--")
    (root, disk_mb, *read_only), command = argv[:split], argv[split + 1:]
    try:
        enter_namespaces()
        build_root(root, disk_mb, read_only)
        enter_root(root)
        drop_privileges()
        os.chdir("/tmp")
    except OSError as exc:
        sys.stderr.write(f"stridegrad sandbox: {exc}\n")
        return 71
    os.execve(command[0], command, dict(os.environ))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
