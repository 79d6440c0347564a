#!/usr/bin/env bash
# Cold build time (not a test): one configuration built twice from nothing in the same run, with
# no compiler cache: a baseline with the cmake options of BASELINE, and a candidate with those of
# CANDIDATE (default: none, the project's defaults). Prints each build's wall time, the CPU time
# of its compiler and linker steps (the sum of ninja's per-step times), and the ratio.
#
# Usage: bench/build_time/run.sh [CONFIG] [TARGET...]
#   CONFIG: release (scripts/setup's build/release, the default), asan (its build/asan: clang,
#           AddressSanitizer and UndefinedBehaviorSanitizer) or tsan (its build/tsan: GCC,
#           ThreadSanitizer).
#   TARGET: ninja targets to build (default: all of the configuration).
# Knobs: BASELINE (default -DLANE_UNITY_BUILD=OFF: each file compiled on its own), CANDIDATE,
#        JOBS (nproc), WORK (/tmp/lane-build-time; removed first, and after unless KEEP=1: each
#        build's .ninja_log has its per-step times).
# Examples:
#   bench/build_time/run.sh release lane_cli test_cli
#   BASELINE="-DLANE_TORCH_PCH=OFF -DLANE_TEST_CODE_O1=OFF" bench/build_time/run.sh release test_trainer
#   BASELINE="-DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++" bench/build_time/run.sh asan test_cli
#   BASELINE=-DLANE_TRAIN_ONLY=ON CANDIDATE=-DLANE_TRAIN_ONLY=OFF bench/build_time/run.sh tsan
set -euo pipefail
cd "$(dirname "$0")/../.."
config=${1:-release}
(($#)) && shift
targets=("$@")
jobs=${JOBS:-$(nproc)}
work=${WORK:-/tmp/lane-build-time}
read -r -a baseline <<<"${BASELINE--DLANE_UNITY_BUILD=OFF}"
read -r -a candidate <<<"${CANDIDATE:-}"
source scripts/lib/build-configs.sh
case "$config" in
  release|asan|tsan) declare -n flags=${config}_flags ;;
  *) echo "build_time: CONFIG is release, asan or tsan, not '$config'" >&2; exit 2 ;;
esac

rm -rf "$work"
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
echo "build_time: $config, ${targets[*]:-all targets}, -j$jobs, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "build_time: baseline: ${baseline[*]:-(defaults)}; candidate: ${candidate[*]:-(defaults)}"
declare -A wall
for build in baseline candidate; do
  dir="$work/$build"
  if [ "$build" = baseline ]; then extra=("${baseline[@]}"); else extra=("${candidate[@]}"); fi
  cmake -S . -B "$dir" -G Ninja "${flags[@]}" "${extra[@]}" -DCMAKE_CXX_COMPILER_LAUNCHER= >/dev/null
  start=$(date +%s.%N)
  CCACHE_DISABLE=1 ninja -C "$dir" -j "$jobs" "${targets[@]}" >"$work/$build.log" 2>&1 ||
    { tail -30 "$work/$build.log" >&2; exit 1; }
  wall[$build]=$(echo "$(date +%s.%N) - $start" | bc)
  steps=$(awk 'NR > 1 { s += $2 - $1; n++ } END { printf "%.0f s over %d steps", s / 1000, n }' "$dir/.ninja_log")
  printf '%-9s  wall %7.1f s   compile+link %s\n' "$build" "${wall[$build]}" "$steps"
done
printf 'ratio (baseline / candidate wall): %.2fx\n' "$(echo "${wall[baseline]} / ${wall[candidate]}" | bc -l)"
