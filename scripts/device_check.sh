#!/usr/bin/env bash
# The checks that need a GPU, for a session that is lent one (docs/gpu.md §1).
# The device machine has CUDA but none of the Debian libraries hydrosweep
# links (HDF5, Kokkos, ...) and no package registry, so the programs are built
# here and carried there with the shared libraries its image lacks:
#
#   here:   cmake -S . -B build-device -DCMAKE_BUILD_TYPE=Release -DHYDROSWEEP_NATIVE=OFF
#           cmake --build build-device --target test_gpu test_gpu_eigen hydrosweep \
#                 bench_throughput bench_stability_throughput bench_eigen_throughput device_trace \
#                 device_trace_variants      # the trace at -G, -Xptxas -O0, -O1, and with the
#                                            # branch decisions logged on both sides (step "bisect")
#           bash scripts/device_check.sh pack build-device      # -> .devcarry/bundle.tar.xz (git-ignored)
#   there:  bash scripts/device_check.sh run                    # -> $OUT/device-check.tar.gz, $OUT/device-check.log
#
# HYDROSWEEP_NATIVE=OFF: the device's CPU need not have this machine's
# instruction set extensions. `run` executes, each under its own time limit so
# that one hang does not lose the rest: the gpu-labelled test programs (what
# `ctest -L gpu` runs), compute-sanitizer memcheck on the small-batch tests,
# the GPU benchmarks (four-bar and lift-tilt runs, stability maps, eigenvalues),
# the manipulator's Monte Carlo, Sobol' and stability-map studies on the GPU,
# a model file's Monte Carlo (GPU and CPU) and stability map on the GPU,
# and Nsight Compute's summary of the simulation kernel.
set -uo pipefail
cd "$(dirname "$0")/.."
mode="${1:-}"
# DEVICE_CHECK_PROGRAMS (pack): fewer programs when the bundle must stay small
# (the device tool carries 64 MiB in all).
programs=(${DEVICE_CHECK_PROGRAMS:-tests/test_gpu tests/test_gpu_eigen host/cli/hydrosweep bench/bench_throughput
          bench/bench_stability_throughput bench/bench_eigen_throughput tests/device_trace})
# The trace's variants (tests/CMakeLists.txt), packed when built.
# DEVICE_CHECK_VARIANTS (pack): which of them (default all four). Each trace
# program is ~15 MB, ~14 MB of it an already compressed sm_90 fatbin that xz
# cannot shrink (device_trace_decisions, 2026-11-30): the trace and all four
# variants are ~70 MB, over the device tool's 64 MiB, so a bisecting call packs
# the trace with two or three of them (docs/gpu.md §7).
variants=()
for v in ${DEVICE_CHECK_VARIANTS:-debug ptxas_O0 ptxas_O1 decisions}; do variants+=("tests/device_trace_$v"); done

if [[ "$mode" == pack ]]; then
  build="${2:?usage: device_check.sh pack BUILD_DIR}"
  rm -rf .devcarry && mkdir -p .devcarry/bin .devcarry/lib
  for p in "${programs[@]}"; do cp "$build/$p" .devcarry/bin/ || exit 1; done
  for p in "${variants[@]}"; do [ -x "$build/$p" ] && cp "$build/$p" .devcarry/bin/; done
  # Every shared library the programs load, except the C runtime and the
  # compiler's (the device image's are newer) and CUDA's own (the device has
  # the same CUDA 13 toolkit; cuSOLVER and cuBLAS are too large to carry).
  for p in .devcarry/bin/*; do ldd "$p"; done | awk '/=> \//{print $3}' | sort -u | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libresolv.so*|ld-linux*|libstdc++.so*|libgcc_s.so*) ;;
      libcusolver*|libcublas*|libcusparse*|libnvJitLink*|libcuda.so*) ;;
      *) cp -L "$lib" .devcarry/lib/ ;;
    esac
  done
  # The programs are ~47 MB each, almost all of it the same sm_90 fatbin: one
  # xz stream with a dictionary larger than a program stores it once (~49 MB
  # for the six, under the device tool's 64 MiB).
  tar -C .devcarry -cf - bin lib | xz -T2 -9e --lzma2=preset=9e,dict=256MiB > .devcarry.tar.xz
  rm -rf .devcarry && mkdir .devcarry && mv .devcarry.tar.xz .devcarry/bundle.tar.xz
  du -sh .devcarry
  bytes=$(stat -c %s .devcarry/bundle.tar.xz)
  if [ "$bytes" -gt $((64 * 1024 * 1024)) ]; then
    echo "the bundle is $((bytes / 1024 / 1024)) MiB, over the device tool's 64 MiB: pack fewer programs" \
         "(DEVICE_CHECK_PROGRAMS, DEVICE_CHECK_VARIANTS)" >&2
    exit 1
  fi
  exit 0
fi
[[ "$mode" == run ]] || { echo "usage: device_check.sh pack BUILD_DIR | run" >&2; exit 2; }

out="${OUT:-/tmp/device-check}"
mkdir -p "$out/r"
log="$out/device-check.log"
exec > >(tee "$log") 2>&1
carry=/tmp/devcarry
mkdir -p "$carry"
tar -C "$carry" -xJf .devcarry/bundle.tar.xz 2>/dev/null ||
  python3 -c "import tarfile, sys; tarfile.open('.devcarry/bundle.tar.xz').extractall(sys.argv[1])" "$carry" || exit 1
cuda_lib=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do [[ -d $d ]] && cuda_lib="$cuda_lib:$d"; done
# cuSOLVER and cuBLAS where the image keeps them (the toolkit, or pip's nvidia-* wheels)
for f in $(find /usr/local /opt /usr/lib -name 'libcusolver.so.*' -o -name 'libcublas.so.*' 2>/dev/null); do
  cuda_lib="$cuda_lib:$(dirname "$f")"
done
export LD_LIBRARY_PATH="$carry/lib${cuda_lib}:${LD_LIBRARY_PATH:-}"
export OMP_NUM_THREADS="$(nproc)"
# The programs were built in another checkout: their tests read the shipped
# studies and model files (models/*.toml) from this one (host/build_paths.hpp).
export HYDROSWEEP_SOURCE_DIR="$(pwd)"
bin="$carry/bin"
# DEVICE_CHECK_STEPS: the groups to run (default all): trace bisect tests sanitizer runs studies maps ncu
steps="${DEVICE_CHECK_STEPS:-trace bisect tests sanitizer runs studies maps ncu}"
want() { [[ " $steps " == *" $1 "* ]]; }
step() { echo; echo "=== $(date +%T) $*"; }
# Each step under its own limit; the results so far are packed after each
# (the tool returns what is under $OUT even when the whole command times out).
run() {
  local limit=$1; shift; SECONDS=0; timeout "$limit" "$@"; local rc=$?
  echo "--- rc $rc in ${SECONDS} s: $*"
  tar -C "$out" -czf "$out/device-check.tar.gz" r
}

step "machine"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv
nproc; grep -m1 "model name" /proc/cpuinfo; ldd --version | head -1
ldd "$bin/hydrosweep" | grep -i "not found" && echo "MISSING LIBRARIES"
# The kernel sources these programs were built from: the key a finding is
# recorded with in host/run/device_verification.cpp (docs/gpu.md §3).
"$bin/hydrosweep" --version

if want trace; then
step "device_trace: where the disagreeing combinations leave the CPU"
run 120 "$bin/device_trace"
fi

if want bisect; then
# The same trace under other device code generation (-G, ptxas -O0/-O1): a
# disagreement that one of them removes is the compiler's. Its lines are
# compared with the normal build's in the log (docs/gpu.md §3). Then the
# normal build with the kernels' branch decisions logged on both sides: the
# first decision where host and device part, and how close it was (§6).
step "device_trace under other code generation, and its decisions (bisect)"
# The normal trace takes ~4 s on an H200; -G runs unoptimized device code.
for v in debug:90 ptxas_O0:45 ptxas_O1:45 decisions:60; do
  limit="${v#*:}"; v="${v%%:*}"
  if [ -x "$bin/device_trace_$v" ]; then
    echo "--- device_trace_$v"
    run "$limit" "$bin/device_trace_$v"
  else
    echo "--- device_trace_$v: not packed (cmake --build BUILD --target device_trace_variants)"
  fi
done
fi

if want tests; then
step "ctest -L gpu: its two programs"
run 240 "$bin/test_gpu" --gtest_color=no
run 90 "$bin/test_gpu_eigen" --gtest_color=no
fi

if want sanitizer; then
step "compute-sanitizer memcheck"
run 90 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 3 \
  "$bin/test_gpu" --gtest_color=no --gtest_filter='Gpu.SmallBatchWithTrajectoriesAndReference:Gpu.EmptyBatch'
run 60 compute-sanitizer --tool memcheck --error-exitcode 3 \
  "$bin/test_gpu_eigen" --gtest_color=no --gtest_filter='GpuEigen.CusolverGeevLoopAgreesWithEigen:GpuEigen.SyevjBatchedAgreesWithSelfAdjointEigenSolver:GpuEigen.CusolverSygvd*'
fi

if want runs; then
step "benchmarks: runs"
run 90 "$bin/bench_throughput" --backends cpu-all-cores,cuda --sizes 1000,10000,100000,1000000 --max-seconds 15 \
  --out "$out/r/throughput-gpu.json"
run 90 "$bin/bench_throughput" --model lift-tilt --backends cpu-all-cores,cuda --sizes 1000,10000,100000 --max-seconds 15 \
  --out "$out/r/throughput-lift-tilt-gpu.json"
fi

if want studies; then
step "manipulator studies on the GPU"
run 150 "$bin/hydrosweep" run studies/manipulator_monte_carlo.toml --out "$out/r/manipulator_mc" --backend cuda --progress lines
run 40 "$bin/hydrosweep" stability studies/stability_manipulator.toml --out "$out/r/stability_manipulator_cuda" --backend cuda
run 60 "$bin/hydrosweep" stability studies/stability_manipulator.toml --out "$out/r/stability_manipulator_cpu" --backend cpu
run 60 "$bin/hydrosweep" run studies/manipulator_sobol.toml --out "$out/r/manipulator_sobol" --backend cuda --progress lines
step "a model file's studies on the GPU and the CPU (the generic two-cylinder kernels, models/excavator_boom_arm.toml)"
run 90 "$bin/hydrosweep" run studies/excavator_boom_arm_monte_carlo.toml --out "$out/r/boom_arm_mc_cuda" --backend cuda
run 90 "$bin/hydrosweep" run studies/excavator_boom_arm_monte_carlo.toml --out "$out/r/boom_arm_mc_cpu" --backend cpu
run 40 "$bin/hydrosweep" stability studies/stability_excavator_boom_arm.toml --out "$out/r/stability_boom_arm_cuda" --backend cuda
fi

if want maps; then
step "benchmarks: stability maps and eigenvalues"
run 60 "$bin/bench_stability_throughput" --out "$out/r/stability-throughput-gpu.json"
run 60 "$bin/bench_eigen_throughput" --out "$out/r/eigen-throughput-gpu.json"
fi

if want ncu; then
step "Nsight Compute: the simulation kernel, four-bar, 100 000 instances"
run 90 ncu --kernel-name regex:for_each_index --launch-count 1 --section SpeedOfLight --section Occupancy \
  --section LaunchStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
  "$bin/bench_throughput" --backends cuda --sizes 100000 --out "$out/r/ncu-throughput.json"
fi

step "done"
tar -C "$out" -czf "$out/device-check.tar.gz" r && rm -rf "$out/r"
ls -la "$out"
