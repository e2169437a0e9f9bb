#!/bin/bash
# Checkpoint/restart through the binary on tests/configs/sources.yaml (point sources, receivers,
# snapshots, two LTS clusters):
#  1. kill -9 after a checkpoint was written, restart from it: the receiver text files, the energy CSV
#     and every HDF5 dataset (receivers, wavefield, surface) equal the uninterrupted run's byte for
#     byte, and so does the final dofs hash;
#  2. SIGUSR1: the run writes a checkpoint, stops with a non-zero status and a message naming it;
#     the restart again reproduces the uninterrupted run;
#  3. a checkpoint is refused by a run it does not fit.
set -u
SQ=${SQ_BIN:-./starquake}
CFG=${srcdir:-.}/tests/configs/sources.yaml
H5CMP=${srcdir:-.}/tests/h5compare.py
PY=/usr/bin/python3
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
hash_of() { grep '^dofs_hash:' "$1/src-summary.txt" 2>/dev/null | awk '{print $2}'; }

# the same files, byte for byte, as the uninterrupted run in $OUT/ref
same_as_ref() {
  local dir=$1 what=$2 n=0 diff=0
  for f in "$OUT"/ref/src-receiver-*.dat "$OUT/ref/src-energy.csv"; do
    n=$((n + 1))
    cmp -s "$f" "$dir/$(basename "$f")" || { diff=1; echo "  $(basename "$f") differs"; }
  done
  [ $diff -eq 0 ] && ok "$what: $n text files identical" || bad "$what: text files differ"
  if $PY -c 'import h5py' 2>/dev/null; then
    for h in receivers wavefield surface; do
      $PY "$H5CMP" "$OUT/ref/src-$h.h5" "$dir/src-$h.h5" > "$OUT/cmp.txt" &&
        ok "$what: src-$h.h5 $(cat "$OUT/cmp.txt")" || bad "$what: src-$h.h5: $(cat "$OUT/cmp.txt")"
    done
  else
    echo "skip HDF5 comparison (python3-h5py missing)"
  fi
  [ -n "$(hash_of "$dir")" ] && [ "$(hash_of "$dir")" = "$(hash_of "$OUT/ref")" ] &&
    ok "$what: dofs hash $(hash_of "$dir")" || bad "$what: dofs hash $(hash_of "$dir") != $(hash_of "$OUT/ref")"
}

"$SQ" "$CFG" --quiet --output "$OUT/ref" || bad "uninterrupted run"
[ -s "$OUT/ref/src-checkpoint.h5" ] && ok "checkpoints written at checkpoint.interval" || bad "no checkpoint"

# 1. kill -9 once a checkpoint exists (if the run is faster than the poll, its last checkpoint is used)
"$SQ" "$CFG" --quiet --output "$OUT/kill" &
pid=$!
for i in $(seq 1 3000); do
  [ -s "$OUT/kill/src-checkpoint.h5" ] && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.1
done
kill -9 $pid 2>/dev/null && echo "killed the run after its first checkpoint"
wait $pid 2>/dev/null
"$SQ" "$CFG" --quiet --output "$OUT/kill" --restart "$OUT/kill/src-checkpoint.h5" || bad "restart after kill -9"
same_as_ref "$OUT/kill" "kill -9 + restart"

# 2. SIGUSR1 once the run is stepping
"$SQ" "$CFG" --quiet --output "$OUT/usr1" 2> "$OUT/usr1.err" &
pid=$!
for i in $(seq 1 3000); do
  [ -s "$OUT/usr1/src-energy.csv" ] && break
  sleep 0.1
done
sleep 0.5
kill -USR1 $pid 2>/dev/null
wait $pid
rc=$?
if [ $rc -eq 0 ]; then
  echo "skip SIGUSR1: the run finished before the signal arrived"
else
  grep -q "stopped by SIGUSR1" "$OUT/usr1.err" && grep -q -- "--restart $OUT/usr1/src-checkpoint.h5" "$OUT/usr1.err" &&
    ok "SIGUSR1: exit status $rc, message names the checkpoint" || bad "SIGUSR1 message: $(cat "$OUT/usr1.err")"
  "$SQ" "$CFG" --quiet --output "$OUT/usr1" --restart "$OUT/usr1/src-checkpoint.h5" || bad "restart after SIGUSR1"
  same_as_ref "$OUT/usr1" "SIGUSR1 + restart"
fi

# 3. a checkpoint of another discretisation is refused
sed 's/^  order: 3$/  order: 2/' "$CFG" > "$OUT/order2.yaml"
"$SQ" "$OUT/order2.yaml" --quiet --output "$OUT/o2" --restart "$OUT/ref/src-checkpoint.h5" 2> "$OUT/o2.err" &&
  bad "order-2 run accepted an order-3 checkpoint" ||
  { grep -q "does not fit this run" "$OUT/o2.err" && ok "mismatched checkpoint refused" || bad "message: $(cat "$OUT/o2.err")"; }

echo "restart: $pass passed, $fail failed"
[ $fail -eq 0 ]
