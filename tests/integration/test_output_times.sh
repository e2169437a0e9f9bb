#!/bin/bash
# Outputs at the times asked for (sim/plan.c, docs/CONFIG.md output.interval): the sync step is chosen so
# that the end time and the times of output.interval, fault.output_interval and checkpoint.interval are
# sync points, and a time that cannot be one is named at start-up.
#  1. tests/configs/sources.yaml (stable sync step 0.00797) with output.interval 0.1, checkpoints every
#     0.15, end 0.45: energy rows, wavefield and surface snapshots (XDMF, and the HDF5 groups' time when
#     h5py is there) at 0, 0.1, 0.2, 0.3, 0.4 and 0.45 to 1e-12 (the CSV to its 11 digits), the
#     checkpoint at 0.3; the sync step at most the stable one, and at least half of it;
#  2. a rupture (tests/configs/rupture_box.yaml, coarser) with fault snapshots every 0.15 and outputs
#     every 0.25 to 0.5: fault snapshots at 0.15, 0.3, 0.45 and 0.5, energies at 0, 0.25, 0.5;
#  3. an interval that no acceptable step fits (0.0123 with the end 0.45): a warning names the key and
#     the times used instead, and the energy rows are at those times; --dry-run gives it too;
#  4. a restart from the checkpoint at t = 0.3 to end_time 0.52, off the first plan's grid: the new plan
#     from 0.3 puts 0.4, 0.5 and 0.52 on sync points.
set -u
. "${srcdir:-.}/tests/lib.sh"
CFG=$CONFIGS/sources.yaml
tempdir OUT

# times FILE: the times of an energy CSV (first column) or of an XDMF file's snapshots, one per line
times() {
  case $1 in
    *.csv) tail -n +2 "$1" | cut -d, -f1 ;;
    *.xdmf) sed -n 's/.*<Time Value="\([^"]*\)".*/\1/p' "$1" ;;
  esac
}

# same_times WHAT FILE TOL T...: the times in FILE are T... to TOL relative to the largest
same_times() {
  local what=$1 file=$2 tol=$3
  shift 3
  local got
  got=$(times "$file" | tr '\n' ' ')
  if $PY - "$tol" "$got" "$@" << 'EOF'; then ok "$what: t = $got"; else bad "$what: t = $got, expected $*"; fi
import sys
tol, got, want = float(sys.argv[1]), [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3:]]
sys.exit(0 if len(got) == len(want) and all(abs(g - w) <= tol * max(want) for g, w in zip(got, want)) else 1)
EOF
}

# h5_times WHAT FILE T...: the "time" attributes of FILE's snapshot groups are T... to 1e-12 (needs h5py)
h5_times() {
  local what=$1 file=$2
  shift 2
  $PY -c 'import h5py' 2> /dev/null || { echo "skip $what: python3-h5py missing"; return; }
  local got
  if got=$($PY - "$file" "$@" << 'EOF'
import sys, h5py
want = [float(x) for x in sys.argv[2:]]
with h5py.File(sys.argv[1], "r") as f:
    got = sorted(float(g.attrs["time"]) for g in f.values() if isinstance(g, h5py.Group) and "time" in g.attrs)
print(" ".join("%.17g" % t for t in got))
sys.exit(0 if len(got) == len(want) and all(abs(g - w) <= 1e-12 * max(want) for g, w in zip(got, want)) else 1)
EOF
  ); then ok "$what: HDF5 times $got"; else bad "$what: HDF5 times $got, expected $*"; fi
}

# 1. output.interval 0.1, not a multiple of the stable step
"$SQ" "$CFG" --output "$OUT/a" --set output.interval=0.1 > "$OUT/a.log" 2> "$OUT/a.err" || bad "run 1: $(tail -3 "$OUT/a.err")"
plan=$(grep '^  plan ' "$OUT/a.log")
echo "$plan"
if grep -q warning "$OUT/a.err"; then bad "run 1 warns: $(cat "$OUT/a.err")"; else ok "run 1: no warning"; fi
same_times "energies" "$OUT/a/src-energy.csv" 1e-10 0 0.1 0.2 0.3 0.4 0.45
same_times "wavefield snapshots" "$OUT/a/src-wavefield.xdmf" 1e-12 0 0.1 0.2 0.3 0.4 0.45
same_times "surface snapshots" "$OUT/a/src-surface.xdmf" 1e-12 0 0.1 0.2 0.3 0.4 0.45
h5_times "wavefield snapshots" "$OUT/a/src-wavefield.h5" 0 0.1 0.2 0.3 0.4 0.45
if $PY -c 'import h5py' 2> /dev/null; then
  t=$($PY -c 'import sys, h5py; print("%.17g" % h5py.File(sys.argv[1], "r").attrs["time"])' "$OUT/a/src-checkpoint.h5")
  $PY -c 'import sys; sys.exit(abs(float(sys.argv[1]) - 0.3) > 1e-12)' "$t" && ok "last checkpoint at t = $t" ||
    bad "last checkpoint at t = $t, not 0.3"
fi
dt=$(summary_value "$OUT/a/src-summary.txt" dt_sync)
stable=$(echo "$plan" | sed -n 's/.*stable step \([0-9.e+-]*\) s.*/\1/p')
$PY -c 'import sys; dt, st = map(float, sys.argv[1:]); q = 0.1 / dt; sys.exit(not (dt <= st and dt >= 0.5 * st and abs(q - round(q)) < 1e-9))' \
  "$dt" "$stable" && ok "sync step $dt: at most the stable $stable, at least half of it, 0.1 a whole number of them" ||
  bad "sync step $dt against the stable $stable"

# 2. fault snapshots every 0.15 and outputs every 0.25 on a rupture
"$SQ" "$CONFIGS/rupture_box.yaml" --quiet --output "$OUT/f" --set 'mesh.box.cells=[8, 4, 4]' \
  --set equations.end_time=0.5 --set fault.output_interval=0.15 --set output.interval=0.25 2> "$OUT/f.err" ||
  bad "rupture run: $(tail -3 "$OUT/f.err")"
if grep -q warning "$OUT/f.err"; then bad "rupture run warns: $(cat "$OUT/f.err")"; else ok "rupture run: no warning"; fi
same_times "fault snapshots" "$OUT/f/sym-fault.xdmf" 1e-12 0 0.15 0.3 0.45 0.5
h5_times "fault snapshots" "$OUT/f/sym-fault.h5" 0 0.15 0.3 0.45 0.5
same_times "rupture energies" "$OUT/f/sym-energy.csv" 1e-10 0 0.25 0.5

# 3. an interval no acceptable step fits: named at start-up with the times used
"$SQ" "$CFG" --quiet --output "$OUT/w" --set output.interval=0.0123 --set checkpoint.interval=0 2> "$OUT/w.err" ||
  bad "run 3: $(tail -3 "$OUT/w.err")"
if grep -q "warning: .*output.interval = 0.0123: its times are not all sync points" "$OUT/w.err"; then
  ok "warning: $(cat "$OUT/w.err")"
  used=$(sed -n 's/.*at t = \([0-9.e+-]*\), \([0-9.e+-]*\), \([0-9.e+-]*\),.*/\1 \2 \3/p' "$OUT/w.err")
  rows=$(times "$OUT/w/src-energy.csv" | sed -n 2,4p | tr '\n' ' ')
  $PY -c 'import sys; a, b = sys.argv[1].split(), sys.argv[2].split(); sys.exit(not (len(a) == 3 and all(abs(float(x) - float(y)) < 1e-9 for x, y in zip(a, b))))' \
    "$used" "$rows" && ok "energy rows at the times the warning names ($used)" ||
    bad "energy rows at $rows, the warning names $used"
else
  bad "no warning about output.interval 0.0123: $(cat "$OUT/w.err")"
fi

"$SQ" "$CFG" --dry-run --output "$OUT/dry" --set output.interval=0.0123 > "$OUT/dry.log" 2>&1 &&
  grep -q "warning: .*output.interval = 0.0123: its times are not all sync points" "$OUT/dry.log" &&
  grep -q "^  plan       57 sync intervals" "$OUT/dry.log" && ok "--dry-run gives the plan and the warning" ||
  bad "--dry-run: $(cat "$OUT/dry.log")"

# 4. a restart from t = 0.3 to 0.52, which the first plan's sync step (0.05 / 7) does not reach
cp -r "$OUT/a" "$OUT/r"
"$SQ" "$CFG" --output "$OUT/r" --set output.interval=0.1 --set equations.end_time=0.52 \
  --restart "$OUT/r/src-checkpoint.h5" > "$OUT/r.log" 2> "$OUT/r.err" || bad "restart to 0.52: $(tail -3 "$OUT/r.err")"
grep '^  plan ' "$OUT/r.log"
same_times "restarted run's energies" "$OUT/r/src-energy.csv" 1e-10 0 0.1 0.2 0.3 0.4 0.5 0.52
same_times "restarted run's snapshots" "$OUT/r/src-wavefield.xdmf" 1e-12 0 0.1 0.2 0.3 0.4 0.5 0.52
h5_times "restarted run's snapshots" "$OUT/r/src-wavefield.h5" 0 0.1 0.2 0.3 0.4 0.5 0.52

report output_times
