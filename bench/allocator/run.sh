#!/usr/bin/env bash
# The trainer's allocator (not a test): the demo recipe (small SCNN, 128x224, two MPI ranks of one
# intra-op thread, batch 4 per rank, 2 loader workers each) for STEPS steps on synthetic data, run
# ROUNDS times alternately with scnn-train-core as built (tcmalloc, src/train/CMakeLists.txt) and
# with a baseline trainer linked against glibc's malloc alone. Prints, per run, the trainer's last
# images/s, the wall time, the page faults (minor, all ranks) and the peak RSS of the largest
# rank; then the medians and the ratio tcmalloc / glibc.
#
# Usage: BENCH_BASELINE_CORE=PATH bench/allocator/run.sh [BUILD_DIR] [WORK_DIR]
#   PATH: scnn-train-core of the same commit configured with -DLANE_TCMALLOC=OFF, e.g.
#     cmake -S . -B build/release -DLANE_TCMALLOC=OFF && ninja -C build/release scnn-train-core &&
#     cp build/release/bin/scnn-train-core /tmp/scnn-train-core.glibc &&
#     cmake -S . -B build/release -DLANE_TCMALLOC=ON && ninja -C build/release scnn-train
# Knobs: STEPS (120), ROUNDS (3), FRAMES (240), H (128), W (224).
set -euo pipefail
BUILD=${1:-build/release}
WORK=${2:-/tmp/scnn-allocator}
CORE="$(cd "$BUILD/bin" && pwd)/scnn-train-core"
BASE=${BENCH_BASELINE_CORE:?set BENCH_BASELINE_CORE to a scnn-train-core built with -DLANE_TCMALLOC=OFF}
STEPS=${STEPS:-120} ROUNDS=${ROUNDS:-3} FRAMES=${FRAMES:-240} H=${H:-128} W=${W:-224}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMP_NUM_THREADS=1
[ -x /usr/bin/time ] || { echo "bench/allocator: needs GNU time (/usr/bin/time, Debian package time)" >&2; exit 2; }
readelf -d "$CORE" | grep -q 'libtcmalloc_minimal' ||
  { echo "bench/allocator: $CORE is not linked with tcmalloc (configure with -DLANE_TCMALLOC=ON)" >&2; exit 2; }
if readelf -d "$BASE" | grep -q 'libtcmalloc_minimal'; then
  echo "bench/allocator: the baseline $BASE is linked with tcmalloc" >&2; exit 2
fi

rm -rf "$WORK"
mkdir -p "$WORK"
"$CORE" synth --out "$WORK/data" --frames "$FRAMES" --seed 7 --val-fraction 0.2 --threads 1 >/dev/null
echo "machine: $(nproc --all) cores, $(lscpu | sed -n 's/^Model name: *//p'); load before: $(uptime | sed 's/.*load/load/')"
echo "recipe: small ${H}x${W}, 2 ranks x batch 4, 2 workers per rank, $STEPS steps; $ROUNDS rounds"

run() {  # $1 label, $2 binary -> "label img/s wall faults rss_kb"
  local out="$WORK/out-$1"
  rm -rf "$out"
  /usr/bin/time -f '%e %R %M' -o "$WORK/time.txt" \
    mpirun -np 2 --bind-to none "$2" train --data-dir "$WORK/data" --output-dir "$out" --model small \
      --input-height "$H" --input-width "$W" --batch-size 4 --threads 1 --use-workers true --num-workers 2 \
      --max-steps "$STEPS" --log-every 1000 --checkpoint-every 100000 --train-labels label_data_train.json \
      >"$WORK/train-$1.log" 2>&1
  local rate
  rate=$(grep -o '[0-9.]* img/s' "$WORK/train-$1.log" | tail -n1 | cut -d' ' -f1)
  [ -n "$rate" ] || { echo "bench/allocator: the $1 run printed no img/s (log: $WORK/train-$1.log)" >&2; exit 1; }
  echo "$1 $rate $(cat "$WORK/time.txt")"
}

results=()
for r in $(seq "$ROUNDS"); do
  for which in glibc tcmalloc; do
    bin=$CORE
    [ "$which" = glibc ] && bin=$BASE
    line=$(run "$which" "$bin")
    results+=("$line")
    read -r _ rate wall faults rss <<<"$line"
    printf 'round %d %-8s %7.2f img/s %7.1f s wall %9d page faults %7d MiB peak RSS\n' \
      "$r" "$which" "$rate" "$wall" "$faults" "$((rss / 1024))"
  done
done
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
col() { printf '%s\n' "${results[@]}" | awk -v w="$1" -v c="$2" '$1 == w {print $c}' | median; }
for c in 2:img/s 3:wall-s 4:page-faults 5:peak-RSS-KiB; do
  g=$(col glibc "${c%%:*}") t=$(col tcmalloc "${c%%:*}")
  printf 'median %-13s glibc %12s  tcmalloc %12s  tcmalloc/glibc %s\n' "${c#*:}" "$g" "$t" \
    "$(awk -v a="$t" -v b="$g" 'BEGIN {printf "%.3f", a / b}')"
done
echo "load after: $(uptime | sed 's/.*load/load/')"
