#!/usr/bin/env bash
# Compiler and linker launcher that records how long each command took
# (bench/build_time.py reads the log): CMake runs
#   bash scripts/compile_timer.sh LOG [ccache] COMPILER ARGS...
# when configured with -DHYDROSWEEP_BUILD_TIME_LOG=LOG. One line per command:
# start, end (seconds since the epoch), exit status, output file (-o).
log=$1
shift
start=$(date +%s.%N)
"$@"
rc=$?
end=$(date +%s.%N)
out="" prev=""
for a in "$@"; do
  [[ $prev == -o ]] && out=$a
  prev=$a
done
printf '%s\t%s\t%s\t%s\t%s\n' "$start" "$end" "$rc" "$out" "$PWD" >>"$log"
exit $rc
