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

# Stop the background commands started so far. They run in their own process group (set -m):
# the whole group is stopped.
smoke_cleanup_background() {
  local pid
  for pid in "${smoke_pids[@]}"; do
    kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  smoke_pids=()
}

smoke_cleanup() {
  local ctr dir
  smoke_cleanup_background
  for ctr in "${smoke_instances[@]}"; do
    if [ "$smoke_runner" = podman ]; then podman rm -f "$ctr" >/dev/null 2>&1 || true
    else buildah rm "$ctr" >/dev/null 2>&1 || true; fi
  done
  for dir in "${smoke_dirs[@]}"; do rm -rf "$dir"; done
}
trap smoke_cleanup EXIT

# scratch_dir VAR NAME: a new scratch folder (removed on exit); its path goes into VAR.
scratch_dir() {
  local d
  d=$(mktemp -d "/var/tmp/lane-smoke-$2.XXXXXX")
  smoke_dirs+=("$d")
  printf -v "$1" '%s' "$d"
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

# host_background CMD...: a process on this machine (a test server), stopped on exit.
host_background() {
  set -m
  "$@" &
  smoke_pids+=("$!")
  set +m
}

# wait_for CHECK...: retry a check for up to 30 s.
wait_for() {
  local i
  for i in $(seq 60); do "$@" && return 0; sleep 0.5; done
  return 1
}

# check_hygiene IMAGE INSTANCE TITLE BINARY...: what every image must pass: OCI labels with
# the commit, no compiler, assembler or linker, no missing shared library of its binaries.
check_hygiene() {
  local image=$1 ctr=$2 name=$3
  shift 3
  local revision
  revision=$(podman image inspect --format '{{index .Labels "org.opencontainers.image.revision"}}' "$image")
  [[ "$revision" =~ ^[0-9a-f]{40}$ ]] || fail "label org.opencontainers.image.revision is '$revision', not a commit"
  [ "$(podman image inspect --format '{{index .Labels "org.opencontainers.image.title"}}' "$image")" = "$name" ] ||
    fail "label org.opencontainers.image.title is not $name"
  ok "OCI labels (revision $revision)"
  in_instance "$ctr" -- sh -c 'found=""
    for c in gcc cc c++ g++ cpp clang x86_64-linux-gnu-gcc-12 x86_64-linux-gnu-g++-12 ld as; do
      command -v "$c" >/dev/null 2>&1 && found="$found $c"
    done
    ls /usr/lib/gcc/x86_64-linux-gnu/*/cc1* >/dev/null 2>&1 && found="$found cc1"
    [ -z "$found" ] || { echo "compilers in the runtime image:$found" >&2; exit 1; }' ||
    fail "the runtime image carries a compiler or linker"
  ok "no compiler, assembler or linker in the image"
  local bin
  for bin in "$@"; do
    in_instance "$ctr" -- sh -c "! ldd $bin | grep 'not found'" || fail "$bin misses shared libraries"
  done
  ok "every shared library of $* is in the image"
}
