#!/bin/bash
# output.style: seissol and fault.reference_convention (docs/SEISSOL_OUTPUTS.md, docs/RUPTURE.md) on a
# small TPV5-like box (tests/configs/seissol_outputs.yaml, 1 s at order 2):
# - the run in SeisSol's style is read by tests/integration/seissol_outputs.py, a reader written to SeisSol's
#   format descriptions: receiver and fault-receiver headers, columns and values against the native files
#   of the same run, the energy CSV's variables, and the fault and wavefield XDMF read through HyperSlabs;
# - fault.output_mask selects the columns; flag 12 (P_f, Tmp) is refused;
# - a restart rewrites the same SeisSol-style files;
# - the two conventions with the reference point on opposite sides give the same files, byte for byte; with
#   the point on the same side, the strike quantities agree and the dip ones flip sign, to the quadrature of
#   the faces seen from the other side: slips, tractions and friction within 6 % of each column's largest
#   value, the slip rates within 30 % (the front reaches the other side's points at other times) and the
#   flipped dip slip rate correlated with the native one (> 0.95).
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir T
CFG=$SRC/tests/configs/seissol_outputs.yaml
run "$T/nat" "$CFG" && run "$T/ss" "$CFG" --set output.style=seissol &&
  if out=$($PY "$SRC/tests/integration/seissol_outputs.py" "$T/nat" "$T/ss" so 2>&1); then
    ok "SeisSol-style files read back: $(grep -c '^ok' <<< "$out") checks, e.g. $(grep 'VARIABLES Time SRs' <<< "$out" | head -1 | cut -d: -f2-)"
  else bad "SeisSol-style files: $(grep -E '^FAIL|Error' <<< "$out" | head -5)"; fi

# fault.output_mask: SRs SRd, Mud StV, ASl, RT
run "$T/mask" "$CFG" --set output.style=seissol --set 'fault.output_mask=1 0 0 1 0 0 0 1 0 1' &&
  if out=$($PY "$SRC/tests/integration/seissol_outputs.py" "$T/nat" "$T/mask" so 1001000101 2>&1); then
    ok "fault.output_mask 1 0 0 1 0 0 0 1 0 1: $(sed -n 2p "$T/mask/so-faultreceiver-00001-00000.dat")"
  else bad "fault.output_mask: $(grep -E '^FAIL|Error' <<< "$out" | head -5)"; fi
if "$SQ" "$CFG" --quiet --output "$T/m12" --set 'fault.output_mask=1 1 1 1 1 1 1 1 1 1 1 1' > "$T/m12.log" 2>&1; then
  bad "fault.output_mask flag 12 accepted"
elif grep -q "output_mask.*thermal pressurization" "$T/m12.log"; then ok "flag 12 refused: $(grep -m1 output_mask "$T/m12.log")"
else bad "flag 12: $(tail -2 "$T/m12.log")"; fi

# a restart from the checkpoint at t = 0.5 rewrites the same SeisSol-style files (DS continued)
if run "$T/r" "$CFG" --set output.style=seissol --set checkpoint.interval=0.5; then
  mkdir "$T/r0" && cp "$T"/r/so[.-]* "$T/r0/"
  if run "$T/r" "$CFG" --set output.style=seissol --set checkpoint.interval=0.5 --restart "$T/r/so-checkpoint.h5"; then
    differ=""
    for f in "$T"/r0/so-*.dat "$T/r0/so-energy.csv" "$T/r0/so-fault.xdmf" "$T/r0/so.xdmf"; do
      cmp -s "$f" "$T/r/${f##*/}" || differ="$differ ${f##*/}"
    done
    if [ -z "$differ" ]; then ok "restart at t = 0.5: the same receiver, fault receiver, energy and XDMF files"
    else bad "restart at t = 0.5 differs:$differ"; fi
  fi
fi

# the reference conventions
same() { # same DIR_A DIR_B: the native fault files and energies of both runs are identical
  local f
  for f in so-faultreceiver-00001.dat so-faultreceiver-00002.dat so-cplot so-energy.csv; do
    cmp -s "$1/$f" "$2/$f" || return 1
  done
}
run "$T/b" "$CFG" --set fault.reference_convention=seissol --set 'fault.reference_point=[0, -100000, -4500]' &&
  if same "$T/nat" "$T/b"; then ok "native with the point at y > 0 = seissol with the point at y < 0, byte for byte"
  else bad "native (y > 0) and seissol (y < 0) conventions differ"; fi
run "$T/v" "$CFG" --set fault.reference_convention=seissol --set fault.reference_method=vector \
  --set 'fault.reference_point=[0, 1, 0]' &&
  if same "$T/nat" "$T/v"; then ok "seissol reference_method vector [0, 1, 0] = native with the point at y > 0"
  else bad "reference_method vector differs"; fi
run "$T/c" "$CFG" --set fault.reference_convention=seissol &&
  if out=$($PY - "$T/nat" "$T/c" << 'PYEOF'
import sys
import numpy as np
worst = {}
for k in (1, 2):
    a, b = (np.loadtxt(f"{d}/so-faultreceiver-0000{k}.dat", comments=("#", "TITLE", "VARIABLES")) for d in sys.argv[1:3])
    # Time SRs SRd T_s T_d P_n Mud StV Sls Sld ASl PSR RT: the dip columns 2, 4, 9 flip
    sign = np.array([1, 1, -1, 1, -1, 1, 1, 1, 1, -1, 1, 1, 1])
    for c, name in enumerate("Time SRs SRd T_s T_d P_n Mud StV Sls Sld ASl PSR".split()):
        scale = np.max(np.abs(a[:, c])) or 1.0
        worst[name] = max(worst.get(name, 0), np.max(np.abs(sign[c] * b[:, c] - a[:, c])) / scale)
        if name == "SRd" and np.std(a[:, c]) > 0:  # the flipped dip slip rate follows the native one
            corr = min(worst.get("corr", 1.0), np.corrcoef(sign[c] * b[:, c], a[:, c])[0, 1])
            worst["corr"] = corr
print(" ".join(f"{k} {v:.3f}" for k, v in worst.items()))
# slips, tractions, friction: 6 %; the slip rates, peaky at a front that reaches the other side's
# quadrature points at other times: 30 %, and the dip rate correlated with the flipped one
rates = ("SRs", "SRd", "PSR")
sys.exit(0 if all(v < (0.3 if k in rates else 0.06) for k, v in worst.items() if k != "corr")
         and worst["corr"] > 0.95 else 1)
PYEOF
  ); then ok "same point, other convention: strike equal, dip flipped (largest relative differences: $out)"
  else bad "same point, other convention: $out"; fi
if "$SQ" "$CFG" --quiet --output "$T/vn" --set fault.reference_method=vector > "$T/vn.log" 2>&1; then
  bad "reference_method vector accepted with the native convention"
elif grep -q "reference_convention: seissol" "$T/vn.log"; then ok "vector without the seissol convention refused"
else bad "vector, native: $(tail -2 "$T/vn.log")"; fi
report test_seissol_outputs
