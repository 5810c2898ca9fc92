#!/usr/bin/env python3
"""Plots of the seed 000 reference cases written by seed000_reference.

    ./build/studies/seed000_reference --out DIR
    python3 studies/plot_seed000.py DIR

DIR/counterpart_h.png   relative error of the finite-difference counterpart's
                        eigenvalues versus the step h (seed 000 Fig. 14's study)
DIR/pulse_response.png  crank angle after the torque pulse M2 (eq 92): nonlinear
                        Baumgarte run and the 6x6 linear model from t2, for the
                        three friction scenarios (Figs 7-12's comparison)
"""
import csv
import math
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return rows


def num(v):
    try:
        return float(v)
    except ValueError:
        return math.nan


def counterpart(d):
    rows = read(d / "counterpart_h.csv")
    h = [num(r["h"]) for r in rows]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for key in rows[0]:
        if key == "h":
            continue
        err = [max(num(r[key]), 1e-17) for r in rows]
        ax.loglog(h, err, marker="o", ms=3, label="λ = " + key.replace("rel_error_lambda_", "") + " 1/s")
    ax.set_xlabel("step h (absolute, eq 100)")
    ax.set_ylabel("relative error of the eigenvalue")
    ax.set_title("FD counterpart (24×24) vs reduced Jacobian, overdamped case")
    ax.axvline(1e-5, color="grey", ls=":", lw=1)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(d / "counterpart_h.png", dpi=130)
    plt.close(fig)


def pulse(d):
    names = [("overdamped", "friction ×1 (overdamped)"),
             ("friction_0.1", "friction ×1/10"),
             ("friction_0.01", "friction ×1/100")]
    fig, axes = plt.subplots(len(names), 1, figsize=(7.0, 8.0), sharex=True)
    for ax, (name, title) in zip(axes, names):
        rows = read(d / f"pulse_{name}.csv")
        t = [num(r["t"]) for r in rows]
        nl = [1e3 * num(r["phi2_deviation_nonlinear"]) for r in rows]
        li = [1e3 * num(r["phi2_deviation_linear"]) for r in rows]
        ax.plot(t, nl, label="nonlinear (Baumgarte, eq 89)", lw=1.4)
        ax.plot(t, li, "--", label="linear 6×6 from t2 (eq 94)", lw=1.2)
        ax.axvspan(0.0, 1.5, color="0.92", zorder=0)
        ax.set_ylabel("φ2 − φ2⁰ [mrad]")
        ax.set_title(title, fontsize=10)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8, loc="upper left")
    axes[-1].set_xlabel("t [s]  (shaded: torque M2 applied, M0 = 250 N·m)")
    fig.tight_layout()
    fig.savefig(d / "pulse_response.png", dpi=130)
    plt.close(fig)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: plot_seed000.py DIR")
    d = Path(sys.argv[1])
    counterpart(d)
    pulse(d)
    print(f"wrote {d / 'counterpart_h.png'} and {d / 'pulse_response.png'}")


if __name__ == "__main__":
    main()
