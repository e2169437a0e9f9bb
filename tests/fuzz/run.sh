#!/bin/bash
# Build the libFuzzer harnesses of the input readers and run each of them.
#
#   tests/fuzz/run.sh [SECONDS] [HARNESS...]
#
# SECONDS   time per harness (default 60); HARNESS: config gmsh puml source namelist easi puml_raw
#           (default: the first five; puml_raw feeds raw bytes to libhdf5, whose own parser crashes
#           on some corrupted files: docs/PRODUCTION.md)
# FUZZ_DIR  work folder (default /tmp/sq-fuzz): build/, corpus/<harness>/ (kept between runs, so a
#           later run continues from what earlier ones found), artifacts/<harness>/ (crash inputs)
# FUZZ_PARALLEL=1   run the harnesses at the same time (one core each) instead of one after another
# FUZZ_NICE=N       nice level of the fuzzers (default 10)
#
# Each harness is built with clang -fsanitize=fuzzer,address,undefined against the project's
# sources (src/, mesh/, easi/, io/, seissol/); the seeds are the configurations and meshes of the repository.
# Exit status: 0 when no harness crashed or reported a sanitizer error.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SECONDS_EACH=${1:-60}
shift || true
HARNESSES=${*:-config gmsh puml source namelist easi}
FUZZ_DIR=${FUZZ_DIR:-/tmp/sq-fuzz}
CC=${FUZZ_CC:-clang}
NICE=${FUZZ_NICE:-10}
BUILD=$FUZZ_DIR/build

die() { echo "fuzz: $*" >&2; exit 2; }
command -v "$CC" > /dev/null || die "$CC not found (apt-get install -y clang)"
mkdir -p "$BUILD" "$FUZZ_DIR/corpus" "$FUZZ_DIR/artifacts" "$FUZZ_DIR/logs"

# ---- build ----------------------------------------------------------------------------------
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# io/h5io.c writes through parallel HDF5: its flags bring Open MPI's (clang is not mpicc)
pkg-config --exists hdf5-openmpi || die "pkg-config has no hdf5-openmpi (apt-get install libhdf5-openmpi-dev)"
CFLAGS="-std=gnu11 -O1 -g $SAN -DSQ_VERSION=\"fuzz\" -I$ROOT/src -I$ROOT/mesh -I$ROOT/easi -I$ROOT/io -I$ROOT/seissol $(pkg-config --cflags hdf5-openmpi lua5.4 netcdf)"
LIBS="$(pkg-config --libs hdf5-openmpi lua5.4 netcdf) -lyaml -lmetis -lm"
objs=()
for src in "$ROOT"/src/*.c "$ROOT"/mesh/*.c "$ROOT"/easi/*.c "$ROOT"/io/*.c "$ROOT"/seissol/*.c; do
  obj=$BUILD/$(basename "$(dirname "$src")")_$(basename "${src%.c}").o
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find "$ROOT/src" "$ROOT/mesh" "$ROOT/easi" "$ROOT/io" "$ROOT/seissol" -name '*.h' -newer "$obj" 2> /dev/null)" ]; then
    echo "  CC (fuzz) ${src#"$ROOT"/}"
    # shellcheck disable=SC2086 # word splitting of the flags is intended
    $CC $CFLAGS -fsanitize=fuzzer-no-link -c "$src" -o "$obj" || die "cannot compile $src"
  fi
  objs+=("$obj")
done
rm -f "$BUILD/libsqfuzz.a"
ar cr "$BUILD/libsqfuzz.a" "${objs[@]}" || die "ar failed"
build() { # NAME SOURCE [FLAGS]
  local name=$1 src=$2; shift 2
  echo "  LD (fuzz) fuzz_$name"
  # shellcheck disable=SC2086
  $CC $CFLAGS -fsanitize=fuzzer "$@" "$src" "$BUILD/libsqfuzz.a" $LIBS -o "$BUILD/fuzz_$name" || die "cannot build fuzz_$name"
}
for h in $HARNESSES; do
  case $h in
    config|gmsh|source|namelist|easi) build "$h" "$HERE/fuzz_$h.c" ;;
    puml) build puml "$HERE/fuzz_puml.c" ;;
    puml_raw) build puml_raw "$HERE/fuzz_puml.c" -DSQ_FUZZ_PUML_RAW ;;
    *) die "unknown harness '$h' (config gmsh puml puml_raw source namelist easi)" ;;
  esac
done

# ---- seeds ----------------------------------------------------------------------------------
seed() { # HARNESS FILE...: copy seeds into an empty corpus
  local dir=$FUZZ_DIR/corpus/$1; shift
  mkdir -p "$dir"
  local f
  for f in "$@"; do [ -f "$f" ] && cp "$f" "$dir/seed-$(basename "$(dirname "$f")")-$(basename "$f")"; done
}
SEEDS=$FUZZ_DIR/seeds
mkdir -p "$SEEDS"
if [ ! -f "$SEEDS/done" ]; then
  # a small valid Gmsh mesh in the four variants, if gmsh is there
  cat > "$SEEDS/cube.geo" <<'GEO'
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Physical Surface(101) = {6};
Physical Surface(105) = {1, 2, 3, 4, 5};
Physical Volume(1) = {1};
Mesh.CharacteristicLengthMax = 0.7;
GEO
  if command -v gmsh > /dev/null; then
    for v in "msh22" "msh22 -bin" "msh41" "msh41 -bin"; do
      # shellcheck disable=SC2086
      gmsh -3 -nt 1 -v 0 -format $v "$SEEDS/cube.geo" -o "$SEEDS/cube-${v// /}.msh" > /dev/null 2>&1
    done
  fi
  # structured PUML seed: the unit cube in 6 tetrahedra (Kuhn split), free surface everywhere
  /usr/bin/python3 - "$SEEDS/cube.puml-struct" <<'PY'
import itertools, struct, sys
verts = [(x, y, z) for z in (0, 10) for y in (0, 10) for x in (0, 10)]
idx = {v: i for i, v in enumerate(verts)}
cells = []
for perm in itertools.permutations(range(3)):
    p = [0, 0, 0]; path = [tuple(p)]
    for a in perm:
        p[a] = 10; path.append(tuple(p))
    c = [idx[v] for v in path]
    a, b, cc, d = (verts[i] for i in c)
    u = [b[k] - a[k] for k in range(3)]; v = [cc[k] - a[k] for k in range(3)]; w = [d[k] - a[k] for k in range(3)]
    det = u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) + u[2] * (v[0] * w[1] - v[1] * w[0])
    if det < 0: c[1], c[2] = c[2], c[1]
    cells.append(c)
faces = [(0, 1, 2), (0, 1, 3), (1, 2, 3), (0, 2, 3)]
count = {}
for c in cells:
    for f in faces:
        k = tuple(sorted(c[i] for i in f)); count[k] = count.get(k, 0) + 1
out = bytes([0, 0, 0, 0, 1, 1, len(cells), len(verts)])
out += b"".join(struct.pack("bbb", *v) for v in verts)
out += b"".join(struct.pack("4b", *c) for c in cells)
out += b"".join(bytes(1 if count[tuple(sorted(c[i] for i in f))] == 1 else 0 for f in faces) for c in cells)
out += bytes([1] * len(cells))
open(sys.argv[1], "wb").write(out)
PY
  # a real PUML file, written by starquake from the Gmsh seed
  if [ -x "$ROOT/starquake" ] && [ -f "$SEEDS/cube-msh41.msh" ]; then
    "$ROOT/starquake" mesh convert "$SEEDS/cube-msh41.msh" "$SEEDS/cube.puml.h5" > /dev/null 2>&1
  fi
  # source files: a finite-source file, a time-function table, a point list (first byte: reader)
  printf '\0Seismic Moment Tensor\n1 0 0\n0 1 0\n0 0 1\nNumber of subfaults\n2\nx y z strike dip rake area Onset time\n0 0 0 0 90 0 1 0\n1 0 0 0 90 0 1 0.1\nsource time function\n0.1 3\nsamples\n0 1 0\n0 1 0\n' > "$SEEDS/fsrm.txt"
  printf '\001# time value\n0 0\n0.5 1\n1 0\n' > "$SEEDS/stf.txt"
  printf '\002# x y z\n0 0 0\n1 2 3\n' > "$SEEDS/points.txt"
  touch "$SEEDS/done"
fi
corpus_empty() { [ -z "$(ls -A "$FUZZ_DIR/corpus/$1" 2> /dev/null)" ]; }
corpus_empty config && seed config "$ROOT"/configs/*.yaml "$ROOT"/tests/configs/*.yaml "$ROOT"/tests/bad_inputs/*/*.yaml
corpus_empty gmsh && seed gmsh "$SEEDS"/*.msh "$ROOT"/tests/meshes/bad/*.msh "$ROOT"/tests/bad_inputs/*/*.msh
corpus_empty puml && seed puml "$SEEDS/cube.puml-struct"
corpus_empty puml_raw && seed puml_raw "$SEEDS/cube.puml.h5" "$ROOT"/tests/meshes/bad/*.h5
corpus_empty namelist && seed namelist $(find "$ROOT/tests/seissol_examples" -name '*.par') "$ROOT"/tests/bad_inputs/*.par
corpus_empty easi && seed easi "$ROOT"/tests/easi/seissol/*.yaml "$ROOT"/tests/configs/easi/*.yaml "$ROOT"/tests/bad_inputs/*.easi
corpus_empty source && seed source "$SEEDS"/fsrm.txt "$SEEDS"/stf.txt "$SEEDS"/points.txt

# ---- run ------------------------------------------------------------------------------------
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
run_one() { # HARNESS
  local h=$1
  mkdir -p "$FUZZ_DIR/artifacts/$h/"
  local dict=()
  [ "$h" = config ] && dict=(-dict="$HERE/yaml.dict")
  nice -n "$NICE" "$BUILD/fuzz_$h" "$FUZZ_DIR/corpus/$h" "${dict[@]}" -max_total_time="$SECONDS_EACH" \
    -timeout=20 -rss_limit_mb=2048 -max_len=65536 -close_fd_mask=1 -print_final_stats=1 \
    -artifact_prefix="$FUZZ_DIR/artifacts/$h/" > "$FUZZ_DIR/logs/$h.log" 2>&1
  echo $? > "$FUZZ_DIR/logs/$h.rc"
}
echo "fuzz: $SECONDS_EACH s each: $HARNESSES (logs: $FUZZ_DIR/logs)"
touch "$FUZZ_DIR/logs/start-stamp" # artifacts newer than this are this run's findings
if [ "${FUZZ_PARALLEL:-0}" = 1 ]; then
  for h in $HARNESSES; do run_one "$h" & done
  wait
else
  for h in $HARNESSES; do run_one "$h"; done
fi

# ---- report ---------------------------------------------------------------------------------
status=0
printf '%-9s %8s %12s %8s %8s %s\n' harness seconds executions exec/s crashes result
for h in $HARNESSES; do
  log=$FUZZ_DIR/logs/$h.log
  rc=$(cat "$FUZZ_DIR/logs/$h.rc" 2> /dev/null || echo 1)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  ncrash=$(find "$FUZZ_DIR/artifacts/$h" -type f -newer "$FUZZ_DIR/logs/start-stamp" \( -name 'crash-*' -o -name 'leak-*' \
    -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  result=ok
  if [ "$rc" != 0 ] || [ "$ncrash" != 0 ]; then
    result="FAILED (exit $rc; see $log and $FUZZ_DIR/artifacts/$h/)"
    status=1
  fi
  printf '%-9s %8s %12s %8s %8s %s\n' "$h" "$SECONDS_EACH" "${runs:-?}" "${rate:-?}" "$ncrash" "$result"
done
exit $status
