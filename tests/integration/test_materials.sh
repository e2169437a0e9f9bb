#!/bin/bash
# Material rules at run time: the run header's cells and vp, vs, rho per rule; a rule that matches no cell
# and implausible values warn (and fail with --strict); material values as expressions, with a constant
# written as an expression giving the number's run bit for bit.
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir T

# counts known from the fixture: 240 default, 96 in the top layer, 0 in the positive-depth layer, 48 in the region
"$SQ" "$CONFIGS/materials_rules.yaml" --output "$T/rules" > "$T/rules.out" 2> "$T/rules.err"
check "the rules run exits 0" test $? -eq 0
for want in 'materials.default \(cells no rule matches\): 240 cells, vp 6000..6000, vs 3464..3464, rho 2700..2700' \
  'materials.layers\[0\] \(z in \[-1000, 0\)\): 96 cells, vp 4000..4000, vs 2300..2300, rho 2500..2500' \
  'materials.layers\[1\] \(z in \[0, 1000\)\): 0 cells$' \
  'materials.regions\[0\] .*: 48 cells, vp 6500..6500, vs 3700..3700, rho 2800..2800'; do
  if grep -Eq "$want" "$T/rules.out"; then ok "header: /$want/"; else bad "header lacks /$want/: $(grep -A4 materials "$T/rules.out")"; fi
done
if grep -q "^starquake: warning: .*materials_rules.yaml:17: key 'materials.layers\[1\]': matches no cell: z in \[0, 1000); depth is negative z .*z_top: 0, z_bottom: -1000?" "$T/rules.err"; then
  ok "the layer with positive depths warns, with file:line and what was meant"
else bad "no 0-cell warning on stderr: $(cat "$T/rules.err")"; fi
h_num=$(hash_of "$T/rules" rules)

"$SQ" "$CONFIGS/materials_rules.yaml" --output "$T/strict" --strict > "$T/strict.out" 2> "$T/strict.err"
rc=$?
if [ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -q "^starquake: error: .*materials_rules.yaml:17: key 'materials.layers\[1\]': matches no cell" "$T/strict.err" &&
  [ -z "$(find "$T/strict" -name '*-summary.txt' 2> /dev/null)" ]; then
  ok "--strict: the 0-cell rule is an error (exit $rc), no run"
else bad "--strict: exit $rc, $(cat "$T/strict.err")"; fi

# a constant written as an expression: the same dofs hash as the number
"$SQ" "$CONFIGS/materials_rules_expr.yaml" --output "$T/expr" > "$T/expr.out" 2> "$T/expr.err"
h_expr=$(hash_of "$T/expr" rules_expr)
if [ -n "$h_num" ] && [ "$h_num" = "$h_expr" ]; then ok "constant expressions give the numbers' dofs hash ($h_num)"
else bad "constant expressions: dofs hash '$h_expr', numbers '$h_num'"; fi

# a gradient: vp varies over the layer's cells (centroids within z in [-1000, 0)), and the run differs
"$SQ" "$CONFIGS/materials_rules_gradient.yaml" --output "$T/grad" > "$T/grad.out" 2> "$T/grad.err"
check "the gradient run exits 0" test $? -eq 0
range=$(grep -o 'materials.layers\[0\] .*: 96 cells, vp [0-9.]*\.\.[0-9.]*' "$T/grad.out" | sed 's/.*vp //')
if awk -v r="$range" 'BEGIN { split(r, v, /\.\./); exit !(v[1] > 3500 && v[2] < 4000 && v[1] < v[2]) }'; then
  ok "vp = 4000 + 0.5 z over the layer's cells: $range"
else bad "vp range of the gradient layer: '$range' ($(grep 'layers\[0\]' "$T/grad.out"))"; fi
h_grad=$(hash_of "$T/grad" rules_gradient)
if [ -n "$h_grad" ] && [ "$h_grad" != "$h_num" ]; then ok "the gradient changes the run ($h_grad)"
else bad "the gradient run's hash '$h_grad' (numbers: '$h_num')"; fi

# km/s and g/cm^3 in a mesh in metres: warnings that say what was meant; errors with --strict
"$SQ" "$CONFIGS/materials_kms.yaml" --output "$T/kms" > "$T/kms.out" 2> "$T/kms.err"
check "implausible values still run (exit 0)" test $? -eq 0
if grep -q "^starquake: warning: .*materials_kms.yaml:10: key 'materials.default.vp': vp: 4 looks like km/s; the mesh is in metres .*: 4000?" "$T/kms.err" &&
  grep -q "^starquake: warning: .*materials_kms.yaml:10: key 'materials.default.rho': rho: 2.6 looks like g/cm^3.*: 2600?" "$T/kms.err"; then
  ok "vp: 4 and rho: 2.6 warn with what was meant"
else bad "implausible values: $(cat "$T/kms.err")"; fi
"$SQ" "$CONFIGS/materials_kms.yaml" --output "$T/kms2" --strict > "$T/kms2.out" 2> "$T/kms2.err"
rc=$?
if [ $rc -ne 0 ] && [ $rc -lt 128 ] && [ "$(grep -c '^starquake: error:' "$T/kms2.err")" = 1 ] &&
  grep -q "looks like km/s.*--strict" "$T/kms2.err"; then ok "--strict: implausible values are an error (exit $rc)"
else bad "--strict with implausible values: exit $rc, $(cat "$T/kms2.err")"; fi

# a missing mesh that a scenario script makes: the config's line and key, and the command
mkdir -p "$T/scenario"
cp "$SRC/configs/tpv13/tpv13_short.yaml" "$SRC/configs/tpv13/run.sh" "$T/scenario/"
line=$(grep -n '^  file:' "$T/scenario/tpv13_short.yaml" | cut -d: -f1)
"$SQ" "$T/scenario/tpv13_short.yaml" --output "$T/scen" > "$T/scen.out" 2> "$T/scen.err"
rc=$?
if [ $rc -ne 0 ] && grep -q "^starquake: error: .*tpv13_short.yaml:$line: key 'mesh.file': cannot open the mesh .*tpv13-coarse.msh.*make it with \`.*scenario/run.sh short\`" "$T/scen.err"; then
  ok "a missing scenario mesh names mesh.file's line and the command that makes it"
else bad "missing scenario mesh: exit $rc, $(cat "$T/scen.err")"; fi
report "materials"
