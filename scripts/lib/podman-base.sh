# Base images for podman builds (sourced by scripts/images and scripts/gpu-check --rehearse):
# a base that is not here is pulled from a registry; when none answers within
# LANE_PULL_TIMEOUT seconds (20), debian:12 and debian:12-slim (and the bookworm names) are made
# here with debootstrap from this machine's Debian mirror.
#   need PACKAGE...         apt-get install the packages that are missing
#   dockerfile_bases FILE   the external FROM images of a Dockerfile/Containerfile
#   ensure_base REF         REF present, pulled, or made; non-zero when none of these works
# The caller may define say() (progress lines); a plain one is used otherwise.

pull_timeout=${LANE_PULL_TIMEOUT:-20}
declare -F say >/dev/null || say() { printf '== %s\n' "$*"; }

# apt-get install the packages that are missing (podman, buildah, debootstrap, ...).
need() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  say "installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# The external bases of a Dockerfile (FROM lines that do not name an earlier stage), with the
# defaults of the ARGs before them substituted (ARG CUDA=13.0 ... FROM img:${CUDA}).
dockerfile_bases() {
  awk 'toupper($1) == "ARG" && !seen_from && index($2, "=") {
         split($2, kv, "="); arg[kv[1]] = substr($2, length(kv[1]) + 2); gsub(/"/, "", arg[kv[1]])
       }
       toupper($1) == "FROM" {
         seen_from = 1
         img = ""; for (i = 2; i <= NF; i++) if ($i !~ /^--/) { img = $i; break }
         for (k in arg) { gsub("\\$\\{" k "\\}", arg[k], img); gsub("\\$" k "$", arg[k], img) }
         if (!(img in stage)) print img
         for (i = 2; i <= NF; i++) if (toupper($i) == "AS") stage[$(i + 1)] = 1
       }' "$1" | sort -u
}

# docker.io/library/debian:12 for debian:12; names with a registry stay as they are.
qualified() {
  local first=${1%%/*}
  if [[ "$1" == */* && ( "$first" == *.* || "$first" == *:* || "$first" == localhost ) ]]; then echo "$1"
  elif [[ "$1" == */* ]]; then echo "docker.io/$1"
  else echo "docker.io/library/$1"; fi
}

# The Debian mirrors this machine's apt uses: "MAIN_URI SECURITY_URI".
debian_mirrors() {
  apt-get indextargets --format '$(ORIGIN)|$(LABEL)|$(CODENAME)|$(REPO_URI)' 2>/dev/null |
    awk -F'|' '$1 == "Debian" && $3 == "bookworm" {
                 if ($2 == "Debian-Security") sec = $4; else if (main == "") main = $4 }
               END { if (main == "") main = "http://deb.debian.org/debian/";
                     if (sec == "") sec = "http://deb.debian.org/debian-security/"; print main, sec }'
}

# debian:12 and debian:12-slim from debootstrap (minbase), with the sources an official image has.
make_debian_base() {
  need debootstrap
  local main security dir
  read -r main security <<<"$(debian_mirrors)"
  dir=$(mktemp -d /var/tmp/lane-debian-base.XXXXXX)
  say "no registry answered: making debian:12 with debootstrap --variant=minbase bookworm from $main"
  nice -n 10 debootstrap --variant=minbase bookworm "$dir" "$main" >"$dir.log" 2>&1 ||
    { tail -20 "$dir.log" >&2; rm -rf "$dir" "$dir.log"; return 1; }
  rm -f "$dir/etc/apt/sources.list" "$dir.log"
  cat >"$dir/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $main
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  rm -rf "$dir"/var/lib/apt/lists/* "$dir"/var/cache/apt/*.bin "$dir"/var/cache/apt/archives/*.deb
  tar -C "$dir" --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' -c . |
    podman import --quiet --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change 'CMD ["bash"]' - localhost/debian:12 >/dev/null
  podman tag localhost/debian:12 localhost/debian:12-slim localhost/debian:bookworm localhost/debian:bookworm-slim
  rm -rf "$dir"
}

# Make a base image available: already here, pulled from a registry, or made locally.
ensure_base() {
  local ref=$1
  podman image exists "$ref" && return 0
  if timeout "$pull_timeout" podman pull -q "$(qualified "$ref")" >/dev/null 2>&1; then
    podman image exists "$ref" || podman tag "$(qualified "$ref")" "$ref"
    return 0
  fi
  case "$ref" in
    debian:12 | debian:12-slim | debian:bookworm | debian:bookworm-slim) make_debian_base ;;
    *) return 1 ;;
  esac
}
