#!/usr/bin/env python3
"""Plots of a `lift-tilt` study (seed 004's manipulator under virtual
decomposition control, docs/models/manipulator.md §11).

    python3 studies/plot_manipulator.py DIR [--instances K]

With trajectories (output.trajectory_stride > 0), DIR/plots/manipulator_path.png:
the tool-centre point's path of the first K instances over the desired one,
the tracking error |X_d - X| against time, required against achieved piston
forces, chamber pressures with the supply and return lines, and the valve
voltages, the figures of seed 004's (lost) Figs. 13-16. Always,
DIR/plots/manipulator_errors.png: the empirical CDF of the RMS and peak TCP
errors over the instances and the peak error against each varied input
(failed instances as red crosses). Prints a one-line summary per figure.
"""
import argparse
import sys
from pathlib import Path

import h5py
import matplotlib

matplotlib.use("Agg")  # headless
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def varied_inputs(f):
    return [k for k in f["inputs"].keys() if k != "all"]


def label(f, i, varied):
    parts = [f"#{i}"] + [f"{n.split('.')[-1]}={f['inputs'][n][i]:.4g}" for n in varied[:2]]
    status = int(f["outputs/status"][i])
    if status != 0:
        parts.append(f"[{text(f['outputs/status'].attrs['status_names'][status])}]")
    return " ".join(parts)


def plot_paths(f, out, k):
    tr = f["trajectories"]
    varied = varied_inputs(f)
    n = min(k, tr["t"].shape[0])
    fig, axes = plt.subplots(3, 2, figsize=(12, 11))
    ax_path, ax_err = axes[0]
    ax_f1, ax_f2 = axes[1]
    ax_p, ax_u = axes[2]
    for i in range(n):
        t = tr["t"][i]
        ok = np.isfinite(t)
        t = t[ok]
        c = f"C{i % 10}"
        lab = label(f, i, varied)
        if i == 0:
            ax_path.plot(tr["tcp_x_desired"][i][ok], tr["tcp_y_desired"][i][ok], "k--", lw=1, label="desired")
        ax_path.plot(tr["tcp_x"][i][ok], tr["tcp_y"][i][ok], color=c, lw=1, label=lab)
        err = np.hypot(tr["tcp_x_desired"][i][ok] - tr["tcp_x"][i][ok], tr["tcp_y_desired"][i][ok] - tr["tcp_y"][i][ok])
        ax_err.plot(t, err * 1e3, color=c, lw=1, label=lab)
        for a, ax in ((1, ax_f1), (2, ax_f2)):
            ax.plot(t, tr[f"required_piston_force_{a}"][i][ok] / 1e3, "--", color=c, lw=1)
            ax.plot(t, tr[f"piston_force_{a}"][i][ok] / 1e3, color=c, lw=1, label=lab if a == 1 else None)
        for a, ls in ((1, "-"), (2, ":")):
            ax_p.plot(t, tr[f"p1_{a}"][i][ok] / 1e5, ls, color=c, lw=1)
            ax_p.plot(t, tr[f"p2_{a}"][i][ok] / 1e5, ls, color=c, lw=1, alpha=0.5)
            ax_u.plot(t, tr[f"U_{a}"][i][ok], ls, color=c, lw=1)
    params = f["inputs/all"]
    names = [text(x) for x in params.attrs["names"]] if "names" in params.attrs else []
    for key, style in (("actuator1.circuit.supply_pressure", "r-"), ("actuator1.circuit.return_pressure", "b-")):
        if key in names:
            ax_p.axhline(params[0, names.index(key)] / 1e5, color=style[0], lw=0.8, alpha=0.6)
    ax_path.set(xlabel="x [m]", ylabel="y [m]", title="tool-centre point: desired (dashed) and achieved")
    ax_path.set_aspect("equal", adjustable="datalim")
    ax_path.legend(fontsize=7)
    ax_err.set(xlabel="t [s]", ylabel="|X_d - X| [mm]", title="tracking error")
    ax_f1.set(xlabel="t [s]", ylabel="f_p1 [kN]", title="lift piston force: required (dashed), achieved")
    ax_f2.set(xlabel="t [s]", ylabel="f_p2 [kN]", title="tilt piston force: required (dashed), achieved")
    ax_p.set(xlabel="t [s]", ylabel="p [bar]", title="chamber pressures a (dark), b (light); lift -, tilt :")
    ax_u.set(xlabel="t [s]", ylabel="u [V]", title="valve voltages; lift -, tilt :")
    for ax in axes.flat:
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    print(f"plot_manipulator: {out} ({n} instances)")


def plot_errors(f, out):
    o = f["outputs"]
    status = o["status"][:]
    ok = status == 0
    varied = varied_inputs(f)
    ncols = max(1, len(varied))
    fig, axes = plt.subplots(1, 1 + ncols, figsize=(4.5 * (1 + ncols), 4))
    ax = axes[0]
    for name, c in (("tcp_error_rms", "C0"), ("tcp_error_peak", "C3")):
        v = np.sort(o[name][:][ok]) * 1e3
        if len(v):
            ax.step(v, np.arange(1, len(v) + 1) / len(v), where="post", color=c, label=name)
    ax.set(xlabel="TCP error [mm]", ylabel="fraction of instances", title=f"CDF over {ok.sum()} ok instances")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    peak = o["tcp_error_peak"][:] * 1e3
    for j, name in enumerate(varied):
        a = axes[1 + j]
        x = f["inputs"][name][:]
        a.plot(x[ok], peak[ok], ".", ms=2, alpha=0.5)
        if (~ok).any():
            a.plot(x[~ok], np.zeros((~ok).sum()), "rx", ms=4, label="failed")
            a.legend(fontsize=7)
        a.set(xlabel=name, ylabel="peak TCP error [mm]")
        a.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    rms = o["tcp_error_rms"][:][ok]
    if len(rms):
        print(f"plot_manipulator: {out}; {ok.sum()}/{len(status)} ok, RMS TCP error median {np.median(rms) * 1e3:.3f} mm, "
              f"95 % {np.quantile(rms, 0.95) * 1e3:.3f} mm")
    else:
        print(f"plot_manipulator: {out}; no instance ended ok")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=Path)
    ap.add_argument("--instances", type=int, default=4)
    args = ap.parse_args()
    path = args.dir / "results.h5"
    if not path.exists():
        sys.exit(f"plot_manipulator: {path} does not exist (run the study first)")
    plots = args.dir / "plots"
    plots.mkdir(exist_ok=True)
    with h5py.File(path, "r") as f:
        if text(f["metadata"].attrs.get("model", "")) != "lift-tilt":
            sys.exit(f"plot_manipulator: {path} is not a lift-tilt study")
        if "trajectories" in f and "tcp_x" in f["trajectories"]:
            plot_paths(f, plots / "manipulator_path.png", args.instances)
        plot_errors(f, plots / "manipulator_errors.png")


if __name__ == "__main__":
    main()
