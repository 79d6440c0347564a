# Helpers of images/*/smoke (sourced): start one instance of a built image and run commands in
# it. With a working `podman run` the instance is a container (`podman run -d`, host network)
# and commands run with `podman exec`; where `podman run` fails (cgroups in hybrid mode, rlimits)
# the instance is a `buildah from` working container and commands run with `buildah run`
# (chroot isolation, host network). LANE_IMAGES_RUNNER=podman|buildah forces one.
# Every instance and background process started here is removed on exit.
set -euo pipefail

smoke_isolation=${LANE_IMAGES_ISOLATION:-chroot}
smoke_runner=${LANE_IMAGES_RUNNER:-}
smoke_instances=() smoke_pids=() smoke_dirs=()
declare -A smoke_volumes=()

fail() { echo "smoke: FAIL: $*" >&2; exit 1; }
ok() { echo "smoke: ok: $*"; }

smoke_cleanup() {
  local pid ctr
  # Background commands run in their own process group (set -m): stop the whole group.
  for pid in "${smoke_pids[@]}"; do kill -- "-$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  for ctr in "${smoke_instances[@]}"; do
    if [ "$smoke_runner" = podman ]; then podman rm -f "$ctr" >/dev/null 2>&1 || true
    else buildah rm "$ctr" >/dev/null 2>&1 || true; fi
  done
  for dir in "${smoke_dirs[@]}"; do rm -rf "$dir"; done
}
trap smoke_cleanup EXIT

# A scratch folder removed on exit.
scratch_dir() {
  local d
  d=$(mktemp -d "/var/tmp/lane-smoke-$1.XXXXXX")
  smoke_dirs+=("$d")
  echo "$d"
}

# Decide once how instances run: podman run where it works, buildah otherwise.
pick_runner() {
  [ -n "$smoke_runner" ] && return 0
  if podman run --rm --network host --entrypoint /bin/true "$1" >/dev/null 2>&1; then smoke_runner=podman
  else smoke_runner=buildah; fi
  echo "smoke: instances run with $smoke_runner"
}

# new_instance VAR IMAGE [-v HOST:CTR]...: start an instance; its name goes into VAR.
new_instance() {
  local var=$1 image=$2 name
  shift 2
  pick_runner "$image"
  name="lane-smoke-$$-${#smoke_instances[@]}"
  if [ "$smoke_runner" = podman ]; then
    podman run -d --name "$name" --network host "$@" --entrypoint /bin/sleep "$image" infinity >/dev/null
  else
    buildah from --pull=never --quiet --name "$name" "$image" >/dev/null
    smoke_volumes[$name]="$*"
  fi
  smoke_instances+=("$name")
  printf -v "$var" '%s' "$name"
}

# in_instance NAME [-e K=V | --user U]... -- CMD ARGS...: run a command in the instance.
in_instance() {
  local name=$1 opts=()
  shift
  while [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  if [ "$smoke_runner" = podman ]; then
    podman exec "${opts[@]}" "$name" "$@"
  else
    # shellcheck disable=SC2086  # the volume options were given as words
    buildah run --isolation "$smoke_isolation" ${smoke_volumes[$name]} "${opts[@]}" "$name" -- "$@"
  fi
}

# in_background NAME OPTS -- CMD...: like in_instance, in the background (stopped on exit).
in_background() {
  set -m
  in_instance "$@" &
  smoke_pids+=("$!")
  set +m
}

# entrypoint_of IMAGE: the image's ENTRYPOINT, one word per line (for mapfile).
entrypoint_of() {
  podman image inspect --format '{{json .Config.Entrypoint}}' "$1" |
    python3 -c 'import json, sys; print("\n".join(json.load(sys.stdin)))'
}
