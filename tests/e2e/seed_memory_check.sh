#!/usr/bin/env bash
# The seed's own training line (issue: `submit-mpi --processes=3 --gpu 1 ... -e BATCH_SIZE=33`),
# unchanged, on the local backend of a machine where three ranks of the full SCNN at that batch
# cannot fit: the job must end within seconds, Failed with exit code 2, its log naming the memory
# estimate and the fix, instead of running into the kernel's out-of-memory killer. Skipped (77)
# on a machine whose memory would hold it.
set -euo pipefail
bin=$1
export PATH="$bin:$PATH" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export LANECTL_HOME=$(mktemp -d /tmp/lane-e2e-mem.XXXXXX)
trap 'rm -rf "$LANECTL_HOME"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mem_gib=$(awk '/^MemTotal:/ {printf "%d", $2 / 1048576}' /proc/meminfo)
if [ "$mem_gib" -ge 48 ]; then
  echo "skip: ${mem_gib} GiB of memory may hold three ranks at BATCH_SIZE=33"
  exit 77
fi

lanectl cluster set-nodes node-1=3 >/dev/null
# The download job's place in the seed: a volume with TuSimple's layout and label file names
# (synthetic frames here; the real download needs the network).
lanectl submit download-tusimple-data -i scnn-train --pvc :1Gi:/mnt --command -- sh -c \
  'scnn-train synth --out /mnt --frames 8 --seed 5 >/dev/null && cp /mnt/label_data_train.json /mnt/label_data_0313.json &&
   cp /mnt/label_data_train.json /mnt/label_data_0601.json && cp /mnt/label_data_val.json /mnt/label_data_0531.json' >/dev/null
lanectl wait --for=condition=Succeeded download-tusimple-data --timeout 120s >/dev/null
start=$(date +%s)
lanectl submit-mpi \
  --name dist-lane-detection-training \
  --large-shm \
  --processes=3 \
  --gpu 1 \
  --pvc pvc-download-tusimple-data-0:/mnt \
  --image muneer7589/dist-lane-detection:3.1 \
  -e USE_WORKERS="true" \
  -e NUM_WORKERS=4 \
  -e BATCH_SIZE=33 \
  -e USE_VAL="false" \
  -e VAL_BATCH_SIZE=99 \
  -e ENABLE_SNAPSHOT="true" \
  -e PVC_NAME="pvc-download-tusimple-data-0" >/dev/null
lanectl wait --for=condition=Failed dist-lane-detection-training --timeout 120s \
  || { lanectl logs dist-lane-detection-training --tail 20 >&2; fail "the seed's training did not fail fast"; }
took=$(( $(date +%s) - start ))
logs=$(lanectl logs dist-lane-detection-training)
grep -q "needs about .* GiB per rank" <<<"$logs" || { echo "$logs" | tail -20 >&2; fail "no memory estimate in the log"; }
grep -q "BATCH_SIZE=" <<<"$logs" || fail "the log does not name a BATCH_SIZE that fits"
lanectl describe job dist-lane-detection-training | grep -q "OOMKilled" && fail "the job was killed for memory"
[ "$took" -le 90 ] || fail "the job took ${took} s to fail"
echo "seed memory check: ok (failed in ${took} s): $(grep -m1 'needs about' <<<"$logs")"
