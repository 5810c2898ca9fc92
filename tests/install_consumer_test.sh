#!/usr/bin/env bash
# Install.ConsumerBuildsAgainstTheInstalledPackage (cmake/install.cmake):
#   1. cmake --install BUILD into a fresh prefix; the CLI, the headers, the
#      library, the package files and the plot scripts are there;
#   2. the prefix is moved (the package must not remember where it was put);
#   3. tests/install_consumer builds against it with find_package(hydrosweep);
#   4. embed_kernels (hydrosweep::kernels alone) and embed_host (the batch
#      engine, hydrosweep::host) run the seed 002 work cycle: the final crank
#      angle of the embedded physics equals the engine's summary.csv q1 bit for
#      bit (shortest round-trip text), and the engine's summary.csv equals the
#      installed CLI's byte for byte;
#   5. the installed CLI draws its plots from PREFIX/share/hydrosweep/studies.
# Usage: install_consumer_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd); src=$(cd "$2" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }
for f in bin/hydrosweep include/hydrosweep/kernels/integrators/double_step_trapezoidal.hpp \
         include/hydrosweep/host/cli/run_study.hpp lib/libhydrosweep_host.a \
         lib/cmake/hydrosweep/hydrosweepConfig.cmake lib/cmake/hydrosweep/hydrosweepConfigVersion.cmake \
         lib/cmake/hydrosweep/hydrosweepTargets.cmake share/hydrosweep/studies/plot_study.py \
         share/hydrosweep/studies/seed002_work_cycle.toml; do
  [ -e "$work/prefix/$f" ] || fail "not installed: $f"
done
mv "$work/prefix" "$work/moved"
prefix="$work/moved"

cmake -S "$src/tests/install_consumer" -B "$work/consumer" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "configure the consumer"; }
cmake --build "$work/consumer" -j"$(nproc)" >"$work/build.log" 2>&1 || { tail -50 "$work/build.log"; fail "build the consumer"; }

kernels_out=$("$work/consumer/embed_kernels") || fail "embed_kernels"
echo "embed_kernels: $kernels_out"
study="$prefix/share/hydrosweep/studies/seed002_work_cycle.toml"
"$work/consumer/embed_host" "$study" "$work/engine" || fail "embed_host"
"$prefix/bin/hydrosweep" run "$study" --out "$work/cli" -q --backend cpu || fail "installed CLI run"

q1_kernels=$(echo "$kernels_out" | awk '{print $2}')
q1_engine=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="q1") c=i} NR==2{print $c}' "$work/engine/summary.csv")
[ -n "$q1_engine" ] || fail "no q1 in the engine's summary.csv"
# summary.csv writes 17 significant digits, the kernels' line the shortest
# round trip: equal as doubles.
python3 -c "import sys; sys.exit(float('$q1_kernels') != float('$q1_engine'))" ||
  fail "embedded kernels q1 = $q1_kernels, engine q1 = $q1_engine"
cmp "$work/engine/summary.csv" "$work/cli/summary.csv" || fail "embed_host and the installed CLI wrote different summary.csv"

"$prefix/bin/hydrosweep" plot "$work/cli" --out "$work/plots" >/dev/null || fail "installed CLI plot"
ls "$work/plots"/*.png >/dev/null 2>&1 || fail "installed CLI plot wrote no PNG"
echo "install consumer: q1 = $q1_kernels from the kernels, the engine and the installed CLI; plots drawn"
