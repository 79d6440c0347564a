#!/bin/sh
# Entrypoint of the scnn-train image. The MPI Operator sets K_MPI_JOB_ROLE on its pods:
#   worker   -> run sshd in the foreground; the launcher's mpirun starts ranks over ssh
#   launcher -> mpirun one rank per worker slot (hostfile from the operator), then exit
#   (unset)  -> a single process: `lanectl submit --image ... -- train ...` or local runs
# Arguments after the image name (`lanectl submit-mpi ... -- ARGS`) are passed to scnn-train;
# without arguments it runs `scnn-train train`.
set -eu  # a failed mpirun fails the launcher (no snapshot of a broken run)
[ "$#" -gt 0 ] || set -- train
case "${K_MPI_JOB_ROLE:-}" in
  worker)
    exec /usr/sbin/sshd -De
    ;;
  launcher)
    # Device settings reach the ranks only when set (-x of an unset variable is an mpirun error).
    device_env=""
    for v in DEVICE PRECISION LANE_ALLOW_GPU_SHARING NCCL_DEBUG; do
      eval "[ -n \"\${$v+set}\" ]" && device_env="$device_env -x $v"
    done
    # shellcheck disable=SC2086 # device_env is a list of words
    mpirun --allow-run-as-root -np "${RUNAI_MPI_NUM_WORKERS:-1}" --bind-to none \
      -x DATA_DIR -x OUTPUT_DIR -x USE_WORKERS -x NUM_WORKERS -x BATCH_SIZE -x USE_VAL \
      -x VAL_BATCH_SIZE -x ENABLE_SNAPSHOT -x PVC_NAME -x LANECTL_JOB_NAME -x LANECTL_PROJECT $device_env \
      /usr/local/bin/scnn-train "$@"
    # End-of-training snapshot of data + model (the seed's ENABLE_SNAPSHOT), taken with the
    # pod's service account: lanectl finds no kubeconfig and uses the in-cluster config.
    if [ "${ENABLE_SNAPSHOT:-false}" = "true" ] && [ -n "${PVC_NAME:-}" ]; then
      LANECTL_BACKEND=kubernetes lanectl snapshot create --pvc "$PVC_NAME" --job "${LANECTL_JOB_NAME:-}"
    fi
    ;;
  *)
    exec /usr/local/bin/scnn-train "$@"
    ;;
esac
