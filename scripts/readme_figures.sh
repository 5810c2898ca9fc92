#!/usr/bin/env bash
# Regenerates the README's pictures (docs/images/quickstart-*.png) from the
# main command's results: runs scripts/run_default.sh unless
# out/quickstart/ already holds them (--rerun forces a fresh run), then copies
# the stability map, the Monte Carlo histogram and the traced work cycle.
set -euo pipefail
cd "$(dirname "$0")/.."
out=out/quickstart
if [[ "${1:-}" == --rerun || ! -f "$out/stability_map/stability_map.png" || ! -f "$out/monte_carlo/plots/histogram_p2_max.png" ||
      ! -f "$out/work_cycle/plot.png" ]]; then
  bash scripts/run_default.sh
fi
mkdir -p docs/images
cp "$out/stability_map/stability_map.png" docs/images/quickstart-stability-map.png
cp "$out/monte_carlo/plots/histogram_p2_max.png" docs/images/quickstart-monte-carlo-p2-max.png
cp "$out/work_cycle/plot.png" docs/images/quickstart-work-cycle.png
ls -l docs/images/quickstart-*.png
