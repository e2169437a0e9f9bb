#!/bin/bash
# --set KEY=VALUE overrides a configuration key through the schema (io/config_set.c), and --dry-run
# prints the memory estimate and an ETA without writing anything.  The bad --set values are cases of
# tests/bad_inputs (cli_set_*).
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir T
CFG=$CONFIGS/cli_box.yaml

run "$T/base" "$CFG" || true
run "$T/set" "$CFG" --set equations.end_time=0.02 || true
end=$(summary_value "$T/set/starquake-summary.txt" end_time)
awk -v e="$end" 'BEGIN { exit !(e > 0.0199 && e < 0.0201) }' && ok "--set equations.end_time=0.02: the summary's end_time is $end" \
  || bad "--set equations.end_time=0.02: the summary's end_time is '$end'"
# a plane wave (configs/planewave.yaml, made small): a later end_time, another solution
QS=(--set "mesh.box.cells=[4, 4, 4]" --set output.interval=0 --set equations.order=3)
run "$T/qs1" "$SRC/configs/planewave.yaml" "${QS[@]}" --set equations.end_time=0.01 || true
run "$T/qs2" "$SRC/configs/planewave.yaml" "${QS[@]}" --set equations.end_time=0.02 || true
h1=$(hash_of "$T/qs1" planewave) h2=$(hash_of "$T/qs2" planewave)
[ -n "$h1" ] && [ -n "$h2" ] && [ "$h1" != "$h2" ] && ok "--set equations.end_time changes the solution ($h1, $h2)" \
  || bad "--set equations.end_time: hashes '$h1' and '$h2'"

# several --set; a new section and key, an item of a list, a string
run "$T/multi" "$CFG" --set equations.end_time=0.005 --set output.prefix=multi --set 'mesh.box.cells[0]=3' \
  --set equations.order=3 || true
[ -f "$T/multi/multi-summary.txt" ] && ok "--set output.prefix=multi (a section the file lacks)" \
  || bad "--set output.prefix: $(ls "$T/multi")"
[ "$(summary_value "$T/multi/multi-summary.txt" cells)" = 72 ] && ok "--set mesh.box.cells[0]=3: 72 cells" \
  || bad "--set mesh.box.cells[0]=3: $(summary_value "$T/multi/multi-summary.txt" cells) cells"
[ "$(summary_value "$T/multi/multi-summary.txt" order)" = 3 ] && ok "--set equations.order=3" \
  || bad "--set equations.order=3: order $(summary_value "$T/multi/multi-summary.txt" order)"
# a value given as it is in the file gives the same run, bit for bit
run "$T/same" "$CFG" --set equations.end_time=0.01 --set 'mesh.box={cells: [2, 2, 2]}' || true
[ "$(hash_of "$T/base" starquake)" = "$(hash_of "$T/same" starquake)" ] && ok "--set of the file's own values: same hash" \
  || bad "--set of the file's own values changes the hash"
# the last --set of a key wins
run "$T/last" "$CFG" --set equations.end_time=0.5 --set equations.end_time=0.01 || true
[ "$(hash_of "$T/base" starquake)" = "$(hash_of "$T/last" starquake)" ] && ok "the last --set of a key wins" \
  || bad "two --set of one key: not the last one's run"

# --dry-run: the memory estimate and an ETA; no output folder
if "$SQ" "$CFG" --dry-run --output "$T/dry" --set equations.end_time=0.05 > "$T/dry.log" 2>&1; then
  grep -q "memory     about" "$T/dry.log" && ok "--dry-run prints the memory estimate" || bad "--dry-run: no memory estimate"
  grep -Eq "estimate .* sync intervals .*about [0-9.]+ (s|min|h)" "$T/dry.log" && ok "--dry-run prints an ETA: $(grep -o 'about [0-9.]* [a-z]* (ETA' "$T/dry.log")" \
    || bad "--dry-run: no ETA: $(cat "$T/dry.log")"
  [ ! -e "$T/dry" ] && ok "--dry-run writes nothing" || bad "--dry-run wrote $(ls "$T/dry")"
else
  bad "--dry-run: $(tail -3 "$T/dry.log")"
fi
report test_set
