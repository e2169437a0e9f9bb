#!/bin/bash
# The command line's help (app/help.c): `--help` lists every option of a run and every command; every
# command's --help exits 0 and lists every option its parser accepts (read from the parser's source);
# `starquake run CONFIG` is `starquake CONFIG`; --version prints the build configuration; the committed
# man page docs/starquake.1 is what `starquake --help-man` prints.
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir T

# options_of FILE: the options a parser in FILE accepts (its strcmp(..., "--name") literals)
options_of() { grep -o 'strcmp([a-z]*\(\[i\]\)\?, "--[a-z-]*")' "$1" | grep -o '"--[a-z-]*"' | tr -d '"' | sort -u; }

# lists TEXT_FILE WHAT OPTIONS...: every option appears in the help text as a word
lists() {
  local file=$1 what=$2 missing="" o
  shift 2
  for o in "$@"; do grep -Eq -- "(^|[^a-z-])$o([^a-z-]|$)" "$file" || missing="$missing $o"; done
  if [ -z "$missing" ]; then ok "$what lists its $# options"; else bad "$what does not list:$missing"; fi
}

# the whole program's help: every option of a run, and every command
if "$SQ" --help > "$T/help.txt" 2>&1; then ok "--help exits 0"; else bad "--help: exit status $?"; fi
mapfile -t run_opts < <(options_of "$SRC/app/run.c")
[ "${#run_opts[@]}" -ge 10 ] && ok "app/run.c accepts ${#run_opts[@]} options" || bad "options of app/run.c: ${run_opts[*]}"
lists "$T/help.txt" "--help" "${run_opts[@]}" --help --version --help-man
for cmd in "verify planewave" "verify interface|freesurface|absorbing" "verify pointsource" "verify kinematic" "mesh info" \
  "mesh convert" config-reference "seissol-import parameters.par" "probe CONFIG"; do
  grep -qF -- "starquake $cmd" "$T/help.txt" && ok "--help names 'starquake $cmd'" || bad "--help lacks 'starquake $cmd'"
done

# every command's --help: exit 0, its usage, and every option its parser accepts
help_of() { # FILE ARGS...: `starquake ARGS` into FILE; bad unless exit 0 with a usage line
  local file=$1
  shift
  if "$SQ" "$@" > "$file" 2>&1 && grep -q "^usage: starquake" "$file"; then ok "starquake $* exits 0 with its usage"
  else bad "starquake $*: $(head -3 "$file")"; fi
}
help_of "$T/run.txt" run --help
lists "$T/run.txt" "run --help" "${run_opts[@]}"
help_of "$T/run2.txt" "$CONFIGS/cli_box.yaml" --help
cmp -s "$T/run.txt" "$T/run2.txt" && ok "CONFIG --help is run --help" || bad "CONFIG --help differs from run --help"
mapfile -t verify_opts < <(options_of "$SRC/app/verify.c")
: > "$T/verify_all.txt"
for sub in planewave interface freesurface absorbing; do
  help_of "$T/v_$sub.txt" verify "$sub" --help
  cat "$T/v_$sub.txt" >> "$T/verify_all.txt"
done
lists "$T/verify_all.txt" "verify planewave/interface --help" "${verify_opts[@]}"
grep -q -- "--wave" "$T/v_absorbing.txt" && ok "verify absorbing --help names --wave" || bad "verify absorbing --help lacks --wave"
help_of "$T/v_ps.txt" verify pointsource --help
mapfile -t ps_opts < <(options_of "$SRC/app/verify_source.c")
lists "$T/v_ps.txt" "verify pointsource --help" "${ps_opts[@]}"
help_of "$T/v_tp.txt" verify thermal-pressurization --help
mapfile -t tp_opts < <(options_of "$SRC/app/verify_tp.c")
lists "$T/v_tp.txt" "verify thermal-pressurization --help" "${tp_opts[@]}"
help_of "$T/m_info.txt" mesh info --help
help_of "$T/m_conv.txt" mesh convert --help
help_of "$T/cref.txt" config-reference --help
help_of "$T/simport.txt" seissol-import --help
mapfile -t import_opts < <(options_of "$SRC/app/seissol_cmd.c")
lists "$T/simport.txt" "seissol-import --help" "${import_opts[@]}"
help_of "$T/probe.txt" probe --help
mapfile -t probe_opts < <(options_of "$SRC/app/probe.c")
lists "$T/probe.txt" "probe --help" "${probe_opts[@]}"
"$SQ" verify --help > "$T/v.txt" 2>&1 && grep -q "verify pointsource" "$T/v.txt" && ok "verify --help" || bad "verify --help: $(head -3 "$T/v.txt")"
if "$SQ" verify nosuch --help > "$T/nosuch.txt" 2>&1; then bad "verify nosuch --help: exit status 0"
else grep -q "no such command" "$T/nosuch.txt" && ok "verify nosuch --help: an error" || bad "verify nosuch --help: $(cat "$T/nosuch.txt")"; fi

# `starquake run CONFIG` is `starquake CONFIG`: the same hash
"$SQ" run "$CONFIGS/cli_box.yaml" --quiet --output "$T/r1" > "$T/r1.log" 2>&1 || bad "run CONFIG: $(tail -2 "$T/r1.log")"
"$SQ" "$CONFIGS/cli_box.yaml" --quiet --output "$T/r2" > "$T/r2.log" 2>&1 || bad "CONFIG: $(tail -2 "$T/r2.log")"
h1=$(hash_of "$T/r1" starquake) h2=$(hash_of "$T/r2" starquake)
[ -n "$h1" ] && [ "$h1" = "$h2" ] && ok "starquake run CONFIG = starquake CONFIG (hash $h1)" || bad "run CONFIG: hash '$h1', CONFIG: '$h2'"

# --version: the build configuration
"$SQ" --version > "$T/version.txt" 2>&1 || bad "--version: exit status $?"
for field in "^starquake [0-9]+\.[0-9]+" "commit +[^ ]" "precisions +single, double" "CUDA +(yes|no)" "MPI +[^ ]" \
  "StarPU +[0-9]+\.[0-9]+"; do
  grep -Eq "$field" "$T/version.txt" && ok "--version: /$field/" || bad "--version lacks /$field/: $(cat "$T/version.txt")"
done

# the man page: generated from the same table, and the committed one is current
"$SQ" --help-man > "$T/starquake.1" || bad "--help-man: exit status $?"
grep -q '^\.TH STARQUAKE 1' "$T/starquake.1" && ok "--help-man writes a man page" || bad "--help-man: $(head -2 "$T/starquake.1")"
for o in "${run_opts[@]}"; do
  grep -qF -- "$(sed 's/-/\\-/g' <<< "$o")" "$T/starquake.1" || bad "the man page lacks $o"
done
if diff -u "$SRC/docs/starquake.1" "$T/starquake.1" > "$T/man.diff"; then ok "docs/starquake.1 is current"
else bad "docs/starquake.1 is stale: run ./starquake --help-man > docs/starquake.1 ($(head -12 "$T/man.diff" | tail -6))"; fi

report test_help
