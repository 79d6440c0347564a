#!/usr/bin/env bash
# Time to accuracy (not a test): the demo recipe (small SCNN, docs/training.md "Demo recipe") on
# synthetic TuSimple data, trained once with 1 rank and once with 2 MPI ranks (1 intra-op thread
# each), validated with the official TuSimple metric on the held-out split after every epoch.
# Prints, per run, the first validation that reaches TARGET accuracy: its step, the wall time
# since the run started, and the ratio of the 2-rank to the 1-rank wall time (goal <= 0.6).
# By default the global batch is the demo's (GLOBAL_BATCH=8: 8 on 1 rank, 4 per rank on 2), so
# both runs take the same SGD steps and the ratio is the price of a step (strong scaling);
# BATCH=N instead fixes the batch per rank (weak scaling: 2 ranks take half the steps per epoch).
#
# Usage: bench/convergence/run.sh [BUILD_DIR] [WORK_DIR]
# Knobs: FRAMES (240), SEED (7), EPOCHS (24), GLOBAL_BATCH (8) or BATCH (per rank), H (128), W (224), LR (0.1),
#        WARMUP (20), TARGET (0.90), RANKS ("1 2").
set -euo pipefail
BUILD=${1:-build/release}
WORK=${2:-/tmp/scnn-convergence}
BIN="$(cd "$(dirname "$BUILD/bin/scnn-train")" && pwd)/scnn-train"
FRAMES=${FRAMES:-240}
SEED=${SEED:-7}
EPOCHS=${EPOCHS:-24}
BATCH=${BATCH:-}
GLOBAL_BATCH=${GLOBAL_BATCH:-8}
H=${H:-128}
W=${W:-224}
LR=${LR:-0.1}
WARMUP=${WARMUP:-20}
TARGET=${TARGET:-0.90}
RANKS=${RANKS:-1 2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMP_NUM_THREADS=1

rm -rf "$WORK"
mkdir -p "$WORK"
"$BIN" synth --out "$WORK/data" --frames "$FRAMES" --seed "$SEED" --val-fraction 0.2 --threads 1 >/dev/null
echo "machine: $(nproc --all) cores, $(lscpu | sed -n 's/^Model name: *//p'); load before: $(uptime | sed 's/.*load/load/')"
echo "data: synth --frames $FRAMES --seed $SEED --val-fraction 0.2; recipe: small ${H}x${W}," \
     "batch ${BATCH:+$BATCH per rank}${BATCH:-$GLOBAL_BATCH in all}," \
     "lr $LR, warm-up $WARMUP, $EPOCHS epochs"

declare -A reach_s
for np in $RANKS; do
  out="$WORK/np$np"
  per_rank=${BATCH:-$((GLOBAL_BATCH / np))}
  if [ -z "$BATCH" ] && [ $((per_rank * np)) -ne "$GLOBAL_BATCH" ]; then
    echo "GLOBAL_BATCH=$GLOBAL_BATCH does not split over $np ranks; set BATCH (per rank) instead" >&2
    exit 2
  fi
  args=(train --data-dir "$WORK/data" --output-dir "$out" --model small --input-height "$H" --input-width "$W"
        --batch-size "$per_rank" --val-batch-size 8 --epochs "$EPOCHS" --lr "$LR" --warmup-steps "$WARMUP"
        --use-workers true --num-workers 2 --use-val true --threads 1 --log-every 1000 --checkpoint-every 100000
        --train-labels label_data_train.json --val-labels label_data_val.json)
  launcher=()
  [ "$np" -gt 1 ] && launcher=(mpirun -np "$np" --bind-to none)
  start=$(date +%s.%N)
  # Each validation line gets the wall time since the start, as it is printed.
  "${launcher[@]}" "$BIN" "${args[@]}" 2>&1 | while IFS= read -r line; do
    case "$line" in
      validation*) printf '%8.1f s  %s\n' "$(echo "$(date +%s.%N) - $start" | bc)" "$line" ;;
    esac
  done | tee "$out.log"
  end=$(date +%s.%N)
  first=$(awk -v t="$TARGET" '{for (i = 1; i <= NF; ++i) if ($i == "accuracy" && $(i + 1) + 0 >= t) {print; exit}}' "$out.log")
  if [ -n "$first" ]; then
    reach_s[$np]=$(echo "$first" | awk '{print $1}')
    step=$(echo "$first" | sed -n 's/.*at step \([0-9]*\):.*/\1/p')
    echo "ranks $np (batch $per_rank per rank): reached accuracy >= $TARGET at step $step after ${reach_s[$np]} s (run total $(echo "$end - $start" | bc | cut -d. -f1) s)"
  else
    echo "ranks $np (batch $per_rank per rank): did NOT reach accuracy >= $TARGET in $EPOCHS epochs (run total $(echo "$end - $start" | bc | cut -d. -f1) s)"
  fi
done
echo "load after: $(uptime | sed 's/.*load/load/')"
if [ -n "${reach_s[1]:-}" ] && [ -n "${reach_s[2]:-}" ]; then
  echo "time to $TARGET, 2 ranks / 1 rank: $(echo "scale=3; ${reach_s[2]} / ${reach_s[1]}" | bc) (goal <= 0.6)"
fi
