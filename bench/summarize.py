#!/usr/bin/env python3
"""Render benchmark result files (bench/results/*.json) as Markdown.

    python3 bench/summarize.py                      # every file in bench/results/
    python3 bench/summarize.py FILE.json [...]      # chosen files

Prints one section per file: the machine line, then the throughput table
(cpu_throughput) or the error/throughput comparison (cvode_peer). Standard
library only.
"""
import glob
import json
import os
import sys


def machine_line(m):
    return (f"*{m['cpu_model']}, {m['logical_cores']} logical cores, {m['compiler']}, "
            f"`{m.get('cxx_flags', '?')}`, source {m['source_revision']}, {m['date_utc']}*")


def cpu_throughput(d):
    w = d["workload"]
    out = [f"**CPU batch throughput** — {w['instances']} instances x {w['duration_s']:g} s, "
           f"dt = {1e3 * w['dt_s']:g} ms, {w['friction']}, fastest of {w['repeats']}", "",
           machine_line(d["machine"]), "",
           "| threads | instance-steps/s | work cycles/s | per thread | Newton it./step | speed-up |",
           "|---:|---:|---:|---:|---:|---:|"]
    for r in d["results"]:
        out.append(f"| {r['threads']} | {r['instance_steps_per_s']:.3g} | {r['work_cycles_per_s']:.1f} | "
                   f"{r['work_cycles_per_s_per_thread']:.1f} | {r['mean_newton_iterations_per_step']:.2f} | "
                   f"{r['speedup_vs_1_thread']:.2f}x |")
    return out


def err(r):
    return (f"{r['crank_angle_error_rad']:.1e} | {r['pressure_error_rel_1MPa']:.1e} | "
            f"{r['trajectory_max_crank_angle_error_rad']:.1e} | {r['trajectory_max_pressure_error_rel_1MPa']:.1e}")


def cvode_peer(d):
    ours = d["hydrosweep"]
    ref = d["reference"]
    out = [f"**Peer: SUNDIALS CVODE {d['workload']['sundials_version']}** (BDF, dense, DQ Jacobian), one core; "
           f"errors against CVODE at rtol {ref['rtol']:g} "
           "(final state at t = 10 s, and max over the trajectory sampled every 10 ms; "
           "q0 in rad, p relative to 1 MPa)", "",
           machine_line(d["machine"]), "",
           "| integrator | setting | final q0 | final p | traj. q0 | traj. p | steps/cycle | work cycles/s |",
           "|---|---|---:|---:|---:|---:|---:|---:|"]
    marks = {}
    for key, label in (("cvode_error_matched", "matched, final state"),
                       ("cvode_error_matched_trajectory", "matched, trajectory")):
        if key in d:
            marks.setdefault(d[key]["rtol"], []).append(label)
    for r in d["hydrosweep_dt_sweep"]:
        bold = "**" if r["dt_s"] == ours["dt_s"] else ""
        out.append(f"| {bold}hydrosweep trapezoid{bold} | dt {1e3 * r['dt_s']:g} ms | {err(r)} | "
                   f"{r['steps_per_cycle']} | {bold}{r['work_cycles_per_s']:.1f}{bold} |")
    for r in d["cvode_sweep"]:
        note = f" ({', '.join(marks[r['rtol']])})" if r["rtol"] in marks else ""
        out.append(f"| CVODE BDF | rtol {r['rtol']:.1e}{note} | {err(r)} | {r['steps_per_cycle']} | "
                   f"{r['work_cycles_per_s']:.1f} |")
    out += ["", f"hydrosweep at dt = 1 ms, 1 thread: {ours['instance_steps_per_s']:.3g} instance-steps/s, "
                f"{ours['work_cycles_per_s']:.1f} work cycles/s, {ours['mean_newton_iterations_per_step']:.2f} "
                "Newton iterations/step."]
    for key, label in (("cvode_error_matched", "error-matched on the final state"),
                       ("cvode_error_matched_trajectory", "error-matched on the trajectory"),
                       ("cvode_rtol_1e-6", "at rtol 1e-6")):
        if key in d:
            r = d[key]
            out.append(f"CVODE {label} (rtol {r['rtol']:.1e}): {r['work_cycles_per_s']:.1f} work cycles/s; "
                       f"hydrosweep (dt 1 ms) / CVODE throughput = {r['throughput_ratio_hydrosweep_dt_1ms_to_this']:.2f}.")
    return out


def main(paths):
    if not paths:
        here = os.path.dirname(os.path.abspath(__file__))
        paths = sorted(glob.glob(os.path.join(here, "results", "*.json")))
    for path in paths:
        with open(path) as f:
            d = json.load(f)
        kind = d.get("benchmark")
        render = {"cpu_throughput": cpu_throughput, "cvode_peer": cvode_peer}.get(kind)
        if render is None:
            print(f"<!-- {path}: unknown benchmark {kind!r} -->")
            continue
        print(f"<!-- {os.path.basename(path)} -->")
        print("\n".join(render(d)))
        print()


if __name__ == "__main__":
    main(sys.argv[1:])
