#!/usr/bin/env bash
# GPU check: the tensor test suite on the "cuda" device and the cuda rows of the
# benchmark, in one run, with what was found written to ${1:-gpu_check.txt}.
# Run on a machine with an NVIDIA GPU and CuPy (pip install -e '.[dev,gpu]').
# Takes a few minutes; every step has its own timeout so the whole stays under 10.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-gpu_check.txt}"
py="${PYTHON:-python3}"
{
  echo "# stridegrad GPU check, $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || echo "nvidia-smi: not found"
  "$py" -c 'import cupy; print("CuPy", cupy.__version__, "CUDA runtime", cupy.cuda.runtime.runtimeGetVersion())' 2>&1
  echo
  echo "## tests on cuda"
  timeout 300 "$py" -m pytest tests/tensor tests/compile -q -k cuda -p no:cacheprovider 2>&1 | tail -n 25
  echo "pytest exit: ${PIPESTATUS[0]}"
  echo
  echo "## GPU measurements for lesson 10 (benchmarks/results/gpu.json)"
  timeout 120 "$py" benchmarks/results/measure_gpu.py 2>&1
  echo "measure exit: ${PIPESTATUS[0]}"
  echo
  echo "## benchmark (cuda rows)"
  timeout 240 "$py" -m stridegrad bench --only bench_cuda --only bench_compile 2>&1
  echo "bench exit: ${PIPESTATUS[0]}"
} | tee "$out"
