#!/bin/bash
# Checkpoint/restart through the binary on tests/configs/sources.yaml (point sources, receivers,
# snapshots, two LTS clusters):
#  1. kill -9 after a checkpoint was written, restart from it: the receiver text files, the energy CSV
#     and every HDF5 dataset (receivers, wavefield, surface) equal the uninterrupted run's byte for
#     byte, and so does the final dofs hash;
#  2. SIGUSR1: the run writes a checkpoint, stops with a non-zero status and a message naming it;
#     the restart again reproduces the uninterrupted run;
#  3. a checkpoint is refused by a run it does not fit, naming what differs;
#  4. with off-fault plasticity (tests/configs/plasticity.yaml): the checkpoint holds the plastic strain,
#     a restart from it reproduces the uninterrupted run (dofs, plastic strain, receivers, snapshots with
#     ep_* and eta) bit for bit, and an elastic run refuses it;
#  5. a run extended: the run to t = 0.3 continued from its checkpoint (t = 0.15) with equations.end_time
#     0.6 equals the uninterrupted run to 0.6 (dofs hash, receiver and energy files); an end_time before
#     the checkpoint's time is refused, naming both.
set -u
. "${srcdir:-.}/tests/lib.sh"
CFG=$CONFIGS/sources.yaml
tempdir OUT

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
  [ -n "$(hash_of "$dir" src)" ] && [ "$(hash_of "$dir" src)" = "$(hash_of "$OUT/ref" src)" ] &&
    ok "$what: dofs hash $(hash_of "$dir" src)" || bad "$what: dofs hash $(hash_of "$dir" src) != $(hash_of "$OUT/ref" src)"
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
  { grep -q "does not fit this run: it has order 3, the run order 2 (equations.order)\$" "$OUT/o2.err" &&
      ok "mismatched checkpoint refused, naming the order alone" || bad "message: $(cat "$OUT/o2.err")"; }

# 4. plasticity: restart a copy of the finished run from its last checkpoint (t = 0.3 of 0.45)
PCFG=$CONFIGS/plasticity.yaml
"$SQ" "$PCFG" --quiet --output "$OUT/pref" || bad "plasticity: uninterrupted run"
cp -r "$OUT/pref" "$OUT/prst"
rm -f "$OUT/prst/plast-summary.txt"
"$SQ" "$PCFG" --quiet --output "$OUT/prst" --restart "$OUT/prst/plast-checkpoint.h5" || bad "plasticity: restart"
for key in dofs_hash plastic_strain_hash; do
  a=$(summary_value "$OUT/pref/plast-summary.txt" $key) b=$(summary_value "$OUT/prst/plast-summary.txt" $key)
  [ -n "$a" ] && [ "$a" = "$b" ] && ok "plasticity restart: $key $a" || bad "plasticity restart: $key $b != $a"
done
n=0 diff=0
for f in "$OUT"/pref/plast-receiver-*.dat "$OUT/pref/plast-energy.csv"; do
  n=$((n + 1))
  cmp -s "$f" "$OUT/prst/$(basename "$f")" || { diff=1; echo "  $(basename "$f") differs"; }
done
[ $diff -eq 0 ] && ok "plasticity restart: $n text files identical" || bad "plasticity restart: text files differ"
if $PY -c 'import h5py' 2>/dev/null; then
  $PY "$H5CMP" "$OUT/pref/plast-wavefield.h5" "$OUT/prst/plast-wavefield.h5" > "$OUT/cmp.txt" &&
    ok "plasticity restart: plast-wavefield.h5 (ep_*, eta) $(cat "$OUT/cmp.txt")" || bad "plasticity restart: wavefield: $(cat "$OUT/cmp.txt")"
  $PY -c 'import sys, h5py; f = h5py.File(sys.argv[1], "r"); assert f["plastic_strain"].shape[1] == 7 and f.attrs["fields"] in (b"plastic_strain", "plastic_strain")' \
    "$OUT/pref/plast-checkpoint.h5" && ok "plasticity checkpoint holds /plastic_strain" || bad "plasticity checkpoint lacks /plastic_strain"
fi
sed -e '/^plasticity:/,/^  initial_stress:/d' -e 's/, ep_xx, ep_yy, ep_zz, ep_xy, ep_yz, ep_xz, eta//' "$PCFG" > "$OUT/elastic.yaml"
"$SQ" "$OUT/elastic.yaml" --quiet --output "$OUT/pel" --restart "$OUT/pref/plast-checkpoint.h5" 2> "$OUT/pel.err" &&
  bad "an elastic run accepted a checkpoint with plasticity" ||
  { grep -q "holds the per-element data \[plastic_strain\] but this run needs \[\]" "$OUT/pel.err" &&
      ok "elastic run refuses a plasticity checkpoint" || bad "message: $(cat "$OUT/pel.err")"; }

# 5. extension: 0.3 and 0.6 have the same sync interval, so the continued run is the same bit for bit
sed 's/^  end_time: 0.45$/  end_time: 0.3/' "$CFG" > "$OUT/t03.yaml"
sed 's/^  end_time: 0.45$/  end_time: 0.6/' "$CFG" > "$OUT/t06.yaml"
sed 's/^  end_time: 0.45$/  end_time: 0.1/' "$CFG" > "$OUT/t01.yaml"
"$SQ" "$OUT/t06.yaml" --quiet --output "$OUT/t06" || bad "uninterrupted run to 0.6"
"$SQ" "$OUT/t03.yaml" --quiet --output "$OUT/ext" || bad "run to 0.3"
[ "$(summary_value "$OUT/ext/src-summary.txt" dt_sync)" = "$(summary_value "$OUT/t06/src-summary.txt" dt_sync)" ] ||
  bad "test set-up: the runs to 0.3 and 0.6 have different sync intervals"
"$SQ" "$OUT/t06.yaml" --quiet --output "$OUT/ext" --restart "$OUT/ext/src-checkpoint.h5" 2> "$OUT/ext.err" &&
  ok "a checkpoint of the run to 0.3 continues to end_time 0.6" || bad "extension refused: $(cat "$OUT/ext.err")"
[ "$(summary_value "$OUT/ext/src-summary.txt" end_time)" = "6.0000000000e-01" ] && ok "extended run ends at 0.6" ||
  bad "extended run ends at $(summary_value "$OUT/ext/src-summary.txt" end_time)"
[ -n "$(hash_of "$OUT/ext" src)" ] && [ "$(hash_of "$OUT/ext" src)" = "$(hash_of "$OUT/t06" src)" ] &&
  ok "extended run: dofs hash $(hash_of "$OUT/ext" src) as the run to 0.6" ||
  bad "extended run: dofs hash $(hash_of "$OUT/ext" src) != $(hash_of "$OUT/t06" src)"
n=0 diff=0
for f in "$OUT"/t06/src-receiver-*.dat "$OUT/t06/src-energy.csv"; do
  n=$((n + 1))
  cmp -s "$f" "$OUT/ext/$(basename "$f")" || { diff=1; echo "  $(basename "$f") differs"; }
done
[ $diff -eq 0 ] && ok "extended run: $n receiver and energy files identical" || bad "extended run: text files differ"
"$SQ" "$OUT/t01.yaml" --quiet --output "$OUT/ext" --restart "$OUT/ext/src-checkpoint.h5" 2> "$OUT/early.err" &&
  bad "an end_time before the checkpoint was accepted" ||
  { grep -q "is at t = 0.45 (step .*sets equations.end_time = 0.1: nothing is left to run" "$OUT/early.err" &&
      ok "an end_time before the checkpoint is refused, naming both" || bad "message: $(cat "$OUT/early.err")"; }

report restart
