#!/usr/bin/env bash
# The seed 000 reference program writes its CSVs, and the plot script
# turns them into PNGs when matplotlib is there (skipped otherwise).
#   seed000_reference_test.sh PROGRAM SOURCE_DIR
set -euo pipefail
program=$1; source_dir=$2
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
"$program" --out "$out" --dt 2e-4 --end 1.8
for f in eigenvalues.csv counterpart_h.csv pulse_overdamped.csv pulse_friction_0.1.csv pulse_friction_0.01.csv; do
  [ -s "$out/$f" ] || { echo "missing $f"; exit 1; }
done
# Three scenarios, two structural zeros each.
[ "$(awk -F, 'NR > 1 && $3 == 2' "$out/eigenvalues.csv" | wc -l)" -eq 3 ] || { cat "$out/eigenvalues.csv"; exit 1; }
if python3 -c "import matplotlib" 2>/dev/null; then
  python3 "$source_dir/studies/plot_seed000.py" "$out"
  [ -s "$out/counterpart_h.png" ] && [ -s "$out/pulse_response.png" ]
else
  echo "matplotlib missing: plot not checked"
fi
