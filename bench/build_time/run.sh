#!/usr/bin/env bash
# Cold build time (not a test): one configuration built twice from nothing in the same run, with
# no compiler cache, each target file compiled on its own (LANE_UNITY_BUILD=OFF, the baseline)
# and in unity batches (LANE_UNITY_BUILD=ON, the default). Prints each build's wall time, the
# CPU time of its compiler and linker steps (the sum of ninja's per-step times), and the ratio.
#
# Usage: bench/build_time/run.sh [CONFIG] [TARGET...]
#   CONFIG: release (scripts/setup's build/release, the default) or asan (its build/asan).
#   TARGET: ninja targets to build (default: all of the configuration).
# Knobs: JOBS (nproc), WORK (/tmp/lane-build-time; removed first and after).
# Example: bench/build_time/run.sh release lane_cli test_cli
set -euo pipefail
cd "$(dirname "$0")/../.."
config=${1:-release}
(($#)) && shift
targets=("$@")
jobs=${JOBS:-$(nproc)}
work=${WORK:-/tmp/lane-build-time}
case "$config" in
  release) flags=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan) flags=(-DCMAKE_BUILD_TYPE=Debug -DLANE_SANITIZE=address,undefined -DLANE_BUILD_BENCH=OFF) ;;
  *) echo "build_time: CONFIG is release or asan, not '$config'" >&2; exit 2 ;;
esac

rm -rf "$work"
trap 'rm -rf "$work"' EXIT
echo "build_time: $config, ${targets[*]:-all targets}, -j$jobs, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A wall
for unity in OFF ON; do
  dir="$work/unity-$unity"
  cmake -S . -B "$dir" -G Ninja "${flags[@]}" -DLANE_UNITY_BUILD=$unity -DCMAKE_CXX_COMPILER_LAUNCHER= >/dev/null
  start=$(date +%s.%N)
  CCACHE_DISABLE=1 ninja -C "$dir" -j "$jobs" "${targets[@]}" >"$work/unity-$unity.log" 2>&1 ||
    { tail -30 "$work/unity-$unity.log" >&2; exit 1; }
  wall[$unity]=$(echo "$(date +%s.%N) - $start" | bc)
  steps=$(awk 'NR > 1 { s += $2 - $1; n++ } END { printf "%.0f s over %d steps", s / 1000, n }' "$dir/.ninja_log")
  printf 'unity %-3s  wall %7.1f s   compile+link %s\n' "$unity" "${wall[$unity]}" "$steps"
done
printf 'ratio (OFF / ON wall): %.2fx\n' "$(echo "${wall[OFF]} / ${wall[ON]}" | bc -l)"
