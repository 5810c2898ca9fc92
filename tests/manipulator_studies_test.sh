#!/usr/bin/env bash
# Seed 004's manipulator studies through the executable (docs/models/
# manipulator.md §11): studies/manipulator_path.toml (four payloads, the
# paper's path, trajectories) and studies/manipulator_monte_carlo.toml cut to
# 64 instances (the shipped file runs 10 000), each with its plots
# (studies/plot_manipulator.py, hydrosweep plot). Checks, from results.h5:
#   path study: every payload ends ok; the 100 kg instance (the controller's
#   model) tracks with RMS < 1 mm (measured 0.13 mm); the desired TCP channel
#   ends at waypoint A = (2.5, 1.0) m; the 300 kg plant (model error 200 kg)
#   tracks worse than the 100 kg one;
#   Monte Carlo: 64 instances, every status a known one, the analysis group
#   holds the failure probability of tcp_error_peak > 5 mm.
#   manipulator_studies_test.sh HYDROSWEEP SOURCE_DIR
set -euo pipefail
exe=$1; root=$2
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
export MPLBACKEND=Agg MPLCONFIGDIR="$out/mplconfig"
"$exe" run "$root/studies/manipulator_path.toml" --out "$out/path" -q
python3 "$root/studies/plot_manipulator.py" "$out/path"
sed 's/^count = 10000/count = 64/' "$root/studies/manipulator_monte_carlo.toml" > "$out/mc.toml"
grep -q '^count = 64' "$out/mc.toml"
"$exe" run "$out/mc.toml" --out "$out/mc" -q
"$exe" plot "$out/mc" > /dev/null
python3 "$root/studies/plot_manipulator.py" "$out/mc"
for f in path/plots/manipulator_path.png path/plots/manipulator_errors.png mc/plots/manipulator_errors.png; do
  [ "$(head -c 8 "$out/$f" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || { echo "not a PNG: $f"; exit 1; }
done
python3 - "$out" <<'PY'
import sys
import h5py
import numpy as np
out = sys.argv[1]
with h5py.File(f"{out}/path/results.h5", "r") as f:
    o = f["outputs"]
    payload = f["inputs/payload.mass"][:]
    assert list(payload) == [50.0, 100.0, 200.0, 300.0], payload
    assert (o["status"][:] == 0).all(), o["status"][:]
    rms = o["tcp_error_rms"][:]
    assert rms[1] < 1e-3, rms
    assert rms[3] > rms[1], rms
    tr = f["trajectories"]
    assert abs(tr["tcp_x_desired"][1][-1] - 2.5) < 1e-12 and abs(tr["tcp_y_desired"][1][-1] - 1.0) < 1e-12
    print("path study: RMS TCP error by payload [mm]:", np.round(rms * 1e3, 3))
with h5py.File(f"{out}/mc/results.h5", "r") as f:
    st = f["outputs/status"][:]
    assert len(st) == 64 and ((st >= 0) & (st <= 6)).all(), st
    assert "analysis" in f
    print("Monte Carlo (64): ok", int((st == 0).sum()), "of", len(st))
print("manipulator studies: ok")
PY
