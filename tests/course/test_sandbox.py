"""The grading sandbox: one hostile notebook per attack, graded beside an honest one.

Each hostile notebook is the solution with one extra cell that tries an attack
and, if the attack works, ends its own process with exit code 42. So under the
sandbox every attacker must be graded with full marks (the attack failed and the
notebook went on), while graded without the sandbox (the controls below) the
same notebooks die with exit code 42: proof that each test can fail. The
effects are also checked from outside: the listener saw no connection, no file
appeared outside, the honest submission is unchanged, the grader got no signal.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import signal
import socket
import string
import tempfile
import threading
from pathlib import Path

import pytest

from stridegrad.cli import main as cli
from stridegrad.course import grader, sandbox
from stridegrad.course.checks import load_checkpoint

from .conftest import ROOT

STEM = "01_flat_storage"
FULL = load_checkpoint("01").max_points
MARKER = "alice-private-answer-7f3c9d"      # in the honest notebook only
HIDDEN_MARKER = "hidden-test-secret-5e21ab"  # in the instructor's hidden tests only

_WALK = """
import sys
SKIP = {'/proc', '/sys', '/dev', '/usr', sys.prefix, sys.base_prefix}  # no secrets in Python


def walk(top, want, suffix=''):
    found = []
    for folder, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if os.path.join(folder, d) not in SKIP]
        for f in files:
            if f.endswith(suffix):
                try:
                    with open(os.path.join(folder, f), errors='replace') as fh:
                        if want in fh.read(2_000_000):
                            found.append(os.path.join(folder, f))
                except OSError:
                    pass
    return found
"""

# Each attack: the cell's source ($-placeholders filled per arena). It calls
# os._exit(42) when the attack succeeds. Markers are spelled backwards in the
# source so that an attacker's own notebook does not contain them.
ATTACKS = {
    "read_other_submission": _WALK + """
for path in [$alice] + glob.glob($submitted + '/*/*/*.ipynb'):
    try:
        if MARKER in open(path).read():
            os._exit(42)
    except OSError:
        pass
if walk('/', MARKER, '.ipynb'):
    os._exit(42)
""",
    "read_grader_files": _WALK + """
for path in [$hidden] + glob.glob($host_tmp + '/stridegrad-grade-*/**', recursive=True):
    try:
        text = open(path, errors='replace').read()
        if HIDDEN in text or MARKER in text:
            os._exit(42)
    except OSError:
        pass
if walk('/', HIDDEN) or walk('/', MARKER, '.ipynb'):
    os._exit(42)
""",
    "write_outside_own_folder": """
# (its own folder is its working folder; in the sandbox that is a private /tmp)
for path in [$outside, $out + '/pwned', os.path.dirname(os.getcwd()) + '/stridegrad-pwned',
             $home + '/stridegrad-pwned', '/stridegrad-pwned', '/usr/stridegrad-pwned']:
    try:
        with open(path, 'w') as f:
            f.write('pwned')
        os._exit(42)
    except OSError:
        pass
""",
    "modify_other_submission": """
try:
    with open($alice, 'a') as f:
        f.write(' ')
    os._exit(42)
except OSError:
    pass
""",
    "connect_to_loopback": """
import socket
for host in ('127.0.0.1', 'localhost'):
    try:
        socket.create_connection((host, $port), timeout=3).close()
        os._exit(42)
    except OSError:
        pass
""",
    "start_200_processes": """
import time
pids = []
try:
    for _ in range(200):
        pid = os.fork()
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        pids.append(pid)
except OSError:
    pass
for pid in pids:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
if len(pids) >= 64:
    os._exit(42)
""",
    "fill_the_disk": """
block, written = b'x' * (16 << 20), 0
try:
    for n in range(128):  # 2 GiB in files of 64 MiB
        with open(f'fill{n}', 'wb') as f:
            for _ in range(4):
                f.write(block)
                written += len(block)
except OSError:
    pass
for n in range(128):
    if os.path.exists(f'fill{n}'):
        os.remove(f'fill{n}')
if written >= 2 << 30:
    os._exit(42)
""",
    "signal_the_parent": """
import signal
for pid in {$grader_pid, os.getppid()} - {0, 1, os.getpid()}:
    try:
        os.kill(pid, signal.SIGUSR1)
        os._exit(42)
    except OSError:
        pass
""",
    "steal_the_token": """
import json, re
found = set()
texts = list(os.environ.values())
for path in glob.glob('/proc/*/environ') + glob.glob('/proc/*/cmdline') + glob.glob('/tmp/**', recursive=True):
    try:
        texts.append(open(path, 'rb').read(1_000_000).decode('latin-1'))
    except OSError:
        pass
for text in texts:
    found.update(re.findall('[0-9a-f]{32}', text))
forged = {'status': 'graded', 'code_cells': 1, 'cell_errors': [], 'result': {'rows': []}}
for token in found:  # a token found anywhere: forge a result with it
    line = ('\\n' + json.dumps(dict(forged, token=token)) + '\\n').encode()
    for fd in range(3, 64):
        try:
            os.write(fd, line)
        except OSError:
            pass
if found:
    os._exit(0)
""",
}
# Attacks whose control (no sandbox) is safe to run on the test machine.
CONTROLS = ("read_other_submission", "read_grader_files", "write_outside_own_folder",
            "modify_other_submission", "connect_to_loopback", "start_200_processes",
            "signal_the_parent")


def _launcher(name: str):
    try:
        sandbox.find(name)
    except sandbox.SandboxUnavailable as exc:
        if name == "bwrap" and os.geteuid() == 0 and shutil.which("bwrap"):
            return "bwrap-as-root"  # grade() does not use it, but its isolation is tested
        return pytest.param(name, marks=pytest.mark.skip(
            reason=f"the {name} sandbox cannot start on this machine: {exc}"))
    return name


def _mode(name: str):
    if name == "bwrap-as-root":
        return sandbox.Sandbox("bwrap", shutil.which("bwrap"))
    return name


def _notebook(extra_cells: list[dict]) -> str:
    nb = json.loads((ROOT / "solutions" / f"{STEM}.ipynb").read_text())
    nb["cells"][1:1] = extra_cells
    return json.dumps(nb)


def _code(source: str) -> dict:
    return {"cell_type": "code", "execution_count": None, "id": "attack", "metadata": {},
            "outputs": [], "source": source}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class _Listener:
    """A TCP listener on 127.0.0.1 that counts the connections it accepts."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()

    def close(self):
        self.stop.set()
        self.thread.join()
        self.sock.close()


def _arena(base: Path, attacks, mode) -> dict:
    """Grade an honest notebook and one hostile notebook per attack; what happened."""
    submitted, out = base / "submitted", base / "out"
    alice = submitted / "alice_honest" / STEM / f"{STEM}.ipynb"
    alice.parent.mkdir(parents=True)
    alice.write_text(_notebook([{"cell_type": "markdown", "id": "mine", "metadata": {},
                                 "source": f"my private notes: {MARKER}"}]))
    hidden = base / "hidden_tests.py"
    hidden.write_text(f"# {HIDDEN_MARKER}\nfrom stridegrad.course import Checkpoint, expect\n"
                      "checkpoint = Checkpoint('01_flat_storage', hidden=True)\n"
                      "@checkpoint.test('numel', points=1)\n"
                      "def numel_of_a_cube(numel):\n"
                      "    expect(numel, (3, 3, 3), returns=27)\n")
    listener = _Listener()
    places = {"alice": str(alice), "submitted": str(submitted), "hidden": str(hidden),
              "host_tmp": tempfile.gettempdir(), "outside": str(base / "pwned"),
              "out": str(out), "home": str(Path.home()), "port": str(listener.port),
              "grader_pid": str(os.getpid())}
    header = (f"import glob, os\nMARKER = {MARKER[::-1]!r}[::-1]\n"
              f"HIDDEN = {HIDDEN_MARKER[::-1]!r}[::-1]\n")
    for name in attacks:
        source = string.Template(ATTACKS[name]).substitute({k: repr(v) if k not in ("port", "grader_pid")
                                                            else v for k, v in places.items()})
        path = submitted / name / STEM / f"{STEM}.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(_notebook([_code(header + source)]))
    before = _digest(alice)
    signals: list[int] = []
    old = signal.signal(signal.SIGUSR1, lambda signum, frame: signals.append(signum))
    try:
        grades = grader.grade(submitted, "01", out, timeout=240, cell_timeout=120, memory=1024,
                              jobs=2, extra_tests=hidden, sandbox=mode, log=lambda s: None)
    finally:
        signal.signal(signal.SIGUSR1, old)
        listener.close()
    return {"grades": {g.student: g for g in grades}, "alice_changed": _digest(alice) != before,
            "signals": signals, "connections": listener.accepted,
            "strays": [p for p in (base / "pwned", out / "pwned",
                                   Path(tempfile.gettempdir()) / "stridegrad-pwned",
                                   Path.home() / "stridegrad-pwned", Path("/stridegrad-pwned"))
                       if p.exists()]}


@pytest.fixture(scope="module", params=[_launcher("bwrap"), _launcher("unshare")])
def sandboxed(request, tmp_path_factory):
    result = _arena(tmp_path_factory.mktemp(f"arena-{request.param}"), ATTACKS,
                    _mode(request.param))
    return dict(result, launcher=request.param)


@pytest.mark.parametrize("attack", ATTACKS)
def test_attack_fails_in_the_sandbox(sandboxed, attack):
    if sandboxed["launcher"] == "bwrap-as-root" and attack == "start_200_processes":
        pytest.skip("bwrap run by root gives the sandbox uid 0, which the kernel exempts "
                    "from RLIMIT_NPROC (so grading as root uses the unshare launcher)")
    g = sandboxed["grades"][attack]
    if attack == "steal_the_token" and g.status == "crashed" and "exit code 0" in g.message:
        # it found 32-digit hex strings (in files of a clone under /tmp), none the token,
        # wrote its forged lines (to the judge, which reads no result from a notebook) and
        # ended its own process: no points, as a notebook that exits gets
        assert g.points == 0
        return
    assert (g.status, g.points) == ("graded", FULL + 1), g.message


def test_honest_student_keeps_her_marks(sandboxed):
    g = sandboxed["grades"]["alice_honest"]
    assert (g.status, g.points, g.max_points) == ("graded", FULL + 1, FULL + 1), g.message


def test_no_effect_outside(sandboxed):
    assert not sandboxed["alice_changed"]
    assert sandboxed["connections"] == 0
    assert sandboxed["signals"] == []
    assert sandboxed["strays"] == []


@pytest.fixture(scope="module")
def unsandboxed(tmp_path_factory):
    base = tmp_path_factory.mktemp("control")
    try:
        return _arena(base, CONTROLS, False)
    finally:
        for stray in (Path(tempfile.gettempdir()) / "stridegrad-pwned",
                      Path.home() / "stridegrad-pwned", Path("/stridegrad-pwned")):
            stray.unlink(missing_ok=True)


@pytest.mark.parametrize("attack", CONTROLS)
def test_attack_works_without_the_sandbox(unsandboxed, attack):
    """The control: each attack is real, so its test above can fail."""
    g = unsandboxed["grades"][attack]
    assert g.status == "crashed" and "exit code 42" in g.message, g.message


def test_controls_had_effects_outside(unsandboxed):
    assert unsandboxed["alice_changed"]
    assert unsandboxed["connections"] >= 1
    assert unsandboxed["signals"] == [signal.SIGUSR1]
    assert unsandboxed["strays"]


def test_grading_refuses_without_a_sandbox(tmp_path, monkeypatch, capsys):
    def nowhere(prefer=None):
        raise sandbox.SandboxUnavailable("user namespaces are switched off (test)")

    monkeypatch.setattr(grader, "find", nowhere)
    student = tmp_path / "sub" / "alice" / STEM
    student.mkdir(parents=True)
    (student / f"{STEM}.ipynb").write_text(_notebook([]))
    args = ["grade", str(tmp_path / "sub"), "--lesson", "01", "--out", str(tmp_path / "o")]
    assert cli(args) == 2
    err = capsys.readouterr().err
    assert "the sandbox cannot start here: user namespaces are switched off (test)" in err
    assert "--no-sandbox" in err and not (tmp_path / "o").exists()

    assert cli(args + ["--no-sandbox"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("alice") and out[1].endswith("[no sandbox]")
    assert "sandbox: OFF (--no-sandbox)" in out[-2]
    assert "(1 student) and" in out[-1], out[-1]  # one student, not "1 students"
    with open(tmp_path / "o" / STEM / "totals.csv", newline="") as f:
        row = next(csv.DictReader(f))
    assert (row["status"], row["sandbox"]) == ("graded", "off")


def test_unknown_launcher_is_named():
    with pytest.raises(ValueError, match="unknown sandbox launcher 'docker'"):
        sandbox.find("docker")


def test_doctor_says_whether_the_sandbox_works(capsys, monkeypatch):
    assert cli(["doctor"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines()
                if ln.startswith("grading sandbox"))
    try:
        box = sandbox.find()
    except sandbox.SandboxUnavailable as exc:
        assert "no: " in line and str(exc) in line
    else:
        name = {"bwrap": "bubblewrap", "unshare": "stridegrad's unshare launcher"}[box.launcher]
        assert f"yes ({name}" in line

    def nowhere(launcher):
        raise sandbox.SandboxUnavailable(f"{launcher}: user namespaces are switched off (test)")

    monkeypatch.setattr(sandbox, "_probe", nowhere)
    assert sandbox.verdict() == ("no: bwrap: user namespaces are switched off (test); unshare: "
                                 "user namespaces are switched off (test) (stridegrad grade "
                                 "refuses unless --no-sandbox)")
