"""What namespaces do not isolate: the seccomp filter, the keyring, core dumps, /dev, the
sandboxes' cgroups and the time limit kept from outside.

Each sandboxed check runs a small Python snippet inside a sandbox of each launcher that
works here and reads what it saw. The controls run the same snippet under a filter that
allows everything: the calls then do not fail with EPERM, so the checks can fail.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from stridegrad.cli import main as cli
from stridegrad.course import _sandbox_init, _seccomp, grader, sandbox

LINUX_ARCH = None
try:
    LINUX_ARCH = _seccomp.arch() if sys.platform.startswith("linux") else None
except _seccomp.SeccompUnsupported:
    pass

KEYCTL_GET_KEYRING_ID, KEYCTL_READ, KEY_SPEC_SESSION_KEYRING = 0, 11, -3


# --- the BPF program, without a kernel -------------------------------------------------

def _run_bpf(program: bytes, nr: int, arch: int, args=(0,) * 6) -> int:
    """What the kernel's classic BPF would return for ``seccomp_data`` (nr, arch, args):
    an interpreter of the few instructions the filter uses."""
    args = [a & (2 ** 64 - 1) for a in args] + [0] * (6 - len(args))
    data = struct.pack("=iIQ6Q", nr, arch, 0, *args)
    ins = [struct.unpack("=HBBI", program[i:i + 8]) for i in range(0, len(program), 8)]
    pc, acc = 0, 0
    while True:
        code, jt, jf, k = ins[pc]
        if code == 0x20:  # ld [k]
            acc = struct.unpack_from("=I", data, k)[0]
            pc += 1
        elif code == 0x15:  # jeq k
            pc += 1 + (jt if acc == k else jf)
        elif code == 0x45:  # jset k
            pc += 1 + (jt if acc & k else jf)
        elif code == 0x06:  # ret k
            return k
        else:
            raise AssertionError(f"instruction {pc} has an unexpected code {code:#x}")


@pytest.mark.parametrize("arch", _seccomp.ARCHES)
def test_the_program_is_a_valid_filter(arch):
    ins = _seccomp.instructions(arch)
    program = _seccomp.program(arch)
    assert len(program) == 8 * len(ins) and 0 < len(ins) <= 4096
    denied = _seccomp.numbers(_seccomp.DENIED, arch)
    # arch check (4 or 6 on x86_64 with the x32 check), two per denied call, clone3 (2),
    # clone (5), prctl (7), the final allow
    assert len(ins) == 4 + 2 * (arch == "x86_64") + 2 * len(denied) + 2 + 5 + 7 + 1
    for pc, (code, jt, jf, k) in enumerate(ins):
        if code & 0x07 == 0x05:  # a jump: forward, and inside the program
            assert pc + 1 + max(jt, jf) < len(ins), pc
        if code == 0x20:  # loads: aligned words of struct seccomp_data (64 bytes)
            assert k % 4 == 0 and k < 64, pc
    assert ins[-1] == (0x06, 0, 0, _seccomp.RET_ALLOW)


@pytest.mark.parametrize("arch", _seccomp.ARCHES)
def test_the_program_decides_as_documented(arch):
    program, col = _seccomp.program(arch), _seccomp.ARCHES.index(arch)
    audit = _seccomp.AUDIT_ARCH[arch]
    nr = {name: numbers[col] for name, numbers in _seccomp.SYSCALLS.items()}
    eperm = _seccomp.RET_ERRNO | errno.EPERM
    for name in _seccomp.DENIED:
        if nr[name] is not None:
            assert _run_bpf(program, nr[name], audit) == eperm, name
    getpid = {"x86_64": 39, "aarch64": 172}[arch]
    assert _run_bpf(program, getpid, audit) == _seccomp.RET_ALLOW
    other = _seccomp.AUDIT_ARCH["aarch64" if arch == "x86_64" else "x86_64"]
    assert _run_bpf(program, getpid, other) == _seccomp.RET_KILL_PROCESS
    assert _run_bpf(program, getpid, 0x40000003) == _seccomp.RET_KILL_PROCESS  # i386
    if arch == "x86_64":  # the x32 ABI: same arch value, numbers with bit 30
        assert _run_bpf(program, getpid | 0x40000000, audit) == eperm
        assert _run_bpf(program, nr["keyctl"] | 0x40000000, audit) == eperm
    assert _run_bpf(program, nr["clone3"], audit) == _seccomp.RET_ERRNO | errno.ENOSYS
    sigchld, thread = 17, 0x3D0F00  # fork's flags, pthread_create's
    for flags in (sigchld, thread):
        assert _run_bpf(program, nr["clone"], audit, (flags,)) == _seccomp.RET_ALLOW
    for flag in (0x10000000, 0x20000000, 0x40000000, 0x00020000):  # USER PID NET NS
        assert _run_bpf(program, nr["clone"], audit, (sigchld | flag,)) == eperm
    assert _run_bpf(program, nr["prctl"], audit, (4, 0)) == _seccomp.RET_ALLOW
    assert _run_bpf(program, nr["prctl"], audit, (4, 1)) == eperm
    assert _run_bpf(program, nr["prctl"], audit, (15, 1)) == _seccomp.RET_ALLOW  # PR_SET_NAME


def test_the_deny_list_maps_to_numbers_on_both_arches():
    x86, arm = (set(_seccomp.numbers(_seccomp.DENIED, a)) for a in ("x86_64", "aarch64"))
    assert len(x86) == len(_seccomp.DENIED)  # every call, and no two share a number
    absent_on_arm = {n for n in _seccomp.DENIED if _seccomp.SYSCALLS[n][1] is None}
    assert absent_on_arm == {"create_module", "uselib", "_sysctl", "iopl", "ioperm"}
    assert len(arm) == len(_seccomp.DENIED) - len(absent_on_arm)
    for name in ("keyctl", "add_key", "request_key", "ptrace", "bpf", "mount", "umount2",
                 "unshare", "setns", "pivot_root", "chroot", "perf_event_open", "userfaultfd",
                 "kexec_load", "kexec_file_load", "init_module", "finit_module",
                 "delete_module", "process_vm_readv", "process_vm_writev", "open_by_handle_at",
                 "name_to_handle_at", "swapon", "swapoff", "reboot", "fsopen", "fsconfig",
                 "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr", "iopl",
                 "ioperm"):
        assert name in _seccomp.DENIED, name
    assert _seccomp.numbers(["keyctl", "ptrace"], "x86_64") == [101, 250]
    assert _seccomp.numbers(["keyctl", "ptrace"], "aarch64") == [117, 219]


@pytest.mark.parametrize("header, arch", [
    ("/usr/include/x86_64-linux-gnu/asm/unistd_64.h", "x86_64"),
    ("/usr/include/asm-generic/unistd.h", "aarch64")])
def test_the_numbers_agree_with_the_kernel_headers(header, arch):
    if not os.path.exists(header):
        pytest.skip(f"{header} is not installed (linux-libc-dev)")
    text = Path(header).read_text()
    defined = {m.group(1): int(m.group(2)) for m in
               re.finditer(r"#define __NR(?:3264)?_(\w+)\s+(\d+)\b", text)}
    col = _seccomp.ARCHES.index(arch)
    checked = 0
    for name, numbers in _seccomp.SYSCALLS.items():
        if numbers[col] is not None and name in defined:  # the headers may be older
            assert defined[name] == numbers[col], name
            checked += 1
    assert checked >= len(_seccomp.SYSCALLS) - 8


def test_unknown_names_raise():
    with pytest.raises(ValueError, match="unknown system call 'keyctll'"):
        _seccomp.numbers(["keyctl", "keyctll"], "x86_64")
    with pytest.raises(ValueError, match="unknown system call 'nope'"):
        _seccomp.program("x86_64", deny=["nope"])
    with pytest.raises(ValueError, match="unknown architecture 'mips'"):
        _seccomp.program("mips")
    with pytest.raises(_seccomp.SeccompUnsupported, match="no seccomp system call table"):
        _seccomp.arch("ppc64le")
    assert _seccomp.arch("amd64") == "x86_64" and _seccomp.arch("arm64") == "aarch64"


@pytest.mark.skipif(LINUX_ARCH is None, reason="needs Linux on x86_64 or aarch64")
def test_the_kernel_takes_the_program():
    """Installed in a child (as our launcher installs it): keyctl fails with EPERM,
    threads and fork still work."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        try:
            os.close(r)
            _sandbox_init.install_seccomp(_seccomp.program())
            libc = ctypes.CDLL(None, use_errno=True)
            keyctl = _seccomp.numbers(["keyctl"], LINUX_ARCH)[0]
            got = libc.syscall(keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0)
            seen = {"keyctl": ctypes.get_errno() if got == -1 else 0}
            child = os.fork()
            if child == 0:
                os._exit(7)
            seen["fork"] = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
            import threading

            t = threading.Thread(target=lambda: seen.update(thread=True))
            t.start()
            t.join()
            os.write(w, json.dumps(seen).encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        seen = json.loads(f.read() or "{}")
    os.waitpid(pid, 0)
    assert seen == {"keyctl": errno.EPERM, "fork": 7, "thread": True}


# --- inside each launcher's sandbox ------------------------------------------------------

def _launcher(name: str):
    try:
        sandbox.find(name)
    except sandbox.SandboxUnavailable as exc:
        if name == "bwrap" and os.geteuid() == 0 and shutil.which("bwrap"):
            return "bwrap-as-root"  # grade() does not use it, but its isolation is tested
        return pytest.param(name, marks=pytest.mark.skip(
            reason=f"the {name} sandbox cannot start on this machine: {exc}"))
    return name


LAUNCHERS = [_launcher("bwrap"), _launcher("unshare")]


def _box(name: str) -> sandbox.Sandbox:
    if name == "bwrap-as-root":
        return sandbox.Sandbox("bwrap", shutil.which("bwrap"))
    return sandbox.find(name)


SNIPPET = r"""
import ctypes, errno, json, os, resource, sys
libc = ctypes.CDLL(None, use_errno=True)
NR = json.loads(sys.argv[1])


def call(name, *args):
    got = libc.syscall(ctypes.c_long(NR[name]), *[ctypes.c_long(a) for a in args])
    return 'ok' if got != -1 else errno.errorcode.get(ctypes.get_errno(), '?')


seen = {}
# every denied call, with arguments that the kernel itself would refuse otherwise
seen['denied'] = {name: call(name, -1, -1, -1, -1, -1, -1) for name in NR if name not in
                  ('clone', 'clone3', 'prctl', 'ptrace')}
seen['clone3'] = call('clone3', -1, -1)
seen['clone_newuser_fs'] = call('clone', 0x10000000 | 0x200 | 17, 0, 0, 0, 0)  # EINVAL alone
seen['unshare_newuser'] = call('unshare', 0x10000000)
seen['mount'] = call('mount', -1, -1, -1, 0, -1)  # bad pointers: EFAULT without the filter
seen['session_keyring'] = libc.syscall(ctypes.c_long(NR['keyctl']), 0, -3, 0)
if seen['session_keyring'] == -1:
    seen['session_keyring'] = errno.errorcode[ctypes.get_errno()]
else:
    seen['keyring_bytes'] = libc.syscall(ctypes.c_long(NR['keyctl']), 11,
                                         seen['session_keyring'], None, 0)
seen['core'] = resource.getrlimit(resource.RLIMIT_CORE)
try:
    resource.setrlimit(resource.RLIMIT_CORE, (1 << 30, 1 << 30))
    seen['raise_core'] = 'ok'
except (OSError, ValueError) as exc:
    seen['raise_core'] = type(exc).__name__
seen['dumpable'] = libc.prctl(3, 0, 0, 0, 0)
seen['set_dumpable'] = ('ok' if libc.prctl(4, 1, 0, 0, 0) == 0
                        else errno.errorcode[ctypes.get_errno()])
try:
    with open('/dev/stridegrad-big', 'wb') as f:
        for _ in range(64):
            f.write(b'x' * (1 << 20))
    seen['dev'] = 'wrote 64 MiB'
except OSError as exc:
    seen['dev'] = errno.errorcode.get(exc.errno, str(exc))
with open('/dev/null', 'wb') as f:
    seen['dev_null'] = f.write(b'x')
try:
    seen['proc_keys'] = open('/proc/keys').read()
except OSError as exc:
    seen['proc_keys'] = errno.errorcode.get(exc.errno)
seen['ptrace_traceme'] = call('ptrace', 0, 0, 0, 0)  # last: a tracee stops on signals
print(json.dumps(seen))
"""


def _inside(launcher: str, tmp_path: Path) -> dict:
    """Run SNIPPET in a fresh sandbox of ``launcher``; what it saw."""
    names = {n: nrs[_seccomp.ARCHES.index(LINUX_ARCH)] for n, nrs in _seccomp.SYSCALLS.items()}
    root = tmp_path / "root"
    root.mkdir(parents=True)
    proc = _box(launcher).popen(
        [sys.executable, "-c", SNIPPET, json.dumps({n: v for n, v in names.items() if v})],
        root, 8, env=sandbox.sandbox_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def _allow_everything() -> bytes:
    return struct.pack("=HBBI", 0x06, 0, 0, _seccomp.RET_ALLOW)


@pytest.mark.skipif(LINUX_ARCH is None, reason="needs Linux on x86_64 or aarch64")
@pytest.mark.parametrize("launcher", LAUNCHERS)
def test_kernel_state_is_closed_in_the_sandbox(launcher, tmp_path):
    seen = _inside(launcher, tmp_path)
    assert set(seen["denied"].values()) == {"EPERM"}, seen["denied"]
    assert (seen["clone3"], seen["clone_newuser_fs"], seen["unshare_newuser"],
            seen["mount"], seen["ptrace_traceme"]) == ("ENOSYS", "EPERM", "EPERM", "EPERM",
                                                       "EPERM")
    assert seen["session_keyring"] == "EPERM"  # keyctl: no keyring at all
    assert seen["core"] == [0, 0] and seen["raise_core"] == "ValueError"
    assert seen["dumpable"] == 0 and seen["set_dumpable"] == "EPERM"
    assert seen["dev"] in ("EROFS", "ENOSPC"), seen["dev"]
    assert seen["dev_null"] == 1
    assert seen["proc_keys"] in ("", "EACCES"), seen["proc_keys"]


@pytest.mark.skipif(LINUX_ARCH is None, reason="needs Linux on x86_64 or aarch64")
@pytest.mark.parametrize("launcher", LAUNCHERS)
def test_controls_without_the_filter(launcher, tmp_path, monkeypatch):
    """The control: under a filter that allows everything, the same calls do not fail
    with EPERM (so the test above can fail), and the sandbox's session keyring, now
    readable, is a fresh empty one, not this process's."""
    monkeypatch.setattr(sandbox, "_filter", _allow_everything)
    seen = _inside(launcher, tmp_path / "a")
    not_eperm = {"keyctl", "add_key", "request_key", "mount", "umount2", "unshare", "setns",
                 "chroot", "open_tree", "fsconfig", "mount_setattr", "bpf", "perf_event_open",
                 "userfaultfd", "process_vm_readv", "process_vm_writev", "name_to_handle_at",
                 "kcmp", "pidfd_getfd", "swapon", "settimeofday", "clock_settime"}
    assert {n for n in not_eperm if seen["denied"][n] == "EPERM"} == set(), seen["denied"]
    assert seen["clone3"] != "ENOSYS" and seen["clone_newuser_fs"] == "EINVAL"
    assert seen["unshare_newuser"] != "EPERM" and seen["mount"] == "EFAULT"
    assert seen["ptrace_traceme"] == "ok" and seen["set_dumpable"] == "ok"

    libc = ctypes.CDLL(None, use_errno=True)
    keyctl = _seccomp.numbers(["keyctl"], LINUX_ARCH)[0]
    ours = libc.syscall(keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0)
    other = _inside(launcher, tmp_path / "b")  # another student's sandbox
    assert isinstance(seen["session_keyring"], int) and seen["session_keyring"] > 0
    assert len({seen["session_keyring"], other["session_keyring"], ours}) == 3
    assert seen["keyring_bytes"] == other["keyring_bytes"] == 0  # empty: it links no key


@pytest.mark.skipif(LINUX_ARCH is None, reason="needs Linux on x86_64 or aarch64")
@pytest.mark.parametrize("launcher", LAUNCHERS)
def test_honest_python_still_works_under_the_filter(launcher, tmp_path):
    """Threads (clone3 falls back to clone), fork, subprocess and NumPy are untouched."""
    code = ("import subprocess, sys, threading, numpy\n"
            "t = threading.Thread(target=print, args=('thread',)); t.start(); t.join()\n"
            "print(subprocess.run([sys.executable, '-c', 'print(6 * 7)'],"
            " capture_output=True, text=True).stdout.strip())\n"
            "print(int(numpy.arange(10).sum()))\n")
    root = tmp_path / "root"
    root.mkdir()
    proc = _box(launcher).popen([sys.executable, "-c", code], root, 8,
                                env=sandbox.sandbox_env(), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate(timeout=120)
    assert (proc.returncode, out.split()) == (0, ["thread", "42", "45"]), err


# --- time is kept from outside ---------------------------------------------------------

KEEPER = r"""
import os, signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
if os.fork() == 0:
    os.setsid()  # out of the grader's process group
    if os.fork() == 0:  # and no longer its child's child
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        print('escaped', os.getpid(), flush=True)
        time.sleep(600)
    os._exit(0)
time.sleep(600)
"""


def _start_keeper(box: sandbox.Sandbox | None, tmp_path: Path) -> tuple[subprocess.Popen, int]:
    pipes = {"stdin": subprocess.DEVNULL, "stdout": subprocess.PIPE,
             "stderr": subprocess.DEVNULL, "start_new_session": True}  # as the grader does
    if box is None:
        proc = subprocess.Popen([sys.executable, "-c", KEEPER], **pipes)
    else:
        (tmp_path / "root").mkdir()
        proc = box.popen([sys.executable, "-c", KEEPER], tmp_path / "root", 8,
                         env=sandbox.sandbox_env(), **pipes)
    line = proc.stdout.readline().split()
    assert line[:1] == [b"escaped"], line
    return proc, int(line[1])


def _closed_within(stream, seconds: float) -> bool:
    """Whether every writer of ``stream`` is gone (EOF) within ``seconds``."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        if select.select([stream], [], [], left)[0] and not os.read(stream.fileno(), 4096):
            return True
    return False


@pytest.mark.parametrize("launcher", LAUNCHERS)
def test_the_grader_kill_reaches_every_process_of_the_sandbox(launcher, tmp_path):
    """The grader's kill at the deadline (SIGKILL to the process group it started) ends
    a process that left the group and ignores SIGTERM: it dies with the pid namespace."""
    proc, _ = _start_keeper(_box(launcher), tmp_path)
    started = time.monotonic()
    grader._kill(proc)
    assert _closed_within(proc.stdout, 10), "a process of the sandbox outlived the kill"
    assert time.monotonic() - started < 10 and proc.returncode is not None


GRADER = r"""
import subprocess, sys
from pathlib import Path
from stridegrad.course import sandbox
box = sandbox.Sandbox(sys.argv[1], sys.argv[2])
root = Path(sys.argv[3])
root.mkdir()
proc = box.popen([sys.executable, "-c", "import time; print('up', flush=True); time.sleep(600)"],
                 root, 8, env=sandbox.sandbox_env(), stdin=subprocess.DEVNULL,
                 stdout=sys.stdout, start_new_session=True)
sys.stdin.read()  # until killed
"""


@pytest.mark.parametrize("launcher", LAUNCHERS)
def test_a_sandbox_dies_with_a_grader_killed_by_sigkill(launcher, tmp_path):
    """A grader killed outright (SIGKILL, an out-of-memory kill, a CI timeout) runs no
    cleanup: its sandboxes must die anyway, not run on as orphans."""
    box = _box(launcher)
    grader_proc = subprocess.Popen(
        [sys.executable, "-c", GRADER, box.launcher, box.executable, str(tmp_path / "root")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert grader_proc.stdout.readline().strip() == b"up"  # the sandbox runs
        grader_proc.kill()
        grader_proc.wait()
        # the sandbox's process held the same stdout: EOF once it is gone too
        assert _closed_within(grader_proc.stdout, 10), "the sandbox outlived its grader"
    finally:
        grader_proc.kill()


def test_without_a_sandbox_the_kill_misses_the_escapee(tmp_path):
    """The control: with no pid namespace, the same process outlives the kill."""
    proc, escaped = _start_keeper(None, tmp_path)
    try:
        grader._kill(proc)
        assert not _closed_within(proc.stdout, 2)
    finally:
        os.kill(escaped, signal.SIGKILL)


# --- cgroup v2, where delegated ---------------------------------------------------------

def _fake_cgroup2(tmp_path: Path, controllers="memory pids", procs=None, enabled="") -> Path:
    root = tmp_path / "cgroup"
    base = root / "user.slice" / "grader.scope"
    base.mkdir(parents=True)
    (root / "cgroup.controllers").write_text("cpu memory pids\n")
    (base / "cgroup.controllers").write_text(controllers + "\n")
    (base / "cgroup.subtree_control").write_text(enabled + "\n")
    (base / "cgroup.procs").write_text("".join(f"{p}\n" for p in procs or [os.getpid()]))
    (tmp_path / "self").write_text("0::/user.slice/grader.scope\n")
    return root


def test_cgroups_says_why_not(tmp_path):
    v1 = tmp_path / "v1"
    v1.mkdir()
    base, why = sandbox.cgroups(v1, tmp_path / "self")
    assert base is None and "is not a cgroup v2 hierarchy" in why

    root = _fake_cgroup2(tmp_path / "a", controllers="memory")
    base, why = sandbox.cgroups(root, tmp_path / "a" / "self")
    assert base is None and why.startswith("the pids controller is not delegated to")

    root = _fake_cgroup2(tmp_path / "b", procs=[os.getpid(), 1])
    base, why = sandbox.cgroups(root, tmp_path / "b" / "self")
    assert base is None and "holds 1 other process" in why and "Delegate=yes" in why

    root = _fake_cgroup2(tmp_path / "c")
    base, why = sandbox.cgroups(root, tmp_path / "c" / "self")
    assert (base, why) == (root / "user.slice" / "grader.scope", "")


def test_the_machine_here(capsys):
    """doctor names the limit that holds here: cgroup v2 where delegated, else rlimits."""
    base, why = sandbox.cgroups()
    line = sandbox.limits_verdict()
    if base is None:
        assert line.startswith("rlimits only: memory per process (RLIMIT_AS") and why in line
    else:
        assert line.startswith(f"cgroup v2 under {base}")
    assert cli(["doctor"]) == 0
    [row] = [r for r in capsys.readouterr().out.splitlines() if r.startswith("sandbox limits")]
    assert row.endswith("  " + line)


@pytest.mark.parametrize("launcher", LAUNCHERS)
def test_a_sandbox_enters_its_cgroup(launcher, tmp_path, monkeypatch):
    """With a (fake) delegated cgroup, each sandbox gets one with its limits, its first
    process moves into it, and it is removed once that process is reaped."""
    base = tmp_path / "base"
    base.mkdir()
    monkeypatch.setattr(sandbox, "_cgroup_base", lambda: base)
    removed = []
    monkeypatch.setattr(sandbox, "_remove_cgroup", removed.append)
    (tmp_path / "root").mkdir()
    proc = _box(launcher).popen([sys.executable, "-c", "pass"], tmp_path / "root", 8,
                                memory_mb=512, processes=16, env=sandbox.sandbox_env(),
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
    [cgroup] = base.iterdir()
    assert proc.wait(timeout=120) == 0, proc.stderr.read()
    assert removed == [cgroup]
    assert (cgroup / "pids.max").read_text() == "20\n"
    assert (cgroup / "memory.max").read_text() == f"{(512 + 8) << 20}\n"
    assert (cgroup / "cgroup.procs").read_text() == f"{proc.pid}\n"  # its first process
