"""The grading sandbox's seccomp filter: a classic BPF program built here (stdlib only).

Namespaces do not isolate everything the kernel holds: keyrings are per user, not
per namespace; ``ptrace`` reaches any process of the same user that the sandbox can
see (bubblewrap's own init among them); ``bpf``, ``perf_event_open``,
``userfaultfd`` and ``io_uring`` are large attack surfaces that no notebook needs;
``unshare``, ``setns``, ``clone`` with namespace flags and the mount calls rebuild
the very isolation the sandbox set up. The filter makes those system calls fail
with ``EPERM``, so that Python raises a plain :class:`PermissionError` and the
notebook goes on (a killed worker would only say "signal 31").

The program (:func:`program`) is what the kernel's ``struct sock_filter`` array
holds, 8 bytes per instruction in the machine's byte order: the raw bytes that
bubblewrap's ``--seccomp FD`` reads, and what
:mod:`stridegrad.course._sandbox_init` hands to ``prctl(PR_SET_SECCOMP)`` for the
unshare launcher. It runs, for every system call:

1. ``seccomp_data.arch`` must be this machine's (``AUDIT_ARCH_X86_64`` or
   ``AUDIT_ARCH_AARCH64``); any other ABI (i386 through ``int 0x80`` on x86_64)
   kills the process: its numbers name other calls, so none could be let through
   unchecked, and no Python code makes them.
2. On x86_64, a number with the x32 bit (``0x40000000``) set is denied: the x32
   ABI shares the arch value and would otherwise reach every call of the list
   under another number.
3. Every number of :data:`DENIED` returns ``EPERM``.
4. ``clone3`` returns ``ENOSYS``: its flags live in memory, where a filter cannot
   read them, and on ``ENOSYS`` glibc falls back to ``clone`` (threads and
   ``fork`` keep working). ``clone`` with any ``CLONE_NEW*`` flag returns ``EPERM``.
5. ``prctl(PR_SET_DUMPABLE, x)`` with ``x != 0`` returns ``EPERM``: the sandbox's
   Python makes itself not dumpable at start (no core dump, no ``/proc`` of it
   for its siblings), and may not undo it.
6. Anything else is allowed.

The numbers are those of the kernel's tables (``arch/x86/entry/syscalls/
syscall_64.tbl`` and the generic ``include/uapi/asm-generic/unistd.h`` that arm64
uses), checked against the headers of Linux 6.1 and, for the calls added since
(``open_tree_attr``), the kernel's own tables. A call that an architecture does not
have (``iopl`` on arm64) is simply not in its program; a kernel older than a call
answers ``ENOSYS`` to it anyway.
"""

from __future__ import annotations

import os
import struct

__all__ = ["ARCHES", "AUDIT_ARCH", "DENIED", "SYSCALLS", "SeccompUnsupported", "arch",
           "instructions", "numbers", "program"]


class SeccompUnsupported(RuntimeError):
    """No system call table is known for this machine, so no filter can be built."""


#: ``seccomp_data.arch`` of each supported architecture (``AUDIT_ARCH_*`` of
#: ``linux/audit.h``: the ELF machine, 64-bit and little-endian flags).
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
ARCHES = tuple(AUDIT_ARCH)
#: ``os.uname().machine`` (``platform.machine()``) names of the supported architectures.
_MACHINES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}
X32_SYSCALL_BIT = 0x40000000

#: System call numbers as (x86_64, aarch64); None where the architecture lacks it.
SYSCALLS: dict[str, tuple[int | None, int | None]] = {
    # keyrings: per user, not per namespace
    "keyctl": (250, 219), "add_key": (248, 217), "request_key": (249, 218),
    # other processes' memory and state
    "ptrace": (101, 117), "process_vm_readv": (310, 270), "process_vm_writev": (311, 271),
    "process_madvise": (440, 440), "pidfd_getfd": (438, 438), "kcmp": (312, 272),
    # namespaces, mounts and the root
    "unshare": (272, 97), "setns": (308, 268), "mount": (165, 40), "umount2": (166, 39),
    "pivot_root": (155, 41), "chroot": (161, 51),
    "open_tree": (428, 428), "move_mount": (429, 429), "fsopen": (430, 430),
    "fsconfig": (431, 431), "fsmount": (432, 432), "fspick": (433, 433),
    "mount_setattr": (442, 442), "open_tree_attr": (467, 467),
    # file handles: they name files by inode, around the sandbox's mounts
    "name_to_handle_at": (303, 264), "open_by_handle_at": (304, 265),
    # kernel attack surface that no notebook needs
    "bpf": (321, 280), "perf_event_open": (298, 241), "userfaultfd": (323, 282),
    "io_uring_setup": (425, 425), "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427), "fanotify_init": (300, 262),
    # the machine: modules, kexec, swap, reboot, clocks, names, logs, quotas, I/O ports
    "init_module": (175, 105), "finit_module": (313, 273), "delete_module": (176, 106),
    "create_module": (174, None), "kexec_load": (246, 104), "kexec_file_load": (320, 294),
    "swapon": (167, 224), "swapoff": (168, 225), "reboot": (169, 142), "acct": (163, 89),
    "settimeofday": (164, 170), "clock_settime": (227, 112), "clock_adjtime": (305, 266),
    "adjtimex": (159, 171), "sethostname": (170, 161), "setdomainname": (171, 162),
    "syslog": (103, 116), "vhangup": (153, 58), "quotactl": (179, 60),
    "quotactl_fd": (443, 443), "lookup_dcookie": (212, 18), "nfsservctl": (180, 42),
    "uselib": (134, None), "_sysctl": (156, None), "iopl": (172, None), "ioperm": (173, None),
    # not denied, but filtered on their arguments (see the module's docstring)
    "clone": (56, 220), "clone3": (435, 435), "prctl": (157, 167),
}

#: The calls that always return ``EPERM`` in the sandbox.
DENIED = tuple(name for name in SYSCALLS if name not in ("clone", "clone3", "prctl"))

EPERM, ENOSYS = 1, 38  # the same on both architectures
PR_SET_DUMPABLE = 4
#: Every ``CLONE_NEW*`` flag that ``clone`` takes (``CLONE_NEWTIME`` shares its bit with
#: the exit signal there, and is for ``clone3`` and ``unshare`` only).
CLONE_NEW = (0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000
             | 0x40000000)  # NS, CGROUP, UTS, IPC, USER, PID, NET

# classic BPF (linux/filter.h, linux/bpf_common.h) and seccomp (linux/seccomp.h)
_LD_W_ABS = 0x00 | 0x00 | 0x20      # BPF_LD | BPF_W | BPF_ABS: A = seccomp_data[k]
_JEQ, _JSET = 0x05 | 0x10, 0x05 | 0x40  # BPF_JMP | BPF_JEQ / BPF_JSET, BPF_K
_RET = 0x06                         # BPF_RET | BPF_K: return k
RET_KILL_PROCESS, RET_ERRNO, RET_ALLOW = 0x80000000, 0x00050000, 0x7FFF0000
# offsets in struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer, args[6]
_NR, _ARCH = 0, 4


def _arg_low(index: int) -> int:
    """The offset of the low 32 bits of argument ``index`` (both arches are little-endian;
    every value the filter looks at fits in them)."""
    return 16 + 8 * index


def arch(machine: str | None = None) -> str:
    """This machine's architecture as :data:`ARCHES` names it (``machine``: as
    ``os.uname().machine`` says it); :class:`SeccompUnsupported` if none fits."""
    machine = os.uname().machine if machine is None else machine
    try:
        return _MACHINES[machine.lower()]
    except KeyError:
        raise SeccompUnsupported(f"no seccomp system call table for {machine!r} "
                                 f"(known: {', '.join(ARCHES)})") from None


def numbers(names, arch_name: str) -> list[int]:
    """The system call numbers of ``names`` on ``arch_name``, sorted; a call the
    architecture does not have is left out, a name not in :data:`SYSCALLS` raises
    :class:`ValueError`."""
    if arch_name not in ARCHES:
        raise ValueError(f"unknown architecture {arch_name!r}; expected one of {ARCHES}")
    column = ARCHES.index(arch_name)
    found = set()
    for name in names:
        if name not in SYSCALLS:
            raise ValueError(f"unknown system call {name!r} (not in stridegrad's table)")
        number = SYSCALLS[name][column]
        if number is not None:
            found.add(number)
    return sorted(found)


def instructions(arch_name: str | None = None, deny=DENIED) -> list[tuple[int, int, int, int]]:
    """The filter as (code, jt, jf, k) instructions, each jump relative to the next one."""
    arch_name = arch(None) if arch_name is None else arch_name
    if arch_name not in ARCHES:
        raise ValueError(f"unknown architecture {arch_name!r}; expected one of {ARCHES}")
    nr = {name: SYSCALLS[name][ARCHES.index(arch_name)] for name in ("clone", "clone3", "prctl")}
    eperm, allow = (_RET, 0, 0, RET_ERRNO | EPERM), (_RET, 0, 0, RET_ALLOW)
    prog = [(_LD_W_ABS, 0, 0, _ARCH),
            (_JEQ, 1, 0, AUDIT_ARCH[arch_name]),
            (_RET, 0, 0, RET_KILL_PROCESS),
            (_LD_W_ABS, 0, 0, _NR)]
    if arch_name == "x86_64":
        prog += [(_JSET, 0, 1, X32_SYSCALL_BIT), eperm]
    for number in numbers(deny, arch_name):
        prog += [(_JEQ, 0, 1, number), eperm]
    prog += [(_JEQ, 0, 1, nr["clone3"]), (_RET, 0, 0, RET_ERRNO | ENOSYS),
             # clone: no CLONE_NEW* flag in its first argument
             (_JEQ, 0, 4, nr["clone"]),
             (_LD_W_ABS, 0, 0, _arg_low(0)),
             (_JSET, 0, 1, CLONE_NEW), eperm, allow,
             # prctl: PR_SET_DUMPABLE only to 0
             (_JEQ, 0, 6, nr["prctl"]),
             (_LD_W_ABS, 0, 0, _arg_low(0)),
             (_JEQ, 0, 3, PR_SET_DUMPABLE),
             (_LD_W_ABS, 0, 0, _arg_low(1)),
             (_JEQ, 1, 0, 0), eperm, allow,
             allow]
    return prog


def program(arch_name: str | None = None, deny=DENIED) -> bytes:
    """The filter as the raw bytes of a ``struct sock_filter`` array (``deny``: the names
    that return ``EPERM``; the argument checks of ``clone``, ``clone3`` and ``prctl``
    always come with it)."""
    return b"".join(struct.pack("=HBBI", *ins) for ins in instructions(arch_name, deny))
