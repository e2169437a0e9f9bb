#!/bin/bash
# Rupture-time convergence: the symmetric TPV5-like box problem of tests/configs/rupture_box.yaml
# (fault 18 km x 9 km, LSW, forced nucleation) at several orders on one mesh, and at one order on
# nested meshes (cube sizes 3, 1.5, 0.75 km).  Rupture times are averaged over the squares of the
# coarsest grid (each square holds whole faces of every finer grid) and compared between consecutive
# runs: the RMS and largest differences must shrink as the resolution grows.
#   tests/bench/rupture_convergence.sh [OUTDIR]        (about 15 min on 2 cores; prints a table)
set -eu
. "$(dirname "$0")/../lib.sh"
bench_setup "$@"
base=$here/tests/configs/rupture_box.yaml
run_at() { # name cells_x order
  local n=$1 cx=$2 o=$3
  sed -e "s/cells: \[16, 8, 8\]/cells: [$cx, $((cx / 2)), $((cx / 2))]/" -e "s/order: 3/order: $o/" \
    -e 's/prefix: sym/prefix: '"$n"'/' "$base" > "$out/$n.yaml"
  [ -s "$out/$n/$n-fault.h5" ] || "$sq" "$out/$n.yaml" --quiet --output "$out/$n" > "$out/$n.log" 2>&1
}
run_at o2 16 2; run_at o3 16 3; run_at o4 16 4; run_at o5 16 5
run_at h8 8 3; run_at h16 16 3; run_at h32 32 3
PYTHONPATH=$here/tests/bench /usr/bin/python3 - "$out" <<'PY'
import sys, numpy as np
from fault_squares import squares
out = sys.argv[1]
def binned(name, h=3000.0):
    return squares(f"{out}/{name}/{name}-fault.h5", h, 9000.0)
def compare(a, b):
    A, B = binned(a), binned(b)
    common = sorted(set(A) & set(B))
    d = np.array([A[k] - B[k] for k in common])
    return len(common), np.sqrt(np.mean(d * d)), np.abs(d).max()
print("| runs compared | squares (3 km) | RMS rupture-time difference (s) | largest (s) |")
print("|---|---|---|---|")
for a, b in [("o2", "o3"), ("o3", "o4"), ("o4", "o5"), ("h8", "h16"), ("h16", "h32")]:
    n, rms, mx = compare(a, b)
    print(f"| {a} vs {b} | {n} | {rms:.4f} | {mx:.4f} |")
PY
