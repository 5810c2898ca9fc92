#!/usr/bin/env bash
# The README's test command: install what is missing, build the CPU code and
# run the whole test suite, then the Python package's tests (docs/build.md §6).
#   build/          Release, -march=native, the CPU backends (OpenMP, lockstep
#                   lanes, Kokkos, MPI) and the CUDA backend's host logic on
#                   Thrust's OpenMP system; ctest runs every suite (the
#                   `gpu`-labelled ones skip themselves without a device).
#   build-python/   a virtual environment with `pip install ./python`, whose
#                   pytest suite compares the package with build/'s CLI; its
#                   host library comes from the compiler cache build/ filled.
# Every compile goes through ccache (scripts/setup.sh installs it): a second
# run, or a clone of the same commit in another folder, compiles little.
#
# The CUDA translation units (nvcc, ~10 min on 2 cores) are compiled here only
# where they can run or when asked: on a machine with an NVIDIA GPU
# (nvidia-smi lists one) or with HYDROSWEEP_CUDA=1. CI adds them, with the
# kernel-resources gate, and the sanitizer flavour (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --tests
source scripts/python_env.sh
jobs="$(nproc)"

cuda=OFF
if [[ "${HYDROSWEEP_CUDA:-0}" == 1 ]] || { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; }; then
  cuda=ON
fi

SECONDS=0
# The suites on (run_default.sh may have configured build/ without them), and
# the tests' Python the project's (a build/ configured before .venv existed
# keeps the interpreter it found otherwise).
py="$VIRTUAL_ENV/bin/python3"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DHYDROSWEEP_CUDA="$cuda" -DHYDROSWEEP_TESTS=ON \
      -DPython3_EXECUTABLE="$py" -DHYDROSWEEP_PYTHON3="$py" >/dev/null
cmake --build build -j"$jobs"
build_s=$SECONDS
SECONDS=0
ctest --test-dir build --output-on-failure -j"$jobs"
ctest_s=$SECONDS
# The Python package (python/): pip install ./python into a fresh virtual
# environment, then pytest python/tests against the CLI just built.
SECONDS=0
bash scripts/test_python.sh build/host/cli/hydrosweep
python_s=$SECONDS
echo "test.sh: build/ built in ${build_s} s (CUDA ${cuda}), ctest in ${ctest_s} s, Python package in ${python_s} s"
