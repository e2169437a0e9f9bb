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

# same_outputs A B [SKIP]: every output file of run A equals B's: text byte for byte, HDF5 dataset by
# dataset (h5compare.py), the same dofs hash; the fault checkpoint (*.fault) and the other names matching
# the glob SKIP (but HDF5 files and summaries) are not compared; prints what differs
same_outputs() {
  local f n rc=0 skip=${3:-}
  for f in "$1"/*; do
    n=$(basename "$f")
    # shellcheck disable=SC2254 # SKIP is a glob
    case $n in
      *.h5) $PY "$H5CMP" "$f" "$2/$n" > /dev/null 2>&1 || { rc=1; echo "  differs: $n"; } ;;
      *summary.txt) [ "$(summary_value "$f" dofs_hash)" = "$(summary_value "$2/$n" dofs_hash)" ] || { rc=1; echo "  dofs hash differs"; } ;;
      *.fault | $skip) ;;
      *) cmp -s "$f" "$2/$n" || { rc=1; echo "  differs: $n"; } ;;
    esac
  done
  return $rc
}

# need_gmsh: leave (exit 1) with a message when gmsh is not installed
need_gmsh() { command -v gmsh > /dev/null || { echo "gmsh not found: install gmsh (./quickstart does)"; exit 1; }; }

# fault_mesh GEO MSH [H_FAULT]: the real gmsh meshes one of the fault set-ups' GEO (configs/tpv*/*.geo) in a
# 60 x 60 x 30 km box, fault elements of H_FAULT m (default 3000: CI size), far ones of 15 km, into MSH
# (format 2.2); its log goes beside MSH and is shown, and the script left, when gmsh fails
fault_mesh() {
  local log=${2%.msh}-gmsh.log
  gmsh -3 -setnumber h_fault "${3:-3000}" -setnumber h_far 15000 -setnumber Lh 30000 -setnumber Lz 30000 \
    -format msh22 -o "$2" "$1" > "$log" 2>&1 || { cat "$log"; exit 1; }
}

# bench_setup [OUTDIR]: for a benchmark tests/bench/NAME.sh [OUTDIR] run by hand: sets here (the top of the
# source tree), sq (SQ_BIN, else here/starquake) and out (OUTDIR, else a new temporary folder), made
bench_setup() {
  here=$(cd "$(dirname "$0")/../.." && pwd)
  sq=${SQ_BIN:-$here/starquake}
  out=${1:-$(mktemp -d)}
  mkdir -p "$out"
}
