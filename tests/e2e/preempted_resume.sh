#!/usr/bin/env bash
# A preempted 2-rank training job with RESUME=auto on the local backend: team-b claims its quota
# back, the scheduler stops team-a's over-quota job (SIGTERM to every process of it), the ranks
# finish their step and save checkpoint_latest.pt, and when the GPU is free again the same job
# starts over and continues from that step instead of step 0. metrics.jsonl then holds each step
# once (the restarted run cut it at the checkpoint's step). Fails on the first broken step.
# LANECTL_SANDBOX=bwrap runs it in the bubblewrap sandbox (that of non-root users); exit 77 when
# bubblewrap cannot run here.
set -euo pipefail
bin=$1
if [ "${LANECTL_SANDBOX:-}" = bwrap ] && ! bwrap --dev-bind / / true >/dev/null 2>&1; then
  echo "skipped: bwrap cannot create namespaces here"
  exit 77
fi
export PATH="$bin:$PATH" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export LANECTL_HOME=$(mktemp -d /tmp/lane-e2e-resume.XXXXXX) LANECTL_GRACE_SECONDS=20
data=$LANECTL_HOME-data
# A delete returns at once and the job's processes get their grace period, in which the ranks
# save a checkpoint into $data: the folders go once the jobs' supervisors have ended.
cleanup() {
  for p in team-a team-b; do lanectl delete --all -p $p >/dev/null 2>&1 || true; done
  for _ in $(seq 1 150); do
    pgrep -f "__supervise $LANECTL_HOME " >/dev/null || break
    sleep 0.2
  done
  rm -rf "$LANECTL_HOME" "$data"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; lanectl logs train -p team-a --tail 15 >&2 || true; exit 1; }
# Waits up to $1 seconds for the command after it to succeed.
within() {
  local seconds=$1
  shift
  for _ in $(seq 1 $((seconds * 5))); do
    if "$@"; then return 0; fi
    sleep 0.2
  done
  return 1
}
logs_have() { lanectl logs train -p team-a 2>/dev/null | grep -q -- "$1"; }
status_is() { lanectl list -p team-a 2>/dev/null | grep -q "^train  *$1 "; }

scnn-train synth --out "$data" --frames 8 --seed 5 >/dev/null
chmod -R a+rwX "$data"  # the job runs as the project's own user
lanectl cluster set-nodes node-1=2 >/dev/null
lanectl project create team-a --gpu-quota 1 >/dev/null
lanectl project create team-b --gpu-quota 1 >/dev/null

# 2 GPUs for team-a: one of them beyond its quota, so the job is the one to preempt.
lanectl submit-mpi --name train -p team-a --processes 2 --gpu 1 -i scnn-train -v "$data:/mnt" \
  -e RESUME=auto -e USE_WORKERS=false -e OMP_NUM_THREADS=1 \
  -- --train-labels label_data_train.json --model small --input-height 64 --input-width 128 \
  --batch-size 2 --epochs 100000 --log-every 1 >/dev/null
within 120 logs_have " step 5/" || fail "training did not reach step 5"
logs_have "auto-resume: no checkpoint in '/mnt/runs' yet: starting at step 0" || fail "no auto-resume line at the start"

lanectl submit b1 -p team-b -g 1 -i x --command -- sleep 300 >/dev/null
within 30 status_is Pending || fail "train was not preempted"
lanectl describe job train -p team-a | grep -q "\[Preempted\]" || fail "no Preempted event"
within 20 test -f "$data/runs/checkpoint_latest.pt" || fail "the preempted ranks saved no checkpoint"
# Rank 0's stop line reaches the job's log: the sandbox stops the ranks before mpirun, which
# relays it.
within 20 logs_have "<stdout>:stopped by SIGTERM after step" || fail "no 'stopped by SIGTERM' line from rank 0"
stopped=$(lanectl logs train -p team-a | sed -n 's/.*stopped by SIGTERM after step \([0-9]*\).*/\1/p' | head -1)

lanectl delete job b1 -p team-b >/dev/null
within 60 logs_have "resuming at step" || fail "the restarted job did not resume from the checkpoint"
step=$(lanectl logs train -p team-a | sed -n 's/.*resuming at step \([0-9]*\).*/\1/p' | head -1)
[ "$step" -ge 5 ] || fail "resumed at step $step, before the step 5 it had reached"
[ "$step" = "$stopped" ] || fail "resumed at step $step, but the stop line said step $stopped"
within 60 logs_have " step $((step + 2))/" || fail "the resumed job did not train on from step $step"

# Each training step once in metrics.jsonl: what the first attempt logged after its checkpoint
# was cut when the run resumed.
python3 - "$data/runs/metrics.jsonl" "$step" <<'EOF' || fail "metrics.jsonl repeats or skips steps"
import json, sys
steps = [r["step"] for r in map(json.loads, open(sys.argv[1])) if r.get("kind") == "train"]
assert steps == list(range(1, len(steps) + 1)), steps
assert len(steps) > int(sys.argv[2]), (len(steps), sys.argv[2])
EOF
echo "preempted resume: ok (stopped and continued at step $step)"
