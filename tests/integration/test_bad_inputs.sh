#!/bin/bash
# Bad-input suite (tests/bad_inputs/): every case must make starquake fail cleanly.
#
# A case is NAME.expect (a '#' description line, then one grep -E pattern per line) next to its
# input, NAME.yaml, run as `starquake NAME.yaml --output OUT`; NAME.args, when present, holds the
# whole argument list instead (@DIR@: the case folder, @OUT@: the output folder).  Each case must
#   - exit with a non-zero status below 128 (an error, not a signal or a crash), within 60 s;
#   - print exactly one line starting with "starquake: error:", matching every pattern;
#   - leave no *-summary.txt behind (no output that looks like a finished run).
# The cases run on a copy of the folder, where make_puml.py writes the PUML fixtures and tests/nrf-write
# the NRF files of the *.nrfspec descriptions.
# SQ_BAD_INPUTS="name ..." runs only those cases.
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir T
allow_mpirun

DIR=$T/bad_inputs
cp -r "$SRC/tests/bad_inputs" "$DIR"
have_puml=1
if ! $PY "$DIR/make_puml.py" "$DIR" 2> "$T/make_puml.err"; then
  have_puml=0
  echo "note: make_puml.py failed (python3-h5py missing?); the puml_* cases are skipped: $(tail -1 "$T/make_puml.err")"
fi
# NRF cases: NAME.nrfspec is written to NAME.nrf by tests/nrf-write (built next to the binary)
for spec in "$DIR"/*.nrfspec; do
  [ -e "$spec" ] || continue
  "${SQ%/*}/tests/nrf-write" "$spec" "${spec%.nrfspec}.nrf" || bad "nrf-write $(basename "$spec") failed"
done

skip=0
# the fixtures break a valid mesh: check that the valid ones still load
for good in cube.msh puml_good.puml.h5; do
  [ "$good" = puml_good.puml.h5 ] && [ $have_puml = 0 ] && continue
  if ! "$SQ" mesh info "$DIR/$good" > "$T/good.out" 2>&1; then
    bad "fixture $good does not load: $(head -3 "$T/good.out")"
  fi
done
run_case() { # NAME
  local name=$1 out=$T/out/$1 args=()
  local expect=$DIR/$name.expect
  mkdir -p "$T/out"
  if [ -f "$DIR/$name.args" ]; then
    local line
    line=$(sed -e "s|@DIR@|$DIR|g" -e "s|@OUT@|$out|g" "$DIR/$name.args")
    read -r -a args <<< "$line"
  else
    args=("$DIR/$name.yaml" --output "$out")
  fi
  (cd "$T" && timeout 60 "$SQ" "${args[@]}" > "$T/$name.out" 2> "$T/$name.err")
  local rc=$? why=""
  local nerr
  nerr=$(grep -c '^starquake: error:' "$T/$name.err")
  local msg
  msg=$(grep -m1 '^starquake: error:' "$T/$name.err")
  if [ $rc -eq 124 ]; then why="hangs (killed after 60 s)"
  elif [ $rc -eq 0 ]; then why="exit status 0"
  elif [ $rc -ge 128 ]; then why="killed by signal $((rc - 128)) (exit status $rc)"
  elif [ "$nerr" -ne 1 ]; then why="$nerr lines start with 'starquake: error:' (want exactly 1)"
  elif [ -n "$(find "$out" "$DIR" -name '*-summary.txt' 2> /dev/null)" ]; then why="left a *-summary.txt behind"
  else
    local pat
    while IFS= read -r pat; do
      case $pat in '#'*|'') continue ;; esac
      if ! grep -Eq -- "$pat" <<< "$msg"; then why="message lacks /$pat/"; break; fi
    done < "$expect"
  fi
  if [ -z "$why" ]; then
    ok "$name: ${msg#starquake: error: }"
  else
    bad "$name: $why"
    sed 's/^/     | /' "$T/$name.err" | head -20
  fi
}

for expect in "$DIR"/*.expect; do
  name=$(basename "$expect" .expect)
  if [ -n "${SQ_BAD_INPUTS:-}" ] && ! grep -qw -- "$name" <<< "$SQ_BAD_INPUTS"; then continue; fi
  if [ $have_puml = 0 ] && [ "${name#puml_}" != "$name" ]; then skip=$((skip + 1)); continue; fi
  run_case "$name"
done
echo "bad inputs: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
