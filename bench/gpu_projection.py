#!/usr/bin/env python3
"""A GPU throughput projection for the default four-bar, PROJECTED, NOT MEASURED.

What a device alone can tell is replaced by what can be measured here (issue 16):

  1. per instance-step operation counts on the CPU: the default four-bar
     (seed 002 work cycle, brown-mcphee, double step, dt = 1 ms, 10 s) run by
     `hydrosweep run` under callgrind with instruction-level dumps, counted
     inside the instance's run_instance (its run loop: the step and the
     loop's bookkeeping; initialization once per 10 000 steps; no samples
     recorded). Until 2026-11-27 the count was of step() alone, which GCC
     now inlines into the run loop; every executed x86 instruction is classified
     from its disassembly (objdump): FP64 arithmetic, divisions, square roots,
     compares and conversions, and the rest;
  2. the static SASS instruction mix of the same kernel for sm_90 (cuobjdump
     -sass of the built library's cuda_double_step_part0.cu.o; PyPI
     nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm): FP64-pipe instructions,
     local-memory loads and stores (with their widths), the rest;
  3. registers and stack from cuobjdump --dump-resource-usage, and the
     occupancy from CUDA's cuda_occupancy.h (compiled here with g++, sm_90
     limits, the backend's 128-thread blocks).

Combined into three ceilings for an H100 SXM and an H200 (instance-steps/s):
  FP64 issue        SMs x 64 FP64 lanes x clock / FP64 instructions per step
  instruction issue SMs x 4 schedulers x 32 lanes x clock / SASS instructions per step
  local memory      HBM bandwidth / local-memory bytes per step (every local
                    access served by HBM: no L1/L2 hits, the pessimistic bound)
with every assumption printed. Writes bench/results/gpu-projection-sm90.json.

    python3 bench/gpu_projection.py [--build build] [--out FILE]
"""
import argparse
import collections
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import kernel_resources  # noqa: E402  (find_cuobjdump, resource_usage)

# The default four-bar's simulation kernel (cuda_double_step_part0.cu.o; the double step on R = double).
KERNEL = ("_ZN2hs14for_each_indexINS_14InstanceKernelINS_21DoubleStepTrapezoidalINS_13ActuatedModelINS_15PlanarLoopChain"
          "ILi3EEENS_17HydraulicCylinderINS_18ThreeVolumeCircuitENS_11BrownMcPheeEEELi1ENS_16OpenLoopScheduleEEEdEEEEEEvT_l")
STEPS = 10000  # the seed 002 cycle: 10 s at 1 ms
THREADS_PER_BLOCK = 128  # host/cuda_support.hpp kThreadsPerBlock

# Public data-sheet figures (NVIDIA H100 / H200 SXM): 132 SMs, 1.98 GHz boost,
# 64 FP64 lanes per SM (33.5 TFLOPS FP64 vector with FMA = 2), 4 schedulers
# issuing one warp instruction per clock each; HBM3 3.35 TB/s, HBM3e 4.8 TB/s.
DEVICES = {
    "H100 SXM": {"sms": 132, "clock_hz": 1.98e9, "fp64_lanes_per_sm": 64, "schedulers_per_sm": 4, "hbm_bytes_per_s": 3.35e12},
    "H200 SXM": {"sms": 132, "clock_hz": 1.98e9, "fp64_lanes_per_sm": 64, "schedulers_per_sm": 4, "hbm_bytes_per_s": 4.8e12},
}
# SASS instructions per x86 instruction that has no one-to-one FP64 counterpart
# (sm_90 has no FP64 divide or square-root instruction: MUFU.RCP64H / RSQ64H
# seed, Newton iterations on DFMA and a fix-up, as nvcc emits them).
EXPANSION = {"div": 10, "sqrt": 10}

FP64_X86 = re.compile(r"^v?(add|sub|mul|min|max)sd$")
FMA_X86 = re.compile(r"^vf(n)?m(add|sub)\d{3}sd$")
DIV_X86 = re.compile(r"^v?divsd$")
SQRT_X86 = re.compile(r"^v?sqrtsd$")
CMP_X86 = re.compile(r"^v?(u?comisd|cmp\w*sd)$")
CVT_X86 = re.compile(r"^v?(cvt\w*sd\w*|cvt\w*2sd|roundsd)$")
PACKED_X86 = re.compile(r"^v?(add|sub|mul|div|sqrt|min|max)pd$|^vf(n)?m(add|sub)\d{3}pd$")
FP64_SASS = re.compile(r"^(DADD|DMUL|DFMA|DSETP|DMNMX|DSET)$|^(F2F|I2F|F2I)\.F64|^(F2F|F2I|I2F)\..*64")


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def disassemble(path):
    """{address: mnemonic} of an ELF file (objdump -d)."""
    out = run(["objdump", "-d", "--no-show-raw-insn", path]).stdout
    table = {}
    for line in out.splitlines():
        m = re.match(r"\s+([0-9a-f]+):\s+(\S+)(\s+(.*))?", line)
        if m:
            table[int(m.group(1), 16)] = (m.group(2), m.group(4) or "")
    return table


def callgrind_counts(exe, tmp):
    """Executed x86 instructions per (object, address) inside step(), and
    the number of instance-steps they cover."""
    study = os.path.join(tmp, "projection.toml")
    with open(study, "w") as f:
        f.write('[study]\nname = "gpu-projection"\nmodel = "four-bar"\nfriction = "brown-mcphee"\n'
                '[integrator]\ndt = 1e-3\nduration = 10\n[analysis]\nreference_run = false\n')
    out_file = os.path.join(tmp, "callgrind.out")
    cmd = ["valgrind", "--tool=callgrind", "--dump-instr=yes", "--dump-line=no", "--compress-pos=no",
           "--compress-strings=no",
           "--toggle-collect=*run_instance<hs::DoubleStepTrapezoidal<*", f"--callgrind-out-file={out_file}",
           exe, "run", study, "--out", os.path.join(tmp, "out"), "-j", "1", "--backend", "cpu", "--lanes", "1", "-q"]
    # --lanes 1: the scalar path, the one the GPU kernel runs (lockstep lanes,
    # the CPU's default since issue 16 stage 2, would count 8 lanes' packed work).
    print("running the default four-bar's 10 s cycle under callgrind (one instance, one lane) ...", flush=True)
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    counts = collections.Counter()
    obj, skip_next = None, False
    with open(out_file) as f:
        for line in f:
            if skip_next:
                skip_next = False
                continue
            if line.startswith("ob="):
                obj = line[3:].strip()
            elif line.startswith("calls="):
                skip_next = True  # the next line is the call's inclusive cost
            elif line.startswith("0x"):
                parts = line.split()  # positions "instr" (--dump-line=no), then the one event, Ir
                if len(parts) == 2:
                    counts[(obj, int(parts[0], 16))] += int(parts[1])
    return counts, STEPS


def classify_x86(counts):
    """Executed instructions by class, objects mapped to their disassembly at
    the load offset that makes the executed addresses instruction starts."""
    by_object = collections.defaultdict(dict)
    for (obj, addr), n in counts.items():
        by_object[obj][addr] = n
    classes = collections.Counter()
    for obj, addrs in by_object.items():
        if not obj or not os.path.exists(obj):
            classes["unmapped"] += sum(addrs.values())
            continue
        table = disassemble(obj)
        starts = sorted(table)
        lo = min(addrs)
        best, best_hits = 0, -1
        for cand in {lo - s for s in starts[:: max(1, len(starts) // 20000)]} | {0, 0x108000, 0x400000, 0x4000000}:
            hits = sum(1 for a in list(addrs)[:200] if (a - cand) in table)
            if hits > best_hits:
                best, best_hits = cand, hits
        for addr, n in addrs.items():
            ins = table.get(addr - best)
            if ins is None:
                classes["unmapped"] += n
                continue
            mnem, ops = ins
            classes["total"] += n
            if FP64_X86.match(mnem) or FMA_X86.match(mnem):
                classes["fp64_add_mul_fma"] += n
            elif DIV_X86.match(mnem):
                classes["fp64_div"] += n
            elif SQRT_X86.match(mnem):
                classes["fp64_sqrt"] += n
            elif CMP_X86.match(mnem):
                classes["fp64_compare"] += n
            elif CVT_X86.match(mnem):
                classes["fp64_convert"] += n
            elif PACKED_X86.match(mnem):
                lanes = 8 if "zmm" in ops else 4 if "ymm" in ops else 2
                classes["fp64_packed_lanes"] += n * lanes
            if "libm" in os.path.basename(obj):
                classes["in_libm"] += n
    classes["unmapped"] += 0
    return classes


def kernel_object(library, tmp):
    """The object with the kernel: the library's cuda_double_step_part0.cu.o, or an object file given as is."""
    if library.endswith(".o"):
        return library
    subprocess.run(["ar", "x", os.path.abspath(library), "cuda_double_step_part0.cu.o"], cwd=tmp, check=True)
    return os.path.join(tmp, "cuda_double_step_part0.cu.o")


def sass_mix(library, cuobjdump, tmp):
    """Static SASS instruction mix of the kernel: counts by opcode class and the
    mean bytes per local-memory access."""
    obj = kernel_object(library, tmp)
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(cuobjdump) + os.pathsep + env.get("PATH", "")
    env.setdefault("NVDISASM_PATH", os.path.dirname(cuobjdump))
    out = subprocess.run([cuobjdump, "-sass", "-fun", KERNEL, obj],
                         capture_output=True, text=True, env=env)
    if out.returncode != 0 or "Function :" not in out.stdout:
        sys.exit("gpu_projection: cuobjdump -sass failed (nvdisasm missing? `python3 -m pip install "
                 "nvidia-cuda-nvdisasm`):\n" + out.stderr[-2000:])
    mix = collections.Counter()
    local_bytes = 0
    for line in out.stdout.splitlines():
        m = re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_.]+)", line)
        if not m:
            continue
        op = m.group(2)
        base = op.split(".")[0]
        mix["total"] += 1
        if FP64_SASS.match(base) or FP64_SASS.match(op):
            mix["fp64"] += 1
        elif base == "MUFU" and "64" in op:
            mix["mufu64"] += 1
        elif base in ("LDL", "STL"):
            mix[base.lower()] += 1
            width = 16 if ".128" in op else 8 if ".64" in op else 4
            local_bytes += width
        elif base in ("LDG", "STG"):
            mix["global"] += 1
        elif base in ("BRA", "CALL", "RET", "BSSY", "BSYNC", "EXIT", "JMP", "BRX"):
            mix["control"] += 1
    mix["local_bytes_total"] = local_bytes
    return mix


def occupancy(registers, stack_bytes, tmp, shared_bytes=0):
    """Active warps per SM from cuda_occupancy.h for sm_90, 128-thread blocks."""
    include = next((d for d in ("/usr/local/cuda/include", "/usr/local/cuda/targets/x86_64-linux/include")
                    if os.path.exists(os.path.join(d, "cuda_occupancy.h"))), None)
    if include is None:
        return None
    src = os.path.join(tmp, "occ.cpp")
    with open(src, "w") as f:
        f.write(r'''
#include <cstdio>
#include <cstdlib>
#include "cuda_occupancy.h"
int main(int argc, char** argv) {
  cudaOccDeviceProp p;  // sm_90 (H100 / H200)
  p.computeMajor = 9; p.computeMinor = 0; p.maxThreadsPerBlock = 1024; p.maxThreadsPerMultiprocessor = 2048;
  p.regsPerBlock = 65536; p.regsPerMultiprocessor = 65536; p.warpSize = 32; p.sharedMemPerBlock = 49152;
  p.sharedMemPerMultiprocessor = 233472; p.numSms = 132; p.sharedMemPerBlockOptin = 232448;
  p.reservedSharedMemPerBlock = 1024;
  cudaOccFuncAttributes a;
  a.maxThreadsPerBlock = 1024; a.numRegs = atoi(argv[1]); a.sharedSizeBytes = atoi(argv[3]);
  a.partitionedGCConfig = PARTITIONED_GC_OFF; a.shmemLimitConfig = FUNC_SHMEM_LIMIT_DEFAULT;
  a.maxDynamicSharedSizeBytes = 0;
  cudaOccDeviceState s;
  cudaOccResult r;
  if (cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &a, &s, atoi(argv[2]), 0) != CUDA_OCC_SUCCESS) return 1;
  std::printf("%d %d\n", r.activeBlocksPerMultiprocessor, r.activeBlocksPerMultiprocessor * atoi(argv[2]) / 32);
  return 0;
}
''')
    exe = os.path.join(tmp, "occ")
    run(["g++", "-std=c++17", "-I" + include, src, "-o", exe])
    blocks, warps = map(int, run([exe, str(registers), str(THREADS_PER_BLOCK), str(shared_bytes)]).stdout.split())
    return {"blocks_per_sm": blocks, "warps_per_sm": warps, "occupancy": warps / 64.0,
            "threads_per_block": THREADS_PER_BLOCK, "stack_bytes_per_thread": stack_bytes,
            "static_shared_bytes_per_block": shared_bytes,
            "local_memory_for_stacks_per_sm_bytes": stack_bytes * warps * 32}


def git_revision():
    try:
        return run(["git", "-C", ROOT, "describe", "--always", "--dirty"]).stdout.strip()
    except Exception:
        return "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="a CUDA build directory (default build/)")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "gpu-projection-sm90.json"))
    ap.add_argument("--label", default="", help="a label for this projection (e.g. before / after a change)")
    ap.add_argument("--object", help="take the kernel from this object file instead of the build's library "
                                     "(a one-kernel translation unit while iterating on it)")
    args = ap.parse_args()
    exe = os.path.join(args.build, "host", "cli", "hydrosweep")
    library = os.path.join(args.build, "libhydrosweep_host.a")
    if args.object:
        library = args.object
    for path, what in ((exe, "the hydrosweep executable"), (library, "libhydrosweep_host.a (built with CUDA)")):
        if not os.path.exists(path):
            sys.exit(f"gpu_projection: {path} not found: {what} of a CUDA build is needed (--build DIR)")
    for tool in ("valgrind", "objdump", "ar", "g++"):
        if not shutil.which(tool):
            sys.exit(f"gpu_projection: {tool} not found (apt-get install valgrind binutils g++)")
    cuobjdump = kernel_resources.find_cuobjdump()
    if not cuobjdump:
        sys.exit("gpu_projection: cuobjdump not found: python3 -m pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm")

    with tempfile.TemporaryDirectory() as tmp:
        counts, steps = callgrind_counts(exe, tmp)
        x86 = classify_x86(counts)
        mix = sass_mix(library, cuobjdump, tmp)
        resources = kernel_resources.resource_usage(library, cuobjdump).get(KERNEL)
        if resources is None:
            sys.exit("gpu_projection: the default four-bar's kernel is not in " + library)
        occ = occupancy(resources["registers"], resources["stack_bytes"], tmp, resources.get("shared_bytes", 0))

    per_step = {k: v / steps for k, v in x86.items()}
    fp64_sass_per_step = (per_step.get("fp64_add_mul_fma", 0) + per_step.get("fp64_compare", 0)
                          + per_step.get("fp64_convert", 0) + per_step.get("fp64_packed_lanes", 0)
                          + EXPANSION["div"] * per_step.get("fp64_div", 0)
                          + EXPANSION["sqrt"] * per_step.get("fp64_sqrt", 0))
    fp64_fraction = (mix["fp64"] + mix["mufu64"]) / mix["total"]
    local_fraction = (mix["ldl"] + mix["stl"]) / mix["total"]
    bytes_per_local = mix["local_bytes_total"] / max(1, mix["ldl"] + mix["stl"])
    sass_per_step = fp64_sass_per_step / fp64_fraction
    local_bytes_per_step = sass_per_step * local_fraction * bytes_per_local

    assumptions = [
        f"CPU counts: one instance of the default four-bar (brown-mcphee, double step) over the 10 s seed 002 cycle "
        f"({steps} steps of 1 ms), callgrind inside run_instance<DoubleStepTrapezoidal<...>> (the run loop with its step and bookkeeping; initialization once, no samples), divided by the steps",
        "one SASS FP64 instruction per x86 scalar FP64 add/sub/mul/min/max/compare/convert (packed: per lane); "
        f"{EXPANSION['div']} per division and {EXPANSION['sqrt']} per square root (sm_90 has neither: "
        "MUFU seed + DFMA Newton iterations)",
        "libm's sin/cos/exp/tanh/atan2 cost on the GPU what glibc's cost here (both are FP64 polynomial code)",
        "the kernel's dynamic SASS mix equals its static mix: SASS instructions per step = FP64 instructions per "
        "step / the static FP64 fraction; local-memory accesses per step = SASS per step x the static LDL/STL fraction",
        "every local-memory byte goes to HBM (no L1 or L2 hits): a pessimistic local-memory ceiling",
        "data-sheet peaks: 132 SMs at 1.98 GHz, 64 FP64 lanes and 4 single-issue schedulers per SM; HBM 3.35 TB/s "
        "(H100 SXM), 4.8 TB/s (H200); the ceilings ignore latency, which the occupancy below does not hide",
    ]
    ceilings = {}
    for name, d in DEVICES.items():
        ceilings[name] = {
            "fp64_issue": d["sms"] * d["fp64_lanes_per_sm"] * d["clock_hz"] / fp64_sass_per_step,
            "instruction_issue": d["sms"] * d["schedulers_per_sm"] * 32 * d["clock_hz"] / sass_per_step,
            "local_memory_at_hbm": d["hbm_bytes_per_s"] / local_bytes_per_step,
        }
    measured = None
    mpath = os.path.join(ROOT, "bench", "results", "throughput-nvidia-h100-80gb-hbm3.json")
    if os.path.exists(mpath):
        with open(mpath) as f:
            m = json.load(f)
        best = max((r for r in m.get("results", []) if r.get("backend") == "cuda"),
                   key=lambda r: r["instance_steps_per_s"], default=None)
        if best:
            measured = {"device": m.get("device"), "instance_steps_per_s": best["instance_steps_per_s"],
                        "instances": best["instances"], "revision": m.get("machine", {}).get("source_revision"),
                        "file": os.path.relpath(mpath, ROOT)}

    print("\nGPU PROJECTION (projected, not measured) — default four-bar, double step, brown-mcphee, sm_90")
    print(f"  revision {git_revision()}, {datetime.date.today().isoformat()}" + (f", {args.label}" if args.label else ""))
    print("CPU, per instance-step (callgrind):")
    for k in ("total", "fp64_add_mul_fma", "fp64_div", "fp64_sqrt", "fp64_compare", "fp64_convert",
              "fp64_packed_lanes", "in_libm", "unmapped"):
        print(f"  {k:<20} {per_step.get(k, 0):12.1f}")
    print(f"SASS (static, {mix['total']} instructions): FP64 {mix['fp64']} + MUFU64 {mix['mufu64']} "
          f"({100 * fp64_fraction:.1f} %), LDL {mix['ldl']} / STL {mix['stl']} ({100 * local_fraction:.1f} %, "
          f"{bytes_per_local:.1f} B each), global {mix['global']}, control {mix['control']}")
    print(f"kernel: {resources['registers']} registers, {resources['stack_bytes']} B stack per thread")
    if occ:
        print(f"occupancy (cuda_occupancy.h, {THREADS_PER_BLOCK}-thread blocks): {occ['blocks_per_sm']} blocks, "
              f"{occ['warps_per_sm']} warps per SM ({100 * occ['occupancy']:.1f} %), "
              f"{occ['static_shared_bytes_per_block']} B of static shared memory per block")
    print(f"projected per instance-step: {fp64_sass_per_step:.0f} FP64 instructions, {sass_per_step:.0f} SASS "
          f"instructions, {local_bytes_per_step:.0f} local-memory bytes")
    print("ceilings [instance-steps/s]:")
    for name, c in ceilings.items():
        print(f"  {name}: FP64 issue {c['fp64_issue']:.3g}, instruction issue {c['instruction_issue']:.3g}, "
              f"local memory at HBM {c['local_memory_at_hbm']:.3g}  -> bound {min(c.values()):.3g}")
    if measured:
        print(f"measured for comparison: {measured['instance_steps_per_s']:.3g} instance-steps/s on {measured['device']} "
              f"({measured['instances']} instances, revision {measured['revision']}; {measured['file']})")
    print("assumptions:")
    for a in assumptions:
        print("  - " + a)

    result = {"benchmark": "gpu_projection", "label": args.label, "status": "projected, not measured",
              "date": datetime.date.today().isoformat(), "revision": git_revision(),
              "kernel": "default four-bar, double step, brown-mcphee (" + KERNEL + ")",
              "cpu_per_instance_step": per_step, "sass_static_mix": dict(mix), "resources": resources,
              "occupancy": occ, "projected_per_instance_step": {"fp64_instructions": fp64_sass_per_step,
                                                                "sass_instructions": sass_per_step,
                                                                "local_memory_bytes": local_bytes_per_step},
              "ceilings_instance_steps_per_s": ceilings, "devices": DEVICES, "assumptions": assumptions,
              "measured_for_comparison": measured}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print("wrote", os.path.relpath(args.out, ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
