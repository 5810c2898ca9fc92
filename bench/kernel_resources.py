#!/usr/bin/env python3
"""Static resources of the CUDA kernels, read from ptxas (no GPU needed).

Compiles host/run/backends/cuda_double_step.cu and cuda_penalty.cu (simulation, one
translation unit per formulation) and host/run/backends/cuda_stability.cu
(stability maps), in parallel, for one architecture with `-Xptxas -v` and records, per
kernel: registers per thread, stack frame, spill stores and loads. These
decide occupancy (255 registers allow 256 threads per SM) and how much
per-thread local memory traffic a kernel has; they are what can be measured
about the GPU path on a machine without one. Timings need a device
(bench_throughput, bench_stability_throughput).

    python3 bench/kernel_resources.py [--arch 90] [--out bench/results/kernel-resources-sm90.json]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = {
    "simulation-double-step": ("host/run/backends/cuda_double_step.cu", ["-DHYDROSWEEP_HAVE_CUDA"]),
    "simulation-penalty": ("host/run/backends/cuda_penalty.cu", ["-DHYDROSWEEP_HAVE_CUDA"]),
    "stability": ("host/run/backends/cuda_stability.cu", ["-DHYDROSWEEP_HAVE_CUDA", "-DHYDROSWEEP_HAVE_CUDA_STABILITY"]),
}
# Kernels and device functions of our own; library ones (CUB, Thrust) are left out.
def demangle(names):
    if not shutil.which("c++filt"):
        return names
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def parse(log):
    """Every function ptxas reports: stack and spills; entries also registers.
    A callee that is not inlined (kind "function") has its own spills."""
    records, entries, current = [], set(), None
    for line in log.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            entries.add(m.group(1))
            continue
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            current = {"mangled": m.group(1)}
            records.append(current)
            continue
        if current is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and "stack_bytes" not in current:
            current["stack_bytes"], current["spill_store_bytes"], current["spill_load_bytes"] = map(int, m.groups())
        m = re.search(r"Used (\d+) registers", line)
        if m and "registers" not in current:
            current["registers"] = int(m.group(1))
    names = demangle([r["mangled"] for r in records])
    for r, name in zip(records, names):
        r["kind"] = "kernel" if r["mangled"] in entries else "function"
        r["name"] = name
        del r["mangled"]
    return [r for r in records if re.match(r"(\S+ )?hs::", r["name"])]


def short(name):
    """The kernel's template arguments without the namespace noise."""
    name = name.replace("hs::", "").replace("(anonymous namespace)::", "")
    return name.split("(")[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="90", help="SM architecture number (default 90: H100/H200)")
    ap.add_argument("--out", help="result file (default bench/results/kernel-resources-sm<arch>.json)")
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    args = ap.parse_args()
    if not os.path.exists(args.nvcc):
        sys.exit("kernel_resources: nvcc not found (pass --nvcc PATH)")
    out_path = args.out or os.path.join(ROOT, "bench", "results", f"kernel-resources-sm{args.arch}.json")
    includes = ["-I" + ROOT, "-isystem=/usr/include/hdf5/serial"]
    version = subprocess.run([args.nvcc, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    result = {"benchmark": "kernel_resources", "arch": f"sm_{args.arch}", "nvcc": version,
              "source": "ptxas -v (static; no GPU involved)", "kernels": []}
    with tempfile.TemporaryDirectory() as tmp:
        jobs = {}
        for group, (source, defines) in SOURCES.items():
            cmd = [args.nvcc, *defines, *includes, "-O3", "-DNDEBUG", f"-arch=sm_{args.arch}",
                   "--expt-relaxed-constexpr", "--extended-lambda", "--fmad=false", "-std=c++17", "-Xptxas", "-v",
                   "-c", os.path.join(ROOT, source), "-o", os.path.join(tmp, group + ".o")]
            print(f"compiling {source} for sm_{args.arch} ...", flush=True)
            jobs[group] = (source, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        for group, (source, proc) in jobs.items():
            _, stderr = proc.communicate()
            if proc.returncode != 0:
                sys.exit(f"kernel_resources: nvcc failed on {source}:\n{stderr[-4000:]}")
            for entry in parse(stderr):
                entry["group"] = group
                entry["source"] = source
                result["kernels"].append(entry)
    print(f"{'kind':<9}{'name':<78} {'regs':>5} {'stack [B]':>10} {'spill st/ld [B]':>16}")
    for k in result["kernels"]:
        regs = str(k["registers"]) if "registers" in k else "-"
        print(f"{k['kind']:<9}{short(k['name'])[:78]:<78} {regs:>5} {k.get('stack_bytes', 0):>10} "
              f"{k.get('spill_store_bytes', 0):>7}/{k.get('spill_load_bytes', 0):<8}")
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    with open(out_path, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    print("wrote", out_path)


if __name__ == "__main__":
    main()
