#!/bin/bash
# Off-fault plasticity through the binary, on tests/configs/plasticity_wave.yaml (a strong Gaussian
# packet in a periodic box with a depth-dependent initial stress; two LTS clusters):
#  1. GTS: the serial reference (--serial) equals the StarPU runs bit for bit (dofs and plastic strain),
#     for several tile sizes and worker counts, and some but not all cells yield;
#  2. LTS: runs are bitwise reproducible over tile sizes, workers and merged predictor tasks;
#  3. the plastic strain is non-zero exactly where yielding occurred (eta > 0), read from the XDMF/HDF5
#     snapshot, and the yielding cells are those the summary counts;
#  4. plasticity with a huge cohesion equals the elastic run bit for bit (serial GTS and StarPU LTS):
#     elements that do not yield are never touched;
#  5. mpirun -np 2 equals one rank bit for bit (dofs, plastic strain, snapshot with the plastic fields);
#  6. bad plasticity inputs give one clear error naming the file and line.
set -u
. "${srcdir:-.}/tests/lib.sh"
CFG=$CONFIGS/plasticity_wave.yaml
tempdir OUT
allow_mpirun
val() { summary_value "$1/pw-summary.txt" "$2"; } # DIR KEY
hashes() { echo "$(val "$1" dofs_hash)/$(val "$1" plastic_strain_hash)"; }

# ---- 1. GTS: serial reference = StarPU ----------------------------------------------------------------
sed 's/lts: {rate: 2}/lts: {rate: 1}/' "$CFG" > "$OUT/gts.yaml"
run "$OUT/serial" "$OUT/gts.yaml" --serial
ref=$(hashes "$OUT/serial")
cells=$(val "$OUT/serial" cells)
yielded=$(val "$OUT/serial" plastic_yielded_cells)
[ -n "$yielded" ] && [ "$yielded" -gt 0 ] && [ "$yielded" -lt "$cells" ] &&
  ok "GTS serial reference: $yielded of $cells cells yielded" || bad "GTS serial: yielded '$yielded' of '$cells' cells"
for combo in "1 48" "2 48" "2 7" "1 1000"; do
  set -- $combo
  STARPU_NCPU=$1 run "$OUT/gts-$1-$2" "$OUT/gts.yaml" --tile-size "$2" || continue
  h=$(hashes "$OUT/gts-$1-$2")
  [ "$h" = "$ref" ] && ok "GTS StarPU ($1 workers, tile $2) = serial: $h" || bad "GTS StarPU ($1 workers, tile $2): $h != serial $ref"
done

# ---- 2. LTS: reproducible over tiles, workers, merged tasks -------------------------------------------
run "$OUT/lts" "$CFG"
lref=$(hashes "$OUT/lts")
[ "$(val "$OUT/lts" clusters)" = 2 ] && [ "$(val "$OUT/lts" plastic_yielded_cells)" -gt 0 ] &&
  ok "LTS run: 2 clusters, $(val "$OUT/lts" plastic_yielded_cells) cells yielded, $lref" ||
  bad "LTS run: clusters $(val "$OUT/lts" clusters), yielded $(val "$OUT/lts" plastic_yielded_cells)"
[ "$lref" != "$ref" ] || bad "LTS and GTS give the same bits (LTS not exercised?)"
sed 's/  tile_size: 48/  tile_size: 48\n  merge_neighbor_clusters: true/' "$CFG" > "$OUT/merged.yaml"
for combo in "1 13 $CFG" "2 1000 $CFG" "2 48 $OUT/merged.yaml"; do
  set -- $combo
  STARPU_NCPU=$1 run "$OUT/lts-$1-$2" "$3" --tile-size "$2" || continue
  h=$(hashes "$OUT/lts-$1-$2")
  [ "$h" = "$lref" ] && ok "LTS ($1 workers, tile $2, $(basename "$3")) reproduces $h" || bad "LTS ($1 workers, tile $2, $(basename "$3")): $h != $lref"
done

# ---- 3. plastic strain exactly where yielding occurred ------------------------------------------------
if $PY -c 'import h5py' 2> /dev/null; then
  if $PY - "$OUT/lts/pw-wavefield.h5" "$(val "$OUT/lts" plastic_yielded_cells)" > "$OUT/h5.txt" 2>&1 << 'EOF'; then
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
last = sorted(k for k in f if k.startswith("step_"))[-1]
g = f[last]
eta = g["eta"][()]
ep = np.stack([g[n][()] for n in ("ep_xx", "ep_yy", "ep_zz", "ep_xy", "ep_yz", "ep_xz")])
quiet = eta == 0
assert (eta >= 0).all(), "negative eta"
assert (ep[:, quiet] == 0).all(), "plastic strain in cells with eta = 0"
assert (np.abs(ep[:, ~quiet]).max(axis=0) > 0).all(), "eta > 0 without plastic strain"
assert int((~quiet).sum()) == int(sys.argv[2]), "%d cells with eta > 0, summary says %s" % ((~quiet).sum(), sys.argv[2])
assert abs(ep[0] + ep[1] + ep[2]).max() <= 1e-12 * max(1e-300, abs(ep).max()) * 100, "volumetric plastic strain"
print("%s: %d of %d cells with plastic strain, max eta %.3g, trace-free" % (last, (~quiet).sum(), eta.size, eta.max()))
EOF
    ok "snapshot: $(cat "$OUT/h5.txt")"
  else
    bad "snapshot check: $(tail -3 "$OUT/h5.txt")"
  fi
else
  echo "skip snapshot check (python3-h5py missing)"
fi

# ---- 4. huge cohesion = elastic, bit for bit ----------------------------------------------------------
strip_plasticity() { # the elastic twin: no plasticity section, no plastic output fields
  sed -e '/^plasticity:/,/^  initial_stress:/d' -e 's/, ep_xx, ep_yy, ep_zz, ep_xy, ep_yz, ep_xz, eta//' "$1"
}
strip_plasticity "$OUT/gts.yaml" > "$OUT/gts-elastic.yaml"
strip_plasticity "$CFG" > "$OUT/lts-elastic.yaml"
sed 's/  cohesion: .*/  cohesion: 1e30/' "$OUT/gts.yaml" > "$OUT/gts-strong.yaml"
sed 's/  cohesion: .*/  cohesion: 1e30/' "$CFG" > "$OUT/lts-strong.yaml"
grep -q "^plasticity:" "$OUT/lts-elastic.yaml" && bad "the elastic twin still has plasticity"
run "$OUT/gts-elastic" "$OUT/gts-elastic.yaml" --serial
run "$OUT/gts-strong" "$OUT/gts-strong.yaml" --serial
run "$OUT/lts-elastic" "$OUT/lts-elastic.yaml"
run "$OUT/lts-strong" "$OUT/lts-strong.yaml"
for m in gts lts; do
  e=$(val "$OUT/$m-elastic" dofs_hash) s=$(val "$OUT/$m-strong" dofs_hash) y=$(val "$OUT/$m-strong" plastic_yielded_cells)
  [ -n "$e" ] && [ "$e" = "$s" ] && [ "$y" = 0 ] && ok "$m: cohesion 1e30 = elastic bit for bit ($e), no cell yielded" ||
    bad "$m: cohesion 1e30 gives $s ($y cells yielded), elastic $e"
done
[ "$(val "$OUT/lts-elastic" dofs_hash)" != "$(val "$OUT/lts" dofs_hash)" ] && ok "plasticity changes the wavefield" ||
  bad "plasticity does not change the wavefield"

# ---- 5. MPI: two ranks = one rank ---------------------------------------------------------------------
MPIRUN=${MPIRUN:-mpirun}
if command -v "$MPIRUN" > /dev/null; then
  timeout 300 "$MPIRUN" -np 2 --oversubscribe "$SQ" "$CFG" --quiet --output "$OUT/np2" > "$OUT/np2.log" 2>&1
  rc=$?
  h=$(hashes "$OUT/np2")
  [ $rc -eq 0 ] && [ "$h" = "$lref" ] && ok "mpirun -np 2 = one rank: $h" || { bad "mpirun -np 2: rc=$rc $h != $lref"; tail -3 "$OUT/np2.log"; }
  if $PY -c 'import h5py' 2> /dev/null && [ -s "$OUT/np2/pw-wavefield.h5" ]; then # rank 0 gathers the plastic fields too
    $PY "$H5CMP" "$OUT/lts/pw-wavefield.h5" "$OUT/np2/pw-wavefield.h5" > "$OUT/np2.cmp" 2>&1 &&
      ok "mpirun -np 2 snapshot (ep_*, eta) = one rank: $(cat "$OUT/np2.cmp")" || bad "mpirun -np 2 snapshot: $(cat "$OUT/np2.cmp")"
  fi
else
  echo "skip MPI (mpirun not found)"
fi

# ---- 6. bad inputs ------------------------------------------------------------------------------------
expect_error() { # NAME CONFIG PATTERN...: one error line matching every pattern, no summary
  local name=$1 cfg=$2
  shift 2
  "$SQ" "$cfg" --quiet --output "$OUT/bad-$name" > /dev/null 2> "$OUT/bad-$name.err"
  local rc=$? msg
  msg=$(grep -m1 '^starquake: error:' "$OUT/bad-$name.err")
  if [ $rc -eq 0 ] || [ $rc -ge 128 ] || [ -z "$msg" ]; then bad "$name: rc=$rc, $(head -2 "$OUT/bad-$name.err")"; return; fi
  for pat in "$@"; do echo "$msg" | grep -Eq -- "$pat" || { bad "$name: '$msg' lacks /$pat/"; return; }; done
  ok "$name: $msg"
}
line_of() { grep -n "^  $1:" "$CFG" | cut -d: -f1; }
sed 's/  cohesion: .*/  cohesion: -1e6/' "$CFG" > "$OUT/neg.yaml"
expect_error negative-cohesion "$OUT/neg.yaml" "neg.yaml:$(line_of cohesion): key 'plasticity.cohesion'" ">= 0"
sed 's/  tv: .*/  tv: -0.03/' "$CFG" > "$OUT/tv.yaml"
expect_error negative-tv "$OUT/tv.yaml" "tv.yaml:$(line_of tv): key 'plasticity.tv'" ">= 0"
sed 's/  cohesion: .*/  cohesion: 0.1 - y/' "$CFG" > "$OUT/expr.yaml"
expect_error negative-cohesion-somewhere "$OUT/expr.yaml" "expr.yaml:$(line_of cohesion): plasticity.cohesion = -" "mesh cell [0-9]+" "at \("
sed 's/  bulk_friction: .*/  bulk_friction: sqrt(y - 2)/' "$CFG" > "$OUT/nan.yaml"
expect_error nan-friction "$OUT/nan.yaml" "nan.yaml:$(line_of bulk_friction): plasticity.bulk_friction is -?nan"
sed '/^  tv: /d' "$CFG" > "$OUT/notv.yaml"
expect_error missing-tv "$OUT/notv.yaml" "plasticity.tv" "required key is missing"
sed 's/  tv: .*/  tv: 0.02 * t/' "$CFG" > "$OUT/tvt.yaml"
expect_error time-dependent "$OUT/tvt.yaml" "key 'plasticity.tv'" "depends on t"
sed -e '/^plasticity:/,/^  initial_stress:/d' "$CFG" > "$OUT/eponly.yaml"
expect_error ep-without-plasticity "$OUT/eponly.yaml" "key 'output.fields'" "plasticity"

report "plasticity runs"
