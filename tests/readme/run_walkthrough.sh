#!/usr/bin/env bash
# Runs the README's offline walkthrough as written: the fenced block after the line
# `<!-- readme-test: offline walkthrough ... -->`, in a fresh LANECTL_HOME and a scratch folder
# whose build/release/bin is the binaries under test, inside an empty network namespace (only
# loopback up). Fails when any command fails (set -e), or when no block is found.
#   run_walkthrough.sh README.md BIN_DIR
set -euo pipefail
readme=$1 bin=$2
work=$(mktemp -d)
trap 'LANECTL_HOME="$work/home" "$bin/lanectl" delete --all -p lane-detection >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

awk '/^<!-- readme-test: offline walkthrough/ { marked = 1; next }
     marked && /^```/ { if (inside) exit; inside = 1; next }
     inside { print }' "$readme" >"$work/walkthrough.sh"
if ! grep -q '^lanectl ' "$work/walkthrough.sh"; then
  echo "no walkthrough block after '<!-- readme-test: offline walkthrough' in $readme" >&2
  exit 1
fi
mkdir -p "$work/build/release" "$work/home"
ln -s "$(cd "$bin" && pwd)" "$work/build/release/bin"

# An empty network namespace: `unshare -n` as root, else a user namespace as well (`-rn`).
netns=(unshare -n)
[ "$(id -u)" = 0 ] || netns=(unshare -rn)
if ! "${netns[@]}" true 2>/dev/null; then
  echo "LANE_TEST_SKIPPED: cannot make a network namespace here (${netns[*]})"
  exit 0
fi
cd "$work"
env -u LANECTL_BACKEND LANECTL_HOME="$work/home" "${netns[@]}" bash -c '
  set -euo pipefail
  ip link set lo up 2>/dev/null || true
  if ip -o link show | grep -qv " lo:"; then echo "the namespace has a network interface" >&2; exit 1; fi
  set -x
  source ./walkthrough.sh'
echo "walkthrough passed"
