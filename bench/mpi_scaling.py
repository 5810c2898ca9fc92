#!/usr/bin/env python3
"""Strong and weak scaling of one study over MPI ranks (issue 17).

    python3 bench/mpi_scaling.py --cli build/host/cli/hydrosweep [--ranks 1 2 4] [--out bench/results/...json]

Strong: the same 2000-instance study (the seed 002 work cycle over a friction
x bulk-modulus grid) on 1, 2, 4 ranks. Weak: 500 instances per rank. Each point
is `mpirun -np K --oversubscribe --bind-to none hydrosweep run` (and, as the
baseline, the CLI without mpirun), timed from outside (wall: start-up, run,
rank 0's analysis and writing) and by the run record (/metadata wall_seconds:
the slowest rank's integration time). Threads per rank: the node's cores
divided among its ranks (at least 1), so more ranks than cores oversubscribe.
Prints the table and writes JSON. A benchmark, not a test.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_machine import machine, write_json  # noqa: E402


def study_text(n):
    return f"""[study]
name = "mpi_scaling"
model = "four-bar"
[integrator]
dt = 1e-3
duration = 10.0
[[grid]]
parameter = "friction.coulomb_force"
min = 100.0
max = 400.0
count = {n // 10}
[[grid]]
parameter = "circuit.oil_bulk_modulus"
min = 1.2e9
max = 1.8e9
count = 10
[analysis]
quantities = ["p2_max", "q1"]
bootstrap = 100
"""


def run(cli, mpirun, ranks, n, tmp):
    study = os.path.join(tmp, f"study{n}.toml")
    with open(study, "w") as f:
        f.write(study_text(n))
    out = os.path.join(tmp, "out")
    shutil.rmtree(out, ignore_errors=True)
    cmd = [cli, "run", study, "--out", out, "-q"]
    env = dict(os.environ)
    if ranks > 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        cmd = [mpirun, "-np", str(ranks), "--oversubscribe", "--bind-to", "none"] + cmd
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"mpi_scaling: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
    with h5py.File(os.path.join(out, "results.h5"), "r") as f:
        m = f["metadata"].attrs
        record = {"integration_s": float(m["wall_seconds"]), "threads_per_rank": int(m["threads"]),
                  "ranks_recorded": int(m["ranks"]), "steps": int(f["outputs/steps"][:].sum())}
    with open(os.path.join(out, "summary.csv"), "rb") as f:
        digest = hash(f.read())
    shutil.rmtree(out, ignore_errors=True)
    return {"ranks": ranks if ranks > 0 else "no mpirun", "instances": n, "wall_s": round(wall, 3),
            "instance_steps_per_s_wall": record["steps"] / wall, **record}, digest


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", default="build/host/cli/hydrosweep")
    ap.add_argument("--mpirun", default=shutil.which("mpirun") or "mpirun")
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--out", default="bench/results/mpi-scaling-amd-epyc-2c.json")
    args = ap.parse_args()
    cli = os.path.abspath(args.cli)
    tmp = tempfile.mkdtemp(prefix="hs-mpi-")
    try:
        strong, weak = [], []
        base, base_digest = run(cli, args.mpirun, 0, 2000, tmp)
        print(f"{'kind':>6} {'ranks':>10} {'instances':>9} {'threads/rank':>12} {'wall':>8} {'integration':>11} "
              f"{'inst-steps/s':>12} {'speed-up':>8}")

        def show(kind, r, ref):
            print(f"{kind:>6} {str(r['ranks']):>10} {r['instances']:>9} {r['threads_per_rank']:>12} {r['wall_s']:>6.2f} s "
                  f"{r['integration_s']:>9.2f} s {r['instance_steps_per_s_wall']:>12.3g} {ref:>8.2f}", flush=True)

        show("strong", base, 1.0)
        for k in args.ranks:
            r, digest = run(cli, args.mpirun, k, 2000, tmp)
            r["same_summary_csv_as_one_process"] = digest == base_digest
            r["speed_up_vs_one_process"] = base["wall_s"] / r["wall_s"]
            strong.append(r)
            show("strong", r, r["speed_up_vs_one_process"])
        for k in args.ranks:
            r, _ = run(cli, args.mpirun, k, 500 * k, tmp)
            r["efficiency_vs_1_rank"] = None
            weak.append(r)
        for r in weak:
            r["efficiency_vs_1_rank"] = weak[0]["wall_s"] / r["wall_s"]
            show("weak", r, r["efficiency_vs_1_rank"])
        mpi = subprocess.run([args.mpirun, "--version"], capture_output=True, text=True).stdout.splitlines()[:1]
        doc = {
            "benchmark": "mpi_scaling",
            "machine": machine(mpi=mpi[0] if mpi else "unknown"),
            "workload": "four-bar seed 002 work cycle (10 s, dt 1 ms), grid friction x bulk modulus; strong: 2000 "
                        "instances; weak: 500 per rank; mpirun --oversubscribe --bind-to none; threads per rank = "
                        "cores / ranks on the node (at least 1)",
            "speed_up_definition": "wall time of one process without mpirun / wall time with K ranks (strong); "
                                   "wall at 1 rank / wall at K ranks with K times the instances (weak efficiency)",
            "one_process": base, "strong": strong, "weak": weak,
        }
        write_json(args.out, doc)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
