#!/usr/bin/env bash
# Install what is missing, build, run the default study (seed 002 work cycle)
# and plot it: out/seed002_work_cycle/{results.h5,summary.csv,plot.png}.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)" --target hydrosweep
rm -rf out/seed002_work_cycle
./build/host/cli/hydrosweep run studies/seed002_work_cycle.toml --out out/seed002_work_cycle
python3 studies/plot_run.py out/seed002_work_cycle --out out/seed002_work_cycle/plot.png
echo "plot: out/seed002_work_cycle/plot.png"
