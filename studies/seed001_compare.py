#!/usr/bin/env python3
"""Seed 001's comparison: the double-step and the penalty-based semirecursive
formulations on its four-bar and on the quick-return mechanism.

    python3 studies/seed001_compare.py [--hydrosweep PATH] [--out DIR] [--tangent T] [--pressure-tolerance PA]

Writes one study file per (mechanism, formulation) into DIR, runs each with
`hydrosweep run` (dt = 1 ms, 10 s, every step recorded, Brown-McPhee friction,
the seed's forward-difference tangent unless --tangent exact; the pressures'
Newton tolerance 1e-2 Pa, the engine's default, unless --pressure-tolerance), and draws per
mechanism DIR/seed001_<model>.png: the driving angle of both formulations and
their difference, the pressures, the constraint violation |Phi| after every
step, the energy drift, the Newton iterations per step. It prints our figures
beside the paper's (seed 001 §6, docs/models/integrators.md §9) and writes
them to DIR/seed001_compare.json.

Why they differ from the paper's: the seed's circuit parameters (its Table 1)
and the quick-return's static force are lost, so the circuits are
reconstructions (docs/models/four-bar.md, quick-return.md): the maximum
actuator work and the energy drift are of another system; the iteration counts
and their ranking are the comparable figures. The seed does not state its
Newton tolerances; the mean iteration count depends on the pressures' (docs/seeds.md §2). Wall time per step is that of
one instance including the recording of every step (`us/step`, indicative only;
bench_formulations measures the integrators' cost per step).
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
MODELS = {"four-bar-seed001": "four-bar", "quick-return": "quick-return"}
FORMULATIONS = ("double-step", "penalty")
# Seed 001 §6 (docs/models/integrators.md §9): mean / max Newton iterations,
# total MATLAB time for 10 s, peak energy drift [J] and max actuator work [J].
PAPER = {
    "four-bar-seed001": {"double-step": (1.39, 3, 27.45), "penalty": (1.56, 4, 21.54), "drift": 0.84, "work": 982.95},
    "quick-return": {"double-step": (1.49, 3, 29.03), "penalty": (1.57, 6, 28.47), "drift": 0.23, "work": 357.47},
}


def study_text(model, formulation, tangent, pressure_tolerance=None):
    tolerance = f'pressure_tolerance = {pressure_tolerance!r}\n' if pressure_tolerance is not None else ''
    return (f'[study]\nname = "seed001_{model}_{formulation}"\nmodel = "{model}"\n'
            f'formulation = "{formulation}"\nfriction = "brown-mcphee"\n'
            f'[integrator]\ndt = 1e-3\nduration = 10.0\ntangent = "{tangent}"\n{tolerance}'
            f'[output]\ntrajectory_stride = 1\n')


def run(exe, out, model, formulation, tangent, pressure_tolerance=None):
    d = out / f"{model}-{formulation}"
    toml = out / f"{model}-{formulation}.toml"
    toml.write_text(study_text(model, formulation, tangent, pressure_tolerance))
    subprocess.run([str(exe), "run", str(toml), "--out", str(d), "--quiet"], check=True)
    f = h5py.File(d / "results.h5", "r")
    drive = f["metadata"].attrs["driving_coordinate"]
    drive = drive.decode() if isinstance(drive, bytes) else str(drive)
    T = f["trajectories"]
    o = f["outputs"]
    r = {
        "t": T["t"][0], "angle": T[drive][0], "p": [T[f"p{k}"][0] for k in (1, 2, 3)],
        "violation": T["constraint_violation"][0], "drift": T["energy_drift"][0],
        "iterations": T["newton_iterations"][0],
        "mean_iterations": float(o["mean_newton_iterations"][0]), "max_iterations": int(o["max_newton_iterations"][0]),
        "peak_drift": float(o["peak_energy_drift"][0]), "max_work": float(o["max_cylinder_work"][0]),
        "max_violation": float(o["max_constraint_violation"][0]), "steps": int(o["steps"][0]),
        "wall_seconds": float(f["metadata"].attrs["wall_seconds"]), "status": int(o["status"][0]), "drive": drive,
    }
    f.close()
    return r


def plot(model, runs, path):
    fig, ax = plt.subplots(3, 2, figsize=(12, 10), constrained_layout=True)
    ds, pe = runs["double-step"], runs["penalty"]
    t = ds["t"]
    for name, r, style in (("double step", ds, "-"), ("penalty", pe, "--")):
        ax[0, 0].plot(r["t"], np.degrees(r["angle"]), style, label=name)
        for k in range(3):
            ax[1, 0].plot(r["t"], r["p"][k] / 1e6, style, label=f"p{k + 1} {name}")
        ax[1, 1].semilogy(r["t"][1:], np.maximum(r["violation"][1:], 1e-18), style, label=name)
        ax[2, 0].plot(r["t"], r["drift"], style, label=name)
        # Iterations per step, averaged over 50 steps so both are readable.
        it = np.convolve(r["iterations"][1:], np.ones(50) / 50, mode="valid")
        ax[2, 1].plot(r["t"][25:25 + len(it)], it, style, label=f"{name} (mean {r['mean_iterations']:.2f}, max {r['max_iterations']})")
    ax[0, 0].set(title=f"{model}: driving angle {ds['drive']}", ylabel="deg")
    ax[0, 1].plot(t, pe["angle"] - ds["angle"])
    ax[0, 1].set(title="penalty - double step, driving angle", ylabel="rad")
    ax[1, 0].set(title="pressures", ylabel="MPa")
    ax[1, 1].set(title="constraint violation |Phi| after each step", ylabel="m")
    ax[2, 0].set(title="energy drift T + V - E0 - W_cyl - W_fr", ylabel="J", xlabel="t [s]")
    ax[2, 1].set(title="Newton iterations per step (50-step mean)", xlabel="t [s]")
    for a in ax.flat:
        a.grid(True, alpha=0.3)
    for a in (ax[0, 0], ax[1, 1], ax[2, 0], ax[2, 1]):
        a.legend(fontsize=8)
    ax[1, 0].legend(fontsize=7, ncol=2)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hydrosweep", default=str(ROOT / "build/host/cli/hydrosweep"))
    ap.add_argument("--out", default="out/seed001")
    ap.add_argument("--tangent", default="finite-difference", choices=("finite-difference", "exact"))
    ap.add_argument("--pressure-tolerance", type=float, default=None,
                    help="[integrator] pressure_tolerance in Pa (default: the engine's, 1e-2)")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    report = {"tangent": a.tangent, "pressure_tolerance_Pa": a.pressure_tolerance, "mechanisms": {}}
    tolerance = f"{a.pressure_tolerance:g} Pa" if a.pressure_tolerance is not None else "1e-2 Pa (default)"
    print(f"seed 001 comparison, dt = 1 ms, 10 s, Brown-McPhee, {a.tangent} tangent, pressure tolerance {tolerance}")
    print(f"{'mechanism':18} {'formulation':12} {'Newton mean/max':>16} {'paper':>11} {'us/step':>8} "
          f"{'max |Phi| [m]':>14} {'drift [J] / W_max [J]':>24} {'paper':>16}")
    for model in MODELS:
        runs = {fo: run(a.hydrosweep, out, model, fo, a.tangent, a.pressure_tolerance) for fo in FORMULATIONS}
        if any(r["status"] != 0 for r in runs.values()):
            sys.exit(f"{model}: a run failed")
        paper = PAPER[model]
        entry = {}
        for fo, r in runs.items():
            pm, px, pt = paper[fo]
            us = 1e6 * r["wall_seconds"] / r["steps"]
            print(f"{model:18} {fo:12} {r['mean_iterations']:9.2f} / {r['max_iterations']:<4d} {pm:6.2f} / {px:<2d}"
                  f" {us:8.1f} {r['max_violation']:14.2e} {r['peak_drift']:9.3f} / {r['max_work']:8.2f}"
                  f" {paper['drift']:6.2f} / {paper['work']:7.2f}")
            entry[fo] = {"mean_newton_iterations": r["mean_iterations"], "max_newton_iterations": r["max_iterations"],
                         "paper_mean_max_total_s": [pm, px, pt], "us_per_step_one_instance": us,
                         "max_constraint_violation_m": r["max_violation"], "peak_energy_drift_J": r["peak_drift"],
                         "max_cylinder_work_J": r["max_work"]}
        g = float(np.max(np.abs(runs["penalty"]["angle"] - runs["double-step"]["angle"])))
        gp = max(float(np.max(np.abs(runs["penalty"]["p"][k] - runs["double-step"]["p"][k]))
                       / np.max(np.abs(runs["double-step"]["p"][k]))) for k in range(3))
        entry["max_angle_difference_rad"] = g
        entry["max_pressure_difference_relative"] = gp
        entry["paper_peak_drift_J"], entry["paper_max_work_J"] = paper["drift"], paper["work"]
        print(f"{'':18} formulations agree: driving angle within {g:.2e} rad, pressures within {gp:.2e}")
        report["mechanisms"][model] = entry
        plot(model, runs, out / f"seed001_{model}.png")
    (out / "seed001_compare.json").write_text(json.dumps(report, indent=2))
    print(f"plots and seed001_compare.json in {out}")


if __name__ == "__main__":
    main()
