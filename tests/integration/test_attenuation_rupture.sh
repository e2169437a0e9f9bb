#!/bin/bash
# Viscoelastic attenuation together with dynamic rupture and off-fault plasticity, through the binary
# (tests/configs/attenuation_rupture.yaml: linear slip weakening, two LTS clusters with fault faces in both,
# Qp 40, Qs 20; the same with a Drucker-Prager section; the same with the rate-and-state aging law):
#  - each runs and ruptures: peak slip, ruptured area and seismic moment > 0, the fault outputs (cplot,
#    fault HDF5, SeisSol fault receivers, SCEC stations) and the off-fault receivers written; plasticity yields;
#  - LTS against GTS (rate 1): at each receiver the difference is at most 2.5 times the elastic run's LTS-GTS
#    difference there, or 2% of the peak (an error of the size of the attenuation's own effect at the receiver
#    in the fine cluster, 4%, fails), the seismic moment within 1%; GTS through the tasks equals the serial
#    reference bit for bit;
#  - three MPI ranks (METIS bwm: 7 fault faces across ranks; plasticity: two ranks, the fault split between
#    them) give the bits of one process (dofs hash, cplot, stations, receivers);
#  - a restart from the checkpoint at t = 0.4 of 0.8 gives every output of the uninterrupted run bit for bit
#    (the memory variables, the friction state and the plastic strain are in the checkpoint);
#  - Q = 1e12 gives the elastic run to round-off (receivers and fault receivers within 1e-9 of their peak);
#  - Qp 40, Qs 20 changes the receivers by more than 5% of their peak against the elastic run, and against
#    the elastic run with the unrelaxed moduli (the test fails if the attenuation were ignored).
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir OUT
allow_mpirun
CFG=$CONFIGS/attenuation_rupture.yaml
P=arup

# relative A B WHAT: the largest difference of the receivers (WHAT = receiver) or fault receivers
# (faultreceiver) of runs A and B, relative to B's peak of each file, over all files (the same rows)
relative() {
  $PY - "$1" "$2" "$3" << 'PY'
import glob, os, sys
import numpy as np
a, b, what = sys.argv[1:4]
worst = 0.0
files = sorted(glob.glob('%s/*-%s-*.dat' % (b, what)))
assert files, 'no %s files in %s' % (what, b)
for fb in files:
    fa = os.path.join(a, os.path.basename(fb))
    load = lambda f: np.array([[float(v) for v in l.split()] for l in open(f) if l[:1] in ' 0123456789-'])
    x, y = load(fa), load(fb)
    assert x.shape == y.shape, '%s: %s rows against %s' % (os.path.basename(fb), x.shape, y.shape)
    worst = max(worst, np.abs(x[:, 1:] - y[:, 1:]).max() / np.abs(y[:, 1:]).max())
print('%.2e' % worst)
PY
}
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 < b + 0) }'; }

# case_checks NAME CONFIG NP: the checks above for one set-up, with NP MPI ranks
case_checks() {
  local name=$1 cfg=$2 np=$3 d=$OUT/$1 h ref
  mkdir -p "$d"
  run "$d/lts" "$cfg" || return
  ref=$(hash_of "$d/lts" $P)
  # it ruptures, and writes its outputs
  local slip area m0
  slip=$(summary_value "$d/lts/$P-summary.txt" peak_slip) area=$(summary_value "$d/lts/$P-summary.txt" ruptured_area)
  m0=$(summary_value "$d/lts/$P-summary.txt" seismic_moment)
  local files=0 f
  for f in cplot fault.h5 fault.xdmf faultreceiver-00001.dat faultreceiver-00002.dat faultst000dp040 faultst060dp040 \
    receiver-00001.dat receiver-00002.dat checkpoint.h5; do
    [ -s "$d/lts/$P-$f" ] && files=$((files + 1)) || echo "  missing $P-$f"
  done
  if lt 0.5 "$slip" && lt 1e6 "$area" && lt 1e16 "$m0" && [ $files = 10 ] &&
    [ "$(grep -c '^ *[0-9]' "$d/lts/$P-cplot")" -gt 50 ]; then
    ok "$name: ruptures (peak slip $slip m, ruptured area $area m^2, M0 $m0 N m), 10 output files, $(grep -c '^ *[0-9]' "$d/lts/$P-cplot") cplot rows"
  else bad "$name: peak slip '$slip', area '$area', M0 '$m0', $files of 10 output files"; fi
  # several MPI ranks against one
  if command -v "${MPIRUN:-mpirun}" > /dev/null; then
    timeout 300 "${MPIRUN:-mpirun}" -np "$np" --oversubscribe "$SQ" "$cfg" --partition bwm --output "$d/mpi" > "$d/mpi.log" 2>&1
    h=$(hash_of "$d/mpi" $P)
    local across
    across=$(grep -o '([0-9]* across ranks)' "$d/mpi.log" | tr -dc '0-9')
    if [ -n "$h" ] && [ "$h" = "$ref" ] && cmp -s "$d/lts/$P-cplot" "$d/mpi/$P-cplot" &&
      cmp -s "$d/lts/$P-faultst000dp040" "$d/mpi/$P-faultst000dp040" && cmp -s "$d/lts/$P-faultst060dp040" "$d/mpi/$P-faultst060dp040" &&
      cmp -s "$d/lts/$P-receiver-00001.dat" "$d/mpi/$P-receiver-00001.dat" && cmp -s "$d/lts/$P-receiver-00002.dat" "$d/mpi/$P-receiver-00002.dat"
    then ok "$name: $np MPI ranks (${across:-?} fault faces across ranks) = one rank: dofs $h, cplot, stations, receivers"
    else bad "$name: $np MPI ranks: ${h:-failed} != $ref"; tail -3 "$d/mpi.log"; fi
  else
    echo "skip MPI (mpirun not found)"
  fi
  # restart from the checkpoint at t = 0.4
  cp -r "$d/lts" "$d/rst" && rm -f "$d/rst/$P-summary.txt" && run "$d/rst" "$cfg" --restart "$d/rst/$P-checkpoint.h5"
  local diffs
  if diffs=$(same_outputs "$d/lts" "$d/rst" '*manifest.txt') && [ "$(hash_of "$d/rst" $P)" = "$ref" ]; then
    ok "$name: restart at t = 0.4: every output equals the uninterrupted run's (dofs $ref)"
  else bad "$name: restart: $diffs"; fi
  # Q = 1e12 against the elastic run; Q 40 / 20 against the elastic run
  sed 's/qp: 40, qs: 20/qp: 1.0e12, qs: 1.0e12/' "$cfg" > "$d/qinf.yaml"
  sed -e '/^attenuation:/,/^  mechanisms/d' -e 's/, qp: 40, qs: 20//' "$cfg" > "$d/el.yaml"
  if run "$d/qinf" "$d/qinf.yaml" && run "$d/el" "$d/el.yaml"; then
    local rr rf rq
    rr=$(relative "$d/qinf" "$d/el" receiver) rf=$(relative "$d/qinf" "$d/el" faultreceiver)
    lt "$rr" 1e-9 && lt "$rf" 1e-9 && ok "$name: Q = 1e12 = elastic: receivers within $rr, fault receivers within $rf of their peak" ||
      bad "$name: Q = 1e12 against elastic: receivers $rr, fault receivers $rf (bound 1e-9)"
    rq=$(relative "$d/lts" "$d/el" receiver)
    lt 0.05 "$rq" && ok "$name: Qp 40, Qs 20 against elastic: the receivers differ by $rq of their peak (> 0.05)" ||
      bad "$name: Qp 40, Qs 20 against elastic: the receivers differ by only $rq (<= 0.05)"
  fi
  # LTS against GTS, with and without attenuation; GTS through the tasks against the serial reference (which
  # takes no receivers: they do not change the dofs)
  sed 's/lts: {rate: 2}/lts: {rate: 1}/' "$cfg" > "$d/gts.yaml"
  sed 's/lts: {rate: 2}/lts: {rate: 1}/' "$d/el.yaml" > "$d/el-gts.yaml"
  sed '/^receivers:/,/^  interval/d' "$d/gts.yaml" > "$d/serial.yaml"
  if run "$d/gts" "$d/gts.yaml" && run "$d/el-gts" "$d/el-gts.yaml"; then
    local m
    m=$(awk -v a="$m0" -v b="$(summary_value "$d/gts/$P-summary.txt" seismic_moment)" 'BEGIN { d = (a - b) / b; printf "%.2e", d < 0 ? -d : d }')
    check "$name: LTS vs GTS" "$PY" - "$d" "$m" << 'PY'
import sys
import numpy as np
d, m = sys.argv[1], float(sys.argv[2])
load = lambda run, r: np.array([[float(v) for v in l.split()] for l in open('%s/%s/arup-receiver-%05d.dat' % (d, run, r))
                                if l[:1] in ' 0123456789-'])[:, 1:]
ok, text = m < 0.01, []
for r in (1, 2):
    dv = np.abs(load('lts', r) - load('gts', r)).max() / np.abs(load('gts', r)).max()
    de = np.abs(load('el', r) - load('el-gts', r)).max() / np.abs(load('el-gts', r)).max()
    ok = ok and dv <= max(2.5 * de, 0.02)
    text.append('receiver %d %.2e (elastic %.2e)' % (r, dv, de))
print('%s of their peak (bound: 2.5 x elastic or 0.02); seismic moment %.2e (bound 0.01)' % (', '.join(text), m))
sys.exit(0 if ok else 1)
PY
    if run "$d/serial" "$d/serial.yaml" --serial; then
      local a b
      a=$(hash_of "$d/gts" $P) b=$(hash_of "$d/serial" $P)
      [ -n "$a" ] && [ "$a" = "$b" ] && ok "$name: GTS tasks = serial reference ($a)" || bad "$name: GTS tasks $a != serial $b"
    fi
  fi
}

case_checks slip-weakening "$CFG" 3
# the anelastic terms themselves, not only the unrelaxed moduli: an elastic run with the moduli the solver
# steps with (lambda_u, mu_u, from `starquake probe`) is as far from the viscoelastic run as the elastic one
read -r lu muu <<< "$("$SQ" probe "$CFG" --points 0,3000,-3000 2> /dev/null | awk 'NR == 2 { print $7, $6 }')"
sed -e '/^attenuation:/,/^  mechanisms/d' -e "s/lambda: 32043759360, mu: 32038120320, qp: 40, qs: 20/lambda: $lu, mu: $muu/" \
  "$CFG" > "$OUT/unrelaxed.yaml"
if [ -n "$muu" ] && run "$OUT/unrelaxed" "$OUT/unrelaxed.yaml"; then
  ru=$(relative "$OUT/slip-weakening/lts" "$OUT/unrelaxed" receiver)
  lt 0.05 "$ru" && ok "slip-weakening: the elastic run with the unrelaxed moduli (lambda $lu, mu $muu) differs by $ru (> 0.05)" ||
    bad "slip-weakening: the elastic run with the unrelaxed moduli differs by only $ru (<= 0.05)"
fi
# plasticity: the same background stress in the rock (isotropic 120 MPa plus the fault's 70 MPa shear) below
# the yield stress (C cos phi + 120 MPa sin phi = 78.8 MPa); the rupture's stress concentration yields
sed 's/initial_stress: {yy: -120e6, xy: 70e6}/initial_stress: {xx: -120e6, yy: -120e6, zz: -120e6, xy: 70e6}/' "$CFG" > "$OUT/plast.yaml"
printf 'plasticity:\n  cohesion: 20e6\n  bulk_friction: 0.6\n  tv: 0.05\n' >> "$OUT/plast.yaml"
case_checks plasticity "$OUT/plast.yaml" 2
y=$(summary_value "$OUT/plasticity/lts/$P-summary.txt" plastic_yielded_cells)
[ "${y:-0}" -gt 0 ] && ok "plasticity: $y cells yield" || bad "plasticity: no cell yields"
# rate and state (aging law), nucleated by 30 MPa within 2 km of the hypocentre over 0.1 s: ruptures, restart
sed -e 's/friction_law: linear_slip_weakening/friction_law: rate_state_aging/' -e '/^  mu_d:/d' -e '/^  d_c:/d' \
  -e '/^  patches:/d' -e '/traction_strike: 81.6e6/d' \
  -e 's/^  mu_s: 0.677/  a: 0.008\n  b: 0.012\n  L: 0.02\n  f0: 0.6\n  V0: 1.0e-6\n  initial_slip_rate: 1.0e-12\n  nucleation_strike: "if(x^2 + (z + 4500)^2 < 4e6, 30e6, 0)"\n  nucleation_time: 0.1/' \
  "$CFG" > "$OUT/rs.yaml"
d=$OUT/rs
mkdir -p "$d"
if run "$d/lts" "$OUT/rs.yaml"; then
  slip=$(summary_value "$d/lts/$P-summary.txt" peak_slip) psr=$(summary_value "$d/lts/$P-summary.txt" peak_slip_rate)
  lt 0.5 "$slip" && lt 1 "$psr" && ok "rate and state: nucleates (peak slip $slip m, peak slip rate $psr m/s)" ||
    bad "rate and state: peak slip '$slip', peak slip rate '$psr'"
  cp -r "$d/lts" "$d/rst" && rm -f "$d/rst/$P-summary.txt" && run "$d/rst" "$OUT/rs.yaml" --restart "$d/rst/$P-checkpoint.h5"
  if diffs=$(same_outputs "$d/lts" "$d/rst" '*manifest.txt') && [ "$(hash_of "$d/rst" $P)" = "$(hash_of "$d/lts" $P)" ]; then
    ok "rate and state: restart at t = 0.4: every output equals the uninterrupted run's"
  else bad "rate and state: restart: $diffs"; fi
fi
report attenuation_rupture
