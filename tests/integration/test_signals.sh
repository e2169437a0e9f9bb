#!/bin/bash
# Signals through the binary on tests/configs/signals.yaml (receivers without a flush interval, no
# periodic checkpoints, about 10 s of wall time), into a folder whose name needs quoting:
#  1. SIGINT while stepping: the run stops within a few seconds with a message naming SIGINT, its
#     checkpoint and the command that continues it; the checkpoint exists, the receiver files hold
#     samples, not only their headers, and the manifest lists the files;
#  2. the printed command, executed as printed, continues the run, and the result equals the
#     uninterrupted run's bit for bit (dofs hash, receiver files, energy CSV);
#  3. a second SIGINT aborts at once, without a checkpoint;
#  4. kill -9 after more than the receiver flush period: the receiver files already hold samples;
#  5. SIGTERM: stop time below a bound, the checkpoint written;
#  6. on tests/configs/signals_rollback.yaml, whose sync intervals take seconds (fault with stations,
#     plasticity, receivers): SIGTERM in the middle of the second sync interval stops at the next task,
#     well before the interval would end, with the checkpoint at the interval's start; continuing from it
#     gives the uninterrupted run bit for bit (dofs and plastic strain hashes, every text file);
#  7. the same with two MPI ranks and SIGUSR1 (mpirun forwards it), continued on one rank.
set -u
. "${srcdir:-.}/tests/lib.sh"
CFG=$CONFIGS/signals.yaml
tempdir OUT
STOP_BOUND=${SQ_STOP_BOUND:-5} # seconds from the signal to the end of the process

now() { date +%s.%N; }
# start DIR: the run into DIR in the background (pid in $pid, stderr in DIR.err), once it steps
start() {
  "$SQ" "$CFG" --quiet --output "$1" 2> "$1.err" &
  pid=$!
  for i in $(seq 1 600); do
    [ -s "$1/sig-energy.csv" ] && break
    kill -0 $pid 2> /dev/null || break
    sleep 0.05
  done
}
# samples FILE: data lines of a receiver text file (after its 5 header lines)
samples() { echo $(($(wc -l < "$1") - 5)); }

"$SQ" "$CFG" --quiet --output "$OUT/ref" || bad "uninterrupted run"

# 1. SIGINT
D="$OUT/ctrl c"
start "$D"
sleep 2
t0=$(now)
kill -INT $pid
wait $pid
rc=$?
t1=$(now)
if [ $rc -eq 0 ]; then
  bad "SIGINT: the run finished before the signal (exit 0)"
else
  dt=$(echo "$t1 - $t0" | bc)
  echo "SIGINT: stopped in $dt s"
  [ "$(echo "$dt < $STOP_BOUND" | bc)" = 1 ] && ok "SIGINT: stopped in $dt s (< $STOP_BOUND s)" || bad "SIGINT: stop took $dt s"
  grep -q "stopped by SIGINT at t=" "$D.err" && grep -q "checkpoint written to '$D/sig-checkpoint.h5'" "$D.err" &&
    ok "SIGINT: exit status $rc, the message names SIGINT and the checkpoint" || bad "SIGINT message: $(cat "$D.err")"
  [ -s "$D/sig-checkpoint.h5" ] && ok "SIGINT: checkpoint written" || bad "SIGINT: no checkpoint"
  n=$(samples "$D/sig-receiver-00001.dat")
  [ "$n" -gt 10 ] && ok "SIGINT: receiver files hold $n samples" || bad "SIGINT: receiver file holds $n samples"
  (cd "$D" && ls sig-*) | grep -v manifest | sort > "$OUT/present.txt"
  sort "$D/sig-manifest.txt" | cmp -s - "$OUT/present.txt" && ok "SIGINT: the manifest lists the $(wc -l < "$OUT/present.txt") files" ||
    bad "SIGINT: manifest $(cat "$D/sig-manifest.txt") != $(cat "$OUT/present.txt")"
  # 2. the printed command, as printed
  cmd=$(sed -n '/continue with:/{n;p}' "$D.err" | sed 's/^ *//')
  echo "continue with: $cmd"
  case "$cmd" in *"--output '$D'"*"--restart '$D/sig-checkpoint.h5'") ok "the hint is the command line with --restart, quoted" ;;
    *) bad "the hint: $cmd" ;; esac
  bash -c "$cmd" > "$OUT/hint.log" 2>&1 && ok "the printed command ran" || bad "the printed command failed: $(tail -3 "$OUT/hint.log")"
  [ -n "$(hash_of "$D" sig)" ] && [ "$(hash_of "$D" sig)" = "$(hash_of "$OUT/ref" sig)" ] &&
    ok "SIGINT + printed restart: dofs hash $(hash_of "$D" sig) as uninterrupted" ||
    bad "SIGINT + printed restart: dofs hash $(hash_of "$D" sig) != $(hash_of "$OUT/ref" sig)"
  diff=0
  for f in "$OUT"/ref/sig-receiver-*.dat "$OUT/ref/sig-energy.csv"; do
    cmp -s "$f" "$D/$(basename "$f")" || { diff=1; echo "  $(basename "$f") differs"; }
  done
  [ $diff -eq 0 ] && ok "SIGINT + printed restart: receiver files and energies identical" || bad "SIGINT + restart: text files differ"
fi

# 3. a second SIGINT aborts
start "$OUT/twice"
sleep 1
kill -INT $pid
sleep 0.05 # two signals at once would arrive as one
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && grep -q "second SIGINT: aborted" "$OUT/twice.err" && ok "second SIGINT: aborted (exit status $rc)" ||
  bad "second SIGINT: exit status $rc, $(cat "$OUT/twice.err")"

# 4. the receivers reach the disk every few seconds of wall time (no receivers.flush_interval)
start "$OUT/kill"
sleep 7
if kill -9 $pid 2> /dev/null; then
  wait $pid 2> /dev/null
  n=$(samples "$OUT/kill/sig-receiver-00001.dat")
  [ "$n" -gt 10 ] && ok "kill -9 after 7 s: receiver files hold $n samples" || bad "kill -9 after 7 s: $n samples"
else
  echo "skip kill -9: the run finished in less than 7 s"
fi

# 5. SIGTERM
start "$OUT/term"
sleep 2
t0=$(now)
kill -TERM $pid
wait $pid
rc=$?
t1=$(now)
dt=$(echo "$t1 - $t0" | bc)
[ $rc -ne 0 ] && [ "$(echo "$dt < $STOP_BOUND" | bc)" = 1 ] && [ -s "$OUT/term/sig-checkpoint.h5" ] &&
  ok "SIGTERM: stopped in $dt s with a checkpoint" || bad "SIGTERM: exit status $rc after $dt s"

# 6. a stop within a long sync interval: cancelled and rolled back to its start
RCFG=$CONFIGS/signals_rollback.yaml
# seconds from the signal to the end of the process: one rank, and two (mpirun's shutdown adds to it),
# or half a sync interval where that is more
ROLL_BOUND=${SQ_ROLL_BOUND:-2.5} ROLL_BOUND2=${SQ_ROLL_BOUND2:-5}
"$SQ" "$RCFG" --quiet --output "$OUT/rref" > "$OUT/rref.log" 2>&1 || bad "signals_rollback: the uninterrupted run"
per=$(echo "$(summary_value "$OUT/rref/rb-summary.txt" wall_time_steps) / $(summary_value "$OUT/rref/rb-summary.txt" sync_intervals)" | bc -l)
printf 'signals_rollback: a sync interval takes %.2f s of wall time (one rank)\n' "$per"
# a stop that waited for the interval's end would take most of it (the signal comes 0.3 s into it): under
# sanitizers an interval takes 8 s, so the bounds are at least half an interval
half=$(echo "$per / 2" | bc -l)
[ "$(echo "$half > $ROLL_BOUND" | bc)" = 1 ] && ROLL_BOUND=$(printf '%.1f' "$half")
[ "$(echo "$half > $ROLL_BOUND2" | bc)" = 1 ] && ROLL_BOUND2=$(printf '%.1f' "$half")
# rollback LABEL DIR SIGNAL BOUND LAUNCHER...: run, SIGNAL during the second sync interval, check, continue on one
# rank (mpirun forwards SIGUSR1 to its ranks as srun does, but ends them on SIGTERM)
rollback() {
  local label=$1 dir=$2 sig=$3 bound=$4
  shift 4
  "$@" "$SQ" "$RCFG" --output "$dir" > "$dir.out" 2> "$dir.err" &
  pid=$!
  for i in $(seq 1 1200); do # the second sync interval has begun once the progress line shows step 1
    grep -q "step 1 " "$dir.err" 2> /dev/null && break
    kill -0 $pid 2> /dev/null || break
    sleep 0.05
  done
  sleep 0.3
  t0=$(now)
  kill -$sig $pid
  wait $pid
  rc=$?
  t1=$(now)
  dt=$(echo "$t1 - $t0" | bc)
  echo "$label: stopped in $dt s"
  if ! grep -q "stopped by SIG$sig at t=0.00625 (step 1 of 4)" "$dir.err"; then
    bad "$label: not stopped at the start of the second sync interval (exit $rc): $(grep -v '^  ' "$dir.err" | tail -3)"
    return
  fi
  [ "$(echo "$dt < $bound" | bc)" = 1 ] && ok "$label: SIG$sig within a sync interval: stopped in $dt s (< $bound s) at its start" ||
    bad "$label: the stop took $dt s"
  local cmd
  cmd=$(sed -n '/continue with:/{n;p}' "$dir.err" | sed 's/^ *//')
  cmd=${cmd#mpirun*starquake } # continued on one rank
  case "$cmd" in "$SQ"*) ;; *) cmd="$SQ ${cmd#* }" ;; esac
  bash -c "$cmd" > "$dir.cont" 2>&1 || { bad "$label: continuing failed: $(tail -3 "$dir.cont")"; return; }
  local h1 h2 p1 p2
  h1=$(hash_of "$OUT/rref" rb) h2=$(hash_of "$dir" rb)
  p1=$(summary_value "$OUT/rref/rb-summary.txt" plastic_strain_hash) p2=$(summary_value "$dir/rb-summary.txt" plastic_strain_hash)
  [ -n "$h1" ] && [ "$h1" = "$h2" ] && [ -n "$p1" ] && [ "$p1" = "$p2" ] &&
    ok "$label: stopped, rolled back and continued: dofs hash $h2, plastic strain hash $p2 as uninterrupted" ||
    bad "$label: dofs hash $h2 != $h1 or plastic strain hash $p2 != $p1"
  local diff=0 n=0
  for f in "$OUT"/rref/rb-*receiver-*.dat "$OUT"/rref/rb-faultst* "$OUT/rref/rb-energy.csv" "$OUT/rref/rb-cplot"; do
    n=$((n + 1))
    cmp -s "$f" "$dir/$(basename "$f")" || { diff=1; echo "  $(basename "$f") differs"; }
  done
  [ $diff -eq 0 ] && ok "$label: $n receiver, fault-station, energy and contour files identical" || bad "$label: files differ"
}
rollback "one rank" "$OUT/roll" TERM "$ROLL_BOUND"
if command -v mpirun > /dev/null; then
  allow_mpirun
  rollback "two ranks" "$OUT/roll2" USR1 "$ROLL_BOUND2" mpirun -np 2
else
  echo "skip the two-rank stop: no mpirun"
fi

report signals
