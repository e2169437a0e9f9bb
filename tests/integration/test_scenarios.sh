#!/bin/bash
# The scenario scripts (configs/*/run.sh, configs/rupture_scenario.sh, configs/scenario_lib.sh): no path
# outside the repository (check_config_paths.py); `short` is the default size; the memory estimate and
# run time are printed before the run; --set reaches starquake; a script killed with TERM leaves no
# starquake behind (the signal is passed on, starquake checkpoints and stops, the script waits).
# The scripts run on a copy of configs/ (they mesh into their folders).
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir T

if $PY "$SRC/tests/integration/check_config_paths.py" "$SRC" > "$T/paths.out" 2>&1; then
  ok "configs/ names no path outside the repository, and says how to get what it does not ship"
else
  bad "configs/ paths: $(cat "$T/paths.out")"
fi

mkdir -p "$T/repo"
cp -r "$SRC/configs" "$SRC/tools" "$T/repo/"
rm -f "$T/repo"/configs/*/*.msh
export SQ_BIN=$SQ
cd "$T" || exit 99

# tpv13 puml: the mesh is not shipped, and the script says where to get it
if bash repo/configs/tpv13/run.sh puml > puml.out 2>&1; then bad "tpv13 puml without its mesh: exit status 0"
elif grep -q "https://github.com/SeisSol/Training" puml.out && grep -q "not part of this repository" puml.out; then
  ok "tpv13/run.sh puml without the mesh says where to get it"
else bad "tpv13/run.sh puml: $(cat puml.out)"; fi

if ! command -v gmsh > /dev/null; then
  echo "gmsh not found: the runs of the scenario scripts are skipped"
  report test_scenarios
  exit
fi

# short is the default: the coarse mesh at order 3; the estimate comes first; --set reaches the run
if bash repo/configs/tpv5/run.sh --set equations.end_time=0.5 > short.out 2>&1; then ok "tpv5/run.sh (short) runs"
else bad "tpv5/run.sh: $(tail -5 short.out)"; fi
grep -q "short size" short.out && ok "short is the default size" || bad "no 'short size' in: $(head -3 short.out)"
sum=output/tpv5/tpv5-summary.txt
[ "$(summary_value $sum order)" = 3 ] && [ "$(summary_value $sum cells)" -lt 10000 ] &&
  ok "the short run: order 3, $(summary_value $sum cells) cells" || bad "the short run: $(cat $sum)"
awk -v e="$(summary_value $sum end_time)" 'BEGIN { exit !(e > 0.499 && e < 0.501) }' && ok "--set equations.end_time=0.5 reaches the run" \
  || bad "end_time $(summary_value $sum end_time)"
est=$(grep -n "^  estimate .*about" short.out | cut -d: -f1) mem=$(grep -n "^  memory .*MiB" short.out | head -1 | cut -d: -f1)
run=$(grep -n "^progress\|^starquake: .*tpv5.yaml" short.out | head -1 | cut -d: -f1)
[ -n "$est" ] && [ -n "$mem" ] && [ -n "$run" ] && [ "$est" -lt "$run" ] && ok "memory and ETA printed before the run starts" \
  || bad "estimate at line '$est', memory at '$mem', run at '$run': $(head -12 short.out)"

# killed with TERM: the script passes it on and waits; no starquake is left
bash repo/configs/tpv5/run.sh --set equations.end_time=1000 --set output.prefix=killed > killed.out 2>&1 &
script=$!
child=""
for _ in $(seq 600); do # up to 60 s: the run (not the dry run) has started
  for p in $(ps -o pid= --ppid "$script" 2> /dev/null); do
    tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null | grep -q -- "--set output.prefix=killed" &&
      ! tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null | grep -q -- --dry-run && child=$p
  done
  [ -n "$child" ] && [ -s output/tpv5/killed-energy.csv ] && break
  sleep 0.1
done
if [ -z "$child" ]; then
  bad "the run of the killed script never started: $(tail -5 killed.out)"
  kill "$script" 2> /dev/null
else
  sleep 1
  kill -TERM "$script"
  timeout 60 tail --pid="$script" -f /dev/null
  wait "$script"
  rc=$?
  if kill -0 "$child" 2> /dev/null; then
    bad "starquake (pid $child) still runs after its script was killed"
    kill -KILL "$child"
  else
    ok "TERM to the script: starquake stopped too (script exit status $rc)"
  fi
  grep -q "passed on" killed.out && ok "the script says it passed the signal on" || bad "no 'passed on' in: $(tail -5 killed.out)"
  [ -s output/tpv5/killed-checkpoint.h5 ] && ok "starquake wrote its checkpoint" || bad "no checkpoint: $(ls output/tpv5)"
  [ $rc -ne 0 ] && ok "the killed script fails (status $rc)" || bad "the killed script exits 0"
fi
report test_scenarios
