#!/bin/bash
# Thermal pressurization end to end on a CI-sized TPV105 (configs/tpv105, order 2, 1.5 s):
# - the rupture heats and pressurizes the hypocentre: its fault receiver's Tmp and P_f rise (native and
#   SeisSol-style columns), the fault snapshots hold temperature and pore_pressure;
# - a restart from a checkpoint at 0.75 s continues the TP state bitwise; mpirun -np 2 gives the one-rank dofs,
#   and its checkpoint continued on one rank too; the fault checkpoint holds the TP state apart (dataset tp);
# - bad thermal-pressurization inputs fail naming the file, line and key;
# - SeisSol's tpv105 example imports with thermalPress = 1.
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir OUT
allow_mpirun
command -v gmsh > /dev/null || { echo "gmsh not found: install gmsh (./quickstart does)"; exit 1; }
gmsh -3 -setnumber h_fault 3000 -setnumber h_far 15000 -setnumber Lh 30000 -setnumber Lz 30000 -format msh22 \
  -o "$OUT/tpv105.msh" "$SRC/configs/tpv105/tpv105.geo" > "$OUT/gmsh.log" 2>&1 || { cat "$OUT/gmsh.log"; exit 1; }
sed -e 's/end_time: [0-9.]*/end_time: 1.5/' -e 's/order: 4/order: 2/' -e "s#file: tpv105.msh#file: $OUT/tpv105.msh#" \
  -e 's/^  stations:$/  stations:\n    - [-4000, 0, -7500]/' "$SRC/configs/tpv105/tpv105.yaml" > "$OUT/tp.yaml"
printf 'checkpoint:\n  interval: 0.75\n' | cat "$OUT/tp.yaml" - > "$OUT/ck.yaml"

# --- the run: the hypocentre station heats and pressurizes
"$SQ" "$OUT/ck.yaml" --quiet --output "$OUT/A" > "$OUT/A.log" 2>&1 || { bad "TPV105 run"; tail -5 "$OUT/A.log"; }
st=$OUT/A/tpv105-faultreceiver-00001.dat
grep -q '"RT" "P_f" "Tmp"' "$st" && ok "fault receiver names P_f and Tmp" || bad "fault receiver header: $(sed -n 2p "$st")"
awk '!/^[A-Z#]/ { n++; if (n == 1) { t0 = $15; p0 = $14 } t = $15; p = $14 }
     END { exit !(t0 == 483.15 && p0 == 0 && t > t0 + 50 && p > 1e6) }' "$st" &&
  ok "hypocentre: Tmp from 483.15 K up by $(awk '!/^[A-Z#]/ {t=$15} END {print t - 483.15}' "$st") K, P_f up to $(awk '!/^[A-Z#]/ {p=$14} END {print p}' "$st") Pa" ||
  bad "hypocentre Tmp / P_f: $(tail -1 "$st")"
grep -q 'Name="temperature"' "$OUT/A/tpv105-fault.xdmf" && grep -q 'Name="pore_pressure"' "$OUT/A/tpv105-fault.xdmf" &&
  ok "fault snapshots hold temperature and pore_pressure" || bad "fault snapshot fields"
ref=$(hash_of "$OUT/A" tpv105)

# --- restart from the checkpoint at 0.75 s: the TP state continues bitwise
cp -r "$OUT/A" "$OUT/B"
"$SQ" "$OUT/ck.yaml" --quiet --output "$OUT/B" --restart "$OUT/B/tpv105-checkpoint.h5" > "$OUT/B.log" 2>&1
if [ "$(hash_of "$OUT/B" tpv105)" = "$ref" ] && cmp -s "$st" "$OUT/B/tpv105-faultreceiver-00001.dat"; then
  ok "restart: dofs and the hypocentre's Tmp / P_f equal the uninterrupted run's"
else bad "restart with thermal pressurization"; tail -3 "$OUT/B.log"; fi
# its fault checkpoint: the 13 state values of every run, and the TP state (T, p, 60 + 60 coefficients) apart
layout=$($PY -c 'import sys, h5py; f = h5py.File(sys.argv[1], "r"); print(f["state"].shape[1], f["tp"].shape[1], f["state"].shape[0] == f["tp"].shape[0], "sigma_pc" in f)' \
  "$OUT/A/tpv105-checkpoint.h5.fault" 2>&1)
[ "$layout" = "13 122 True False" ] && ok "fault checkpoint with thermal pressurization: state 13 and tp 122 values per point" ||
  bad "TP fault checkpoint layout: $layout"

# --- SeisSol-style outputs: P_f and Tmp (OutputMask group 12, on by default with thermal pressurization)
"$SQ" "$OUT/tp.yaml" --quiet --output "$OUT/S" --set output.style=seissol --set equations.end_time=1.0 > "$OUT/S.log" 2>&1
ss=$(ls "$OUT"/S/tpv105-faultreceiver-00001-*.dat 2> /dev/null | head -1)
if [ -n "$ss" ] && grep -q '"P_f" ,"Tmp"' "$ss" &&
  awk -F'\t' '!/^[A-Z#]/ { t = $(NF - 1) } END { exit !(t > 483.15 + 10) }' "$ss"; then
  ok "SeisSol fault receiver: P_f and Tmp columns, Tmp rises to $(awk -F'\t' '!/^[A-Z#]/ { t = $(NF - 1) } END { print t }' "$ss") K"
else bad "SeisSol-style P_f / Tmp: $(sed -n 2p "${ss:-/dev/null}") $(tail -2 "$OUT/S.log")"; fi

# --- two processes
timeout 300 mpirun -np 2 --oversubscribe "$SQ" "$OUT/ck.yaml" --quiet --partition bwm --output "$OUT/M" > "$OUT/M.log" 2>&1
[ "$(hash_of "$OUT/M" tpv105)" = "$ref" ] && ok "mpirun -np 2 equals one process" || { bad "mpirun -np 2: $(hash_of "$OUT/M" tpv105) vs $ref"; tail -3 "$OUT/M.log"; }
# its checkpoint at 0.75 s (the TP state written by two ranks) continued on one rank
"$SQ" "$OUT/ck.yaml" --quiet --output "$OUT/M" --restart "$OUT/M/tpv105-checkpoint.h5" > "$OUT/M1.log" 2>&1
[ "$(hash_of "$OUT/M" tpv105)" = "$ref" ] && cmp -s "$st" "$OUT/M/tpv105-faultreceiver-00001.dat" &&
  ok "checkpoint of 2 ranks continued on 1: dofs and the hypocentre's Tmp / P_f as uninterrupted" ||
  { bad "MPI checkpoint with thermal pressurization continued on one rank"; tail -3 "$OUT/M1.log"; }

# --- bad inputs name the file, line and key
expect_error() { # NAME SED-EXPRESSION PATTERN
  sed -e "$2" "$OUT/tp.yaml" > "$OUT/bad.yaml"
  if "$SQ" "$OUT/bad.yaml" --quiet --output "$OUT/bad" > "$OUT/bad.log" 2>&1; then bad "$1: the run did not fail"
  elif grep -q -- "$3" "$OUT/bad.log"; then ok "$1: $(grep -m1 error "$OUT/bad.log" | cut -c1-150)"
  else bad "$1: $(tail -2 "$OUT/bad.log")"; fi
}
ln=$(grep -n 'tp_half_width' "$OUT/tp.yaml" | cut -d: -f1)
expect_error "negative half-width" 's/tp_half_width: 0.02/tp_half_width: -0.02/' "bad.yaml:$ln.*tp_half_width = -0.02 must be > 0"
ln=$(grep -n 'tp_hydraulic_diffusivity' "$OUT/tp.yaml" | cut -d: -f1)
expect_error "hydraulic diffusivity negative somewhere" 's/tp_hydraulic_diffusivity: "0.0004 + /tp_hydraulic_diffusivity: "-0.0004 + /' \
  "bad.yaml:$ln.*tp_hydraulic_diffusivity = -0.000[0-9]* must be finite and > 0"
expect_error "TP keys without thermal_pressurization" 's/thermal_pressurization: true/thermal_pressurization: false/' \
  "tp_thermal_diffusivity.*is used only with thermal_pressurization: true"
expect_error "a missing TP value" '/tp_heat_capacity/d' "tp_heat_capacity"

# --- SeisSol's TPV105 set-up imports
ex=/work/shared/seissol-examples/tpv105
for d in "$SRC/../shared/seissol-examples/tpv105" "$ex"; do [ -f "$d/parameters.par" ] && ex=$d; done
if [ -f "$ex/parameters.par" ]; then
  "$SQ" seissol-import "$ex/parameters.par" -o "$OUT/imp.yaml" > "$OUT/imp.log" 2>&1 &&
    grep -q 'thermal_pressurization: true' "$OUT/imp.yaml" && grep -q 'tp_lambda: 100000' "$OUT/imp.yaml" &&
    ok "SeisSol tpv105 imports: thermal_pressurization and its tp_ values" || bad "tpv105 import: $(tail -2 "$OUT/imp.log")"
else echo "skip SeisSol's tpv105 example not found"; fi
report thermal_pressurization
