#!/bin/bash
# SeisSol's set-ups against the hand-written configs of configs/ (docs/SEISSOL.md, *Checking a set-up*): for
# TPV5, TPV12/13, TPV101, TPV104, TPV105 and LOH.1 (all but LOH.1 evaluate !LuaMap code), mesh
# coarsely with gmsh, run `starquake parameters.par` for a few time steps at order 2, and compare
# `starquake probe` of the parameters.par with `starquake probe` of configs/ at sample points (inside and
# outside nucleation patches, at several depths and in each layer): materials, plasticity, initial and
# nucleation tractions in the fault frame and friction parameters agree to 1e-10 of each column's largest
# value; TPV12/13's tractions also equal its easi stress formula projected on the fault normal here, in Python.
# Known, documented differences: where the two pick opposite fault normals (configs/ take "+" on the
# side of fault.reference_point with the native convention), n and the dip tractions change sign (T_n and T_s
# keep theirs, strike and normal both flip); "no forced rupture" is 1e10 s in SeisSol's models and "never"
# (1e300) natively.  Meshes: the example's .geo where it has one that meshes a whole fault (TPV5, TPV12/13,
# LOH.1); TPV101 has none and TPV104's is half a domain mirrored by a SeisSol tool, so both use configs/'s
# .geo.  LOH.1's mesh has z down (depth), configs/loh1 z up: its points are compared at (x, y, -z); TPV12/13's
# fault dips toward -y, configs/tpv13's toward +y: its points are compared at (x, -y, z).
# Skipped (77) without gmsh or without the easi keys.
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir T
command -v gmsh > /dev/null || { echo "gmsh not found: skipped"; exit 77; }
"$SQ" config-reference 2> /dev/null | grep -q 'materials.easi' || { echo "no materials.easi in this build: skipped"; exit 77; }
EX=$SRC/tests/seissol_examples
ABS=$(cd "$SRC" && pwd)

# mesh DIR GEO OUT [GMSH ARGS...]: gmsh GEO (in DIR) into DIR/OUT
mesh() {
  local dir=$1 geo=$2 out=$3
  shift 3
  (cd "$dir" && gmsh -3 -nt 1 -v 1 "$@" "$geo" -o "$out" -format msh22 > "$out.log" 2>&1) && ok "gmsh $geo ($(basename "$dir"))" ||
    bad "gmsh $dir/$geo: $(tail -2 "$dir/$out.log")"
}

# short DIR PAR SETS...: `starquake PAR` in DIR for two sync intervals at order 2 (shows that the set-up runs)
short() {
  local dir=$1 par=$2
  shift 2
  if (cd "$dir" && "$SQ" "$par" --quiet --set equations.order=2 --set equations.end_time=0.002 --set equations.lts.rate=1 \
    "$@" --output "$dir/out" > "$dir/run.log" 2>&1); then ok "starquake $(basename "$dir")/$par runs"
  else bad "starquake $(basename "$dir")/$par: $(grep -m2 -i error "$dir/run.log")"; fi
}

# probe OUT CONFIG POINTS SETS...: `starquake probe --csv` into OUT
probe() {
  local out=$1 cfg=$2 pts=$3
  shift 3
  "$SQ" probe "$cfg" --csv --points "$pts" "$@" > "$out" 2> "$out.err" || bad "probe $cfg: $(head -3 "$out.err")"
}

# compare NAME A.csv B.csv FLIPPED [ONLY]: every column both have (but position, cell and distance; or only those
# of ONLY) agrees row by row, the columns of FLIPPED (comma-separated) with opposite signs
compare() {
  "$PY" - "$@" << 'EOF'
import csv, math, sys
name, fa, fb, flipped = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(",")
only = sys.argv[5].split(",") if len(sys.argv) > 5 else None
A, B = list(csv.DictReader(open(fa))), list(csv.DictReader(open(fb)))
skip = {"x", "y", "z", "cell", "fault_distance"}
cols = [c for c in A[0] if c in B[0] and c not in skip and (only is None or c in only)] if A and B else []
bad, checked = [], 0
if len(A) != len(B) or not A: bad.append("rows: %d and %d" % (len(A), len(B)))
def num(s): return float(s) if s != "" else None
for c in cols:
    sign = -1.0 if c in flipped else 1.0
    vals = [abs(num(r[c])) for r in A + B if r[c] != ""]
    # n is a unit vector; a traction component is compared to the largest traction (the frame's round-off)
    if c.startswith("T"): vals = [abs(num(r[k])) for r in A + B for k in r if k.startswith("T") and r[k] != ""]
    scale = 1.0 if c in ("n_x", "n_y", "n_z") else max(vals) if vals else 0.0
    for i, (ra, rb) in enumerate(zip(A, B)):
        a, b = num(ra[c]), num(rb[c])
        checked += 1
        if a is None or b is None:
            if (a is None) != (b is None): bad.append("point %d %s: '%s' and '%s'" % (i + 1, c, ra[c], rb[c]))
            continue
        if c == "forced_rupture_time" and a >= 1e9 and b >= 1e9: continue  # "never" (1e10 s in SeisSol's models)
        if abs(a - sign * b) > 1e-10 * max(abs(a), abs(b), scale):
            bad.append("point %d %s: %.17g and %s%.17g" % (i + 1, c, a, "-" if sign < 0 else "", b))
on = sum(1 for r in A if r.get("T_n", "") != "")
if bad: print("FAIL %s: %s" % (name, "; ".join(bad[:8])))
else: print("ok   %s: %d values at %d points (%d on the fault) agree%s" %
            (name, checked, len(A), on, ", %s with opposite signs" % " ".join(flipped) if flipped[0] else ""))
EOF
}
# result LINE: count the compare line
result() { case $1 in ok*) ok "${1#ok   }" ;; *) bad "${1#FAIL }" ;; esac }

# ---- TPV5: the example's mesh at 3 km on the fault; "+" is y > 0 in both, SeisSol's n = (0, -1, 0)
D=$T/tpv5
cp -r "$EX/tpv5" "$D" && chmod -R u+w "$D"
sed -e 's/^lc = 5e3;/lc = 25e3;/' -e 's/^lc_fault = 200;/lc_fault = 3000;/' -e 's/^lc_nucl = 200;/lc_nucl = 3000;/' \
  "$D/tpv5_f200m.geo" > "$D/coarse.geo"
mesh "$D" coarse.geo coarse.msh
short "$D" parameters.par --set mesh.type=gmsh --set mesh.file=coarse.msh
# nucleation, left and right patches, background at two depths, off the fault
pts="0,0,-7500;-7500,0,-7000;7500,0,-8000;4500,0,-7500;0,0,-12000;-12000,0,-2000;2000,5000,-3000"
probe "$T/tpv5_par.csv" "$D/parameters.par" "$pts" --set mesh.type=gmsh --set mesh.file=coarse.msh
probe "$T/tpv5_cfg.csv" "$SRC/configs/tpv5/tpv5.yaml" "$pts" --set mesh.file="$D/coarse.msh"
result "$(compare "TPV5 (!LuaMap s_xy)" "$T/tpv5_par.csv" "$T/tpv5_cfg.csv" n_x,n_y,n_z,T_d,Tnuc_d)"

# ---- TPV12/13: 60-degree dipping fault, plasticity, depth-dependent stress.  SeisSol's fault dips toward -y,
# configs/tpv13's toward +y (the mirror image): each on its own mesh at 3 km, SeisSol's points at (x, -y, z).
# Both normals have n_y = -0.866 (configs/: "+" holds (0, -10000, -5000); SeisSol: refPointMethod 1,
# r = (0, -1, 0)), so n_z and the dip tractions change sign.
D=$T/tpv13
cp -r "$EX/tpv12_13" "$D" && chmod -R u+w "$D"
sed -e 's/^lc_fault = 250;/lc_fault = 3000;/' -e 's/^lc_nucl = 100;/lc_nucl = 3000;/' "$D/tpv12_13_example.geo" > "$D/coarse.geo"
mesh "$D" coarse.geo coarse.msh
mesh "$D" "$ABS/configs/tpv13/tpv13.geo" hand.msh -setnumber h_fault 3000 -setnumber h_far 15000
short "$D" parameters.par --set mesh.type=gmsh --set mesh.file=coarse.msh
# on the fault (y = -z / tan 60 in configs/): 3 km down-dip, the centre, the hypocentre (nucleation), below
# the stress change at 11951.15 m depth, along strike; off the fault, on either side
pts="0,1500,-2598.0762113533160;0,3750,-6495.1905283832900;0,6000,-10392.304845413264;5000,7216.8783648703220,-12500"
pts="$pts;-6000,3750,-6495.1905283832900;0,-3000,-2000;0,10000,-20000"
mirrored="0,-1500,-2598.0762113533160;0,-3750,-6495.1905283832900;0,-6000,-10392.304845413264"
mirrored="$mirrored;5000,-7216.8783648703220,-12500;-6000,-3750,-6495.1905283832900;0,3000,-2000;0,-10000,-20000"
probe "$T/tpv13_par.csv" "$D/parameters.par" "$mirrored" --set mesh.type=gmsh --set mesh.file=coarse.msh
probe "$T/tpv13_cfg.csv" "$SRC/configs/tpv13/tpv13.yaml" "$pts" --set mesh.file="$D/hand.msh"
grep -q plasticity.s_xx "$T/tpv13_par.csv" && ok "TPV12/13: the plasticity columns" || bad "TPV12/13: no plasticity columns"
fault_cols=n_x,n_y,n_z,T_n,T_s,T_d,Tnuc_n,Tnuc_s,Tnuc_d,cohesion,mu_s,mu_d,d_c,forced_rupture_time
result "$(compare "TPV12/13 fault (!LuaMap stress)" "$T/tpv13_par.csv" "$T/tpv13_cfg.csv" n_z,T_d,Tnuc_d $fault_cols)"
# the material and the plasticity are cell values (at the centroids, as the run takes them): compared on one mesh,
# the example's (configs/tpv13's values depend on z only)
probe "$T/tpv13_cfg2.csv" "$SRC/configs/tpv13/tpv13.yaml" "$mirrored" --set mesh.file="$D/coarse.msh"
cell_cols=rho,mu,lambda,vp,vs,plasticity.cohesion,plasticity.bulk_friction,plasticity.tv
cell_cols=$cell_cols,plasticity.s_xx,plasticity.s_yy,plasticity.s_zz,plasticity.s_xy,plasticity.s_yz,plasticity.s_xz
result "$(compare "TPV12/13 material and plasticity (!LuaMap stress)" "$T/tpv13_par.csv" "$T/tpv13_cfg2.csv" "" $cell_cols)"

# the same tractions from the easi model's formula, evaluated here: sigma(z) of tpv12_13_initial_stress.yaml,
# T_n = n.sigma.n, the shear |sigma n - T_n n| = |(T_s, T_d)|
"$PY" - "$T/tpv13_par.csv" << 'EOF' && ok "TPV12/13: T_n and |(T_s, T_d)| = the model's stress projected independently" ||
import csv, math, sys
n_on = 0
for r in csv.DictReader(open(sys.argv[1])):
    if r["T_n"] == "": continue
    d, s = abs(float(r["z"])), 9.8 * (2700.0 - 1000.0)
    if d <= 11951.15:
        sig = [-0.01 * math.floor(100.0 * (0.5 * (1.0 + 0.3496) * s) + 0.5) * d,
               -0.01 * math.floor(100.0 * (0.3496 * s) + 0.5) * d, -s * d]
    else: sig = [-s * d] * 3
    n = [float(r[k]) for k in ("n_x", "n_y", "n_z")]
    t = [sig[k] * n[k] for k in range(3)]
    tn = sum(t[k] * n[k] for k in range(3))
    shear = math.sqrt(sum((t[k] - tn * n[k]) ** 2 for k in range(3)))
    got_n, got_s = float(r["T_n"]), math.hypot(float(r["T_s"]), float(r["T_d"]))
    if abs(got_n - tn) > 1e-10 * abs(tn) or abs(got_s - shear) > 1e-10 * abs(tn):
        print("at (%s, %s, %s): T_n %.17g, want %.17g; shear %.17g, want %.17g" % (r["x"], r["y"], r["z"], got_n, tn, got_s, shear))
        sys.exit(1)
    n_on += 1
sys.exit(0 if n_on >= 4 else 1)
EOF
  bad "TPV12/13: the tractions against the model's formula"

# ---- TPV101 (aging law), TPV104 (fast velocity weakening) and TPV105 (with thermal pressurization: the tp_
# columns): configs/'s .geo at 3 km on the fault, 15 km away
pts_rs="0,0,-7500;1000,0,-8000;0,0,-3000;-16500,0,-7500;0,0,-16000;17000,0,-17000;-7500,0,-12000;2000,6000,-5000"
for case in "tpv101 tpv101_fault.yaml n_x,n_y,n_z,T_d,Tnuc_d" "tpv104 fault.yaml " "tpv105 tpv105_fault.yaml n_x,n_y,n_z,T_d,Tnuc_d"; do
  read -r name model flipped <<< "$case"
  D=$T/$name
  cp -r "$EX/$name" "$D" && cp "$SRC/configs/$name/"*.geo "$D/" && chmod -R u+w "$D"
  [ -f "$D/tpv101.geo" ] || cp "$SRC/configs/tpv101/tpv101.geo" "$D/"
  mesh "$D" "$name.geo" coarse.msh -setnumber h_fault 3000 -setnumber h_far 15000
  short "$D" parameters.par --set mesh.type=gmsh --set mesh.file=coarse.msh
  probe "$T/${name}_par.csv" "$D/parameters.par" "$pts_rs" --set mesh.type=gmsh --set mesh.file=coarse.msh
  probe "$T/${name}_cfg.csv" "$SRC/configs/$name/$name.yaml" "$pts_rs" --set mesh.file="$D/coarse.msh"
  result "$(compare "${name^^} (!LuaMap a, nucleation)" "$T/${name}_par.csv" "$T/${name}_cfg.csv" "$flipped")"
done

# ---- LOH.1: a layer over a half-space (!GroupFilter by mesh group); the example's mesh (z down) at 5 km, and
# configs/loh1's (z up) at 5 km
D=$T/loh1
cp -r "$EX/WP2_LOH1" "$D" && chmod -R u+w "$D"
sed -e 's/^cl_1 = 5000;/cl_1 = 10000;/' -e 's/VIn = 200;/VIn = 5000;/' -e 's/VOut = 3000;/VOut = 10000;/' \
  -e 's|^Field\[3\].F = .*|Field[3].F = "5000";|' "$D/loh.geo" > "$D/coarse.geo"
mesh "$D" coarse.geo coarse.msh
mesh "$D" "$ABS/configs/loh1/loh1.geo" hand.msh -setnumber lc_fine 5000 -setnumber lc_layer 5000 -setnumber lc_far 10000
(cd "$D" && "$PY" generate_LOH_source_type50.py > /dev/null) || bad "LOH.1: the example's source file"
short "$D" parameters_source_type_50.par --set mesh.type=gmsh --set mesh.file=coarse.msh
probe "$T/loh1_par.csv" "$D/parameters_source_type_50.par" "1000,1000,500;8000,-3000,200;1000,1000,3000;5000,5000,20000" \
  --set mesh.type=gmsh --set mesh.file=coarse.msh
probe "$T/loh1_cfg.csv" "$SRC/configs/loh1/loh1.yaml" "1000,1000,-500;8000,-3000,-200;1000,1000,-3000;5000,5000,-20000" \
  --set mesh.file="$D/hand.msh"
result "$(compare "LOH.1 (layer and half-space)" "$T/loh1_par.csv" "$T/loh1_cfg.csv" "")"

# the table (not --csv): a header and one row per point
"$SQ" probe "$D/parameters_source_type_50.par" --points "1000,1000,500;1000,1000,3000" --set mesh.type=gmsh \
  --set mesh.file="$D/coarse.msh" > "$T/table.txt" 2>&1
[ "$(wc -l < "$T/table.txt")" = 3 ] && head -1 "$T/table.txt" | grep -Eq '^x +y +z +cell +rho +mu +lambda +vp +vs *$' &&
  ok "probe's table" || bad "probe's table: $(head -3 "$T/table.txt")"
# probe's own errors: a point that is not three numbers, a missing --points
if "$SQ" probe "$SRC/configs/tpv5/tpv5.yaml" --points "1,2" > "$T/e1.txt" 2>&1; then bad "probe --points 1,2: exit 0"
else grep -q "three numbers" "$T/e1.txt" && ok "probe --points 1,2: an error" || bad "probe --points 1,2: $(cat "$T/e1.txt")"; fi
if "$SQ" probe "$SRC/configs/tpv5/tpv5.yaml" > "$T/e2.txt" 2>&1; then bad "probe without --points: exit 0"
else grep -q "no --points" "$T/e2.txt" && ok "probe without --points: an error" || bad "probe without --points: $(tail -1 "$T/e2.txt")"; fi
report seissol_compare
