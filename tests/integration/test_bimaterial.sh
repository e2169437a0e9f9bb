#!/bin/bash
# Bimaterial faults (docs/RUPTURE.md, *Bimaterial faults*): TPV6 (configs/tpv6) on its CI-sized mesh made by
# the real gmsh (fault elements of 3 km, order 3, 2 s), linear slip weakening with the Prakash-Clifton
# regularised normal stress:
# - it ruptures, and the normal stress on the fault changes with slip (the bimaterial coupling): at the 9 stations
#   by more than twice as much as between identical materials (where it changes by discretisation errors only);
# - between identical materials the regularisation changes nothing: every output equals the plain law's, bitwise;
# - restart: the regularised normal stress is state; a run restarted from its checkpoint at t = 1 equals the
#   uninterrupted run bitwise; mpirun -np 3 equals one rank;
# - bad values are named with the file and line; SeisSol's FL = 6 imports with its two parameters.
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir OUT
allow_mpirun
need_gmsh
fault_mesh "$SRC/configs/tpv6/tpv6.geo" "$OUT/tpv6.msh"
sed -e 's/end_time: [0-9.]*/end_time: 2.0/' -e 's/order: 4/order: 3/' "$SRC/configs/tpv6/tpv6.yaml" > "$OUT/tpv6.yaml"
cfg=$OUT/tpv6.yaml

# --- TPV6 ruptures
"$SQ" "$cfg" --quiet --output "$OUT/bi" > "$OUT/bi.log" 2>&1 || { bad "TPV6 run"; tail -5 "$OUT/bi.log"; }
awk '!/^#/ && NF == 8 && $1 != "t" { if ($3 > 0.1) s = 1; n++ } END { exit !(n > 20 && s) }' "$OUT/bi/tpv6-faultst000dp075" &&
  ok "TPV6: the hypocentre slips" || bad "TPV6: the hypocentre does not slip"

# --- identical materials: the regularisation changes nothing, bitwise
sed -e 's/"if(y > 0, 2225, 2670)"/2670/' -e 's/"if(y > 0, 10430911250, 32043759360)"/32043759360/' \
  -e 's/"if(y > 0, 10429075625, 32038120320)"/32038120320/' "$cfg" > "$OUT/homo_pc.yaml"
grep -v 'pc_v_star\|pc_length' "$OUT/homo_pc.yaml" > "$OUT/homo.yaml"
"$SQ" "$OUT/homo_pc.yaml" --quiet --output "$OUT/hpc" > /dev/null 2>&1
"$SQ" "$OUT/homo.yaml" --quiet --output "$OUT/h" > /dev/null 2>&1
# the largest change of the normal stress at the stations (MPa)
dsn_max() { cat "$1"/tpv6-faultst* | awk '/^# /{k = 0} !/^#/ && NF == 8 && $1 != "t" { k++; if (k == 1) p0 = $8; d = $8 - p0
  if (d < 0) d = -d; if (d > m) m = d } END { printf "%.3f", m }'; }
db=$(dsn_max "$OUT/bi") dh=$(dsn_max "$OUT/h")
awk -v b="$db" -v h="$dh" 'BEGIN { exit !(b > 2 * h && b > 0.5) }' &&
  ok "the normal stress at the stations moves by up to $db MPa on the bimaterial fault, $dh MPa between identical materials" ||
  bad "normal stress changes: bimaterial $db MPa, identical materials $dh MPa"
h=$(hash_of "$OUT/h" tpv6)
[ -n "$h" ] && [ "$h" != "$(hash_of "$OUT/bi" tpv6)" ] && same_outputs "$OUT/h" "$OUT/hpc" '*-checkpoint*' &&
  ok "identical materials: with the regularisation every output equals the plain law's" ||
  bad "identical materials: the regularised run differs from the plain law"

# --- restart: sigma* is checkpointed (checkpoint at t = 1 of 2)
printf 'checkpoint:\n  interval: 1.0\n' | cat "$cfg" - > "$OUT/ck.yaml"
"$SQ" "$OUT/ck.yaml" --quiet --output "$OUT/A" > /dev/null 2>&1 && cp -r "$OUT/A" "$OUT/B" &&
  "$SQ" "$OUT/ck.yaml" --quiet --output "$OUT/B" --restart "$OUT/B/tpv6-checkpoint.h5" > "$OUT/B.log" 2>&1
same_outputs "$OUT/A" "$OUT/B" '*-checkpoint*' && [ "$(hash_of "$OUT/A" tpv6)" = "$(hash_of "$OUT/bi" tpv6)" ] &&
  ok "restart of a bimaterial fault: every file equals the uninterrupted run's" || { bad "bimaterial restart"; tail -3 "$OUT/B.log"; }
layout=$($PY -c 'import sys, h5py; f = h5py.File(sys.argv[1], "r"); print(f["state"].shape[1], f["sigma_pc"].shape == f["state"].shape[:1], "tp" in f)' \
  "$OUT/A/tpv6-checkpoint.h5.fault" 2>&1)
[ "$layout" = "13 True False" ] && ok "fault checkpoint with the regularisation: state 13 values and sigma_pc per point" ||
  bad "regularised fault checkpoint layout: $layout"

# --- MPI: 3 ranks (faces across ranks) equal one rank
timeout 300 mpirun -np 3 --oversubscribe "$SQ" "$cfg" --quiet --partition bwm --output "$OUT/np3" > "$OUT/np.log" 2>&1
[ "$(hash_of "$OUT/np3" tpv6)" = "$(hash_of "$OUT/bi" tpv6)" ] && cmp -s "$OUT/np3/tpv6-cplot" "$OUT/bi/tpv6-cplot" &&
  ok "bimaterial fault, mpirun -np 3 = one rank (dofs, cplot)" || { bad "bimaterial fault, mpirun -np 3"; tail -3 "$OUT/np.log"; }

# --- bad values, named with the file and line
expect_error() { # CONFIG PATTERN
  "$SQ" "$1" --dry-run --output "$OUT/err" > "$OUT/err.log" 2>&1
  if [ $? -ne 0 ] && grep -q -- "$2" "$OUT/err.log"; then ok "error: $(grep -m1 -- "$2" "$OUT/err.log" | cut -c1-150)"
  else bad "expected '$2': $(head -3 "$OUT/err.log")"; fi
}
sed 's/  pc_length: 0.01 .*/  pc_length: -0.01/' "$cfg" > "$OUT/bad1.yaml"
expect_error "$OUT/bad1.yaml" "bad1.yaml:28: key .fault.pc_length.: out of range: must be > 0"
grep -v 'pc_length' "$cfg" > "$OUT/bad2.yaml"
expect_error "$OUT/bad2.yaml" "bad2.yaml:27: key .fault.pc_v_star.: the Prakash-Clifton regularisation of the normal stress needs both pc_v_star (m/s) and pc_length (m); pc_length is missing"
sed 's/  pc_v_star: 1 .*/  pc_v_star: 0/' "$cfg" > "$OUT/bad3.yaml"
expect_error "$OUT/bad3.yaml" "bad3.yaml:27: key .fault.pc_v_star.: out of range: must be > 0"
# --- SeisSol's FL = 6 imports as linear slip weakening with the two keys; a missing one is named
EX=$SRC/tests/seissol_examples/tpv6_7
"$SQ" seissol-import "$EX/parameters.par" -o "$OUT/imp.yaml" > /dev/null 2>&1
grep -q '^  friction_law: linear_slip_weakening # FL = 6' "$OUT/imp.yaml" && grep -q '^  pc_v_star: 1 # pc_vStar' "$OUT/imp.yaml" &&
  grep -q '^  pc_length: 0.01 # pc_prakashLength' "$OUT/imp.yaml" && ok "seissol-import: FL = 6 with pc_vStar, pc_prakashLength" ||
  bad "seissol-import of FL = 6: $(grep -A3 friction_law "$OUT/imp.yaml" | head -4)"
mkdir -p "$OUT/ex" && cp "$EX"/* "$OUT/ex/" && chmod u+w "$OUT/ex"/* && sed -i '/pc_prakashLength/d' "$OUT/ex/parameters.par"
"$SQ" seissol-import "$OUT/ex/parameters.par" -o "$OUT/imp2.yaml" > "$OUT/imp2.log" 2>&1
[ $? -ne 0 ] && grep -q "parameters.par:[0-9]*: key 'pc_prakashLength' of '&DynamicRupture' is missing" "$OUT/imp2.log" &&
  ok "seissol-import: FL = 6 without pc_prakashLength is refused, naming it" || bad "FL = 6 without pc_prakashLength: $(cat "$OUT/imp2.log")"
report bimaterial
