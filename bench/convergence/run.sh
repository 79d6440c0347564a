#!/usr/bin/env bash
# Convergence check (not a test): the small SCNN on synthetic TuSimple data, two CPU threads,
# validated with the TuSimple metric on the held-out synthetic val split.
# Usage: bench/convergence/run.sh [BUILD_DIR] [WORK_DIR]; knobs: FRAMES, EPOCHS, BATCH, H, W, LR, THREADS.
set -euo pipefail
BUILD=${1:-build/release}
WORK=${2:-/tmp/scnn-convergence}
BIN="$BUILD/bin/scnn-train"
FRAMES=${FRAMES:-240}
EPOCHS=${EPOCHS:-16}
BATCH=${BATCH:-8}
H=${H:-96}
W=${W:-160}
LR=${LR:-0.05}
THREADS=${THREADS:-2}

rm -rf "$WORK"
mkdir -p "$WORK"
"$BIN" synth --out "$WORK/data" --frames "$FRAMES" --seed 7 --val-fraction 0.2 --threads 1
start=$(date +%s)
OMP_NUM_THREADS=$THREADS "$BIN" train --data-dir "$WORK/data" --output-dir "$WORK/out" \
  --train-labels label_data_train.json --val-labels label_data_val.json --use-val true \
  --model small --input-height "$H" --input-width "$W" --batch-size "$BATCH" --val-batch-size 16 \
  --epochs "$EPOCHS" --lr "$LR" --warmup-steps 10 --threads "$THREADS" --use-workers true --num-workers 1 --log-every 10 --checkpoint-every 1000 \
  | tee "$WORK/train.log"
end=$(date +%s)
echo "wall seconds: $((end - start))"
grep '"kind":"val"' "$WORK/out/metrics.jsonl"
