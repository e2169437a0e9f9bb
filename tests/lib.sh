# shellcheck shell=bash disable=SC2034
# tests/lib.sh: helpers shared by the integration scripts (tests/integration/*.sh) and benchmarks
# (tests/bench/*.sh), sourced as `. "${srcdir:-.}/tests/lib.sh"` (make check sets srcdir to the source
# tree and SQ_BIN to the built binary; run by hand from the top build folder, the defaults serve).
# A script checks with ok/bad (or check), and ends with `report NAME`, which prints the count and gives
# the exit status: 0 when nothing failed.

SQ=${SQ_BIN:-./starquake}          # the binary under test
SRC=${srcdir:-.}                   # the source tree
CONFIGS=$SRC/tests/configs         # the YAML fixtures
PY=/usr/bin/python3                # the system python (h5py, numpy, matplotlib from the distribution)
H5CMP=$SRC/tests/integration/h5compare.py
pass=0 fail=0

# ok TEXT / bad TEXT: count a passed / failed check and print it ("ok   TEXT", "FAIL TEXT")
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# check NAME COMMAND...: run COMMAND; ok or bad with NAME and what it printed (stdout and stderr)
check() {
  local name=$1 out
  shift
  if out=$("$@" 2>&1); then ok "$name: $out"; else bad "$name: $out"; fi
}

# report NAME: print "NAME: P passed, F failed"; succeeds when nothing failed (a script's last command)
report() {
  echo "$1: $pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}

# tempdir VAR: make a fresh folder, store its path in VAR, and remove it when the script exits (after
# calling the script's on_exit function, when it defines one)
tempdir() {
  SQ_TEMPDIR=$(mktemp -d) || { echo "mktemp -d failed"; exit 99; }
  printf -v "$1" '%s' "$SQ_TEMPDIR"
  trap 'if declare -F on_exit > /dev/null; then on_exit; fi; rm -rf "$SQ_TEMPDIR"' EXIT
}

# allow_mpirun: let Open MPI's mpirun run as root (containers) and place more ranks than cores
allow_mpirun() {
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
}

# summary_value FILE KEY: the value of "KEY: value" in a run's summary file (empty when missing)
summary_value() { grep "^$2:" "$1" 2> /dev/null | awk '{print $2}'; }

# hash_of DIR PREFIX: the dofs hash in DIR/PREFIX-summary.txt (output.prefix PREFIX, --output DIR)
hash_of() { summary_value "$1/$2-summary.txt" dofs_hash; }

# run DIR CONFIG ARGS...: a quiet run of CONFIG into DIR, its output in DIR.log; bad when it fails
run() {
  local dir=$1 cfg=$2
  shift 2
  "$SQ" "$cfg" --quiet --output "$dir" "$@" > "$dir.log" 2>&1 || { bad "run $(basename "$dir") failed: $(tail -2 "$dir.log")"; return 1; }
}
