#!/usr/bin/env python3
"""Seed 003's Tables 1 and 4 side by side with hydrosweep's.

Runs `hydrosweep stability` on studies/stability_seed003_table1.toml with each
[stability] method (mcs, rcs, ucs), prints the equilibrium angle (Table 1's d)
and s_1 beside the paper's, then the linearization times of
bench_constrained_linearization (bench/results/seed003-linearization-*.json)
beside Tables 1 and 4, and plots them against N and n_p.

    python3 studies/seed003_tables.py [--exe build/host/cli/hydrosweep] [--out out/seed003]
                                      [--bench bench/results/seed003-linearization-<machine>.json]
                                      [--plot docs/images/seed003_linearization_time.png]
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# seed 003 Table 1: N -> (d, Im s_1); rows N = 15, 20 are withheld from the repository.
TABLE1 = {1: (2.2343, 2.1477), 5: (1.8922, 1.5455), 10: (1.8454, 1.4352)}


def run_methods(exe, out):
    import h5py
    study = os.path.join(ROOT, "studies", "stability_seed003_table1.toml")
    text = open(study).read()
    results = {}
    for method in ("mcs", "rcs", "ucs"):
        path = os.path.join(out, "stability_seed003_table1_%s.toml" % method)
        os.makedirs(out, exist_ok=True)
        with open(path, "w") as f:
            f.write(re.sub(r'method = "\w+"', 'method = "%s"' % method, text))
        d = os.path.join(out, method)
        subprocess.run([exe, "stability", path, "--out", d, "-q"], check=True)
        with h5py.File(os.path.join(d, "stability.h5"), "r") as h:
            loops = h["/inputs/linkage.loops"][:]
            results[method] = {int(n): (phi, f, st) for n, phi, f, st in zip(
                loops, h["/stability/crank_angle"][:], h["/stability/frequency"][:], h["/stability/status"][:])}
    print("Seed 003 Table 1 (N-loop four-bar linkage): equilibrium angle d [rad] and s_1 [rad/s]")
    print("%4s %4s | %9s %11s | %9s %12s %12s %12s" % ("N", "n", "d paper", "d (mcs)", "s1 paper", "s1 mcs", "s1 rcs", "s1 ucs"))
    for n in sorted(results["mcs"]):
        paper = TABLE1.get(n)
        row = results["mcs"][n]
        print("%4d %4d | %9s %11.6f | %9s %12.7f %12.7f %12.7f" % (
            n, 2 * n + 3, "%.4f" % paper[0] if paper else "-", row[0], "±%.4fi" % paper[1] if paper else "-",
            results["mcs"][n][1], results["rcs"][n][1], results["ucs"][n][1]))


def bench_tables(path, plot):
    b = json.load(open(path))
    m = b.get("machine", {})
    print("\nLinearization time (terms + eigenproblem, equilibrium excluded), %s; paper: i7-4790K, MATLAB" %
          "%s, %s cores" % (m.get("cpu_model", "this machine"), m.get("logical_cores", "?")))
    print("%4s | %9s %9s %9s | %9s %9s %9s   [ms]" % ("N", "MCS", "RCS", "UCS", "paper MCS", "RCS", "UCS"))
    for r in b["nloop"]:
        p = [r.get("paper_%s_ms" % k) for k in ("mcs", "rcs", "ucs")]
        ps = ["%9.3f" % v if v is not None else "%9s" % "-" for v in p]
        print("%4d | %9.4f %9.4f %9.4f | %s" % (r["N"], r["mcs_ms"], r["rcs_ms"], r["ucs_ms"], " ".join(ps)))
    print("%4s | %9s %9s %9s | %9s %9s %9s   [s]" % ("n_p", "MCS", "RCS", "UCS", "paper MCS", "RCS", "UCS"))
    for r in b["pendulum"]:
        print("%4d | %9.4f %9.4f %9.4f | %9.3f %9.3f %9.3f" % (r["n_p"], r["mcs_s"], r["rcs_s"], r["ucs_s"],
                                                              r["paper_mcs_s"], r["paper_rcs_s"], r["paper_ucs_s"]))
    for r in b.get("batched", []):
        print("batched %s, %d thread(s): %.4g problems/s" % (r["method"], r["threads"], r["problems_per_second"]))
    if not plot:
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 2, figsize=(11, 4.2))
    colors = {"mcs": "C0", "rcs": "C1", "ucs": "C2"}
    for k in ("mcs", "rcs", "ucs"):
        ax[0].plot([r["N"] for r in b["nloop"]], [r["%s_ms" % k] for r in b["nloop"]], "o-", color=colors[k],
                   label="%s (hydrosweep)" % k.upper())
        pr = [r for r in b["nloop"] if "paper_%s_ms" % k in r]
        ax[0].plot([r["N"] for r in pr], [r["paper_%s_ms" % k] for r in pr], "s--", color=colors[k], alpha=0.5,
                   label="%s (seed 003, MATLAB)" % k.upper())
        ax[1].plot([r["n_p"] for r in b["pendulum"]], [r["%s_s" % k] for r in b["pendulum"]], "o-", color=colors[k])
        ax[1].plot([r["n_p"] for r in b["pendulum"]], [r["paper_%s_s" % k] for r in b["pendulum"]], "s--",
                   color=colors[k], alpha=0.5)
    ax[0].set(xlabel="loops N (n = 2N + 3)", ylabel="linearization time [ms]", yscale="log",
              title="N-loop four-bar linkage (Table 1)")
    ax[1].set(xlabel="elements per link n_p (n = 6 n_p + 12)", ylabel="linearization time [s]", yscale="log",
              xscale="log", title="flexible double pendulum (Table 4)")
    ax[0].legend(fontsize=8)
    for a in ax:
        a.grid(True, which="both", alpha=0.3)
    fig.suptitle("Seed 003 linearization: terms + eigenproblem (equilibrium excluded); %s (%s cores, reference LAPACK) "
                 "vs i7-4790K MATLAB" % (m.get("cpu_model", ""), m.get("logical_cores", "?")), fontsize=9)
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(plot)), exist_ok=True)
    fig.savefig(plot, dpi=110)
    print("wrote %s" % plot)


def main():
    a = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("--exe", default=os.path.join(ROOT, "build", "host", "cli", "hydrosweep"))
    a.add_argument("--out", default=os.path.join(ROOT, "out", "seed003"))
    a.add_argument("--bench", default=None)
    a.add_argument("--plot", default=None)
    args = a.parse_args()
    run_methods(args.exe, args.out)
    bench = args.bench or next(iter(sorted(glob.glob(os.path.join(ROOT, "bench", "results", "seed003-linearization-*.json")))), None)
    if bench and os.path.exists(bench):
        bench_tables(bench, args.plot)
    else:
        print("\n(no bench/results/seed003-linearization-*.json: run bench_constrained_linearization for the times)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
