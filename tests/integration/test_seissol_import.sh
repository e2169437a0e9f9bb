#!/bin/bash
# SeisSol set-ups (docs/SEISSOL.md): `starquake seissol-import` over every set-up of tests/seissol_examples/
# (SeisSol's public examples: the .par files and what the import reads).  Each either imports, and its
# YAML is then a valid configuration (with the easi models replaced by native values, as the easi keys
# are another module's: the load stops only at the missing mesh), or is refused with one error naming the
# feature that starquake does not have.  Also: the fault sides follow SeisSol's convention, file names are
# rewritten for another folder, and `starquake parameters.par` reads a namelist by its content.
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir T
EX=$SRC/tests/seissol_examples

# every set-up, and what must happen: "import", or a pattern of the feature named by the refusal
declare -A expect=(
  [Northridge/parameters.par]=import
  [Northridge_FL33/parameters.par]=import
  [WP2_LOH1/parameters.par]=import
  [WP2_LOH1/parameters_source_type_50.par]=import
  [WP2_LOH3/parameters.par]=import
  [convergence_acoustic_elastic/convergence_ocean/parameters.par]="boundary conditions from an easi model"
  [convergence_acoustic_elastic/convergence_scholte/parameters.par]="acoustic layers"
  [convergence_acoustic_elastic/convergence_snell/parameters.par]="acoustic layers"
  [convergence_elastic/static_files/parameters.par]="netCDF meshes"
  [tpv101/parameters.par]=import
  [tpv104/parameters.par]=import
  [tpv105/parameters.par]=import
  [tpv12_13/parameters.par]=import
  [tpv16/parameters.par]=import
  [tpv24/parameters.par]=import
  [tpv29/parameters.par]=import
  [tpv33/parameters.par]=import
  [tpv34/parameters.par]=import
  [tpv36_37/parameters_tpv36.par]=import
  [tpv36_37/parameters_tpv37.par]=import
  [tpv5/parameters.par]=import
  [tpv6_7/parameters.par]=import
)

# native_values IN OUT: the imported YAML with the easi models replaced by native values
native_values() {
  "$PY" - "$1" "$2" << 'PY'
import re, sys
text = open(sys.argv[1]).read()
text = re.sub(r'(?m)^  easi: .*\n', '', text)
text = text.replace('materials:\n', 'materials:\n  default: {rho: 2700, vp: 6000, vs: 3464}\n', 1)
text = re.sub(r'(?m)^plasticity: \{(.*)\}.*\n', lambda m: 'plasticity: {cohesion: 1e6, bulk_friction: 0.6%s}\n' % (', ' + m.group(1) if m.group(1) else ''), text)
law = re.search(r'(?m)^  friction_law: (\w+)', text)
if law:
    need = ['mu_s', 'mu_d', 'd_c'] if law.group(1) == 'linear_slip_weakening' else \
           ['tau_S', 'rise_time'] if law.group(1) == 'imposed_slip_rate_yoffe' else \
           ['rise_time'] if law.group(1) == 'imposed_slip_rate_gaussian' else \
           ['a', 'b', 'L', 'f0', 'V0', 'initial_slip_rate'] + (['f_w', 'V_w'] if 'fast' in law.group(1) else [])
    if re.search(r'(?m)^  thermal_pressurization: true', text):  # the values the easi model gave
        need += ['tp_hydraulic_diffusivity', 'tp_half_width']
    add = ''.join('  %s: 0.5\n' % k for k in need if not re.search(r'(?m)^  %s:' % k, text))
    text = text.replace('fault:\n', 'fault:\n' + add, 1)
open(sys.argv[2], 'w').write(text)
PY
}

n=0
while IFS= read -r par; do
  rel=${par#"$EX"/}
  n=$((n + 1))
  want=${expect[$rel]:-}
  if [ -z "$want" ]; then bad "$rel: a set-up the test does not list"; continue; fi
  name=$(echo "$rel" | tr '/.' '__')
  "$SQ" seissol-import "$par" -o "$T/$name.yaml" > "$T/$name.out" 2> "$T/$name.err"
  rc=$?
  if [ "$want" != import ]; then
    msg=$(grep '^starquake: error:' "$T/$name.err")
    if [ $rc -eq 0 ]; then bad "$rel: imported, but starquake lacks '$want'"
    elif [ $rc -ge 128 ]; then bad "$rel: crashed (exit status $rc)"
    elif [ "$(grep -c '^starquake: error:' "$T/$name.err")" -ne 1 ]; then bad "$rel: not one error line: $(head -3 "$T/$name.err")"
    elif ! grep -q "$want.*not supported by starquake" <<< "$msg"; then bad "$rel: refused, but not for '$want': $msg"
    elif [ -e "$T/$name.yaml" ]; then bad "$rel: refused, but wrote its YAML"
    else ok "$rel refused: ${msg#starquake: error: }"; fi
    continue
  fi
  if [ $rc -ne 0 ] || [ ! -s "$T/$name.yaml" ]; then bad "$rel: import failed: $(grep error "$T/$name.err")"; continue; fi
  native_values "$T/$name.yaml" "$T/$name.native.yaml"
  "$SQ" "$T/$name.native.yaml" --dry-run --output "$T/out" > "$T/$name.run" 2>&1
  if grep -q "^starquake: error: .*key 'mesh.file': cannot open the mesh" "$T/$name.run"; then
    ok "$rel imports; its YAML loads up to the mesh ($(grep -c '^starquake: warning' "$T/$name.err") warnings)"
  else bad "$rel: the imported YAML does not load: $(grep -m1 error "$T/$name.run")"; fi
done < <(find "$EX" -name '*.par' | sort)
[ $n -eq ${#expect[@]} ] && ok "all ${#expect[@]} set-ups imported or refused" || bad "$n set-ups found, ${#expect[@]} listed"

# what the YAML says: XRef, YRef, ZRef and refPointMethod as SeisSol reads them: TPV5 a direction (0, -1, 0),
# TPV104 a point (0, -1e5, 0)
grep -q '^  reference_method: vector$' "$T/tpv5_parameters_par.yaml" && grep -q '^  reference_point: \[0, -1, 0\]$' "$T/tpv5_parameters_par.yaml" &&
  grep -q '^  reference_convention: seissol$' "$T/tpv5_parameters_par.yaml" && ok "tpv5: SeisSol's reference direction (0, -1, 0)" ||
  bad "tpv5: reference $(grep -A2 reference_convention "$T/tpv5_parameters_par.yaml" | tr '\n' ' ')"
grep -q '^  reference_method: point$' "$T/tpv104_parameters_par.yaml" && grep -q '^  reference_point: \[0, -100000, 0\]$' "$T/tpv104_parameters_par.yaml" &&
  ok "tpv104: SeisSol's reference point (0, -1e5, 0)" || bad "tpv104: reference $(grep -A2 reference_convention "$T/tpv104_parameters_par.yaml" | tr '\n' ' ')"
for kv in "tpv5_parameters_par friction_law: linear_slip_weakening" "tpv16_parameters_par forced_rupture_duration: 0.5" \
  "tpv101_parameters_par friction_law: rate_state_aging" "tpv101_parameters_par initial_slip_rate: 1e-12" \
  "tpv104_parameters_par friction_law: rate_state_fast_velocity_weakening" "tpv104_parameters_par f_w: 0.2" \
  "tpv104_parameters_par nucleation_time: 0.5" "tpv105_parameters_par thermal_pressurization: true" \
  "tpv105_parameters_par tp_initial_temperature: 483.15" "tpv105_parameters_par tp_lambda: 100000" "tpv12_13_parameters_par plasticity: {tv: 0.03}" "tpv5_parameters_par prefix: \"tpv5\"" \
  "WP2_LOH1_parameters_source_type_50_par type: finite" "WP2_LOH1_parameters_par type: nrf" "tpv5_parameters_par - \[7500, 0, -7500\]"; do
  f=${kv%% *} k=${kv#* }
  grep -q -- "$k" "$T/$f.yaml" && ok "$f.yaml has '$k'" || bad "$f.yaml lacks '$k'"
done

# file names: written next to the .par they stay as written; elsewhere they become absolute
cp -r "$EX/tpv5" "$T/tpv5"
"$SQ" seissol-import "$T/tpv5/parameters.par" -o "$T/tpv5/run.yaml" > /dev/null 2>&1
grep -q '^  file: "tpv5_f200m.puml.h5"' "$T/tpv5/run.yaml" && ok "YAML beside the .par: names kept" \
  || bad "YAML beside the .par: $(grep file: "$T/tpv5/run.yaml")"
grep -q '^  easi: "/.*/tpv5_material.yaml"' "$T/tpv5_parameters_par.yaml" && ok "YAML elsewhere: absolute names" \
  || bad "YAML elsewhere: $(grep easi: "$T/tpv5_parameters_par.yaml")"

# starquake parameters.par: told by the content (a copy named .yaml still reads as a namelist)
cp "$T/tpv5/parameters.par" "$T/tpv5/looks_like.yaml"
"$SQ" "$T/tpv5/looks_like.yaml" --dry-run > "$T/direct.out" 2>&1
grep -q "looks_like.yaml (imported)" "$T/direct.out" && ok "starquake FILE reads a namelist by its content" \
  || bad "starquake FILE with a namelist: $(grep -m1 error "$T/direct.out")"
# a refused set-up run directly names the feature too
"$SQ" "$EX/convergence_acoustic_elastic/convergence_scholte/parameters.par" --dry-run > "$T/va.out" 2>&1
grep -q "acoustic layers (the model gives 'mu: 0') are not supported" "$T/va.out" &&
  ok "starquake convergence_scholte/parameters.par: refused" \
  || bad "starquake convergence_scholte/parameters.par: $(cat "$T/va.out")"
# an attenuating set-up: the attenuation section with SeisSol's 3 mechanisms
grep -qx "attenuation: {central_frequency: 2.5, frequency_ratio: 100, mechanisms: 3}" "$T/WP2_LOH3_parameters_par.yaml" \
  && ok "WP2_LOH3: attenuation 2.5 Hz, ratio 100, 3 mechanisms" || bad "WP2_LOH3: $(grep attenuation "$T/WP2_LOH3_parameters_par.yaml")"
echo "!ConstantMap {map: {rho: 1}}" > "$T/m.yaml"
printf '&equations\nMaterialFileName = "m.yaml"\nFreqRatio = 50\n/\n&MeshNml\nMeshFile = "x.puml.h5"\n/\n' > "$T/fr.par"
"$SQ" seissol-import "$T/fr.par" -o "$T/fr.yaml" > /dev/null 2> "$T/fr.err"
grep -q "fr.par:1: key 'FreqCentral' of '&equations' is missing" "$T/fr.err" && ok "FreqRatio without FreqCentral: $(grep error "$T/fr.err")" \
  || bad "FreqRatio without FreqCentral: $(cat "$T/fr.err")"
# seissol-import of a YAML file is an error
"$SQ" seissol-import "$CONFIGS/cli_box.yaml" > "$T/y.out" 2>&1
grep -q "not a SeisSol parameter file" "$T/y.out" && ok "seissol-import of a YAML file: an error" || bad "seissol-import YAML: $(cat "$T/y.out")"
# docs/SEISSOL.md holds the key table as the program prints it
"$SQ" seissol-import --keys > "$T/keys.md"
if [ "$(wc -l < "$T/keys.md")" -gt 100 ] && grep -qxFf "$T/keys.md" "$SRC/docs/SEISSOL.md" \
  && [ "$(grep -cxFf "$T/keys.md" "$SRC/docs/SEISSOL.md")" -eq "$(sort -u "$T/keys.md" | wc -l)" ]; then
  ok "docs/SEISSOL.md holds the $(wc -l < "$T/keys.md") lines of seissol-import --keys"
else bad "docs/SEISSOL.md lacks rows of seissol-import --keys: $(grep -vxFf "$SRC/docs/SEISSOL.md" "$T/keys.md" | head -3)"; fi
stale=$(grep '^| `&' "$SRC/docs/SEISSOL.md" | grep -vxFf "$T/keys.md")
[ -z "$stale" ] && ok "docs/SEISSOL.md has no key row that the program lacks" || bad "stale rows in docs/SEISSOL.md: $stale"
report seissol_import
