#!/bin/bash
# NRF finite sources (io/nrf.c, docs/SOURCES.md "NRF"), written by tests/nrf-write:
#   1. LOH.1's point source (M_xy = 1e18 N m, the loh1 rate of T = 0.1 s) as one sub-fault (normal x,
#      slip y, area mu = 1e18, its slip rate sampled every 2 ms) gives the same dofs hash as the native
#      moment tensor with the same samples as a table; with mu = 0 (the material's mu; a file without the
#      mu field, fields declared in another order) the traces agree to 1e-12; the sampled rate against the
#      native closed-form loh1 rate differs by the sampling error only (bound below).
#   2. Three sub-faults (shear along tan1 and tan2, an opening along the normal with lambda and mu of the
#      material) give the hash of the three equivalent native moment tensors.
#   3. Restart from a checkpoint, 2 MPI ranks, and LTS (two clusters, a sub-fault in each): the same hash as the one-rank,
#      uninterrupted run (and as the native sources under LTS).
#   4. SeisSol's WP2_LOH1 set-up (`starquake parameters.par`, Type = 42) with the source.nrf that rconv
#      writes for its generate_LOH_source.py, on a coarse gmsh mesh: it runs and its receivers agree with
#      the example's type-50 twin (parameters_source_type_50.par) to 1e-9 (skipped without gmsh).
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir T
NRFW=${SQ%/*}/tests/nrf-write
[ -x "$NRFW" ] || { echo "tests/nrf-write is not built (make check builds it)"; exit 1; }
if ! $PY -c 'import numpy' 2> /dev/null; then
  echo "SKIP: $PY lacks numpy"
  exit 77
fi

# the LOH.1 rate t/T^2 exp(-t/T), T = 0.1, sampled every DT up to 1 s: "rate" values on one line
loh1_samples() { awk -v dt="$1" 'BEGIN { for (k = 0; k * dt < 1.0; ++k) { t = k * dt; printf " %.17g", t / 0.01 * exp(-t / 0.1) } }'; }
loh1_table() { awk -v dt="$1" 'BEGIN { for (k = 0; k * dt < 1.0; ++k) { t = k * dt; printf "%.17g %.17g\n", t, t / 0.01 * exp(-t / 0.1) } }'; }
loh1_table 0.002 > "$T/stf.txt"
RATES=$(loh1_samples 0.002)

# box: LOH.1's half-space, free surface on top
box() { # NAME SOURCES-YAML [EXTRA-YAML]
  cat > "$T/$1.yaml" << EOF
mesh:
  type: box
  box:
    cells: [4, 4, 3]
    lo: [-3000.0, -3000.0, -4000.0]
    hi: [3000.0, 3000.0, 0.0]
    boundary: {xmin: absorbing, xmax: absorbing, ymin: absorbing, ymax: absorbing, zmin: absorbing, zmax: free_surface}
materials:
  default: {rho: 2700.0, vp: 6000.0, vs: 3464.0}
equations: {order: 2, end_time: 0.6}
sources:
$2
receivers: {points: [[1000.0, 1500.0, -10.0], [-2000.0, 500.0, -1500.0]], interval: 0.01}
output: {prefix: $1}
${3:-}
EOF
}
# traces A B TOL: the largest difference of the receiver files of runs A and B, relative to the largest value
traces() {
  "$PY" - "$T/$1/$1" "$T/$2/$2" "$3" << 'PY'
import sys
import numpy as np
a, b, tol = sys.argv[1], sys.argv[2], float(sys.argv[3])
worst = 0.0
for r in (1, 2):
    x = np.loadtxt("%s-receiver-%05d.dat" % (a, r), comments=("#", "TITLE", "VARIABLES"))
    y = np.loadtxt("%s-receiver-%05d.dat" % (b, r), comments=("#", "TITLE", "VARIABLES"))
    assert x.shape == y.shape and x.shape[0] > 10, (x.shape, y.shape)
    for c in range(1, 10):
        scale = np.abs(y[:, c]).max()
        if scale > 0:
            worst = max(worst, np.abs(x[:, c] - y[:, c]).max() / scale)
print("max difference %.2e of the largest value (bound %g)" % (worst, tol))
sys.exit(0 if worst <= tol else 1)
PY
}
same_hash() { # NAME A B
  local ha hb
  ha=$(hash_of "$T/$2" "$2") hb=$(hash_of "$T/$3" "$3")
  if [ -n "$ha" ] && [ "$ha" = "$hb" ]; then ok "$1: the same dofs hash $ha"; else bad "$1: hash ${ha:-none} vs ${hb:-none}"; fi
}

# ---- 1. LOH.1's point source as one sub-fault
MU=32398099200 # 2700 * 3464^2, exact
AREA=$(awk -v mu=$MU 'BEGIN { printf "%.17g", 1e18 / mu }')
cat > "$T/one.spec" << EOF
subfault 100 200 -2100  0 0.002 1e10 1e8  0 1 0  0 0 1  1 0 0
rates1 $RATES
EOF
cat > "$T/one_matmu.spec" << EOF
option no_mu
option reorder
subfault 100 200 -2100  0 0.002 0 $AREA  0 1 0  0 0 1  1 0 0
rates1 $RATES
EOF
"$NRFW" "$T/one.spec" "$T/one.nrf" && "$NRFW" "$T/one_matmu.spec" "$T/one_matmu.nrf" || bad "nrf-write"
box table "  - {type: moment_tensor, location: [100.0, 200.0, -2100.0], moment_tensor: {xy: 1e18}, time_function: {type: table, file: $T/stf.txt}}"
box loh1 "  - {type: moment_tensor, location: [100.0, 200.0, -2100.0], moment_tensor: {xy: 1e18}, time_function: {type: loh1, period: 0.1}}"
box one "  - {type: nrf, file: $T/one.nrf}"
box ck "  - {type: nrf, file: $T/one.nrf}" "checkpoint: {interval: 0.3}"
box one_matmu "  - {type: nrf, file: $T/one_matmu.nrf}"
for r in table loh1 one one_matmu ck; do run "$T/$r" "$T/$r.yaml"; done
same_hash "one sub-fault (area mu = 1e18) = native M_xy with the same samples" one table
check "mu = 0 (the material's), no mu field, fields in another order, vs native" traces one_matmu table 1e-12
# sampling: |linear interpolation - s| <= dt^2/8 max|s''| = 0.002^2/8 * 2/T^3 = 1e-3, 2.7e-4 of max s = 1/(e T)
check "sampled rate (dt = 2 ms) vs the closed-form loh1 rate" traces one loh1 1e-3

# ---- 2. three sub-faults against three native moment tensors
LAMBDA=32403801600 # 2700 * 6000^2 - 2 mu
R2=$(awk 'BEGIN { for (k = 0; k < 60; ++k) { t = k * 0.005; printf " %.17g", 2 * t * exp(-t / 0.05) } }')
awk 'BEGIN { for (k = 0; k < 60; ++k) { t = k * 0.005; printf "%.17g %.17g\n", t, 2 * t * exp(-t / 0.05) } }' > "$T/stf2.txt"
R3=$(awk 'BEGIN { for (k = 0; k < 40; ++k) { t = k * 0.01; printf " %.17g", (t < 0.2 ? t : 0.4 - t) } }')
awk 'BEGIN { for (k = 0; k < 40; ++k) { t = k * 0.01; printf "%.17g %.17g\n", t, (t < 0.2 ? t : 0.4 - t) } }' > "$T/stf3.txt"
cat > "$T/three.spec" << EOF
# A: slip along tan1 = x (M_xz) and tan2 = y (M_yz) on a horizontal patch; B: an opening along x
subfault -500 300 -1200  0.05 0.005 2e10 1e6  1 0 0  0 1 0  0 0 1
rates1 $R2
rates2 $R3
subfault 700 -400 -2500  0.1 0.01 0 1e6  0 1 0  0 0 1  1 0 0
rates3 $R3
EOF
# R3 has the sampling of B (0.01); A's tan2 series uses A's timestep (0.005): its native table is R3 at 0.005
awk 'BEGIN { for (k = 0; k < 40; ++k) { t = k * 0.01; printf "%.17g %.17g\n", k * 0.005, (t < 0.2 ? t : 0.4 - t) } }' > "$T/stf3a.txt"
"$NRFW" "$T/three.spec" "$T/three.nrf" || bad "nrf-write three"
box three "  - {type: nrf, file: $T/three.nrf}"
box three_native "  - {type: moment_tensor, location: [-500.0, 300.0, -1200.0], moment_tensor: {xz: 2e16}, onset: 0.05, time_function: {type: table, file: $T/stf2.txt}}
  - {type: moment_tensor, location: [-500.0, 300.0, -1200.0], moment_tensor: {yz: 2e16}, onset: 0.05, time_function: {type: table, file: $T/stf3a.txt}}
  - {type: moment_tensor, location: [700.0, -400.0, -2500.0], moment_tensor: {xx: $((LAMBDA + 2 * MU))e6, yy: ${LAMBDA}e6, zz: ${LAMBDA}e6}, onset: 0.1, time_function: {type: table, file: $T/stf3.txt}}"
run "$T/three" "$T/three.yaml" && run "$T/three_native" "$T/three_native.yaml" &&
  same_hash "three sub-faults (shear along tan1, tan2; an opening) = three native moment tensors" three three_native

# ---- 3. restart, MPI, LTS
cp "$T/ck/ck-summary.txt" "$T/ck-full-summary.txt"
if run "$T/ck" "$T/ck.yaml" --restart "$T/ck/ck-checkpoint.h5"; then
  h1=$(summary_value "$T/ck-full-summary.txt" dofs_hash) h2=$(hash_of "$T/ck" ck)
  [ -n "$h1" ] && [ "$h1" = "$h2" ] && ok "restart from the checkpoint at t = 0.3: the same hash" || bad "restart: $h1 vs $h2"
fi
allow_mpirun
if command -v mpirun > /dev/null; then
  mkdir -p "$T/three_np2"
  if mpirun -np 2 "$SQ" "$T/three.yaml" --quiet --output "$T/three_np2" > "$T/three_np2.log" 2>&1; then
    h=$(hash_of "$T/three_np2" three)
    [ "$h" = "$(hash_of "$T/three" three)" ] && ok "2 MPI ranks: the hash of one rank" || bad "2 ranks: hash ${h:-none}"
  else bad "mpirun -np 2: $(tail -2 "$T/three_np2.log")"; fi
else echo "note: mpirun not found: the MPI check is skipped"; fi
LTS="  lts: {rate: 2}"
for r in three three_native; do
  sed -e "s/^    cells: \[4, 4, 3\]$/    cells: [4, 4, 3]\n    refine: [{lo: [-3000.0, -3000.0, -1500.0], hi: [3000.0, 3000.0, 0.0], factor: 4}]/" \
    -e "s/^equations: {order: 2, end_time: 0.6}$/equations:\n  order: 2\n  end_time: 0.3\n$LTS/" -e "s/prefix: $r/prefix: lts_$r/" \
    "$T/$r.yaml" > "$T/lts_$r.yaml"
  run "$T/lts_$r" "$T/lts_$r.yaml"
done
"$SQ" "$T/lts_three.yaml" --dry-run 2>&1 | grep -q "clusters   2 (rate 2)" || bad "the LTS box has not 2 clusters"
same_hash "LTS: sub-faults = native moment tensors" lts_three lts_three_native

# ---- 4. SeisSol's WP2_LOH1 example with its NRF source
if command -v gmsh > /dev/null; then
  D=$T/wp2
  cp -r "$SRC/tests/seissol_examples/WP2_LOH1" "$D" && chmod -R u+w "$D"
  sed -e 's/^cl_1 = 5000;/cl_1 = 10000;/' -e 's/VIn = 200;/VIn = 5000;/' -e 's/VOut = 3000;/VOut = 10000;/' \
    -e 's|^Field\[3\].F = .*|Field[3].F = "5000";|' "$D/loh.geo" > "$D/coarse.geo"
  (cd "$D" && gmsh -3 -nt 1 -v 1 coarse.geo -o coarse.msh -format msh22 > gmsh.log 2>&1) || bad "gmsh: $(tail -2 "$D/gmsh.log")"
  # generate_LOH_source.py's SRF point (strike 0, dip 90, rake 0, depth 2 km, M0 / mu of area, 1 m of slip
  # at the LOH.1 rate, dt 0.2 ms) as rconv writes it in the north-east-down frame: tan1 = (1, 0, 0),
  # tan2 = (0, 0, -1), normal = (0, 1, 0), mu 0 (an SRF 1.0 point has none)
  { echo "subfault 0 0 2000  0 0.0002 0 $AREA  1 0 0  0 0 -1  0 1 0"
    echo "rates1 $(awk 'BEGIN { for (k = 0; k < 20000; ++k) { t = k * 0.0002; printf " %.17g", 1 / 0.1 ^ 2 * t * exp(-t / 0.1) } }')"; } > "$D/source.spec"
  "$NRFW" "$D/source.spec" "$D/source.nrf" || bad "nrf-write source.nrf"
  (cd "$D" && "$PY" generate_LOH_source_type50.py > /dev/null) || bad "the example's type-50 source file"
  set_args=(--set mesh.type=gmsh --set mesh.file=coarse.msh --set equations.end_time=0.3 --set equations.order=2
    --set receivers.interval=0.01)
  for p in parameters parameters_source_type_50; do
    (cd "$D" && "$SQ" $p.par --quiet "${set_args[@]}" --set output.prefix=$p --output "$T/$p" > "$T/$p.log" 2>&1) ||
      { bad "starquake $p.par: $(grep -m2 error "$T/$p.log")"; tail -5 "$T/$p.log"; }
  done
  [ -s "$T/parameters/parameters-receiver-00001-00000.dat" ] && ok "starquake WP2_LOH1/parameters.par (Type = 42) ran"
  if "$PY" - "$T/parameters/parameters" "$T/parameters_source_type_50/parameters_source_type_50" << 'PY'
import sys
import numpy as np
worst, peak = 0.0, 0.0
for r in range(1, 21):
    x = np.loadtxt("%s-receiver-%05d-00000.dat" % (sys.argv[1], r), comments=("#", "TITLE", "VARIABLES"))
    y = np.loadtxt("%s-receiver-%05d-00000.dat" % (sys.argv[2], r), comments=("#", "TITLE", "VARIABLES"))
    peak = max(peak, np.abs(y[:, 7:10]).max())
    worst = max(worst, np.abs(x[:, 1:] - y[:, 1:]).max() / max(np.abs(y[:, 1:]).max(), 1e-300))
print("WP2_LOH1: NRF vs type 50: max difference %.2e of the largest value (peak velocity %.3g m/s)" % (worst, peak))
sys.exit(0 if worst <= 1e-9 and peak > 0 else 1)
PY
  then ok "WP2_LOH1: the NRF run's receivers = the type-50 twin's"; else bad "WP2_LOH1: NRF vs type 50"; fi
else echo "note: gmsh not found: the WP2_LOH1 run is skipped"; fi
report nrf
