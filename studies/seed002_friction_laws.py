#!/usr/bin/env python3
"""Seed 002's comparison: the four seal-friction laws (Bengisu-Akay,
Brown-McPhee, LuGre, modified LuGre) on the four-bar work cycle.

    python3 studies/seed002_friction_laws.py [--hydrosweep PATH] [--out DIR] [--formulation F]

Writes one study per law into DIR (studies/seed002_work_cycle.toml with the
law, every step recorded, the penalty formulation as in seed 002 unless
--formulation double-step), runs them with `hydrosweep run`, and draws
DIR/seed002_friction_laws.png:
  - friction force against piston velocity over the cycle: the static laws
    trace their Stribeck curves (Coulomb, stiction, Stribeck drop, viscous);
    the LuGre laws' loops show frictional lag (higher force accelerating than
    decelerating, the modified law's film dynamics) - whole range and |v| < 3 v_s;
  - the piston displacement after the valve closes at 8 s: pre-sliding (the
    LuGre bristles are a spring, the mechanism oscillates on them) against the
    static laws' stiff damping at v = 0;
  - the energy drift over time and the Newton iterations per step.
It prints our figures beside the paper's (seed 002 §6: peak drift, share of
the maximum cylinder work, iterations, the efficiency ranking) and writes
DIR/seed002_friction_laws.json.

Why they differ from the paper's: seed 002's hydraulic parameters (Table 1)
and all friction parameters (Table 2) are lost; the circuit is a
reconstruction and the LuGre parameters are literature-typical choices
(docs/models/friction.md §7-8), so the cycle's work (~62 J against ~121 J) and
drift are of another system: the valve's lost flow rating sets the work, and
the drift is the trapezoidal rule's -(dt^2/8) z''^T M z'', measured in
studies/seed002_energy.py (docs/models/hydraulics.md §15). What is comparable: the laws' qualitative
behaviour, the iteration pattern (1 per step for the static laws, 2 for the
LuGre laws while moving) and the cost ranking.
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

import h5py
import matplotlib

matplotlib.use("Agg")  # headless
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LAWS = ("bengisu-akay", "brown-mcphee", "lugre", "modified-lugre")
# Seed 002 §6 (docs/models/friction.md): peak drift [J], share of max work, max cylinder work [J].
PAPER = {"bengisu-akay": (0.45, 0.0037, 121.02), "brown-mcphee": (0.45, 0.0037, 120.99),
         "lugre": (0.44, 0.0036, 120.94), "modified-lugre": (0.44, 0.0036, 120.97)}
PAPER_RANKING = "brown-mcphee < bengisu-akay < lugre < modified-lugre"


def run(exe, out, law, formulation):
    text = (ROOT / "studies/seed002_work_cycle.toml").read_text()
    text = text.replace('friction = "brown-mcphee"', f'friction = "{law}"')
    text = text.replace('formulation = "double-step"', f'formulation = "{formulation}"')
    text = text.replace("trajectory_stride = 10", "trajectory_stride = 1")
    toml = out / f"{law}.toml"
    toml.write_text(text)
    d = out / law
    subprocess.run([str(exe), "run", str(toml), "--out", str(d), "--quiet"], check=True)
    with h5py.File(d / "results.h5", "r") as f:
        T, o = f["trajectories"], f["outputs"]
        cols = [c.decode() if isinstance(c, bytes) else str(c) for c in f["inputs/all"].attrs["columns"]]
        params = dict(zip(cols, f["inputs/all"][0]))
        return {
            "t": T["t"][0], "s": T["s"][0], "v": T["sdot"][0], "F": T["friction_force"][0],
            "drift": T["energy_drift"][0], "iterations": T["newton_iterations"][0],
            "peak_drift": float(o["peak_energy_drift"][0]), "max_work": float(o["max_cylinder_work"][0]),
            "mean_iterations": float(o["mean_newton_iterations"][0]), "max_iterations": int(o["max_newton_iterations"][0]),
            "steps": int(o["steps"][0]), "wall_seconds": float(f["metadata"].attrs["wall_seconds"]),
            "status": int(o["status"][0]), "vs": float(params.get("friction.stribeck_velocity", 0.005)),
        }


def plot(runs, path, formulation):
    fig, ax = plt.subplots(3, 2, figsize=(12, 11), constrained_layout=True)
    styles = {"bengisu-akay": "C0", "brown-mcphee": "C1", "lugre": "C2", "modified-lugre": "C3"}
    for law, r in runs.items():
        c = styles[law]
        ax[0, 0].plot(r["v"], r["F"], ".", ms=1.5, color=c, label=law)
        near = np.abs(r["v"]) < 3 * r["vs"]
        if law in ("lugre", "modified-lugre"):
            # The loops of the first oscillations after the valve closes (8.0-8.4 s).
            w = (r["t"] >= 8.0) & (r["t"] <= 8.4)
            ax[0, 1].plot(r["v"][w], r["F"][w], "-", lw=0.8, color=c, label=f"{law}, 8.0-8.4 s")
        else:
            ax[0, 1].plot(r["v"][near], r["F"][near], ".", ms=1.5, color=c, label=law)
        after = r["t"] >= 8.05
        s_end = r["s"][-1]
        ax[1, 0].plot(r["t"][after], 1e3 * (r["s"][after] - s_end), color=c, label=law)
        ax[1, 1].plot(r["t"][after], r["F"][after], color=c, label=law)
        ax[2, 0].plot(r["t"], r["drift"], color=c, label=f"{law} (peak {r['peak_drift']:.4f} J)")
        it = np.convolve(r["iterations"][1:], np.ones(50) / 50, mode="valid")
        ax[2, 1].plot(r["t"][25:25 + len(it)], it, color=c,
                      label=f"{law} (mean {r['mean_iterations']:.2f}, max {r['max_iterations']})")
    vs = next(iter(runs.values()))["vs"]
    ax[0, 0].set(title=f"friction force vs piston velocity ({formulation}, work cycle)", xlabel="ds/dt [m/s]",
                 ylabel="F_mu [N]")
    ax[0, 1].set(title=f"near zero velocity (v_s = {vs} m/s): frictional lag loops", xlabel="ds/dt [m/s]",
                 ylabel="F_mu [N]", xlim=(-3 * vs, 3 * vs))
    ax[1, 0].set(title="piston displacement after the valve closes (8 s): pre-sliding", xlabel="t [s]",
                 ylabel="s - s(10 s) [mm]", ylim=(-0.25, 0.25))
    ax[1, 1].set(title="friction force after the valve closes", xlabel="t [s]", ylabel="F_mu [N]")
    ax[2, 0].set(title="energy drift T + V - E0 - W_cyl - W_fr", xlabel="t [s]", ylabel="J")
    ax[2, 1].set(title="Newton iterations per step (50-step mean)", xlabel="t [s]")
    for a in ax.flat:
        a.grid(True, alpha=0.3)
        a.legend(fontsize=8, markerscale=6)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hydrosweep", default=str(ROOT / "build/host/cli/hydrosweep"))
    ap.add_argument("--out", default="out/seed002")
    ap.add_argument("--formulation", default="penalty", choices=("penalty", "double-step"))
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    runs = {law: run(a.hydrosweep, out, law, a.formulation) for law in LAWS}
    if any(r["status"] != 0 for r in runs.values()):
        sys.exit("a run failed")
    print(f"seed 002 friction laws on the work cycle, {a.formulation}, dt = 1 ms, 10 s")
    print(f"{'law':16} {'peak drift [J]':>14} {'/ W_max':>9} {'W_max [J]':>10} {'paper':>22} {'Newton mean/max':>16}"
          f" {'us/step':>8}")
    report = {"formulation": a.formulation, "laws": {}, "paper_ranking": PAPER_RANKING}
    for law, r in runs.items():
        pd, ps, pw = PAPER[law]
        us = 1e6 * r["wall_seconds"] / r["steps"]
        print(f"{law:16} {r['peak_drift']:14.4f} {r['peak_drift'] / r['max_work']:9.2e} {r['max_work']:10.2f}"
              f"   {pd:.2f} J, {100 * ps:.2f} %, {pw:6.2f} J {r['mean_iterations']:9.2f} / {r['max_iterations']:<4d}"
              f" {us:8.1f}")
        report["laws"][law] = {"peak_energy_drift_J": r["peak_drift"], "max_cylinder_work_J": r["max_work"],
                               "drift_share": r["peak_drift"] / r["max_work"], "paper_drift_share_work": [pd, ps, pw],
                               "mean_newton_iterations": r["mean_iterations"],
                               "max_newton_iterations": r["max_iterations"], "us_per_step_one_instance": us,
                               "peak_drift_time_s": float(r["t"][np.argmax(np.abs(r["drift"]))])}
    ranking = " < ".join(sorted(LAWS, key=lambda law: report["laws"][law]["us_per_step_one_instance"]))
    report["ranking_one_instance"] = ranking
    print(f"cost ranking (one instance, noisy; bench_formulations measures it): {ranking}")
    print(f"paper (seed 002, total integration time):                         {PAPER_RANKING}")
    for law, e in report["laws"].items():
        print(f"  {law}: peak drift at t = {e['peak_drift_time_s']:.3f} s (paper: at valve opening, about 1 s)")
    plot(runs, out / "seed002_friction_laws.png", a.formulation)
    (out / "seed002_friction_laws.json").write_text(json.dumps(report, indent=2))
    print(f"plot and seed002_friction_laws.json in {out}")


if __name__ == "__main__":
    main()
