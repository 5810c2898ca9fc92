#!/usr/bin/env bash
# The main command: install what is missing, build the CLI, and run what
# hydrosweep is for, in about a minute on a 2-core machine (README "Two commands"):
#   out/quickstart/work_cycle/     one instance of the seed 002 work cycle, traced and plotted
#   out/quickstart/monte_carlo/    a 4000-instance Monte Carlo study (studies/quickstart_monte_carlo.toml)
#                                  with its analysis and plots (plots/*.png)
#   out/quickstart/stability_map/  seed 004's manipulator under VDC: a 12 288-point stability map
#                                  (studies/stability_manipulator.toml, stability_map.png)
# then a one-screen summary of the three (studies/quickstart_summary.py).
# Build: the CLI alone, in build/, configured as scripts/test.sh configures it
# (so the test command later builds only the rest), through ccache; CUDA only
# on a machine with an NVIDIA GPU (nvidia-smi lists one) or HYDROSWEEP_CUDA=1.
# Cold, on 2 cores, ~3 min (docs/build.md §1).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/python_env.sh
cuda=OFF
if [[ "${HYDROSWEEP_CUDA:-0}" == 1 ]] || { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; }; then
  cuda=ON
fi
build=build
SECONDS=0
# The test suites need GoogleTest, which only the test command installs
# (setup.sh --tests): without it they are left out of this configuration;
# scripts/test.sh turns them on.
tests=()
dpkg-query -W -f='${Status}' libgtest-dev 2>/dev/null | grep -q "install ok installed" || tests=(-DHYDROSWEEP_TESTS=OFF)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DHYDROSWEEP_CUDA="$cuda" "${tests[@]}" >/dev/null
cmake --build "$build" -j"$(nproc)" --target hydrosweep
echo "run_default: the CLI built in ${SECONDS} s"
hs="./$build/host/cli/hydrosweep"
out=out/quickstart
rm -rf "$out"
SECONDS=0
echo "== 1/3 one instance of the seed 002 work cycle, traced"
"$hs" run studies/seed002_work_cycle.toml --out "$out/work_cycle" --progress none
python3 studies/plot_run.py "$out/work_cycle" --out "$out/work_cycle/plot.png" >/dev/null
echo "== 2/3 Monte Carlo study: 4000 instances of the work cycle"
"$hs" run studies/quickstart_monte_carlo.toml --out "$out/monte_carlo"
"$hs" plot "$out/monte_carlo" >/dev/null
echo "== 3/3 stability map of the manipulator under virtual decomposition control"
"$hs" stability studies/stability_manipulator.toml --out "$out/stability_map"
echo
python3 studies/quickstart_summary.py "$out" --seconds "$SECONDS"
