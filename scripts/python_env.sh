# Sourced by the scripts (run_default.sh, test.sh, .ci/run) after setup.sh:
# the project's virtual environment first on PATH, as its `activate` would
# put it, so that every `python3` they and the tests start (the plots, the
# regeneration tests, the CLI's plot step) is the one setup.sh filled, and
# CMake's FindPython3 takes it (VIRTUAL_ENV). HYDROSWEEP_VENV: as setup.sh.
HYDROSWEEP_VENV="${HYDROSWEEP_VENV:-$PWD/.venv}"
export VIRTUAL_ENV="$HYDROSWEEP_VENV"
export PATH="$HYDROSWEEP_VENV/bin:$PATH"
