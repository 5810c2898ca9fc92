#!/usr/bin/env bash
# The seed 001 and seed 002 comparison studies (studies/seed001_compare.py,
# studies/seed002_friction_laws.py) run end to end through the executable,
# draw their figures and report figures inside the issue's bounds:
#   seed 001: the formulations agree (driving angle < 1e-7 rad, measured
#   1.3e-8; pressures < 1e-5 relative, 1.2e-6), penalty |Phi| < 1e-10 m,
#   the penalty needs at least as many iterations as the double step;
#   seed 002: every law's peak drift < 8e-4 of the maximum cylinder work
#   (measured <= 7.8e-5), the LuGre laws iterate more than the static ones.
#   seed_comparisons_test.sh HYDROSWEEP SOURCE_DIR
set -euo pipefail
exe=$1; root=$2
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
export MPLBACKEND=Agg MPLCONFIGDIR="$out/mplconfig"
python3 "$root/studies/seed001_compare.py" --hydrosweep "$exe" --out "$out/s001"
python3 "$root/studies/seed002_friction_laws.py" --hydrosweep "$exe" --out "$out/s002"
for f in s001/seed001_four-bar-seed001.png s001/seed001_quick-return.png s002/seed002_friction_laws.png; do
  [ "$(head -c 8 "$out/$f" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || { echo "not a PNG: $f"; exit 1; }
done
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
a = json.load(open(f"{out}/s001/seed001_compare.json"))
for model, e in a["mechanisms"].items():
    assert e["max_angle_difference_rad"] < 1e-7, (model, e["max_angle_difference_rad"])
    assert e["max_pressure_difference_relative"] < 1e-5, (model, e["max_pressure_difference_relative"])
    assert e["penalty"]["max_constraint_violation_m"] < 1e-10, model
    assert e["penalty"]["mean_newton_iterations"] >= e["double-step"]["mean_newton_iterations"], model
b = json.load(open(f"{out}/s002/seed002_friction_laws.json"))
laws = b["laws"]
for law, e in laws.items():
    assert e["drift_share"] < 8e-4, (law, e["drift_share"])
for state_law in ("lugre", "modified-lugre"):
    for static_law in ("brown-mcphee", "bengisu-akay"):
        assert laws[state_law]["mean_newton_iterations"] > laws[static_law]["mean_newton_iterations"]
print("seed comparisons: ok")
PY
