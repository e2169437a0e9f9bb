#!/bin/bash
# Kinematic sources (imposed slip rates; docs/RUPTURE.md, *Kinematic sources*): `starquake verify kinematic`
# (a small Yoffe patch against the point source of the same moment, and the slip of every fault point of an
# LTS run against the final slip, to rounding); configs/kinematic/kinematic.yaml on a coarse box (2 km cubes,
# order 2) run through the end of every point's slip: the seismic moment against the closed form of the
# prescribed slip, one rank against two, a restart against the uninterrupted run; bad values named with
# their file and line.
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir OUT
allow_mpirun

"$SQ" verify kinematic --json > "$OUT/verify.json" 2>&1 && grep -q '"pass": true' "$OUT/verify.json" &&
  ok "verify kinematic: $(grep -o '"max_slip_error": [^,]*, ' "$OUT/verify.json")$(grep -o '"combined_misfit": [^,]*' "$OUT/verify.json")" ||
  { bad "verify kinematic"; tail -3 "$OUT/verify.json"; }

if [ "${STARQUAKE_LONG_TESTS:-0}" = 1 ]; then # the 2% acceptance size (about 2 minutes on 2 cores)
  "$SQ" verify kinematic --size long --json > "$OUT/long.json" 2>&1 && grep -q '"pass": true' "$OUT/long.json" &&
    ok "verify kinematic --size long: $(grep -o '"combined_misfit": [^,]*' "$OUT/long.json")" ||
    { bad "verify kinematic --size long"; tail -3 "$OUT/long.json"; }
fi

# the configuration at 2 km and order 2; every point has slipped by 5.2 s (onset <= 3.5 s, tau_R + 2 tau_S = 1.6 s)
cfg=$OUT/kin.yaml
sed -e 's/cells: \[24, 12, 14\]/cells: [12, 6, 7]/' -e 's/order: 4/order: 2/' -e 's/end_time: 8.0/end_time: 5.4/' \
  -e 's|directory: output/kinematic|directory: out|' -e 's/interval: 2.0/interval: 2.7/' \
  "$SRC/configs/kinematic/kinematic.yaml" > "$cfg"
printf 'checkpoint:\n  interval: 2.7\n' >> "$cfg"
run "$OUT/A" "$cfg" && ok "configs/kinematic at 2 km, order 2: runs"
# M0 = mu int |D| dA = mu 2 m (pi 5000 3500 / 3) for the taper (1 - rho^2)^2 of the ellipse
m0=$(summary_value "$OUT/A/kinematic-summary.txt" seismic_moment)
awk -v m="${m0:-0}" 'BEGIN { mu = 2670 * 3464 * 3464; e = mu * 2 * 3.141592653589793 * 5000 * 3500 / 3;
  printf "  seismic moment %.4e, prescribed %.4e (%+.2f%%)\n", m, e, 100 * (m / e - 1); exit !(m > 0 && (m / e - 1)^2 < 0.03^2) }' &&
  ok "seismic moment within 3% of the prescribed slip's (the face rule on a kinked taper)" || bad "seismic moment ${m0:-none}"
# the hypocentre's prescribed slip: -2 (1 - 0.6^2)^2 = -0.8192 m (the station interpolates the face's points)
awk '!/^#/ && $1 != "t" { s = $2; v = $3 } END { exit !(s < -0.7 && s > -0.95 && v * v < 1e-20) }' \
  "$OUT/A/kinematic-faultst-030dp060" && ok "hypocentre station: slip about -0.82 m, slip rate 0 at the end" ||
  bad "hypocentre station: $(tail -1 "$OUT/A/kinematic-faultst-030dp060")"

ref=$(hash_of "$OUT/A" kinematic)
timeout 300 mpirun -np 2 "$SQ" "$cfg" --quiet --output "$OUT/np2" > "$OUT/np2.log" 2>&1
h=$(hash_of "$OUT/np2" kinematic)
[ -n "$ref" ] && [ "$h" = "$ref" ] && cmp -s "$OUT/A/kinematic-faultst-030dp060" "$OUT/np2/kinematic-faultst-030dp060" &&
  ok "mpirun -np 2 = one rank (dofs hash, station file)" || { bad "mpirun -np 2: ${h:-none} vs $ref"; tail -3 "$OUT/np2.log"; }

mkdir -p "$OUT/B" && cp "$OUT/A"/kinematic-checkpoint.h5* "$OUT/B/" 2> /dev/null
cp -r "$OUT/A/." "$OUT/B/"
"$SQ" "$cfg" --quiet --output "$OUT/B" --restart "$OUT/B/kinematic-checkpoint.h5" > "$OUT/B.log" 2>&1
[ "$(hash_of "$OUT/B" kinematic)" = "$ref" ] && cmp -s "$OUT/A/kinematic-faultst-030dp060" "$OUT/B/kinematic-faultst-030dp060" &&
  ok "restart from the checkpoint at 2.7 s = the uninterrupted run (dofs hash, station file)" ||
  { bad "restart: $(hash_of "$OUT/B" kinematic) vs $ref"; tail -3 "$OUT/B.log"; }

# the values from an easi model under SeisSol's names: uniform slip (-1, 0.5) over the whole 12 x 10 km fault
printf '!ConstantMap\nmap:\n  strike_slip: -1.0\n  dip_slip: 0.5\n  rupture_onset: 0.2\n  tau_S: 0.1\n  tau_R: 0.8\n' > "$OUT/f.yaml"
$PY - "$cfg" "$OUT/easi.yaml" << 'PY'
import re, sys
s = open(sys.argv[1]).read()
for k in ['strike_slip', 'dip_slip', 'rupture_onset', 'tau_S', 'rise_time']:
    s = re.sub(r'(?m)^  %s:.*\n' % k, '', s)
s = s.replace('fault:\n', 'fault:\n  easi: f.yaml\n', 1).replace('end_time: 5.4', 'end_time: 1.4')
s = re.sub(r'(?m)^checkpoint:\n.*\n', '', s)
open(sys.argv[2], 'w').write(s)
PY
run "$OUT/E" "$OUT/easi.yaml" &&
  awk -v m="$(summary_value "$OUT/E/kinematic-summary.txt" seismic_moment)" -v p="$(summary_value "$OUT/E/kinematic-summary.txt" peak_slip)" \
    'BEGIN { e = 2670 * 3464 * 3464 * sqrt(1.25) * 12000 * 10000; exit !((m / e - 1)^2 < 1e-12 && (p / sqrt(1.25) - 1)^2 < 1e-12) }' &&
  ok "fault.easi with SeisSol's names: peak slip |(-1, 0.5)| and M0 = mu |D| A (to the summary's 7 digits)" || bad "fault.easi kinematic values"

# bad values: the key and its line
expect_error() { # NAME SED PATTERN
  sed "$2" "$cfg" > "$OUT/bad.yaml"
  if "$SQ" "$OUT/bad.yaml" --quiet --output "$OUT/bad" > "$OUT/bad.log" 2>&1; then bad "$1: ran"
  elif grep -q "$3" "$OUT/bad.log"; then ok "$1: $(grep -m1 "$3" "$OUT/bad.log")"
  else bad "$1: $(tail -2 "$OUT/bad.log")"; fi
}
line=$(grep -n '^  tau_S:' "$cfg" | cut -d: -f1)
expect_error "negative tau_S" 's/^  tau_S: 0.2/  tau_S: -0.2/' "bad.yaml:$line.*tau_S"
expect_error "rise_time missing" '/^  rise_time:/d' "rise_time.*imposed_slip_rate_yoffe"
expect_error "a friction key with a kinematic law" 's/^  dip_slip: 0/  dip_slip: 0\n  mu_s: 0.6/' "mu_s.*not used"
expect_error "negative onset expression" 's|^  rupture_onset: .*|  rupture_onset: "x / 2800"|' "rupture_onset = -"
report test_kinematic
