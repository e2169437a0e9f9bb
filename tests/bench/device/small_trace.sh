#!/usr/bin/env bash
# tests/bench/device/small_trace.sh: where the time of a small cluster goes on the GPU (the 4k-element
# target).  Runs starquake, GTS, on a 9 x 9 x 9 box (4 374 elements, one tile, GPU worker only) with task
# traces (--trace), at the orders SQ_ST_ORDERS ("2 4 6"), single precision, with separate tasks and with
# one task per step (runtime.fuse_steps + fuse_predictor), on SQ_ST_STREAMS ("1 2") CUDA workers per GPU.
# For each run it prints the time-stepping rate, the GPU worker's busy fraction (some task between its
# start, when StarPU hands it to the driver, and its end, when the driver sees its CUDA event complete),
# the mean task length and the mean gap between consecutive tasks (StarPU's dependency release, pop and
# launch).  Needs tests/bench/device/prepare.sh run here and .deps/{starpu,carry} carried.
set -u
. tests/bench/device/env.sh
OUTDIR=${OUT:-/tmp/sq-small-trace}
mkdir -p "$OUTDIR"
SQ=$CARRY/bin/starquake
export STARPU_NCPU=${SQ_ST_NCPU:-0} STARPU_NCUDA=${SQ_ST_NCUDA:-1} STARPU_SCHED=${SQ_ST_SCHED:-lws}
rows=()
for order in ${SQ_ST_ORDERS:-2 4 6}; do
  for fuse in false true; do
    for nw in ${SQ_ST_STREAMS:-1 2}; do
      name=o${order}-f${fuse}-w${nw}
      # about 2 000 steps at order 2, fewer at higher orders (the time step shrinks with the order)
      sed -e "s/@CELLS@/${SQ_ST_CELLS:-9}/g" -e "s/@ORDER@/$order/" -e "s/@END_TIME@/${SQ_ST_TIME:-4.0}/" \
        -e "s/@FUSE@/$fuse/g" tests/configs/bench_small_trace.yaml > "$OUTDIR/$name.yaml"
      STARPU_NWORKER_PER_CUDA=$nw timeout 120 "$SQ" "$OUTDIR/$name.yaml" --output "$OUTDIR/$name" \
        --trace "$OUTDIR/$name.csv" > "$OUTDIR/$name.log" 2>&1
      rate=$(awk '/^element_updates_per_second_steady:/ {print $2}' "$OUTDIR/$name"/*-summary.txt 2> /dev/null)
      # busy fraction of the union of the GPU workers, mean task length and mean gap between tasks
      stats=$(python3 - "$OUTDIR/$name.csv" << 'EOF'
import sys
rows = []
for line in open(sys.argv[1]):
    if line.startswith("#") or line.startswith("kind,"):
        continue
    f = line.rstrip("\n").split(",")
    rows.append((float(f[6]), float(f[7])))
if not rows:
    print("no trace")
    sys.exit()
rows.sort()
lo, hi = rows[0][0], max(e for _, e in rows)
busy, end, gaps = 0.0, lo, []
for s, e in rows:
    if s > end:
        gaps.append(s - end)
        busy += e - s
    elif e > end:
        busy += e - end
    end = max(end, e)
n = len(rows)
mean_task = sum(e - s for s, e in rows) / n
print(f"{n} | {100 * busy / (hi - lo):.1f} % | {mean_task:.1f} us | {(hi - lo - busy) / n:.1f} us")
EOF
)
      rows+=("| $order | $([ "$fuse" = true ] && echo 'one task per step' || echo 'ader, local, neighbour') | $nw | ${rate:-failed} | $stats |")
      echo "${rows[-1]}"
      [ -n "$rate" ] || tail -n 5 "$OUTDIR/$name.log"
    done
  done
done
echo
echo "| order | tasks | CUDA workers | element updates/s | traced tasks | GPU busy | mean task | mean gap per task |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
