#!/usr/bin/env python3
"""Where the default four-bar kernel's local-memory traffic sits: inside the
run loop (once per step or more) or outside it (once per instance), STATIC,
no GPU involved. A cross-check of gpu_projection.py's assumption that the
kernel's dynamic mix equals its static mix (issue 16).

The kernel alone (the default four-bar's InstanceKernel, double step,
Brown-McPhee) is compiled here for sm_90 with CI's flags plus -lineinfo
(which does not change the code), disassembled with nvdisasm's line table,
and split at the run loop of kernels/integrators/run.hpp: the instructions
between the loop's header and its back-edge (the branch after the last
instruction inlined from the Integrator::step call that jumps back above
the first). For each side it prints the LDL/STL bytes and FP64-pipe
instructions; inside the loop, the local bytes per FP64 instruction times
the per-step FP64 count of a projection (bench/results/gpu-projection-sm90.json)
gives a per-step local traffic that counts the loop's code only.

    python3 bench/kernel_loop_mix.py [--projection FILE] [--out FILE]
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import gpu_projection  # noqa: E402  (DEVICES)
import kernel_resources  # noqa: E402  (find_cuobjdump)

SOURCE = r'''
#include <cuda_runtime.h>
#include "host/cuda_support.hpp"
#include "host/run/backends/instance_kernel.hpp"
#include "kernels/integrators/double_step_trapezoidal.hpp"
#include "kernels/models/four_bar.hpp"
#include "kernels/friction/friction.hpp"
namespace hs {
using DefaultFourBar = InstanceKernel<DoubleStepTrapezoidal<ActuatedModel<PlanarLoopChain<3>,
    HydraulicCylinder<ThreeVolumeCircuit, BrownMcPhee>, 1, OpenLoopSchedule>, double>>;
void launch_default_four_bar(const DefaultFourBar& k, long n) { launch_for_each_index(k, n); }
}
'''


def find_tool(name):
    cuobjdump = kernel_resources.find_cuobjdump()
    if cuobjdump and os.path.exists(os.path.join(os.path.dirname(cuobjdump), name)):
        path = os.path.join(os.path.dirname(cuobjdump), name)
        if not os.access(path, os.X_OK):
            os.chmod(path, 0o755)
        return path
    return shutil.which(name)


def instructions(sass):
    """(address, opcode, inlining chain [(file, line), innermost first], text) of nvdisasm -gi output."""
    out, chain, current, pending, labels, waiting = [], [], [], False, {}, []
    for line in sass.splitlines():
        label = re.match(r"^\s*(\.L_x_\d+):", line)
        if label:
            waiting.append(label.group(1))
            continue
        m = re.match(r'\s*//## File "([^"]+)", line (\d+)(.*)', line)
        if m:
            if not pending:
                current = []
            pending = True
            current.append((os.path.basename(m.group(1)), int(m.group(2))))
            for f, n in re.findall(r'inlined at "([^"]+)", line (\d+)', m.group(3)):
                current.append((os.path.basename(f), int(n)))
            continue
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_.]+)", line)
        if not m:
            continue
        if pending:
            chain, pending = current, False
        address = int(m.group(1), 16)
        for name in waiting:
            labels[name] = address
        waiting = []
        out.append((address, m.group(3), chain, line))
    return out, labels


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--projection", default=os.path.join(ROOT, "bench", "results", "gpu-projection-sm90.json"),
                    help="a gpu_projection.py result for the per-step FP64 count")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "kernel-loop-mix-sm90.json"))
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    args = ap.parse_args()
    nvdisasm = find_tool("nvdisasm")
    if not os.path.exists(args.nvcc) or not nvdisasm:
        sys.exit("kernel_loop_mix: nvcc and nvdisasm are needed (python3 -m pip install nvidia-cuda-nvdisasm)")
    run_hpp = open(os.path.join(ROOT, "kernels", "integrators", "run.hpp")).read().splitlines()
    step_line = next(i + 1 for i, l in enumerate(run_hpp) if "Integrator::step(" in l)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "default_four_bar.cu")
        with open(src, "w") as f:
            f.write(SOURCE)
        cubin = os.path.join(tmp, "k.cubin")
        subprocess.run([args.nvcc, "-O3", "-DNDEBUG", "-arch=sm_90", "--expt-relaxed-constexpr", "--extended-lambda",
                        "--fmad=false", "-std=c++17", "-I" + ROOT, "-isystem=/usr/include/eigen3",
                        "-DHYDROSWEEP_HAVE_CUDA", "-lineinfo", "-cubin", "-o", cubin, src], check=True)
        sass = subprocess.run([nvdisasm, "-gi", "-c", cubin], check=True, capture_output=True, text=True).stdout
    ins, labels = instructions(sass)
    in_step = [a for a, op, chain, _ in ins if ("run.hpp", step_line) in chain]
    if not in_step:
        sys.exit(f"kernel_loop_mix: no instruction inlined from run.hpp:{step_line} (the step call)")
    lo, hi = min(in_step), max(in_step)
    head = back = None
    for a, op, chain, text in ins:
        if op.startswith("BRA") and a > hi:
            t = re.search(r"(\.L_x_\d+)", text)
            if t and labels.get(t.group(1), 1 << 62) <= lo and (head is None or labels[t.group(1)] < head):
                head, back = labels[t.group(1)], a
    if head is None:
        sys.exit("kernel_loop_mix: the run loop's back-edge was not found")
    sides = {"run_loop": collections.Counter(), "outside": collections.Counter()}
    for a, op, chain, text in ins:
        side = sides["run_loop" if head <= a <= back else "outside"]
        base = op.split(".")[0]
        side["instructions"] += 1
        # FP64 as gpu_projection.py's sass_mix counts it (FP64 pipe, 64-bit conversions, MUFU 64-bit seeds)
        if gpu_projection.FP64_SASS.match(base) or gpu_projection.FP64_SASS.match(op) or (base == "MUFU" and "64" in op):
            side["fp64"] += 1
        if base in ("LDL", "STL"):
            side["local_bytes"] += 16 if ".128" in op else 8 if ".64" in op else 4
    total = sides["run_loop"] + sides["outside"]
    result = {"benchmark": "kernel_loop_mix", "arch": "sm_90", "revision": gpu_projection.git_revision(),
              "source": "nvcc -lineinfo + nvdisasm -gi of the default four-bar's kernel alone (static; no GPU)",
              "run_loop": dict(sides["run_loop"]), "outside": dict(sides["outside"]), "whole": dict(total)}
    for name, side in (("run loop", sides["run_loop"]), ("outside", sides["outside"]), ("whole kernel", total)):
        print(f"{name:13s} {side['instructions']:6d} instructions, {side['fp64']:5d} FP64, "
              f"{side['local_bytes']:5d} local bytes ({side['local_bytes'] / max(1, side['fp64']):.3f} per FP64)")
    if os.path.exists(args.projection):
        with open(args.projection) as f:
            fp64_per_step = json.load(f)["projected_per_instance_step"]["fp64_instructions"]
        ratio = sides["run_loop"]["local_bytes"] / sides["run_loop"]["fp64"]
        per_step = ratio * fp64_per_step
        result["per_step"] = {"fp64_instructions": fp64_per_step, "local_bytes_run_loop_mix": per_step,
                              "local_memory_ceiling_run_loop_mix": {
                                  d: v["hbm_bytes_per_s"] / per_step for d, v in gpu_projection.DEVICES.items()}}
        print(f"per step, with the run loop's mix and {fp64_per_step:.0f} FP64 per step "
              f"({os.path.relpath(args.projection, ROOT)}): {per_step:.0f} local bytes; local-memory ceiling "
              + ", ".join(f"{d} {v['hbm_bytes_per_s'] / per_step:.3g}" for d, v in gpu_projection.DEVICES.items())
              + " instance-steps/s (projected, not measured)")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print("wrote", os.path.relpath(args.out, ROOT))


if __name__ == "__main__":
    sys.exit(main())
