#!/usr/bin/env bash
# The CPU training step in fp32 and in bf16 on oneDNN's capped kernels (AVX512_CORE_BF16) and on
# its AMX kernels, for the shapes that decide what scnn-train does on a CPU with AMX and oneDNN
# before 3.0 (docs/training.md, "GPUs and mixed precision"). Every bench_train_step run times fp32
# and bf16 in the same process (the ratio is bf16 against that fp32); the two kernel choices
# alternate, REPEATS times.
#   bench/train_step/onednn_amx.sh [BUILD_DIR (default build/release)] [REPEATS (default 3)]
# Shapes: the small model at 128x224 batch 4 (the demo's: its AMX kernels pass scnn-train's
# check), at 256x448 batch 6 (they do not: non-finite weight gradients), the full model at
# 288x512 batch 1 (they pass). One intra-op thread. Prints one line per run and shape.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/release} repeats=${2:-3}
bench=$build/bench/bench_train_step
[ -x "$bench" ] || { echo "onednn_amx: no $bench (build it: cmake --build $build --target bench_train_step)" >&2; exit 2; }
grep -qw amx_bf16 /proc/cpuinfo || echo "onednn_amx: this CPU has no amx_bf16: both kernel choices are the same" >&2
shapes=("0.125 128x224 4 20" "0.125 256x448 6 6" "1 288x512 1 2")  # width, size, batch, timed steps
printf '%-4s %-6s %-9s %-5s %-16s %9s %9s %8s\n' run width size batch kernels fp32_img/s bf16_img/s bf16/fp32
for ((r = 1; r <= repeats; r++)); do
  for shape in "${shapes[@]}"; do
    read -r width size batch steps <<<"$shape"
    for isa in AVX512_CORE_BF16 ALL; do
      out=$(ONEDNN_MAX_CPU_ISA=$isa "$bench" --precision fp32,bf16 --device cpu --width-mult "$width" --sizes "$size" \
            --batch "$batch" --steps "$steps" --threads 1 2>&1) || { echo "$out" >&2; exit 1; }
      fp32=$(awk '$2 == "fp32" {print $5}' <<<"$out") bf16=$(awk '$2 == "bf16" {print $5}' <<<"$out")
      ratio=$(awk '$2 == "bf16" {print $7}' <<<"$out")
      kernels=$([ $isa = ALL ] && echo "amx" || echo "capped")
      printf '%-4s %-6s %-9s %-5s %-16s %9s %9s %8s\n' "$r" "$width" "$size" "$batch" "$kernels" "$fp32" "$bf16" "$ratio"
    done
  done
done
