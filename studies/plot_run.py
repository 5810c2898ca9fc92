#!/usr/bin/env python3
"""Plot the results of `hydrosweep run STUDY --out DIR`.

    python3 studies/plot_run.py DIR [--out FILE.png] [--instances K] [--y OUTPUT]

With trajectories (output.trajectory_stride > 0): crank angle, pressures
p1..p3, spool opening U and energy drift against time for the first K
instances; with several cylinders (columns p1_1, U_2, ...) each one's, and
with stroke controllers (control_reference) each cylinder's extension
s - s(0) beside its reference. Without: a scatter of one scalar output (--y, default
peak_energy_drift) against the first varied input, coloured by the second
varied input if there is one; failed instances are drawn as red crosses.
The figure goes to DIR/plot.png unless --out says otherwise.
"""
import argparse
import sys
from pathlib import Path

import h5py
import matplotlib

matplotlib.use("Agg")  # headless: no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def text(value):
    """HDF5 string attributes come back as str or bytes depending on h5py."""
    return value.decode() if isinstance(value, bytes) else str(value)


def instance_label(f, i, varied):
    parts = [f"#{i}"]
    for name in varied[:3]:
        parts.append(f"{name.split('.')[-1]}={f['inputs'][name][i]:.4g}")
    status = int(f["outputs/status"][i])
    if status != 0:
        parts.append(f"[{text(f['outputs/status'].attrs['status_names'][status])}]")
    return " ".join(parts)


def plot_trajectories(f, ax_title, varied, k):
    tr = f["trajectories"]
    # The model's driving coordinate (the crank angle of the four-bars); q1 in older files.
    driving = f["metadata"].attrs.get("driving_coordinate", "q1")
    if isinstance(driving, bytes):
        driving = driving.decode()
    n = tr["t"].shape[0]
    # One cylinder: U, p1; several: U_1, p1_1, U_2, ... (the run columns' suffixes).
    acts = [""] if "U" in tr else sorted((k[1:] for k in tr if k.startswith("U_")), key=lambda x: int(x[1:]))
    controlled = [a for a in acts if f"control_reference{a}" in tr and np.isfinite(tr[f"control_reference{a}"][0]).any()]
    rows = 5 if controlled else 4
    fig, axes = plt.subplots(rows, 1, figsize=(9, 2.5 * rows), sharex=True)
    styles = ["-", "--", ":", "-."]
    for i in range(min(k, n)):
        t = tr["t"][i]
        ok = np.isfinite(t)  # samples after a failure are NaN
        t = t[ok]
        label = instance_label(f, i, varied)
        ls = styles[i % len(styles)]
        line, = axes[0].plot(t, np.degrees(tr[driving][i][ok]), ls, label=label)
        if int(f["outputs/status"][i]) != 0:  # mark where it stopped (between samples)
            for ax in axes:
                ax.axvline(f["outputs/t_end"][i], color=line.get_color(), ls=":", alpha=0.6)
        for a, act in enumerate(acts):
            for j in (1, 2, 3):
                axes[1].plot(t, tr[f"p{j}{act}"][i][ok] / 1e6, ls, color=f"C{(j - 1 + 3 * a) % 10}",
                             label=f"p{j}{act}" if i == 0 else None)
            axes[2].plot(t, tr[f"U{act}"][i][ok], ls, color=f"C{a}" if len(acts) > 1 else None,
                         label=(f"U{act}" if i == 0 else None) if len(acts) > 1 else label)
        for a, act in enumerate(controlled):
            s = tr[f"s{act}"][i][ok]
            axes[3].plot(t, s - s[0], ls, color=f"C{a}", label=f"s{act} - s{act}(0)" if i == 0 else None)
            axes[3].plot(t, tr[f"control_reference{act}"][i][ok], ":", color=f"C{a}",
                         label=f"reference{act}" if i == 0 else None)
        axes[-1].plot(t, tr["energy_drift"][i][ok], ls, label=label)
    if controlled:
        axes[3].set_ylabel("stroke [m]")
        axes[3].legend(fontsize="small", ncol=2)
    axes[0].set_ylabel(f"driving coordinate {driving} [deg]")
    axes[1].set_ylabel("pressure [MPa]")
    axes[2].set_ylabel("spool opening U [V]")
    axes[-1].set_ylabel("energy drift [J]")
    axes[-1].set_xlabel("time [s]")
    axes[0].legend(fontsize="small")
    axes[1].legend(fontsize="small", ncol=3)
    if len(acts) > 1:
        axes[2].legend(fontsize="small")
    for ax in axes:
        ax.grid(True, alpha=0.3)
    if n > k:
        ax_title += f" (first {k} of {n} instances)"
    fig.suptitle(ax_title)
    return fig


def plot_scatter(f, title, varied, y_name):
    if y_name not in f["outputs"]:
        sys.exit(f"plot_run: no output '{y_name}'; have: {', '.join(sorted(f['outputs']))}")
    x = f["inputs"][varied[0]][:]
    y = f["outputs"][y_name][:]
    ok = f["outputs/status"][:] == 0
    fig, ax = plt.subplots(figsize=(8, 5.5))
    if len(varied) > 1:
        c = f["inputs"][varied[1]][:]
        sc = ax.scatter(x[ok], y[ok], c=c[ok], s=14, cmap="viridis")
        fig.colorbar(sc, ax=ax, label=f"{varied[1]} [{text(f['inputs'][varied[1]].attrs['unit'])}]")
    else:
        ax.scatter(x[ok], y[ok], s=14)
    if (~ok).any():
        ax.scatter(x[~ok], y[~ok], marker="x", color="red", label=f"failed ({int((~ok).sum())})")
        ax.legend()
    ax.set_xlabel(f"{varied[0]} [{text(f['inputs'][varied[0]].attrs['unit'])}]")
    ax.set_ylabel(f"{y_name} [{text(f['outputs'][y_name].attrs['unit'])}]")
    positive = y[ok & np.isfinite(y)]
    if positive.size and (positive > 0).all() and positive.max() > 100 * positive.min():
        ax.set_yscale("log")
    xs = x[x > 0]
    if xs.size == x.size and x.max() > 100 * x.min():
        ax.set_xscale("log")
    ax.grid(True, alpha=0.3)
    ax.set_title(title)
    return fig


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", help="output directory of `hydrosweep run`")
    p.add_argument("--out", help="image file (default DIR/plot.png)")
    p.add_argument("--instances", type=int, default=4, help="trajectories: how many instances to draw (default 4)")
    p.add_argument("--y", default="peak_energy_drift", help="scatter: which /outputs dataset to plot (default peak_energy_drift)")
    args = p.parse_args()

    path = Path(args.dir) / "results.h5"
    if not path.is_file():
        sys.exit(f"plot_run: {path} not found")
    out = Path(args.out) if args.out else Path(args.dir) / "plot.png"
    with h5py.File(path, "r") as f:
        meta = f["metadata"].attrs
        varied = [text(v) for v in f["inputs"].attrs["varied"]]
        title = (f"{text(meta['study_name'])}: {text(meta['model'])}, {text(meta['friction'])}, "
                 f"dt {meta['dt']:g} s, {int(meta['instance_count'])} instance(s)")
        if "trajectories" in f:
            fig = plot_trajectories(f, title, varied, max(1, args.instances))
        elif varied:
            fig = plot_scatter(f, title, varied, args.y)
        else:
            sys.exit("plot_run: nothing to plot (no trajectories and no varied inputs); "
                     "set output.trajectory_stride > 0 or add a [[grid]]")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
