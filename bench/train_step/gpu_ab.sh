#!/usr/bin/env bash
# The training step of two builds side by side on one GPU, in one run: a baseline bundle and a
# candidate bundle (both made by `scripts/gpu-check --bundle`), plus eager PyTorch, so every ratio
# compares figures of the same machine and minute.
#   bench/train_step/gpu_ab.sh BASELINE_BUNDLE CANDIDATE_BUNDLE [--batches 24,48,96] [--steps N]
#       [--size 288x512] [--device cuda|cpu (cpu: a rehearsal of the plumbing, tiny sizes)]
# Runs, at 288x512 in bf16 (cuDNN autotuning on):
#   1. the baseline's bench_train_step at the first batch;
#   2. the candidate's at the first batch with --memory-format contiguous (the change without
#      channels-last), then with its default layout at every batch;
#   3. eager PyTorch (eager_scnn.py) at the first batch;
#   4. a Kineto trace of 5 candidate steps at the first batch (gzipped).
# Writes ab.jsonl (every row, tagged with its variant), ab.log and trace-candidate.json.gz to $OUT
# (else out/gpu-ab) and prints a table of images/s and ratios last. Needs python3 with CUDA torch
# of the version the bundles were built against.
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 2 ] || { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
baseline=$1 candidate=$2
shift 2
batches=24,48,96 steps=20 size=288x512 device=cuda
while (($#)); do
  case "$1" in
    --batches) batches=${2:?--batches needs a list}; shift ;;
    --steps) steps=${2:?--steps needs a number}; shift ;;
    --size) size=${2:?--size needs HxW}; shift ;;
    --device) device=${2:?--device needs cuda or cpu}; shift ;;
    *) echo "gpu_ab: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done
out=${OUT:-out/gpu-ab}
mkdir -p "$out"
work=$(mktemp -d /tmp/lane-gpu-ab.XXXXXX)
trap 'rm -rf "$work"' EXIT
first=${batches%%,*}
log=$out/ab.log
exec > >(tee -a "$log") 2>&1

torch_lib=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))') || exit 1
nvidia_libs=$(python3 -c 'import glob, os, torch
site = os.path.dirname(os.path.dirname(torch.__file__))
print(":".join(sorted(glob.glob(os.path.join(site, "nvidia", "*", "lib")))))')
for side in baseline candidate; do
  mkdir -p "$work/$side"
  tar -C "$work/$side" -xJf "${!side}" || { echo "gpu_ab: cannot unpack ${!side}" >&2; exit 1; }
done

# bench VARIANT SIDE ARGS...: one bench_train_step run, its JSON rows tagged with VARIANT.
bench() {
  local variant=$1 side=$2
  shift 2
  echo "== $variant"
  LD_LIBRARY_PATH=$work/$side/lib:$torch_lib:$nvidia_libs timeout 120 "$work/$side/bin/bench_train_step" \
    --device "$device" --sizes "$size" --json "$work/$variant.jsonl" "$@"
  echo "== $variant: exit $?"
  sed "s/^{/{\"variant\":\"$variant\",/" "$work/$variant.jsonl" >>"$out/ab.jsonl" 2>/dev/null
}

bench baseline baseline --precision bf16 --batch "$first" --steps "$steps"
bench candidate-nchw candidate --precision bf16 --batch "$first" --steps "$steps" --memory-format contiguous
bench candidate candidate --precision bf16 --batch "$batches" --steps "$steps"
echo "== eager"
timeout 90 python3 bench/train_step/eager_scnn.py --device "$device" --precision bf16 --batch "$first" \
  --steps "$steps" --height "${size%x*}" --width "${size#*x}" --json "$work/eager.jsonl"
sed 's/^{/{"variant":"eager",/' "$work/eager.jsonl" >>"$out/ab.jsonl" 2>/dev/null
echo "== trace"
LD_LIBRARY_PATH=$work/candidate/lib:$torch_lib:$nvidia_libs timeout 60 "$work/candidate/bin/bench_train_step" \
  --device "$device" --sizes "$size" --precision bf16 --batch "$first" --trace "$work/trace.json" &&
  gzip -c "$work/trace.json" >"$out/trace-candidate.json.gz"

python3 - "$out/ab.jsonl" "$first" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
first = int(sys.argv[2])
def rate(variant, batch=first):
    for r in rows:
        if r.get("variant") == variant and r.get("batch") == batch and r.get("img_per_s"):
            return r["img_per_s"]
base, eager = rate("baseline"), rate("eager")
print("\nvariant          batch     img/s   vs baseline  vs eager")
for r in rows:
    v = r.get("img_per_s")
    if not v or r.get("kind") == "trace":
        continue
    ratio = lambda ref: "%10.2fx" % (v / ref) if ref else "         -"
    print("%-16s %5d %9.1f %s %s" % (r["variant"], r["batch"], v, ratio(base), ratio(eager)))
EOF
