#!/usr/bin/env bash
# tests/bench/attenuation_cpu.sh: the viscoelastic element update against the elastic one on the CPU (order 6,
# single precision, one StarPU CPU worker): the plane-wave cases of tests/bench/attenuation_cases.sh (without
# and with attenuation: 3 mechanisms, Qp 50, Qs 25) on a box of CELLS^3 cubes (6 tets each; default 16:
# 24576 elements). Each case runs to two end times, and the element updates per CPU second of the time stepping
# are the difference of the updates over the difference of the process's CPU time (user + system), which
# leaves out the set-up and is robust against other load on the machine; REPS repetitions (default 3), the
# median is printed, beside the median of the wall-clock rate that the run reports for its time stepping.
# Run from the top build folder (make first); SQ_BIN overrides the binary.
# Usage: [CELLS=16] [REPS=3] bash tests/bench/attenuation_cpu.sh
set -u
. "${srcdir:-.}/tests/lib.sh"
CELLS=${CELLS:-16} REPS=${REPS:-3}
export STARPU_NCPU=1 STARPU_NCUDA=0 STARPU_SILENT=1
tempdir T
. "${srcdir:-.}/tests/bench/attenuation_cases.sh"
attenuation_cases "$T" "$CELLS" 4096 0.001
# a step is about 0.0094 / CELLS: 2 and 14 steps
short=$(awk -v c="$CELLS" 'BEGIN { printf "%.6g", 0.019 / c }') long=$(awk -v c="$CELLS" 'BEGIN { printf "%.6g", 0.132 / c }')
# cpu_run CASE END: "UPDATES CPU_SECONDS WALL_RATE" of one run to END
cpu_run() {
  local c=$1 e=$2 dir=$T/o-$1-$2
  /usr/bin/time -f '%U %S' -o "$dir.time" "$SQ" "$T/$c.yaml" --set equations.end_time="$e" --quiet --output "$dir" \
    > /dev/null 2> "$dir.err"
  [ -s "$dir/$c-summary.txt" ] || { echo "$c run to $e failed: $(tail -2 "$dir.err")" >&2; exit 1; }
  [ "$(summary_value "$dir/$c-summary.txt" clusters)" = 1 ] || { echo "$c: expected one cluster" >&2; exit 1; }
  local n s
  n=$(summary_value "$dir/$c-summary.txt" cells) s=$(summary_value "$dir/$c-summary.txt" sync_intervals)
  echo "$((n * s)) $(tail -1 "$dir.time" | awk '{print $1 + $2}') $(summary_value "$dir/$c-summary.txt" element_updates_per_second_steady)"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
declare -A cpu wall
for c in el ve; do
  : > "$T/$c.cpu"
  : > "$T/$c.wall"
  for ((r = 1; r <= REPS; ++r)); do
    read -r u1 t1 _ <<< "$(cpu_run $c "$short")"
    read -r u2 t2 w <<< "$(cpu_run $c "$long")"
    [ -n "${u1:-}" ] && [ -n "${w:-}" ] || exit 1
    awk -v a="$u1" -v b="$u2" -v s="$t1" -v t="$t2" 'BEGIN { printf "%.4e\n", (b - a) / (t - s) }' >> "$T/$c.cpu"
    echo "$w" >> "$T/$c.wall"
  done
  cpu[$c]=$(median < "$T/$c.cpu") wall[$c]=$(median < "$T/$c.wall")
  echo "$c: updates per CPU second $(tr '\n' ' ' < "$T/$c.cpu"), wall rates $(tr '\n' ' ' < "$T/$c.wall")"
done
n=$(summary_value "$T/o-el-$long/el-summary.txt" cells)
printf '%-52s %14s %14s %8s\n' case "elastic upd/s" "visco upd/s" cost
awk -v e="${cpu[el]}" -v v="${cpu[ve]}" -v n="$n" 'BEGIN { printf "%-52s %14.3e %14.3e %7.2fx\n", "order 6 single, " n " elements, 1 CPU core, CPU s", e, v, e / v }'
awk -v e="${wall[el]}" -v v="${wall[ve]}" -v n="$n" 'BEGIN { printf "%-52s %14.3e %14.3e %7.2fx\n", "the same, wall clock of the time stepping", e, v, e / v }'
