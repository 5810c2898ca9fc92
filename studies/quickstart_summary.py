#!/usr/bin/env python3
"""One-screen summary of the main command's three results (scripts/run_default.sh).

    python3 studies/quickstart_summary.py OUT_ROOT [--seconds S]

OUT_ROOT holds work_cycle/ (one traced instance, `hydrosweep run`),
monte_carlo/ (the Monte Carlo study, `hydrosweep run` + `hydrosweep plot`) and
stability_map/ (`hydrosweep stability`). Everything printed is read from their
results.h5 / stability.h5 (values, units and analyses as hydrosweep wrote
them); nothing is recomputed. Exit 2 when a directory or file is missing.
"""
import argparse
import sys
from pathlib import Path

import h5py
import numpy as np

SHOWN_UNITS = {"Pa": (1e-6, "MPa")}  # pressures in MPa, everything else as stored


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def shown(unit):
    return SHOWN_UNITS.get(unit, (1.0, unit or "-"))


def status_counts(ds):
    names = [text(n) for n in ds.attrs["status_names"]]
    codes, counts = np.unique(ds[:], return_counts=True)
    return {names[c]: int(n) for c, n in zip(codes, counts)}


def failures_text(counts):
    failed = {k: v for k, v in counts.items() if k != "ok"}
    if not failed:
        return "0 failed"
    return f"{sum(failed.values())} failed (" + ", ".join(f"{k} {v}" for k, v in failed.items()) + ")"


def work_cycle(d):
    with h5py.File(d / "results.h5", "r") as f:
        m, o = f["metadata"].attrs, f["outputs"]
        print(f"1. One instance, traced: {text(m['study_description'])}")
        print(f"   {text(m['model'])}, {text(m['friction'])}, {text(m['formulation'])}, "
              f"{m['duration']:g} s at dt = {m['dt'] * 1e3:g} ms: {int(o['steps'][0])} steps, "
              f"{failures_text(status_counts(o['status']))}")
        print(f"   final crank angle q1 = {o['q1'][0]:.6f} rad, peak piston-side pressure p2_max = "
              f"{o['p2_max'][0] * 1e-6:.4f} MPa, energy-balance drift {o['peak_energy_drift'][0]:.2e} J")
    print(f"   plot: {d / 'plot.png'}")


def monte_carlo(d):
    with h5py.File(d / "results.h5", "r") as f:
        m, o, a = f["metadata"].attrs, f["outputs"], f["analysis"]
        n = int(m["instance_count"])
        varied = [k for k in f["inputs"].keys() if k != "all"]
        print(f"2. Parameter study: {text(m['study_description'])}")
        print(f"   {n} instances ({text(m['sample_method'])}, seed {int(m['seed'])}) on {text(m['backend'])} "
              f"({int(m['threads'])} threads): {failures_text(status_counts(o['status']))}")
        print(f"   varied: {', '.join(varied)}")
        conf = float(a.attrs["confidence"])
        stats = a["statistics"]
        levels = stats[next(iter(stats))]["quantile_levels"][:]
        head = "   {:<22}{:>26}".format("quantity", f"mean [{conf:.0%} CI]") + "".join(
            f"{f'q{lv:g}':>11}" for lv in levels)
        print(head)
        for q in stats:
            g = stats[q]
            k, unit = shown(text(o[q].attrs.get("unit", "")))
            mean = f"{g.attrs['mean'] * k:.5g} [{g.attrs['mean_ci_low'] * k:.5g}, {g.attrs['mean_ci_high'] * k:.5g}]"
            print("   {:<22}{:>26}".format(f"{q} [{unit}]", mean) +
                  "".join(f"{v * k:>11.5g}" for v in g["quantiles"][:]))
        if "failure" in a:
            fa = a["failure"].attrs
            k, unit = shown(text(o[text(fa["quantity"])].attrs.get("unit", "")))
            rel = ">" if text(fa["direction"]) == "above" else "<"
            print(f"   P({text(fa['quantity'])} {rel} {fa['limit'] * k:g} {unit}) = {fa['probability']:.4f}, "
                  f"{conf:.0%} CI [{fa['ci_low']:.4f}, {fa['ci_high']:.4f}] "
                  f"({int(fa['failures'])} of {int(fa['count'])}, {text(fa['method'])})")
    plots = sorted((d / "plots").glob("*.png"))
    print(f"   plots: {d / 'plots'}/ ({len(plots)}: " + ", ".join(p.name for p in plots[:3]) +
          (", ..." if len(plots) > 3 else "") + ")")


def stability_map(d):
    with h5py.File(d / "stability.h5", "r") as f:
        m, s = f["metadata"].attrs, f["stability"]
        status, max_real = s["status"][:], s["max_real"][:]
        ok = status == 0
        print(f"3. Stability map: {text(m['study_description'])}")
        print(f"   {len(status)} points ({text(m['model'])}) on {text(m['backend'])} in {m['wall_seconds']:.2f} s: "
              f"{int(np.sum(ok & (max_real < 0)))} stable, {int(np.sum(ok & (max_real >= 0)))} unstable, "
              f"{failures_text(status_counts(s['status']))}")
        # The stable share along the slowest grid axis that has few values (a
        # payload, a load case), when there is one.
        factors = [text(x) for x in m["factors"]] if "factors" in m else []
        for name in factors:
            ds = f["inputs"].get(name)
            if ds is None:
                continue
            values = np.unique(ds[:])
            if 1 < len(values) <= 5:
                k, unit = shown(text(ds.attrs.get("unit", "")))
                shares = []
                for v in values:
                    sel = ds[:] == v
                    shares.append(f"{v * k:g} {unit}: {np.mean(ok[sel] & (max_real[sel] < 0)):.0%}")
                print(f"   stable share by {name}: " + ", ".join(shares))
                break
    print(f"   plot: {d / 'stability_map.png'}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("--seconds", type=float, help="wall time of the whole run, printed last")
    args = ap.parse_args()
    parts = [("work_cycle", "results.h5", work_cycle), ("monte_carlo", "results.h5", monte_carlo),
             ("stability_map", "stability.h5", stability_map)]
    for sub, name, _ in parts:
        if not (args.root / sub / name).is_file():
            print(f"quickstart_summary: {args.root / sub / name} not found (run scripts/run_default.sh)", file=sys.stderr)
            return 2
    print(f"hydrosweep: what the main command ran ({args.root}/)")
    for sub, _, show in parts:
        print()
        show(args.root / sub)
    if args.seconds is not None:
        print(f"\ndone in {args.seconds:.0f} s (studies and plots; the build before them not counted)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
