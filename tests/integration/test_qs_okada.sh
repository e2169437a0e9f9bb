#!/bin/bash
# The quasi-static elastic solver against Okada (1992): `starquake verify okada` at two mesh sizes (plain loops),
# rel_l2 under the acceptance bound and falling with the mesh, the solver's outer iterations independent of
# the mesh; the same problem with StarPU tasks gives the serial answer; a dipping fault in Gmsh meshes; bad
# options and meshes are refused by name.
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir T

if "$SQ" verify okada --meshes 2,4 --serial --json > "$T/serial.json" 2> "$T/serial.err"; then
  ok "verify okada --meshes 2,4 --serial passes"
else bad "verify okada --serial: $(tail -3 "$T/serial.err") $(cat "$T/serial.json")"; fi
if "$SQ" verify okada --meshes 2 --tolerance 0.1 --json > "$T/tasks.json" 2> "$T/tasks.err"; then
  ok "verify okada --meshes 2 (tasks) runs"
else bad "verify okada (tasks): $(tail -3 "$T/tasks.err")"; fi
"$PY" - "$T/serial.json" "$T/tasks.json" << 'PYEOF' && ok "okada: misfits, convergence, iterations, tasks = serial" || bad "okada: see above"
import json, sys
s = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[2]))
fails = []
cases = {}
for c in s["cases"]:
    cases.setdefault(c["case"], []).append(c)
for name, rows in cases.items():
    e = [r["rel_l2"] for r in rows]
    print("%s: rel_l2 %s, outer iterations %s" % (name, e, [r["outer_iterations"] for r in rows]))
    if not (e[1] < 0.4 * e[0]): fails.append("%s: rel_l2 does not fall: %s" % (name, e))
    if not (e[1] <= 0.01): fails.append("%s: rel_l2 %.3g above 1%% at h = 1/4" % (name, e[1]))
    if any(r["rel_residual"] > 1e-10 for r in rows): fails.append("%s: residual above 1e-10" % name)
    if any(r["outer_iterations"] > 40 for r in rows): fails.append("%s: more than 40 outer iterations" % name)
    if any(r["tasks"] != 0 for r in rows): fails.append("%s: --serial submitted tasks" % name)
if not (s["rel_l2"] <= 0.01 and s["pass"]): fails.append("top-level rel_l2 %g" % s["rel_l2"])
for tc in t["cases"]:
    sc = [c for c in s["cases"] if c["case"] == tc["case"] and c["h"] == tc["h"]][0]
    if tc["tasks"] <= 0: fails.append("%s: no tasks" % tc["case"])
    if abs(tc["rel_l2"] - sc["rel_l2"]) > 1e-6 * sc["rel_l2"]:
        fails.append("%s: tasks rel_l2 %.9g, serial %.9g" % (tc["case"], tc["rel_l2"], sc["rel_l2"]))
    if tc["outer_iterations"] != sc["outer_iterations"]:
        fails.append("%s: tasks %d outer iterations, serial %d" % (tc["case"], tc["outer_iterations"], sc["outer_iterations"]))
print("\n".join(fails))
sys.exit(1 if fails else 0)
PYEOF

# a fault dipping 45 degrees in Gmsh meshes (unstructured): converging, within 3% at h = 1/4
if command -v gmsh > /dev/null; then
  for h in 0.5 0.25; do
    gmsh -3 -setnumber h $h -setnumber dip 45 -format msh22 -o "$T/dip_$h.msh" "$SRC/tests/meshes/okada_dip.geo" \
      > "$T/gmsh.log" 2>&1 || bad "gmsh okada_dip.geo h = $h: $(tail -2 "$T/gmsh.log")"
  done
  if "$SQ" verify okada --serial --mesh "$T/dip_0.5.msh,$T/dip_0.25.msh" --dip 45 --tolerance 0.03 --json > "$T/dip.json" \
    2> "$T/dip.err"; then
    ok "verify okada --dip 45 on Gmsh meshes: rel_l2 $("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["rel_l2"])' "$T/dip.json")"
  else bad "verify okada --dip 45: $(tail -3 "$T/dip.err") $(cat "$T/dip.json")"; fi
else bad "gmsh not found: install gmsh (./quickstart does)"; fi

# bad options: named
for args in "--meshes 3" "--meshes 0" "--meshes 2,x" "--tolerance -1" "--tile-size 0" "--nosuch" "--dip 45" "--dip 0" \
  "--mesh $T/nothere.msh" "--mesh $SRC/tests/meshes/fault.msh"; do
  # shellcheck disable=SC2086
  if "$SQ" verify okada --serial $args > "$T/bad.txt" 2>&1; then bad "verify okada $args: exit status 0"
  elif grep -q "error" "$T/bad.txt"; then ok "verify okada $args: $(grep error "$T/bad.txt" | head -1)"
  else bad "verify okada $args: $(head -3 "$T/bad.txt")"; fi
done
# its help lists every option its parser accepts
"$SQ" verify okada --help > "$T/help.txt" 2>&1 || bad "verify okada --help: exit status $?"
for o in $(grep -o 'strcmp(a, "--[a-z-]*")' "$SRC/app/verify_okada.c" | grep -o '"--[a-z-]*"' | tr -d '"' | sort -u); do
  grep -q -- "$o" "$T/help.txt" && ok "verify okada --help lists $o" || bad "verify okada --help lacks $o"
done
report test_qs_okada
