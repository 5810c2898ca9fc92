#!/usr/bin/env python3
"""Static resources of the CUDA kernels, read from ptxas (no GPU needed).

Compiles host/run/backends/cuda_double_step_part{0,1}.cu and cuda_penalty.cu (simulation, one
translation unit per formulation) and host/run/backends/cuda_stability.cu
(stability maps), in parallel, for one architecture with `-Xptxas -v` and records, per
kernel: registers per thread, stack frame, spill stores and loads. These
decide occupancy (255 registers allow 256 threads per SM) and how much
per-thread local memory traffic a kernel has; they are what can be measured
about the GPU path on a machine without one. Timings need a device
(bench_throughput, bench_stability_throughput).

    python3 bench/kernel_resources.py [--arch 90] [--out bench/results/kernel-resources-sm90.json]

The gate (issue 16): registers and stack frame (spill slots live in the stack
frame) of every hs:: kernel in the CUDA objects of a built library, read with
cuobjdump --dump-resource-usage (PyPI nvidia-cuda-cuobjdump; no recompilation),
against bench/results/kernel-resources-gate-sm90.json. The build runs it after
hydrosweep_host (CMake target kernel_resources_gate) and fails when a kernel's
registers or stack grow past the record, or a kernel has no record:

    python3 bench/kernel_resources.py --gate build/libhydrosweep_host.a [--record FILE]
    python3 bench/kernel_resources.py --record-gate build/libhydrosweep_host.a   # after a deliberate change
    python3 bench/kernel_resources.py --count build/libhydrosweep_host.a         # how many kernels nvcc compiled
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
    "simulation-double-step-part0": ("host/run/backends/cuda_double_step_part0.cu", ["-DHYDROSWEEP_HAVE_CUDA"]),
    "simulation-double-step-part1": ("host/run/backends/cuda_double_step_part1.cu", ["-DHYDROSWEEP_HAVE_CUDA"]),
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


GATE_RECORD = os.path.join(ROOT, "bench", "results", "kernel-resources-gate-sm90.json")


def find_cuobjdump(explicit=None):
    """cuobjdump from --cuobjdump, PATH, the CUDA toolkit or the PyPI wheel."""
    candidates = [explicit, shutil.which("cuobjdump"), "/usr/local/cuda/bin/cuobjdump"]
    try:
        import nvidia  # the namespace package of the nvidia-cuda-cuobjdump wheel
        for base in getattr(nvidia, "__path__", []):
            for sub in sorted(os.listdir(base)):
                candidates.append(os.path.join(base, sub, "bin", "cuobjdump"))
    except ImportError:
        pass
    for c in candidates:
        if c and os.path.isfile(c):
            if not os.access(c, os.X_OK):
                os.chmod(c, 0o755)
            return c
    return None


def stable_name(mangled):
    """A kernel's mangled name without nvcc's per-build anonymous-namespace tag:
    `<len>_GLOBAL__N__<hash>_<file>_<hash>_<n>` (it changes with the build's path
    and time) becomes `11_GLOBAL__N_`, so a record made here matches a fresh clone's."""
    out, i = [], 0
    for m in re.finditer(r"(\d+)_GLOBAL__N_", mangled):
        if m.start() < i:
            continue
        length = int(m.group(1))
        ident_start = m.start() + len(m.group(1))
        out.append(mangled[i:m.start()])
        out.append("11_GLOBAL__N_")
        i = ident_start + length
    out.append(mangled[i:])
    return "".join(out)


def resource_usage(library, cuobjdump):
    """{mangled kernel name: {"registers", "stack_bytes", "shared_bytes"}} of the hs:: kernels
    (for_each_index and the other __global__ functions of our own) in the CUDA
    objects of a static library or one object file."""
    kernels = {}
    with tempfile.TemporaryDirectory() as tmp:
        if library.endswith(".a"):
            members = subprocess.run(["ar", "t", library], capture_output=True, text=True, check=True).stdout.split()
            objects = [m for m in members if m.endswith(".cu.o")]
            subprocess.run(["ar", "x", os.path.abspath(library), *objects], cwd=tmp, check=True)
            paths = [os.path.join(tmp, o) for o in objects]
        else:
            paths = [library]
        for path in paths:
            out = subprocess.run([cuobjdump, "--dump-resource-usage", path], capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit(f"kernel_resources: cuobjdump failed on {path}: {out.stderr.strip()}")
            current = None
            for line in out.stdout.splitlines():
                m = re.match(r"\s*Function (\S+?):?$", line)
                if m:
                    current = m.group(1)
                    continue
                m = re.search(r"REG:(\d+) STACK:(\d+)", line)
                if m and current and current.startswith("_ZN2hs"):
                    shared = re.search(r"SHARED:(\d+)", line)  # static shared memory per block
                    kernels[stable_name(current)] = {"registers": int(m.group(1)), "stack_bytes": int(m.group(2)),
                                        "shared_bytes": int(shared.group(1)) if shared else 0,
                                        "object": os.path.basename(path)}
                    current = None
    names = demangle(list(kernels))
    for (mangled, k), name in zip(list(kernels.items()), names):
        k["name"] = short(name)
    return kernels


def gate(args):
    cuobjdump = find_cuobjdump(args.cuobjdump)
    if not cuobjdump:
        sys.exit("kernel_resources: cuobjdump not found; install it with `python3 -m pip install nvidia-cuda-cuobjdump` "
                 "(scripts/setup.sh does) or pass --cuobjdump PATH")
    library = args.gate or args.record_gate
    if not os.path.exists(library):
        sys.exit(f"kernel_resources: {library} does not exist (build hydrosweep_host with CUDA first)")
    now = resource_usage(library, cuobjdump)
    record_path = args.record or GATE_RECORD
    if args.record_gate:
        with open(record_path, "w") as f:
            json.dump({"benchmark": "kernel_resources_gate", "arch": "sm_90",
                       "source": "cuobjdump --dump-resource-usage of the built library (static; no GPU)",
                       "kernels": dict(sorted(now.items()))}, f, indent=1)
            f.write("\n")
        print(f"kernel_resources: recorded {len(now)} kernels in {record_path}")
        return 0
    with open(record_path) as f:
        record = json.load(f)["kernels"]
    problems = []
    for mangled, k in sorted(now.items(), key=lambda kv: kv[1]["name"]):
        r = record.get(mangled)
        if r is None:
            problems.append(f"  new kernel without a record: {k['name']} ({k['registers']} registers, "
                            f"{k['stack_bytes']} B stack; {k['object']})")
            continue
        for field, unit in (("registers", ""), ("stack_bytes", " B"), ("shared_bytes", " B")):
            if field in r and k[field] > r[field]:
                problems.append(f"  {k['name']}: {field} {r[field]}{unit} -> {k[field]}{unit} "
                                f"(+{k[field] - r[field]}{unit}; {k['object']})")
    shrunk = sum(1 for m, k in now.items() if m in record and
                 (k["registers"] < record[m]["registers"] or k["stack_bytes"] < record[m]["stack_bytes"]))
    if problems:
        print(f"kernel_resources gate FAILED: {len(problems)} kernel(s) grew past {os.path.relpath(record_path, ROOT)} "
              "or have no record:")
        print("\n".join(problems))
        print("If the growth is deliberate, re-record with: python3 bench/kernel_resources.py --record-gate " + library)
        return 1
    worst = max(now.values(), key=lambda k: k["stack_bytes"]) if now else None
    print(f"kernel_resources gate: {len(now)} kernels within their record ({shrunk} below it)"
          + (f"; largest stack {worst['stack_bytes']} B ({worst['name']})" if worst else ""))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gate", metavar="LIBRARY", help="check the built library's kernels against the record")
    ap.add_argument("--record-gate", metavar="LIBRARY", help="write the record from the built library")
    ap.add_argument("--record", metavar="FILE", help=f"the gate's record (default {os.path.relpath(GATE_RECORD, ROOT)})")
    ap.add_argument("--count", metavar="LIBRARY", help="print how many hs:: kernels the built library has, by object")
    ap.add_argument("--cuobjdump", help="cuobjdump to use")
    ap.add_argument("--arch", default="90", help="SM architecture number (default 90: H100/H200)")
    ap.add_argument("--out", help="result file (default bench/results/kernel-resources-sm<arch>.json)")
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    args = ap.parse_args()
    if args.count:
        cuobjdump = find_cuobjdump(args.cuobjdump)
        if not cuobjdump:
            sys.exit("kernel_resources: cuobjdump not found (python3 -m pip install nvidia-cuda-cuobjdump)")
        if not os.path.exists(args.count):
            sys.exit(f"kernel_resources: {args.count} does not exist (build hydrosweep_host with CUDA first)")
        kernels = resource_usage(args.count, cuobjdump)
        by_object = {}
        for k in kernels.values():
            by_object[k["object"]] = by_object.get(k["object"], 0) + 1
        print(f"kernel_resources: {len(kernels)} hs:: kernels compiled by nvcc ("
              + ", ".join(f"{o}: {n}" for o, n in sorted(by_object.items())) + ")")
        return 0
    if args.gate or args.record_gate:
        return gate(args)
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
    sys.exit(main())
