#!/bin/bash
# Rupture-time convergence on a bimaterial fault (docs/RUPTURE.md, *Bimaterial faults*): the TPV5-like box
# problem of tests/configs/rupture_box.yaml with TPV6's two materials (the "+" side y > 0 compliant: rho 2225,
# vs 2165 m/s, vp 3750 m/s) and the Prakash-Clifton regularisation of TPV6 (V* = 1 m/s, L = 0.01 m), order 3
# on nested meshes (cube sizes 3, 1.5, 0.75 km); with REGULARISE=0 the same without the regularisation.
# Rupture times are averaged over the squares of the coarsest grid that every run in OUTDIR ruptures whole and
# compared between consecutive runs, and with / without the regularisation once both ran in OUTDIR.
#   tests/bench/bimaterial_convergence.sh [OUTDIR]      (REGULARISE=1 by default; about 5 min on 2 cores; a table)
set -eu
. "$(dirname "$0")/../lib.sh"
bench_setup "$@"
reg=${REGULARISE:-1}
tag=$([ "$reg" = 1 ] && echo pc || echo plain)
base=$here/tests/configs/rupture_box.yaml
run_at() { # name cells_x
  local n=$1 cx=$2
  sed -e "s/cells: \[16, 8, 8\]/cells: [$cx, $((cx / 2)), $((cx / 2))]/" -e 's/prefix: sym/prefix: '"$n"'/' \
    -e 's/  default: {rho: 2670, lambda: 32043759360, mu: 32038120320}/  default:\n    rho: "if(y > 0, 2225, 2670)"\n    lambda: "if(y > 0, 10430911250, 32043759360)"\n    mu: "if(y > 0, 10429075625, 32038120320)"/' \
    "$base" > "$out/$n.yaml"
  [ "$reg" = 1 ] && printf '  pc_v_star: 1\n  pc_length: 0.01\n' > "$out/$n.pc" && sed -i "/^  d_c: /r $out/$n.pc" "$out/$n.yaml"
  [ -s "$out/$n/$n-fault.h5" ] || "$sq" "$out/$n.yaml" --quiet --output "$out/$n" > "$out/$n.log" 2>&1
}
run_at ${tag}8 8; run_at ${tag}16 16; run_at ${tag}32 32
PYTHONPATH=$here/tests/bench /usr/bin/python3 - "$out" "$tag" <<'PY'
import sys, numpy as np
from fault_squares import squares
out, tag = sys.argv[1], sys.argv[2]
def binned(name, h=3000.0):
    return squares(f"{out}/{name}/{name}-fault.h5", h, 9000.0)
import os
names = [t + str(n) for t in ("pc", "plain") for n in (8, 16, 32) if os.path.exists(f"{out}/{t}{n}/{t}{n}-fault.h5")]
R = {n: binned(n) for n in names}
common = sorted(set.intersection(*[set(R[n]) for n in names]))  # squares every run present ruptures whole
def diff(a, b):
    d = np.array([R[a][k] - R[b][k] for k in common])
    return f"{np.sqrt(np.mean(d * d)):.4f} ({np.abs(d).max():.4f})"
print(f"rupture times averaged over the {len(common)} squares of 3 km that every run ruptures whole; RMS (largest) difference, s")
print("| runs compared | difference |")
print("|---|---|")
for a, b in [(tag + "8", tag + "16"), (tag + "16", tag + "32")]:
    print(f"| {a} vs {b} | {diff(a, b)} |")
for n in (8, 16, 32):  # with and without the regularisation, once both benches ran in OUTDIR
    if f"pc{n}" in R and f"plain{n}" in R:
        print(f"| pc{n} vs plain{n} | {diff(f'pc{n}', f'plain{n}')} |")
PY
