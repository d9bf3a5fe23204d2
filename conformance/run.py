"""Run the Array API standard's official test suite against ``stridegrad.array``.

Usage (from the repository root)::

    ARRAY_API_TESTS_DIR=/path/to/array-api-tests .venv/bin/python conformance/run.py [pytest args]

``ARRAY_API_TESTS_DIR`` must be an existing checkout of data-apis/array-api-tests
at release tag ``2026.02.26``, with the spec (data-apis/array-api, the commit its
``array-api`` submodule pins) checked out beside it in ``array-api/``, as the
suite's README says. This script fetches and builds nothing. It needs the
suite's requirements in the running interpreter: pytest, hypothesis>=6.151,
ndindex>=1.8 and pytest-json-report.

Settings: the namespace ``stridegrad.array`` at the API version of its
``__array_api_version__``; complex dtypes skipped; ``--max-examples 20
--disable-deadline --derandomize``; the linalg and fft extensions disabled; the
skips in ``conformance/skips.txt``. Counts, wall time and every skip reason go
to ``conformance/report.md``.

``skips.txt`` holds groups: a ``# reason`` comment line, then the tests it
covers, each an exact test id (``array_api_tests/test_x.py::test_y[...]``) or
``re:`` and a regular expression matched against the whole test id. The runner
collects the suite once, expands the expressions into the exact ids the suite's
``--skips-file`` expects, and stops if a line matches no test (a stale skip).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TAG = "2026.02.26"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SKIPS = HERE / "skips.txt"
REPORT = HERE / "report.md"
OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")


def suite_dir() -> Path:
    """The checkout named by ARRAY_API_TESTS_DIR; a clear exit when it is missing or incomplete."""
    raw = os.environ.get("ARRAY_API_TESTS_DIR")
    if not raw:
        sys.exit(
            "conformance: set ARRAY_API_TESTS_DIR to a local checkout of "
            f"data-apis/array-api-tests at tag {TAG} (with the spec in its array-api/ "
            "folder); this script fetches nothing"
        )
    path = Path(raw).expanduser().resolve()
    for needed in ("array_api_tests", "conftest.py", "array-api/spec"):
        if not (path / needed).exists():
            sys.exit(
                f"conformance: ARRAY_API_TESTS_DIR={path} has no {needed}: expected a checkout "
                f"of data-apis/array-api-tests at tag {TAG} with the spec (data-apis/array-api "
                "at the commit its submodule pins) in array-api/"
            )
    return path


def api_version() -> str:
    sys.path.insert(0, str(ROOT / "src"))
    import stridegrad.array as xp

    return xp.__array_api_version__


def read_skips() -> list[tuple[str, str]]:
    """``skips.txt`` -> [(reason, id or ``re:`` pattern)]; a test line needs a reason above it."""
    out, reason = [], None
    for n, line in enumerate(SKIPS.read_text().splitlines(), 1):
        line = line.strip()
        if not line:
            reason = None
        elif line.startswith("#"):
            text = line.lstrip("#").strip()
            reason = text if reason is None else f"{reason} {text}"
        elif reason is None:
            sys.exit(f"conformance: {SKIPS.name} line {n} ({line!r}) has no '# reason' above it")
        else:
            out.append((reason, line))
    return out


def expand_skips(skips, test_ids: list[str]) -> tuple[list[str], dict[str, str]]:
    """Exact ids to skip, and the reason of each; a line matching nothing is an error."""
    ids, why = [], {}
    for reason, line in skips:
        if line.startswith("re:"):
            pattern = re.compile(line[3:])
            hits = [t for t in test_ids if pattern.fullmatch(t)]
        else:
            hits = [line] if line in test_ids else []
        if not hits:
            sys.exit(f"conformance: skip {line!r} ({reason}) matches no test of the suite")
        for t in hits:
            if t not in why:
                ids.append(t)
                why[t] = reason
    return ids, why


def collect(path: Path, env: dict, common: list[str]) -> list[str]:
    """The suite's test ids under these settings (``pytest --collect-only``)."""
    res = subprocess.run(
        [sys.executable, "-m", "pytest", "array_api_tests", "--collect-only", "-q", *common],
        cwd=path, env=env, capture_output=True, text=True,
    )
    ids = [line for line in res.stdout.splitlines() if line.startswith("array_api_tests/")]
    if res.returncode or not ids:
        sys.exit(f"conformance: collecting the suite failed:\n{res.stdout[-3000:]}{res.stderr[-3000:]}")
    return ids


def skip_reason(test: dict, why: dict[str, str]) -> str:
    if test["nodeid"] in why:
        return f"skips.txt: {why[test['nodeid']]}"
    longrepr = (test.get("setup") or {}).get("longrepr") or (test.get("call") or {}).get(
        "longrepr") or ""
    # pytest's skip longrepr is "('file', line, 'Skipped: reason')"
    m = re.search(r"Skipped: (.*?)['\"]\)?$", str(longrepr))
    return f"suite: {m.group(1) if m else longrepr}"


def write_report(counts: dict, seconds: float, version: str, failed: list[str],
                 skipped: dict[str, int]) -> None:
    lines = [
        "# Array API conformance of stridegrad.array",
        "",
        f"data-apis/array-api-tests {TAG}, API version {version}, "
        "`--max-examples 20 --disable-deadline --derandomize`, linalg and fft "
        "extensions disabled, complex64/complex128 skipped, skips in "
        "`conformance/skips.txt`.",
        "",
        f"Run of {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: "
        f"{time.strftime('%M min %S s', time.gmtime(seconds))} wall time.",
        "",
        "| outcome | tests |",
        "|---|---|",
    ]
    lines += [f"| {k} | {counts.get(k, 0)} |" for k in OUTCOMES]
    if skipped:
        lines += ["", "## Skips, by reason", "", "| tests | reason |", "|---|---|"]
        lines += [f"| {n} | {r} |" for r, n in sorted(skipped.items(), key=lambda kv: -kv[1])]
    if failed:
        lines += ["", "## Failing tests", ""] + [f"- `{t}`" for t in failed]
    REPORT.write_text("\n".join(lines) + "\n")


def main(argv: list[str]) -> int:
    path = suite_dir()
    version = api_version()
    env = dict(os.environ)
    env.update(
        ARRAY_API_TESTS_MODULE="stridegrad.array",
        ARRAY_API_TESTS_VERSION=version,
        ARRAY_API_TESTS_SKIP_DTYPES="complex64,complex128",
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")])),
    )
    common = [
        "-p", "no:cacheprovider",
        "--max-examples", "20", "--disable-deadline", "--derandomize",
        "--disable-extension", "linalg", "fft",
    ]
    start = time.monotonic()
    ids, why = expand_skips(read_skips(), collect(path, env, common))
    with tempfile.TemporaryDirectory() as tmp:
        skips_path = Path(tmp) / "skips.txt"
        skips_path.write_text("".join(f"{t}\n" for t in ids))
        json_path = Path(tmp) / "report.json"
        cmd = [
            sys.executable, "-m", "pytest", "array_api_tests", "-q", "-rf", *common,
            "--skips-file", str(skips_path),
            "--json-report", f"--json-report-file={json_path}",
            *argv,
        ]
        rc = subprocess.call(cmd, cwd=path, env=env)
        seconds = time.monotonic() - start
        if not json_path.exists():
            print("conformance: pytest wrote no report", file=sys.stderr)
            return rc or 1
        data = json.loads(json_path.read_text())
    counts = data.get("summary", {})
    failed = [t["nodeid"] for t in data.get("tests", []) if t["outcome"] in ("failed", "error")]
    skipped: dict[str, int] = {}
    for t in data.get("tests", []):
        if t["outcome"] == "skipped":
            reason = skip_reason(t, why)
            skipped[reason] = skipped.get(reason, 0) + 1
    write_report(counts, seconds, version, failed, skipped)
    print(f"conformance: {', '.join(f'{counts.get(k, 0)} {k}' for k in OUTCOMES)} "
          f"in {seconds:.0f} s; report in {REPORT.relative_to(ROOT)}")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
