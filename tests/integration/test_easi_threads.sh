#!/bin/bash
# easi models evaluated threaded in a run: materials (a !LuaMap keeping a global in its Lua state, a
# !FunctionMap, an !ASAGI grid) and fault values (a !GroupFilter on the fault tag, a !LuaMap) give the
# native config's dofs hash with OMP_NUM_THREADS=1 and 2 (the same bits); a fault model that accepts only
# group 0 fails, naming the fault point's group 3; bad fault values at many points give the same message
# (the first point) with 1 and 2 threads.
set -u
. "${srcdir:-.}/tests/lib.sh"
command -v python3 > /dev/null || { echo "skip: no python3 (writes the !ASAGI grid)"; exit 77; }
tempdir T
mkdir -p "$T/easi"
cp "$SRC/tests/easi/threads_material.yaml" "$SRC/tests/easi/threads_fault.yaml" "$T/easi/"
cp "$CONFIGS/easi_box_native.yaml" "$T/"
# lambda on two nodes per axis; the nearest node gives the layer's value (the layer boundary: z = -3000)
python3 "$SRC/tests/easi/write_grid.py" "$T/easi/lambda.nc" lambda 2 2 2 -12000 12000 -6000 6000 -4000 -2000 \
  "2.5e10 if z > -3000 else 32043759360" || bad "write_grid.py failed"
sed -e 's|easi: easi/box_material.yaml|easi: easi/threads_material.yaml|' \
    -e 's|easi: easi/box_fault.yaml|easi: easi/threads_fault.yaml|' "$CONFIGS/easi_box.yaml" > "$T/threads.yaml"
grep -q threads_fault "$T/threads.yaml" && grep -q threads_material "$T/threads.yaml" || bad "the config's easi keys moved"

run "$T/native" "$T/easi_box_native.yaml"
h_native=$(hash_of "$T/native" easibox)
for n in 1 2; do
  OMP_NUM_THREADS=$n "$SQ" "$T/threads.yaml" --verbose --output "$T/t$n" > "$T/t$n.log" 2>&1 \
    || bad "the run with $n threads failed: $(tail -3 "$T/t$n.log")"
  h=$(hash_of "$T/t$n" easibox)
  if [ -n "$h_native" ] && [ "$h" = "$h_native" ]; then
    ok "OMP_NUM_THREADS=$n: the easi models give the native dofs hash ($h)"
  else bad "OMP_NUM_THREADS=$n: dofs hash '$h', native '$h_native'"; fi
  if grep -q "materials of 768 cells evaluated in .* $n threads" "$T/t$n.log" &&
     grep -q "fault values of [0-9]* points evaluated in .* $n threads" "$T/t$n.log"; then
    ok "OMP_NUM_THREADS=$n: --verbose times the material and fault evaluation"
  else bad "no timing lines: $(grep evaluated "$T/t$n.log")"; fi
done

# a fault model that takes group 0 only: the fault points have group 3, and the error says so
sed -e 's|groups: \[3\]|groups: [4]|' "$T/easi/threads_fault.yaml" > "$T/easi/g0.yaml"
sed -e 's|easi/threads_fault.yaml|easi/g0.yaml|' "$T/threads.yaml" > "$T/g0.yaml"
if "$SQ" "$T/g0.yaml" --output "$T/g0" > "$T/g0.log" 2>&1; then bad "a fault model without group 3 ran"
elif grep -q "of group 3 (the last that refused it: .*g0.yaml:.*GroupFilter" "$T/g0.log" &&
     grep -q "fault tag of its face, 3" "$T/g0.log"; then
  ok "a fault model without group 3 fails, naming the point's group 3 and the fault tag"
else bad "message: $(cat "$T/g0.log")"; fi
# a fault model with bad values at many points: the same message (the first bad point) with 1 and 2 threads
awk '
  /components: !ConstantMap {map: {mu_s: 0.677}}/ { print "      components: !FunctionMap"; print "        map:";
    print "          mu_s: |"; print "            if (x > 3000) { return -1; }"; print "            return 0.677;"; next } { print }' \
  "$T/easi/threads_fault.yaml" > "$T/easi/neg.yaml"
sed -e 's|easi/threads_fault.yaml|easi/neg.yaml|' "$T/threads.yaml" > "$T/neg.yaml"
for n in 1 2; do
  OMP_NUM_THREADS=$n "$SQ" "$T/neg.yaml" --output "$T/neg$n" > "$T/neg$n.log" 2>&1 && bad "mu_s -1 ran with $n threads"
done
if grep -q "mu_s = -1" "$T/neg1.log" && cmp -s "$T/neg1.log" "$T/neg2.log"; then
  ok "bad fault values at many points: the same first point's message with 1 and 2 threads"
else bad "messages: $(cat "$T/neg1.log") / $(cat "$T/neg2.log")"; fi
report easi_threads
