#!/usr/bin/env bash
# Install what is missing, build, and run the whole test suite in two build
# flavours (what CI runs, via .ci/run; the `gpu` label skips itself without a
# device):
#   build/           Release, -march=native, every backend the machine has (CUDA
#                    when nvcc is found);
#   build-python/    a virtual environment with `pip install ./python`, whose
#                    pytest suite compares the package with build/'s CLI;
#   build-sanitize/  AddressSanitizer + UndefinedBehaviorSanitizer at -O1, for the
#                    x86-64 baseline (no -march=native), CPU backends only.
#                    Neither contracts a*b + c into FMAs (CMakeLists.txt), so
#                    both compute the same bits. Any memory error, leak or UB fails the test
#                    that triggers it, also in the hydrosweep processes the CLI
#                    tests start.
# Skip the second flavour with HYDROSWEEP_SKIP_SANITIZE=1 (quick local runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs="$(nproc)"

SECONDS=0
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"
echo "test.sh: Release flavour built and tested in ${SECONDS} s"
# The Python package (python/): pip install ./python into a fresh virtual
# environment, then pytest python/tests against the CLI just built.
SECONDS=0
bash scripts/test_python.sh build/host/cli/hydrosweep
echo "test.sh: Python package installed and tested in ${SECONDS} s"

if [[ "${HYDROSWEEP_SKIP_SANITIZE:-0}" == 1 ]]; then
  echo "test.sh: sanitizer flavour skipped (HYDROSWEEP_SKIP_SANITIZE=1)"
  exit 0
fi
SECONDS=0
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Release -DHYDROSWEEP_NATIVE=OFF -DHYDROSWEEP_SANITIZE=ON \
      -DHYDROSWEEP_CUDA=OFF -DHYDROSWEEP_BENCH=OFF -DHYDROSWEEP_MPI=OFF
cmake --build build-sanitize -j"$jobs"
# Sanitizer runtime settings for every instrumented process, the test programs
# and the hydrosweep runs they start (they inherit the environment):
# - leaks are checked (LeakSanitizer, ASan's default) in every process: a leak
#   in the CLI is a bug like any other;
# - exitcode=86 for any report, so a sanitizer failure in a child hydrosweep is
#   never mistaken for one of the CLI's own statuses (0, 1, 2, 130);
# - UB reports print their stack. Python (plot scripts) is not instrumented and
#   is started with exec, without LD_PRELOAD, so these settings do not reach it.
export ASAN_OPTIONS="detect_leaks=1:exitcode=86:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=86"
export LSAN_OPTIONS="exitcode=86"
ctest --test-dir build-sanitize --output-on-failure -j"$jobs"
echo "test.sh: sanitizer flavour built and tested in ${SECONDS} s"
