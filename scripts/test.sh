#!/usr/bin/env bash
# Install what is missing, build, and run the whole test suite (CPU; the
# `gpu` label skips itself without a device).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
