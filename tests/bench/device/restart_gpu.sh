#!/usr/bin/env bash
# tests/bench/device/restart_gpu.sh: a checkpoint written by a CPU-only run restarts on the GPU.
# tests/configs/sources.yaml (two LTS clusters, two point
# sources, four receivers) runs to the end on 2 CPU workers, keeping its checkpoint of t = 0.3; a copy
# of that output restarts from the checkpoint with every task on the GPU (STARPU_NCPU=0) and rewrites
# the receivers from t = 0.3 on.  The receiver files must agree with the CPU run's within 1e-10
# relative to each column's largest value (GPU arithmetic differs from the CPU's in the last bits), and
# the part before the checkpoint must be byte for byte the CPU run's.  A GPU-only run from t = 0 is
# compared the same way.  Prints PASS/FAIL lines.
set -u
. tests/bench/device/env.sh
OUTDIR=${OUT:-/tmp/sq-restart-gpu}
rm -rf "$OUTDIR/cpu" "$OUTDIR/gpu" "$OUTDIR/restart"
mkdir -p "$OUTDIR"
SQ=$CARRY/bin/starquake
CFG=tests/configs/sources.yaml
STARPU_NCPU=2 STARPU_NCUDA=0 timeout 120 "$SQ" "$CFG" --quiet --output "$OUTDIR/cpu" > "$OUTDIR/cpu.log" 2>&1
STARPU_NCPU=0 STARPU_NCUDA=1 timeout 120 "$SQ" "$CFG" --quiet --output "$OUTDIR/gpu" > "$OUTDIR/gpu.log" 2>&1
cp -r "$OUTDIR/cpu" "$OUTDIR/restart"
STARPU_NCPU=0 STARPU_NCUDA=1 timeout 120 "$SQ" "$CFG" --output "$OUTDIR/restart" \
  --restart "$OUTDIR/restart/src-checkpoint.h5" > "$OUTDIR/restart.log" 2>&1
grep -E "restart|resum" "$OUTDIR/restart.log" | head -n 3

# max over columns 2..10 of max|a - b| / max|a| (rows matched by line; comments skipped)
compare() {
  paste -d' ' <(grep -v '^[#A-Z]' "$1") <(grep -v '^[#A-Z]' "$2") | awk '
    { n = NF / 2; rows++
      for (i = 2; i <= n; ++i) { d = $i - $(i + n); if (d < 0) d = -d; a = $i; if (a < 0) a = -a
        if (d > dm[i]) dm[i] = d; if (a > am[i]) am[i] = a } }
    END { w = 0; for (i in dm) if (am[i] > 0 && dm[i] / am[i] > w) w = dm[i] / am[i]; printf "%d %.3e\n", rows, w }'
}
status=0
for run in restart gpu; do
  worst=0
  for f in "$OUTDIR"/cpu/src-receiver-*.dat; do
    g=$OUTDIR/$run/$(basename "$f")
    [ -s "$g" ] || { echo "FAIL $run: $(basename "$f") missing"; status=1; continue; }
    read -r rows err <<< "$(compare "$f" "$g")"
    [ "$rows" -eq "$(grep -vc '^[#A-Z]' "$f")" ] || { echo "FAIL $run: $(basename "$f"): $rows rows"; status=1; }
    worst=$(awk -v a="$worst" -v b="$err" 'BEGIN {print (b > a ? b : a)}')
  done
  if awk -v w="$worst" 'BEGIN {exit !(w <= 1e-10)}'; then echo "PASS $run vs CPU: receivers agree, worst relative difference $worst"
  else echo "FAIL $run vs CPU: worst relative difference $worst"; status=1; fi
done
# before the checkpoint (t < 0.3) the restarted files keep the CPU run's lines
f=$(ls "$OUTDIR"/cpu/src-receiver-*.dat | head -n 1)
n=$(awk '!/^[#A-Z]/ && $1 < 0.3 {k++} END {print k}' "$f")
if cmp -s <(grep -v '^[#A-Z]' "$f" | head -n "$n") <(grep -v '^[#A-Z]' "$OUTDIR/restart/$(basename "$f")" | head -n "$n"); then
  echo "PASS restart keeps the $n CPU samples before the checkpoint byte for byte"
else echo "FAIL restart changed samples before the checkpoint"; status=1; fi
grep -h "relative\|dofs hash" "$OUTDIR"/{cpu,gpu,restart}.log 2>/dev/null | sed 's/^/  /'
exit $status
