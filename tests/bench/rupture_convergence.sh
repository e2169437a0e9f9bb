#!/bin/bash
# Rupture-time convergence: the symmetric TPV5-like box problem of tests/configs/rupture_box.yaml
# (fault 18 km x 9 km, LSW, forced nucleation) at several orders on one mesh, and at one order on
# nested meshes (cube sizes 3, 1.5, 0.75 km).  Rupture times are averaged over the squares of the
# coarsest grid (each square holds whole faces of every finer grid) and compared between consecutive
# runs: the RMS and largest differences must shrink as the resolution grows.
#   tests/bench/rupture_convergence.sh [OUTDIR]        (about 15 min on 2 cores; prints a table)
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
sq=${SQ_BIN:-$here/starquake}
out=${1:-$(mktemp -d)}
mkdir -p "$out"
base=$here/tests/configs/rupture_box.yaml
run_at() { # name cells_x order
  local n=$1 cx=$2 o=$3
  sed -e "s/cells: \[16, 8, 8\]/cells: [$cx, $((cx / 2)), $((cx / 2))]/" -e "s/order: 3/order: $o/" \
    -e 's/prefix: sym/prefix: '"$n"'/' "$base" > "$out/$n.yaml"
  [ -s "$out/$n/$n-fault.h5" ] || "$sq" "$out/$n.yaml" --quiet --output "$out/$n" > "$out/$n.log" 2>&1
}
run_at o2 16 2; run_at o3 16 3; run_at o4 16 4; run_at o5 16 5
run_at h8 8 3; run_at h16 16 3; run_at h32 32 3
/usr/bin/python3 - "$out" <<'PY'
import sys, h5py, numpy as np
out = sys.argv[1]
def binned(name, h=3000.0):
    with h5py.File(f"{out}/{name}/{name}-fault.h5", "r") as f:
        g = f["mesh/geometry"][:]
        last = sorted(k for k in f.keys() if k.startswith("step_"))[-1]
        rt = f[last + "/rupture_time"][:]
    tri = g.reshape(len(rt), 3, 3)
    c = tri.mean(axis=1)
    e1, e2 = tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]
    area = 0.5 * np.linalg.norm(np.cross(e1, e2), axis=1)
    key = np.stack([np.floor((c[:, 0] + 9000) / h), np.floor(-c[:, 2] / h)], axis=1).astype(int)
    bins = {}
    for k, a, t in zip(map(tuple, key), area, rt):
        s = bins.setdefault(k, [0.0, 0.0, True])
        s[0] += a * t; s[1] += a; s[2] &= t >= 0
    return {k: v[0] / v[1] for k, v in bins.items() if v[2]}
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
