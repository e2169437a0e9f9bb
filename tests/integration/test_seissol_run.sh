#!/bin/bash
# `starquake parameters.par` runs SeisSol's TPV5 set-up (docs/SEISSOL.md) as it is: its namelist, its easi
# material and fault models (a !LuaMap among them), its receiver lists, on its own .geo meshed coarsely
# with gmsh, for one short sync interval.  The fault receivers are SeisSol's files (output.style: seissol)
# and hold the set-up's values with SeisSol's signs: at the nucleation patch Ts0 = +81.6 MPa (SeisSol's
# strike points along -x for the fault normal (0, -1, 0) of this set-up, and s_xy = 81.6 MPa),
# Pn0 = -120 MPa, mu_s = 0.677; outside it Ts0 = +70 MPa; with an added s_yz, Td0 = +s_yz; T_s, a change,
# starts at 0; and the slip rate along strike is positive.  Skipped (77) without gmsh or without the easi keys.
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir T
command -v gmsh > /dev/null || { echo "gmsh not found: skipped"; exit 77; }
"$SQ" config-reference 2> /dev/null | grep -q 'materials.easi' || { echo "no materials.easi in this build: skipped"; exit 77; }

cp -r "$SRC/tests/seissol_examples/tpv5" "$T/tpv5"
chmod -R u+w "$T/tpv5"
# a dip traction, to see the sign of the dip: s_yz = 10 MPa gives SeisSol's T_d = +10 MPa (n = (0, -1, 0),
# strike (-1, 0, 0), dip n x strike = (0, 0, -1): T_d = (sigma n) . dip = s_yz); the fault "+" taken literally
# on SeisSol's "+" side would give -10 MPa
sed -i 's/^    s_yz: 0$/    s_yz: 10e6/' "$T/tpv5/fault.yaml"
grep -q '^    s_yz: 10e6$' "$T/tpv5/fault.yaml" || bad "fault.yaml: s_yz not set"
# the set-up's mesh at 3 km on the fault instead of 200 m (about 30,000 cells)
sed -e 's/^lc = 5e3;/lc = 25e3;/' -e 's/^lc_fault = 200;/lc_fault = 3000;/' -e 's/^lc_nucl = 200;/lc_nucl = 3000;/' \
  "$T/tpv5/tpv5_f200m.geo" > "$T/tpv5/coarse.geo"
(cd "$T/tpv5" && gmsh -3 -nt 1 -v 1 coarse.geo -o coarse.msh -format msh22 > gmsh.log 2>&1) \
  || { bad "gmsh: $(tail -2 "$T/tpv5/gmsh.log")"; report seissol_run; exit; }
# one fault station per face on this coarse mesh: the nucleation patch and the background
if (cd "$T" && "$SQ" tpv5/parameters.par --quiet --set mesh.type=gmsh --set mesh.file=coarse.msh \
  --set equations.end_time=0.05 --set equations.order=2 --set 'fault.stations=[[0, 0, -7500], [0, 0, -3000]]' \
  --output "$T/out" > "$T/run.log" 2>&1); then ok "starquake tpv5/parameters.par ran"
else
  bad "starquake tpv5/parameters.par: $(grep -m2 error "$T/run.log")"
  report seissol_run
  exit
fi
# column N of the first and the last data row of a fault-station file
# value NAME FILE first|last: a column of a SeisSol fault-receiver file, found by its name in VARIABLES
value() {
  "$PY" -c '
import sys
name, path, which = sys.argv[1:4]
lines = open(path).read().splitlines()
names = [v.strip().strip("\"") for v in lines[1].split("=", 1)[1].split(",")]
rows = [l.split() for l in lines if l and not l.startswith(("TITLE", "VARIABLES", "#"))]
print(rows[0 if which == "first" else -1][names.index(name)])' "$@"
}
fr1=$T/out/tpv5-faultreceiver-00001-00000.dat fr2=$T/out/tpv5-faultreceiver-00002-00000.dat
sed -n 2p "$fr1" | grep -q '"Time" ,"SRs" ,"SRd" ,"T_s" ,"T_d" ,"P_n"' && ok "SeisSol's fault-receiver file and columns" ||
  bad "fault-receiver file: $(sed -n 2p "$fr1" 2> /dev/null)"
near() { "$PY" -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if abs(a - b) <= 1e-6 * abs(b) else 1)" "$1" "$2"; }
for check in "$fr1 Ts0 81.6e6 Ts0 at the nucleation patch" "$fr1 Pn0 -120e6 Pn0" "$fr1 Mud 0.677 mu_s (Mud at t = 0)" \
  "$fr2 Ts0 70e6 Ts0 outside the patch" "$fr1 Td0 10e6 Td0 (s_yz; SeisSol's dip sign)"; do
  read -r f c want what <<< "$check"
  got=$(value "$c" "$f" first)
  near "$got" "$want" && ok "$what = $got" || bad "$what = $got, want $want"
done
ts=$(value T_s "$fr1" first)
"$PY" -c "import sys; sys.exit(0 if float(sys.argv[1]) == 0 else 1)" "$ts" && ok "T_s is the change of the traction: 0 at t = 0" ||
  bad "T_s at t = 0: $ts"
srs=$(value SRs "$fr1" last)
"$PY" -c "import sys; sys.exit(0 if float(sys.argv[1]) > 0 else 1)" "$srs" && ok "strike slip rate at the nucleation > 0 ($srs)" \
  || bad "strike slip rate at the nucleation: $srs (SeisSol's sign is positive)"
report seissol_run
