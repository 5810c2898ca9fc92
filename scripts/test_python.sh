#!/usr/bin/env bash
# The Python package's check (python/): a fresh virtual environment,
# `pip install ./python` into it (pybind11 module over the host library,
# built by scikit-build-core), then pytest python/tests against the CLI of the
# main build (the tests compare the package's outputs with the CLI's).
#
#   scripts/test_python.sh [CLI]
#
# CLI: the hydrosweep executable to compare with (default: $HYDROSWEEP_CLI,
# else build/host/cli/hydrosweep; `cmake --build build` makes it). Environment:
#   HYDROSWEEP_PY_ENV      the virtual environment (default build-python/venv; recreated)
#   HYDROSWEEP_PY_PANDAS   1 (default): also install pandas, xarray and matplotlib
#                          (to_dataframe, to_xarray and hydrosweep.plot are tested
#                          either way: without them they must raise ImportError)
#   PYTHON                 the interpreter that makes the venv (default python3)
# Needs scripts/setup.sh's Debian packages plus python3-venv, and PyPI (the
# build requirements scikit-build-core and pybind11, numpy, h5py, pytest).
# Extra arguments after the CLI go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

cli="${1:-${HYDROSWEEP_CLI:-build/host/cli/hydrosweep}}"
[ $# -gt 0 ] && shift
if [ ! -x "$cli" ]; then
  echo "test_python: no hydrosweep CLI at $cli: build it first (cmake --build build) or pass its path" >&2
  exit 1
fi
cli="$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")"
env_dir="${HYDROSWEEP_PY_ENV:-build-python/venv}"
python="${PYTHON:-python3}"

rm -rf "$env_dir"
if ! "$python" -m venv "$env_dir"; then
  echo "test_python: '$python -m venv' failed: install python3-venv (apt-get install python3-venv)" >&2
  exit 1
fi
py="$env_dir/bin/python"
"$py" -m pip install -q "pip>=21.3"   # builds ./python in place (older pip copies it away from ..)

extra=(pytest SALib)  # SALib: the second-order Sobol' indices are checked against its estimators
[ "${HYDROSWEEP_PY_PANDAS:-1}" = 1 ] && extra+=(pandas xarray matplotlib)
"$py" -m pip install -q "${extra[@]}"

# -v: the build's progress ([ 42%] Building ...) instead of minutes of
# silence; the host library comes from the compiler cache when a build of this
# checkout filled it (docs/build.md §5).
echo "test_python: pip install ./python"
SECONDS=0
log="$(dirname "$env_dir")/pip-install.log"
set +e
"$py" -m pip install -v ./python 2>&1 | tee "$log" | grep --line-buffered -E '^ *\[ *[0-9]+%\]|^Successfully'
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
  tail -40 "$log" >&2
  echo "test_python: pip install ./python failed (whole log: $log)" >&2
  exit 1
fi
echo "test_python: pip install ./python took ${SECONDS} s"

# python/ has a src layout: `import hydrosweep` is the installed package.
SECONDS=0
HYDROSWEEP_CLI="$cli" "$py" -m pytest -q "$PWD/python/tests" "$@"
echo "test_python: pytest took ${SECONDS} s"
