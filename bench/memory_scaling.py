#!/usr/bin/env python3
"""Peak resident memory of `hydrosweep run` against the instance count, the
chunk size and the analysed quantities (issue 17: memory grows with the chunk
size and the analysed quantities, not with the instance count).

    python3 bench/memory_scaling.py --cli build/host/cli/hydrosweep [--max-instances 1e7] [--out bench/results/...json]

Each point runs a four-bar Monte Carlo study (four sampled inputs, one derived)
of N instances with a 5-step cycle (dt = 1 ms, 5 ms: the memory question,
not the physics) in a fresh process and reads its peak RSS from
getrusage(RUSAGE_CHILDREN) (ru_maxrss, KiB). A benchmark, not a test: it prints
the figures and writes JSON. The bytes per instance are the slope of a
least-squares line through (N, peak RSS) of the instance sweep. The output
files (results.h5 with the N x P parameter matrix, summary.csv) are written to a
temporary directory and their sizes reported, then removed.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_machine import machine, write_json  # noqa: E402

QUANTITY_SETS = {
    0: [],
    4: ["p2_max", "q1", "settling_time", "tracking_rms"],
    8: ["p2_max", "q1", "settling_time", "tracking_rms", "p1_max", "p3_max", "cylinder_work", "friction_work"],
}


def study_text(n, quantities):
    q = ", ".join(f'"{x}"' for x in quantities)
    analysis = f"[analysis]\nquantities = [{q}]\nbootstrap = 10\n" if quantities else "[analysis]\nreference_run = false\n"
    return f"""[study]
name = "memory_scaling"
model = "four-bar"
[integrator]
dt = 1e-3
duration = 0.005
[sample]
method = "monte-carlo"
count = {n}
seed = 1
[[factor]]
name = "friction_scale"
scales = ["friction.coulomb_force", "friction.static_force", "friction.viscous_coefficient"]
min = 0.9
max = 1.1
[[factor]]
parameter = "circuit.oil_bulk_modulus"
relative = 0.1
[[factor]]
parameter = "circuit.valve_time_constant"
relative = 0.1
[[factor]]
parameter = "mechanism.body3.mass"
relative = 0.1
[derived]
"mechanism.body3.inertia" = "mechanism.body3.mass * 5^2 / 12"
{analysis}
[output]
trajectory_stride = 0
"""


def run_point(cli, n, quantities, chunk, tmp):
    """One fresh process; its peak RSS [bytes], wall [s] and output sizes."""
    study = os.path.join(tmp, "study.toml")
    with open(study, "w") as f:
        f.write(study_text(n, QUANTITY_SETS[quantities]))
    out = os.path.join(tmp, "out")
    shutil.rmtree(out, ignore_errors=True)
    cmd = [cli, "run", study, "--out", out, "-q"]
    if chunk:
        cmd += ["--chunk-size", str(chunk)]
    # ru_maxrss of RUSAGE_CHILDREN is the largest of all children waited for:
    # run each point through a fresh intermediate process so it is this one's.
    probe = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(r.returncode)")
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", probe] + cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"memory_scaling: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
    rss = int(p.stdout.strip().splitlines()[-1]) * 1024
    sizes = {name: os.path.getsize(os.path.join(out, name)) for name in ("results.h5", "summary.csv")}
    shutil.rmtree(out, ignore_errors=True)
    return {"instances": n, "analysed_quantities": quantities, "chunk_size": chunk or "automatic",
            "peak_rss_bytes": rss, "wall_s": round(wall, 2), "output_bytes": sizes}


def slope(points):
    xs = [p["instances"] for p in points]
    ys = [p["peak_rss_bytes"] for p in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return b, my - b * mx


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", default="build/host/cli/hydrosweep")
    ap.add_argument("--max-instances", type=float, default=1e7)
    ap.add_argument("--out", default="bench/results/memory-scaling-amd-epyc-2c.json")
    ap.add_argument("--tmp", default=None, help="directory for the outputs (needs ~2 kB per instance)")
    args = ap.parse_args()
    cli = os.path.abspath(args.cli)
    tmp = tempfile.mkdtemp(prefix="hs-memory-", dir=args.tmp)
    try:
        sweep = [n for n in (10_000, 100_000, 1_000_000, 10_000_000) if n <= args.max_instances]
        if len(sweep) < 2:
            sys.exit("memory_scaling: --max-instances must be at least 1e5 (the slope needs two instance counts)")
        results = {"instances": [], "chunk_size": [], "analysed_quantities": []}
        print(f"{'instances':>10} {'quantities':>10} {'chunk':>10} {'peak RSS':>10} {'wall':>8} {'results.h5':>11} {'summary.csv':>11}")

        def show(r):
            print(f"{r['instances']:>10} {r['analysed_quantities']:>10} {str(r['chunk_size']):>10} "
                  f"{r['peak_rss_bytes'] / 2**20:>8.1f} MiB {r['wall_s']:>6.1f} s "
                  f"{r['output_bytes']['results.h5'] / 2**20:>7.0f} MiB {r['output_bytes']['summary.csv'] / 2**20:>7.0f} MiB",
                  flush=True)

        for n in sweep:
            r = run_point(cli, n, 4, 0, tmp)
            results["instances"].append(r)
            show(r)
        n_mid = min(1_000_000, sweep[-1])
        for chunk in (1000, 16384, 65536):
            r = run_point(cli, n_mid, 4, chunk, tmp)
            results["chunk_size"].append(r)
            show(r)
        for q in (0, 8):
            r = run_point(cli, n_mid, q, 0, tmp)
            results["analysed_quantities"].append(r)
            show(r)
        b, a = slope(results["instances"])
        print(f"\npeak RSS ~ {a / 2**20:.1f} MiB + {b:.1f} B per instance (least squares over the instance sweep, "
              f"4 analysed quantities, automatic chunk size)")
        doc = {
            "benchmark": "memory_scaling",
            "machine": machine(),
            "workload": "four-bar Monte Carlo, 4 sampled inputs + 1 derived, 5 steps per instance, no trajectories, "
                        "bootstrap 10; peak RSS = ru_maxrss of the hydrosweep process",
            "bytes_per_instance": b, "intercept_bytes": a, **results,
        }
        write_json(args.out, doc)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
