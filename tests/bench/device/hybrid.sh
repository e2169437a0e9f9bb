#!/usr/bin/env bash
# tests/bench/device/hybrid.sh [ELEMENTS] [ORDER] [PRECISIONS] [LARGE]: on the GPU host, from the repository
# root (binaries in .deps/carry/bin, or SQ_BIN), CPU + GPU with the default settings against each kind alone.
# Per precision (default "single double"), `starquake-proxy ELEMENTS 0 all ORDER PREC ...`:
#   1. the GPU alone (STARPU_NCPU=0) at tiles 16384, 32768 and 65536: its best tile;
#   2. the CPU alone (STARPU_NCUDA=0, every core a worker) at tile 1024;
#      both with STARPU_CALIBRATE=1, so that the perf models of both kinds are calibrated and saved;
#   3. CPU + GPU with the defaults (no TILE, no SQ_CPU_SHARE): runtime/hybrid.c reads the two kinds' rates
#      from those models and decides the tiles and the CPUs' share (the `# default split` line);
#   4. for comparison: the former default placement (dmdas places every task, tile 8192, SQ_CPU_SHARE=-1),
#      and a forced split at the CPUs' ideal share (SQ_CPU_SHARE, CPU tiles of 1024, GPU tiles of 16384).
# Prints a table of element updates per second with the ratios to the GPU alone at its best tile and to the
# sum of both kinds' best rates.  Then, for LARGE elements (default 512k; "" skips it) in the first precision:
# the GPU alone at tiles 65536, 131072 and 262144 against CPU + GPU with the defaults (the CPU models of the
# first part give the CPUs' rate).  The proxies' output goes to $OUT/hybrid.log where OUT is set.
# SQ_PROXY_SECONDS (default 1) is the timed length of each point; its own STARPU_HOME, fresh.
set -u
ROOT=$(pwd)
# shellcheck source=tests/bench/device/env.sh
. "$ROOT/tests/bench/device/env.sh"
B=${SQ_BIN:-$CARRY/bin}
E=${1:-64k}
O=${2:-6}
PRECS=${3:-single double}
LARGE=${4-512k}
LOG=${OUT:-/tmp}/hybrid.log
mkdir -p "$(dirname "$LOG")"
: > "$LOG"
STARPU_HOME=$(mktemp -d)
export STARPU_HOME SQ_PROXY_SECONDS=${SQ_PROXY_SECONDS:-1}
T0=$(date +%s)

# run LABEL ENV... -- ARGS...: one proxy point; prints its element updates per second (0 if it failed)
run() {
  local label=$1 envs=() r
  shift
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  echo "## [$(($(date +%s) - T0)) s] $label: ${envs[*]} starquake-proxy $*" >> "$LOG"
  env "${envs[@]}" timeout 120 "$B/starquake-proxy" "$@" > "$STARPU_HOME/point.log" 2>&1
  cat "$STARPU_HOME/point.log" >> "$LOG"
  r=$(awk '/^RESULT/ {for (i = 1; i <= NF; ++i) if ($i ~ /^upd_per_s=/) {sub("upd_per_s=", "", $i); v = $i}} END {print v + 0}' "$STARPU_HOME/point.log")
  echo "$r"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf("%.3f", (b > 0) ? a / b : 0)}'; }

nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 | sed 's/^/# GPU: /'
echo "# CPU: $(nproc) cores; $E elements, order $O; proxy log $LOG"
printf '| %-6s | %-44s | %-6s | %-11s | %-12s | %-10s |\n' prec configuration tile "updates/s" "/ GPU best" "/ sum"
printf '|%s|%s|%s|%s|%s|%s|\n' -------- ---------------------------------------------- -------- ------------- -------------- ------------
for P in $PRECS; do
  best=0 btile=0
  for tile in 16384 32768 65536; do
    r=$(run "GPU alone" STARPU_NCPU=0 STARPU_CALIBRATE=1 -- "$E" 0 all "$O" "$P" gpu "$tile")
    if awk -v a="$r" -v b="$best" 'BEGIN {exit !(a > b)}'; then best=$r btile=$tile; fi
  done
  cpu=$(run "CPU alone" STARPU_NCUDA=0 STARPU_CALIBRATE=1 -- "$E" 0 all "$O" "$P" cpu 1024)
  sum=$(awk -v a="$best" -v b="$cpu" 'BEGIN {print a + b}')
  dflt=$(run "CPU + GPU, defaults" SQ_PROXY_PROFILING=0 -- "$E" 0 all "$O" "$P" both)
  split=$(grep '^# default split' "$STARPU_HOME/point.log" | sed 's/^# default split: //')
  dtile=$(grep '^RESULT' "$STARPU_HOME/point.log" | sed 's/.* tile=\([0-9]*\) .*/\1/')
  dshare=$(grep '^RESULT' "$STARPU_HOME/point.log" | sed 's/.* cpu_share=\([-0-9.]*\) .*/\1/')
  old=$(run "CPU + GPU, dmdas places all" STARPU_SCHED=dmdas SQ_CPU_SHARE=-1 -- "$E" 0 all "$O" "$P" both 8192)
  ideal=$(awk -v c="$cpu" -v g="$best" 'BEGIN {printf "%.4f", c / (c + g)}')
  forced=$(run "CPU + GPU, forced split" SQ_CPU_SHARE="$ideal" SQ_CPU_TILE=1024 -- "$E" 0 all "$O" "$P" both 16384)
  row() { printf '| %-6s | %-44s | %-6s | %-11.4g | %-12s | %-10s |\n' "$P" "$1" "$2" "$3" "$(ratio "$3" "$best")" "$(ratio "$3" "$sum")"; }
  row "GPU alone, best tile" "$btile" "$best"
  row "CPU alone ($(nproc) workers)" 1024 "$cpu"
  row "sum of the two" - "$sum"
  row "CPU + GPU, defaults (CPU share $dshare)" "$dtile" "$dflt"
  row "CPU + GPU, dmdas places all (former)" 8192 "$old"
  row "CPU + GPU, forced CPU share $ideal" "16384" "$forced"
  echo "#   $P default split: $split"
done
if [ -n "$LARGE" ]; then
  P=${PRECS%% *} best=0 btile=0
  for tile in 65536 131072 262144; do
    r=$(run "GPU alone" STARPU_NCPU=0 STARPU_CALIBRATE=1 -- "$LARGE" 0 all "$O" "$P" gpu "$tile")
    printf '| %-6s | %-44s | %-6s | %-11.4g | %-12s | %-10s |\n' "$P" "$LARGE: GPU alone" "$tile" "$r" - -
    if awk -v a="$r" -v b="$best" 'BEGIN {exit !(a > b)}'; then best=$r btile=$tile; fi
  done
  dflt=$(run "CPU + GPU, defaults" SQ_PROXY_PROFILING=0 -- "$LARGE" 0 all "$O" "$P" both)
  dtile=$(grep '^RESULT' "$STARPU_HOME/point.log" | sed 's/.* tile=\([0-9]*\) .*/\1/')
  dshare=$(grep '^RESULT' "$STARPU_HOME/point.log" | sed 's/.* cpu_share=\([-0-9.]*\) .*/\1/')
  printf '| %-6s | %-44s | %-6s | %-11.4g | %-12s | %-10s |\n' "$P" "$LARGE: CPU + GPU, defaults (CPU share $dshare)" \
    "$dtile" "$dflt" "$(ratio "$dflt" "$best")" -
  echo "#   $LARGE default split: $(grep '^# default split' "$STARPU_HOME/point.log" | sed 's/^# default split: //')"
fi
echo "# $(($(date +%s) - T0)) s"
rm -rf "$STARPU_HOME"
