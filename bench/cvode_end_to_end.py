#!/usr/bin/env python3
"""End to end against an independent CVODE loop (issue 40): the same design of
N four-bar instances (seed 002 work cycle, Brown-McPhee friction, 10 s) from a
CSV file to results on disk, two ways, each as a whole process:

  hydrosweep:  hydrosweep run study.toml --out DIR --threads T -q
               (reads the study and the design, checks every row, runs in
               8-lane lockstep, writes results.h5 and summary.csv)
  CVODE loop:  bench_cvode_peer --loop design.csv --rtol R --results out.csv --threads T
               (a user's program: reads the design, one CVODE solver per
               thread, BDF + dense Newton with the kernel's right-hand side,
               restarted at each valve switch; writes one CSV line per row)

    python3 bench/cvode_end_to_end.py [--build build] [--instances 200] [--repeats 5] [--out FILE]

CVODE runs at the tolerances bench_cvode_peer matched to hydrosweep's dt = 1 ms
(docs/performance.md §1): rtol 10^-6.5 (as accurate over the trajectory) and
10^-7.5 (as accurate in the final state); --rtol overrides them. Each command
runs --repeats times in a fresh process; the median wall time counts (the
fastest is recorded too). The design: friction.coulomb_force = 210 N x
U(0.9, 1.1), Python's random.Random(2024).

As a check that both sides ran the same instances, the final crank angle q1
of every instance is compared between the two (the trapezoid's and CVODE's
errors at these settings are ~1e-5 rad over the trajectory); a difference
over 1e-3 rad stops the benchmark. A benchmark, not a test: it prints the
figures and writes JSON (nothing asserts on time).
"""
import argparse
import csv
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_machine import machine, machine_tag, write_json  # noqa: E402

STUDY = """[study]
name = "cvode_end_to_end"
description = "four-bar, seed 002 work cycle: Coulomb friction x U(0.9, 1.1), one row per instance"
model = "four-bar"
friction = "brown-mcphee"
formulation = "double-step"

[integrator]
dt = 1e-3
duration = 10.0

[sample]
method = "rows"
file = "design.csv"
"""

MATCHED_RTOLS = {"trajectory": 10 ** -6.5, "final state": 10 ** -7.5}


def timed(cmd, cwd, repeats):
    walls = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        walls.append(time.perf_counter() - t0)
        if p.returncode != 0:
            sys.exit(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stdout}{p.stderr}")
    return {"median_s": statistics.median(walls), "min_s": min(walls), "walls_s": walls}


def column(path, name):
    with open(path) as f:
        rows = [r for r in csv.reader(line for line in f if not line.startswith("#"))]
    k = rows[0].index(name)
    return [float(r[k]) for r in rows[1:]]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--instances", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", default=f"1,{os.cpu_count()}", help="comma-separated thread counts")
    ap.add_argument("--rtol", type=float, action="append", help="CVODE tolerance(s) instead of the matched two")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    cli = os.path.abspath(os.path.join(args.build, "host/cli/hydrosweep"))
    loop = os.path.abspath(os.path.join(args.build, "bench/bench_cvode_peer"))
    for exe in (cli, loop):
        if not os.access(exe, os.X_OK):
            sys.exit(f"{exe} is missing: cmake --build {args.build} --target hydrosweep bench_cvode_peer")
    threads = sorted({int(t) for t in args.threads.split(",")})
    rtols = {f"rtol {r:.3g}": r for r in args.rtol} if args.rtol else \
        {f"matched on the {k}": r for k, r in MATCHED_RTOLS.items()}

    tmp = tempfile.mkdtemp(prefix="hs-e2e-")
    try:
        rng = random.Random(2024)
        with open(os.path.join(tmp, "design.csv"), "w") as f:
            f.write("friction.coulomb_force\n")
            for _ in range(args.instances):
                f.write(f"{210.0 * (1.0 + 0.1 * (2.0 * rng.random() - 1.0)):.17g}\n")
        with open(os.path.join(tmp, "study.toml"), "w") as f:
            f.write(STUDY)

        rows = []
        for t in threads:
            ours = timed([cli, "run", "study.toml", "--out", "out", "--threads", str(t), "-q"], tmp, args.repeats)
            q_ours = column(os.path.join(tmp, "out", "summary.csv"), "q1")
            row = {"threads": t, "hydrosweep": ours, "cvode": {}}
            print(f"{t} thread(s), {args.instances} instances: hydrosweep run {ours['median_s']:.3f} s "
                  f"(median of {args.repeats}, fastest {ours['min_s']:.3f} s)")
            for label, rtol in rtols.items():
                c = timed([loop, "--loop", "design.csv", "--rtol", repr(rtol), "--results", "cvode.csv",
                           "--threads", str(t)], tmp, args.repeats)
                q_cvode = column(os.path.join(tmp, "cvode.csv"), "q1")
                dq = max(abs(a - b) for a, b in zip(q_ours, q_cvode))
                if len(q_cvode) != len(q_ours) or not dq <= 1e-3:
                    sys.exit(f"the two sides disagree: {len(q_ours)} / {len(q_cvode)} rows, max |dq1| = {dq:.3g} rad")
                c.update(rtol=rtol, max_final_q1_difference_rad=dq, speedup=c["median_s"] / ours["median_s"])
                row["cvode"][label] = c
                print(f"  CVODE loop, {label} (rtol {rtol:.3g}): {c['median_s']:.3f} s "
                      f"(fastest {c['min_s']:.3f} s); hydrosweep / CVODE loop = {c['speedup']:.2f}x; "
                      f"max |q1 difference| {dq:.2g} rad")
            rows.append(row)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    out = args.out or os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                                   f"cvode-end-to-end-{machine_tag()}.json")
    write_json(out, {"benchmark": "cvode_end_to_end", "machine": machine(),
                     "workload": {"model": "four-bar (seed 002)", "friction": "brown-mcphee", "dt_s": 1e-3,
                                  "duration_s": 10.0, "instances": args.instances,
                                  "design": "friction.coulomb_force = 210 N x U(0.9, 1.1), random.Random(2024)",
                                  "timing": "whole process, median of `repeats` runs",
                                  "repeats": args.repeats},
                     "runs": rows})


if __name__ == "__main__":
    main()
