#!/bin/bash
# The Maxwell viscoelastic time stepping against Savage & Prescott (1978): `starquake verify savage-prescott` on
# a small slab (loose bound, 10%: the truncation at x = 32 dominates, 6% at t = tau against 0.9% at x = 128),
# the mixed-precision solves reaching the double-precision tolerance, with and without the predictor (the same
# profiles, fewer inner iterations with it), and with four steps solved together (the same profiles, fewer
# iterations); bad options refused by name; --help lists every option.
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir T

if "$SQ" verify savage-prescott --times 0.5,1 --dt 0.1 --length 32 --depth 24 --profile 8 --tolerance 0.1 \
  --compare-predictor --json > "$T/sp.json" 2> "$T/sp.err"; then
  ok "verify savage-prescott (small slab) passes"
else bad "verify savage-prescott: $(tail -3 "$T/sp.err") $(cat "$T/sp.json")"; fi
"$PY" - "$T/sp.json" << 'PYEOF' && ok "savage-prescott: profiles, residuals, predictor" || bad "savage-prescott: see above"
import json, sys
r = json.load(open(sys.argv[1]))
fails = []
print("max_rel_error %.4g, per time %s, elastic %.4g" % (r["max_rel_error"], [t["rel_error"] for t in r["times"]],
      r["elastic_rel_error"]))
if not (r["pass"] and r["max_rel_error"] <= 0.1): fails.append("max_rel_error %g" % r["max_rel_error"])
if not (r["elastic_rel_error"] <= 0.03): fails.append("elastic_rel_error %g" % r["elastic_rel_error"])
if len(r["times"]) != 2 or any(t["v_max"] <= 0 for t in r["times"]): fails.append("times %s" % r["times"])
on, off = r["runs"]
for run in r["runs"]:
    print(run)
    if run["max_rel_residual"] > 1e-10: fails.append("residual %g above 1e-10" % run["max_rel_residual"])
    if run["solves"] != r["steps"] + 1: fails.append("solves %d, steps %d" % (run["solves"], r["steps"]))
if abs(on["max_rel_error"] - off["max_rel_error"]) > 1e-6: fails.append("the predictor changes the profiles")
if not (on["inner_iterations"] < off["inner_iterations"]): fails.append("the predictor saves no inner iterations")
print("\n".join(fails))
sys.exit(1 if fails else 0)
PYEOF

# four steps solved together (the papers' multi-step predictor): the same profiles against the closed form, the
# residuals, fewer coarse and inner iterations than one step at a time from the predictor
if "$SQ" verify savage-prescott --times 0.5,1 --dt 0.1 --length 32 --depth 24 --profile 8 --tolerance 0.1 \
  --multistep 4 --json > "$T/sp4.json" 2> "$T/sp4.err"; then
  ok "verify savage-prescott --multistep 4 (small slab) passes"
else bad "verify savage-prescott --multistep 4: $(tail -3 "$T/sp4.err") $(cat "$T/sp4.json")"; fi
"$PY" - "$T/sp.json" "$T/sp4.json" << 'PYEOF' && ok "savage-prescott --multistep 4: profiles, residuals, iterations" ||
import json, sys
one, four = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
fails = []
on, w4 = one["runs"][0], four["runs"][0]
print("one step:", on, "\nfour steps:", w4)
if four["multistep"] != 4: fails.append("multistep %s" % four["multistep"])
if abs(four["max_rel_error"] - one["max_rel_error"]) > 1e-6: fails.append("multistep 4 changes the profiles")
if w4["max_rel_residual"] > 1e-10: fails.append("residual %g above 1e-10" % w4["max_rel_residual"])
if not (w4["coarse_iterations"] < 0.7 * on["coarse_iterations"] and w4["inner_iterations"] < on["inner_iterations"]):
    fails.append("four steps together save too few iterations")
print("\n".join(fails))
sys.exit(1 if fails else 0)
PYEOF
  bad "savage-prescott --multistep 4: see above"

for args in "--size 0" "--dt 0" "--dt 0.07" "--times 2,1" "--times x" "--length 30" "--depth 8" "--profile 0" \
  "--tolerance -1" "--multistep 5" "--nosuch"; do
  # shellcheck disable=SC2086
  if "$SQ" verify savage-prescott $args > "$T/bad.txt" 2>&1; then bad "verify savage-prescott $args: exit status 0"
  elif grep -q "error" "$T/bad.txt"; then ok "verify savage-prescott $args: $(grep error "$T/bad.txt" | head -1)"
  else bad "verify savage-prescott $args: $(head -3 "$T/bad.txt")"; fi
done
"$SQ" verify savage-prescott --help > "$T/help.txt" 2>&1 || bad "verify savage-prescott --help: exit status $?"
for o in $(grep -o 'strcmp(a, "--[a-z-]*")' "$SRC/app/verify_savage_prescott.c" | grep -o '"--[a-z-]*"' | tr -d '"' | sort -u); do
  grep -q -- "$o" "$T/help.txt" && ok "verify savage-prescott --help lists $o" || bad "verify savage-prescott --help lacks $o"
done
report test_qs_savage_prescott
