#!/usr/bin/env bash
# End-to-end test of studies/plot_study.py on synthetic results files
# (tests/data/make_synthetic_results.py); no solver run needed.
#
#   bash tests/plot_study_test.sh        (PYTHON=... to pick the interpreter)
#
# Needs python3 with numpy, h5py and matplotlib.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PYTHON:-python3}"
GEN="$ROOT/tests/data/make_synthetic_results.py"
PLOT="$ROOT/studies/plot_study.py"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
export MPLBACKEND=Agg MPLCONFIGDIR="$TMP/mplconfig"

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# is_png FILE: exists, non-empty, starts with the 8 PNG signature bytes.
is_png() {
  [[ -s "$1" ]] || return 1
  [[ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" == "89504e470d0a1a0a" ]]
}

# expect_pngs DIR NAME...: each DIR/NAME.png is a PNG.
expect_pngs() {
  local dir="$1" name
  shift
  for name in "$@"; do
    if is_png "$dir/$name.png"; then echo "  ok   $name.png"; else fail "$dir/$name.png missing, empty or not a PNG"; fi
  done
}

# expect_absent DIR NAME...: no DIR/NAME.png.
expect_absent() {
  local dir="$1" name
  shift
  for name in "$@"; do
    [[ ! -e "$dir/$name.png" ]] || fail "$dir/$name.png should not have been written"
  done
}

# plot CASE ARGS...: runs the script (must exit 0); stdout to $TMP/CASE.out, stderr to $TMP/CASE.err.
# Every path printed on stdout must be a PNG, and every PNG in the plot directory must have been printed.
plot() {
  local case="$1" rc=0
  shift
  "$PY" "$PLOT" "$@" >"$TMP/$case.out" 2>"$TMP/$case.err" || rc=$?
  if [[ $rc -ne 0 ]]; then
    fail "$case: plot_study.py exited $rc"
    cat "$TMP/$case.err" >&2
    return 0
  fi
  local path
  while IFS= read -r path; do
    is_png "$path" || fail "$case: printed path '$path' is not a PNG"
  done <"$TMP/$case.out"
}

# gen CASE ARGS...: writes $TMP/CASE/results.h5.
gen() {
  local case="$1"
  shift
  "$PY" "$GEN" "$TMP/$case" "$@" >/dev/null
}

# Quantities of /analysis in the generator: p2_max, settling_time, peak_energy_drift (grid: the first two).
echo "== saltelli design: every optional group (analysis statistics, failure, sobol; trajectories)"
gen saltelli --design saltelli --base 48
plot saltelli "$TMP/saltelli"
P="$TMP/saltelli/plots"
for q in p2_max settling_time peak_energy_drift; do
  expect_pngs "$P" "histogram_$q" "cdf_$q" "sobol_$q" "scatter_$q"
done
expect_pngs "$P" time_histories
expect_absent "$P" map_p2_max
[[ "$(grep -c . "$TMP/saltelli.out")" == 13 ]] || fail "saltelli: expected 13 printed paths, got $(grep -c . "$TMP/saltelli.out")"

echo "== 2-D grid: heat maps"
gen grid --design grid
plot grid "$TMP/grid"
P="$TMP/grid/plots"
expect_pngs "$P" histogram_p2_max cdf_p2_max map_p2_max histogram_settling_time cdf_settling_time map_settling_time time_histories
expect_absent "$P" scatter_p2_max sobol_p2_max

echo "== 2-D grid with --out, --quantity, --instances"
plot grid_sel "$TMP/grid" --out "$TMP/custom plots" --quantity tracking_rms p2_max --instances 0 79 3
P="$TMP/custom plots"
expect_pngs "$P" histogram_tracking_rms cdf_tracking_rms map_tracking_rms histogram_p2_max map_p2_max time_histories
expect_absent "$P" map_settling_time

echo "== 3-D grid: no heat map, a note instead"
gen grid3 --design grid3 --stride 0
plot grid3 "$TMP/grid3"
P="$TMP/grid3/plots"
expect_pngs "$P" histogram_p2_max cdf_p2_max
expect_absent "$P" map_p2_max scatter_p2_max time_histories
grep -q "heat maps need exactly two" "$TMP/grid3.err" || fail "grid3: no note about the skipped heat map"

echo "== LHS, no /analysis, no trajectories: default quantity p2_max, scatter"
gen lhs --design lhs --count 120 --stride 0 --no-analysis
plot lhs "$TMP/lhs"
P="$TMP/lhs/plots"
expect_pngs "$P" histogram_p2_max cdf_p2_max scatter_p2_max
expect_absent "$P" time_histories sobol_p2_max map_p2_max
[[ "$(grep -c . "$TMP/lhs.out")" == 3 ]] || fail "lhs: expected 3 printed paths"

echo "== older layout: no sample_method (full 2-D grid detected), sparse metadata, no /analysis"
gen old --design grid --sparse-metadata --no-analysis
plot old "$TMP/old"
expect_pngs "$TMP/old/plots" histogram_p2_max cdf_p2_max map_p2_max time_histories

echo "== single instance, nothing varied"
gen single --design single
plot single "$TMP/single"
P="$TMP/single/plots"
expect_pngs "$P" histogram_p2_max cdf_p2_max time_histories
expect_absent "$P" scatter_p2_max map_p2_max

echo "== zero variance and an all-NaN column"
gen flat --design monte-carlo --count 40 --stride 0 --no-analysis
"$PY" - "$TMP/flat/results.h5" <<'EOF'
import sys
import h5py
import numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    f["outputs/p2_max"][...] = 1.5e7
    f["outputs/settling_time"][...] = np.nan
EOF
plot flat "$TMP/flat" --quantity p2_max settling_time
P="$TMP/flat/plots"
expect_pngs "$P" histogram_p2_max cdf_p2_max scatter_p2_max
expect_absent "$P" histogram_settling_time cdf_settling_time scatter_settling_time
grep -q "settling_time: no finite values" "$TMP/flat.err" || fail "flat: no note about the all-NaN column"

echo "== errors: exit status 2"
expect_exit2() {
  local what="$1" rc=0
  shift
  "$PY" "$PLOT" "$@" >"$TMP/err.out" 2>"$TMP/err.err" || rc=$?
  if [[ $rc -eq 2 ]] && [[ -s "$TMP/err.err" ]]; then
    echo "  ok   $what: $(head -n 1 "$TMP/err.err")"
  else
    fail "$what: expected exit 2 with a message, got $rc"
  fi
}
mkdir -p "$TMP/empty" "$TMP/nometa" "$TMP/garbage"
expect_exit2 "directory without results.h5" "$TMP/empty"
expect_exit2 "missing directory" "$TMP/does-not-exist"
"$PY" -c 'import sys, h5py; h5py.File(sys.argv[1], "w").create_group("outputs")' "$TMP/nometa/results.h5"
expect_exit2 "HDF5 file without /metadata" "$TMP/nometa"
echo "not hdf5" >"$TMP/garbage/results.h5"
expect_exit2 "results.h5 that is not HDF5" "$TMP/garbage"
expect_exit2 "unknown --quantity" "$TMP/grid" --quantity no_such_output
expect_exit2 "--instances out of range" "$TMP/grid" --instances 80
[[ ! -e "$TMP/empty/plots" ]] || fail "a plots directory was created for a directory without results.h5"

if [[ $failures -ne 0 ]]; then
  echo "plot_study_test: $failures failure(s)" >&2
  exit 1
fi
echo "plot_study_test: all passed"
