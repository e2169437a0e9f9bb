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
#  5. SIGTERM: stop time below a bound, the checkpoint written.
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

report signals
