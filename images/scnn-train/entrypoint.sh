#!/bin/sh
# Entrypoint of the scnn-train image. The MPI Operator sets K_MPI_JOB_ROLE on its pods:
#   worker   -> run sshd in the foreground; the launcher's mpirun starts ranks over ssh
#   launcher -> mpirun one rank per worker slot (hostfile from the operator), then exit
#   (unset)  -> a single process: `lanectl submit --image ... -- train ...` or local runs
# Arguments after the image name (`lanectl submit-mpi ... -- ARGS`) go to `scnn-train train`,
# as with the local backend's image (images/scnn-train/image.json; tests/images checks that the
# two agree). Other verbs (predict, eval, ...) run with --command, which replaces the entrypoint.
set -eu  # a failed mpirun fails the launcher (no snapshot of a broken run)

# The settings scnn-train reads from the environment. Ranks started over ssh do not inherit the
# launcher's environment, so mpirun forwards each one that is set (-x). The end-of-training
# snapshot is the launcher's (below, with the pod's service account), so the ranks get
# ENABLE_SNAPSHOT=false: rank 0 on a worker pod has no backend to snapshot with.
forwarded="DATA_DIR OUTPUT_DIR USE_WORKERS NUM_WORKERS BATCH_SIZE USE_VAL VAL_BATCH_SIZE EPOCHS
  OMP_NUM_THREADS LANECTL_JOB_NAME LANECTL_PROJECT LANE_DIST_TIMEOUT_S
  DEVICE PRECISION MEMORY_FORMAT MEMORY_CHECK MEMORY_LIMIT RESUME LANE_ALLOW_GPU_SHARING NCCL_DEBUG"

case "${K_MPI_JOB_ROLE:-}" in
  worker)
    if [ "$(id -u)" -eq 0 ]; then
      # No host keys are baked into the image: each worker makes its own.
      ssh-keygen -A >/dev/null
      exec /usr/sbin/sshd -De
    fi
    # Non-root (runAsUser with sshAuthMountPath: $HOME/.ssh): the job's key is the host key.
    exec /usr/sbin/sshd -De -f "${HOME:-/home/mpiuser}/.sshd_config"
    ;;
  launcher)
    export_flags="-x ENABLE_SNAPSHOT=false"
    for name in $forwarded; do
      if eval "[ -n \"\${$name+set}\" ]"; then export_flags="$export_flags -x $name"; fi
    done
    # shellcheck disable=SC2086  # the flags are words without blanks
    mpirun --allow-run-as-root -np "${RUNAI_MPI_NUM_WORKERS:-1}" --bind-to none $export_flags \
      /usr/local/bin/scnn-train train "$@"
    # End-of-training snapshot of data + model (the seed's ENABLE_SNAPSHOT), taken with the
    # pod's service account: lanectl finds no kubeconfig and uses the in-cluster config.
    if [ "${ENABLE_SNAPSHOT:-false}" = "true" ] && [ -n "${PVC_NAME:-}" ]; then
      LANECTL_BACKEND=kubernetes lanectl snapshot create --pvc "$PVC_NAME" --job "${LANECTL_JOB_NAME:-}"
    fi
    ;;
  *)
    exec /usr/local/bin/scnn-train train "$@"
    ;;
esac
