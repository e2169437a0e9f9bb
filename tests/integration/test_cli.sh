#!/bin/bash
# Command-line behaviour: help/version, and bad inputs that must fail with one clear message naming
# the file, line and key (and never crash or leave a summary behind).
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir T

"$SQ" --help | grep -q "starquake \[run\] CONFIG.yaml" && ok "--help" || bad "--help"
"$SQ" --version | grep -Eq "^starquake [0-9]+\.[0-9]+" && ok "--version" || bad "--version"

base() { cat "$CONFIGS/cli_box.yaml"; }
# expect_error NAME FILE-CONTENT PATTERN...: non-zero exit, no crash, message matches every pattern
expect_error() {
  local name=$1 content=$2; shift 2
  printf '%s\n' "$content" > "$T/$name.yaml"
  "$SQ" "$T/$name.yaml" --output "$T/out-$name" > "$T/$name.out" 2> "$T/$name.err"
  local rc=$?
  if [ $rc -eq 0 ] || [ $rc -gt 128 ]; then bad "$name: exit code $rc"; return; fi
  for pat in "$@"; do
    if ! grep -Eq -- "$pat" "$T/$name.err"; then bad "$name: message lacks /$pat/: $(cat "$T/$name.err")"; return; fi
  done
  if [ -e "$T/out-$name/starquake-summary.txt" ]; then bad "$name: left a summary behind"; return; fi
  ok "$name: $(head -1 "$T/$name.err")"
}
expect_error typo "$(base | sed 's/  order: 2/  ordr: 2/')" "$T/typo.yaml:7" "ordr" "did you mean 'order'"
expect_error order9 "$(base | sed 's/order: 2/order: 9/')" "order9.yaml:7" "equations.order" "2..7"
expect_error cfl "$(base; echo '  cfl: 1.5')" "cfl"
expect_error negrho "$(base | sed 's/rho: 1.0/rho: -1.0/')" "rho"
expect_error nanvalue "$(base | sed 's/lambda: 2.0/lambda: .nan/')" "lambda"
expect_error wrongtype "$(base | sed 's/end_time: 0.01/end_time: soon/')" "end_time"
expect_error noend "$(base | grep -v end_time)" "end_time"
expect_error nomaterial "$(base | sed '/materials:/,/default/d')" "materials"
expect_error syntax "$(base | sed 's/cells: \[2, 2, 2\]/cells: [2, 2, 2/')" "syntax.yaml"
expect_error meshfile "$(base | sed 's/type: box/type: gmsh\n  file: nothere.msh/' | sed '/box: {cells/d')" "nothere.msh"
"$SQ" "$T/does-not-exist.yaml" 2> "$T/missing.err"; rc=$?
[ $rc -ne 0 ] && grep -q "does-not-exist.yaml" "$T/missing.err" && ok "missing file" || bad "missing file rc=$rc"
base > "$T/good.yaml"
touch "$T/notadir"
"$SQ" "$T/good.yaml" --output "$T/notadir/sub" 2> "$T/unwritable.err"; rc=$?
[ $rc -ne 0 ] && grep -q "notadir" "$T/unwritable.err" && ok "unwritable output" || bad "unwritable output rc=$rc"
"$SQ" "$T/good.yaml" --bogus 2> "$T/opt.err"; rc=$?
[ $rc -ne 0 ] && grep -q "bogus" "$T/opt.err" && ok "unknown option" || bad "unknown option rc=$rc"
"$SQ" "$T/good.yaml" --output "$T/trace-out" --trace "$T/notadir/t.csv" 2> "$T/trace.err"; rc=$?
[ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -q "notadir/t.csv" "$T/trace.err" && [ ! -e "$T/trace-out/starquake-summary.txt" ] &&
  ok "unwritable trace: stops before the run" || bad "unwritable trace rc=$rc: $(cat "$T/trace.err")"
"$SQ" "$T/good.yaml" --quiet --output "$T/good" && grep -q dofs_hash "$T/good/starquake-summary.txt" && ok "good config runs" || bad "good config"
report cli
