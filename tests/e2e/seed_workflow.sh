#!/usr/bin/env bash
# The seed's versioning sequence through lanectl on the local backend, with tiny settings:
# volume + synthetic data, 2-rank training with ENABLE_SNAPSHOT, the snapshot, restore into a
# new volume, retraining on it, and the lineage of both runs. Fails on the first broken step.
set -euo pipefail
bin=$1
export PATH="$bin:$PATH" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export LANECTL_HOME=$(mktemp -d /tmp/lane-e2e.XXXXXX)
trap 'rm -rf "$LANECTL_HOME"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

wait_for_job() {
  for _ in $(seq 1 200); do
    status=$(lanectl describe job "$1" -o json | sed -n 's/^  "status": "\([A-Za-z]*\)".*/\1/p')
    case "$status" in
      Succeeded) return 0 ;;
      Failed|Deleted) lanectl logs "$1" --tail 30 >&2; fail "job $1 ended $status" ;;
    esac
    sleep 1
  done
  fail "job $1 did not end within 200 s"
}

lanectl cluster set-nodes node-1=2 >/dev/null
lanectl submit gen -i scnn-train --pvc :1Gi:/mnt --command -- scnn-train synth --out /mnt/tusimple --frames 16 --seed 3 >/dev/null
wait_for_job gen
train_args=(-- --model small --input-height 64 --input-width 96 --train-labels label_data_train.json
            --val-labels label_data_val.json)
lanectl submit-mpi --name train-a --processes=2 --gpu 1 --pvc pvc-gen-0:/mnt --image scnn-train \
  -e DATA_DIR=/mnt/tusimple -e BATCH_SIZE=4 -e EPOCHS=1 -e OMP_NUM_THREADS=1 \
  -e ENABLE_SNAPSHOT=true -e PVC_NAME=pvc-gen-0 -e API_TOKEN=s3cr3t-value "${train_args[@]}" >/dev/null
wait_for_job train-a
lanectl logs train-a | grep -q '^\[1,0\]<stdout>:Snapshot snap-pvc-gen-0-train-a-launcher-.* created in namespace runai-default$' \
  || fail "the end-of-training snapshot line is missing from the logs"
snap=$(lanectl snapshot list -o json | sed -n 's/^ *"name": "\(snap-pvc-gen-0-train-a[^"]*\)".*/\1/p' | head -n 1)
[ -n "$snap" ] || fail "no snapshot of pvc-gen-0 listed"
lanectl snapshot verify "$snap" >/dev/null || fail "snapshot $snap does not verify"

lanectl restore "$snap" --to-pvc restored >/dev/null
lanectl submit-mpi --name train-b --processes=2 --gpu 1 --pvc restored:/mnt --image scnn-train \
  -e DATA_DIR=/mnt/tusimple -e OUTPUT_DIR=/mnt/runs-b -e USE_VAL=true -e BATCH_SIZE=4 -e EPOCHS=1 -e OMP_NUM_THREADS=1 \
  -e ENABLE_SNAPSHOT=true -e PVC_NAME=restored "${train_args[@]}" >/dev/null
wait_for_job train-b

lineage_a=$(lanectl lineage train-a -o json)
lineage_b=$(lanectl lineage train-b -o json)
grep -q "\"$snap\"" <<<"$lineage_b" || fail "lineage of train-b does not name its parent snapshot $snap"
grep -q '"restored"' <<<"$lineage_a" || fail "lineage of train-a does not show the restored volume"
grep -q 's3cr3t-value' <<<"$lineage_a$lineage_b" && fail "a secret environment value leaked into the lineage"
grep -q '"accuracy"' <<<"$lineage_b" || fail "lineage of train-b has no final validation metrics"
echo "seed workflow: ok ($snap)"
