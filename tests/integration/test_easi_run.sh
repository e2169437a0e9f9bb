#!/bin/bash
# easi models in a run: a rupture box whose materials (materials.easi) and fault values (fault.easi) come
# from easi models gives the dofs hash of the same config written with native values; so does a plastic
# run whose plasticity values come from the material model; a changed model changes the hash; and SeisSol's
# own TPV5 easi files give the dofs hash of our hand translation of TPV5.
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir T
cp -r "$CONFIGS/easi" "$T/easi"
cp "$CONFIGS/easi_box_native.yaml" "$CONFIGS/easi_box.yaml" "$T/"

run "$T/native" "$T/easi_box_native.yaml"
"$SQ" "$T/easi_box.yaml" --output "$T/easi" > "$T/easi.log" 2>&1 || bad "the easi run failed: $(tail -3 "$T/easi.log")"
h_native=$(hash_of "$T/native" easibox)
h_easi=$(hash_of "$T/easi" easibox)
if [ -n "$h_native" ] && [ "$h_native" = "$h_easi" ]; then ok "easi models give the native config's dofs hash ($h_native)"
else bad "dofs hash: easi '$h_easi', native '$h_native'"; fi
if grep -q "materials  materials.easi (cells no rule matches): 768 cells, vp 5403.7..6000, vs 3098.39..3464, rho 2500..2670" "$T/easi.log"; then
  ok "the run header shows the easi model's cells and ranges (both layers)"
else bad "run header: $(grep materials "$T/easi.log")"; fi
if grep -q "ruptured [1-9]" "$T/easi.log"; then
  ok "the fault ruptures (the forced rupture of the !FunctionMap)"
else bad "no rupture in the easi run"; fi

# a changed value in the model changes the run
sed 's/return {s_xy = 76e6}/return {s_xy = 75e6}/' "$CONFIGS/easi/box_fault.yaml" > "$T/easi/box_fault.yaml"
run "$T/changed" "$T/easi_box.yaml"
h_changed=$(hash_of "$T/changed" easibox)
if [ -n "$h_changed" ] && [ "$h_changed" != "$h_native" ]; then ok "a changed easi value changes the dofs hash"
else bad "the changed model gave hash '$h_changed' (native '$h_native')"; fi
cp "$CONFIGS/easi/box_fault.yaml" "$T/easi/box_fault.yaml"

# plasticity: cohesion and bulk friction (plastCo, bulkFriction) and the initial stress from the material
# model; tv from the config
{ cat "$T/easi_box_native.yaml"; echo "plasticity: {cohesion: 2e6, bulk_friction: 0.6, tv: 0.05}"; } > "$T/plast_native.yaml"
sed 's|easi: easi/box_material.yaml|easi: easi/box_material_plastic.yaml|' "$T/easi_box.yaml" > "$T/plast_easi.yaml"
echo "plasticity: {tv: 0.05}" >> "$T/plast_easi.yaml"
run "$T/pn" "$T/plast_native.yaml" && run "$T/pe" "$T/plast_easi.yaml"
h_pn=$(hash_of "$T/pn" easibox)
h_pe=$(hash_of "$T/pe" easibox)
if [ -n "$h_pn" ] && [ "$h_pn" = "$h_pe" ] && [ "$h_pn" != "$h_native" ]; then
  ok "plasticity values from the easi material model give the native plastic run's hash ($h_pn)"
else bad "plastic dofs hash: easi '$h_pe', native '$h_pn' (elastic '$h_native')"; fi
# SeisSol's TPV5 easi files, unchanged, against our hand translation of TPV5 (configs/tpv5/tpv5.yaml's values)
run "$T/t5n" "$CONFIGS/easi_tpv5_box_native.yaml" && run "$T/t5e" "$CONFIGS/easi_tpv5_box.yaml"
h_t5n=$(hash_of "$T/t5n" tpv5box)
h_t5e=$(hash_of "$T/t5e" tpv5box)
if [ -n "$h_t5n" ] && [ "$h_t5n" = "$h_t5e" ]; then ok "SeisSol's TPV5 easi files give the hand-translated TPV5's dofs hash ($h_t5n)"
else bad "TPV5 dofs hash: SeisSol's easi files '$h_t5e', hand translation '$h_t5n'"; fi
report easi_run
