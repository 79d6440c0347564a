# Disk space for the scripts (sourced by scripts/test and scripts/build-cuda).
#   free_gib PATH   the GiB free on the file system of PATH (rounded down, df's Available)
free_gib() { df -P -BG "$1" | awk 'NR == 2 { sub("G", "", $4); print $4 }'; }
