#!/bin/bash
# TPV6 (configs/tpv6) rupture times at two resolutions (docs/RUPTURE.md, *Bimaterial faults*): gmsh meshes of
# tpv6.geo in a 60 x 60 x 30 km box with fault elements of 750 and 500 m (coarser ones do not rupture beyond the
# 3 km nucleation patch at order 3), order 3, 6 s, with the Prakash-Clifton regularisation (pc) and without it
# (plain).  Rupture times of the fault faces are averaged over squares of 1.5 km that every run ruptures whole,
# then compared between the resolutions and between pc and plain.
#   tests/bench/tpv6_convergence.sh [OUTDIR]          (about 30 min on 2 cores; prints a table)
#   ONLY=pc500 tests/bench/tpv6_convergence.sh OUTDIR  runs only that one (the table uses the runs in OUTDIR)
set -eu
. "$(dirname "$0")/../lib.sh"
bench_setup "$@"
for h in 750 500; do
  [ -s "$out/tpv6-$h.msh" ] || gmsh -3 -setnumber h_fault $h -setnumber h_far 15000 -setnumber Lh 30000 -setnumber Lz 30000 \
    -format msh22 -o "$out/tpv6-$h.msh" "$here/configs/tpv6/tpv6.geo" > "$out/gmsh-$h.log" 2>&1
  for reg in pc plain; do
    n=$reg$h
    sed -e "s/file: tpv6.msh/file: tpv6-$h.msh/" -e 's/end_time: [0-9.]*/end_time: 6.0/' -e 's/order: 4/order: 3/' \
      -e "s/prefix: tpv6/prefix: $n/" -e 's/output_interval: 0.5/output_interval: 6.0/' "$here/configs/tpv6/tpv6.yaml" > "$out/$n.yaml"
    [ $reg = plain ] && sed -i '/pc_v_star\|pc_length/d' "$out/$n.yaml"
    [ -s "$out/$n/$n-summary.txt" ] || [ "${ONLY:-$n}" != "$n" ] || nice "$sq" "$out/$n.yaml" --quiet --output "$out/$n" > "$out/$n.log" 2>&1
  done
done
/usr/bin/python3 - "$out" <<'PY'
import sys, os, h5py, numpy as np
out = sys.argv[1]
def binned(name, h=1500.0):
    with h5py.File(f"{out}/{name}/{name}-fault.h5", "r") as f:
        g = f["mesh/geometry"][:]
        last = sorted(k for k in f.keys() if k.startswith("step_"))[-1]
        rt = f[last + "/rupture_time"][:]
    tri = g.reshape(len(rt), 3, 3); c = tri.mean(axis=1)
    area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    key = np.stack([np.floor((c[:, 0] + 15000) / h), np.floor(-c[:, 2] / h)], axis=1).astype(int)
    b = {}
    for k, a, t in zip(map(tuple, key), area, rt):
        s = b.setdefault(k, [0.0, 0.0, True]); s[0] += a * t; s[1] += a; s[2] &= t >= 0
    return {k: s[0] / s[1] for k, s in b.items() if s[2]}
names = [n for n in ["pc750", "pc500", "plain750", "plain500"] if os.path.exists(f"{out}/{n}/{n}-summary.txt")]
R = {n: binned(n) for n in names}
common = sorted(set.intersection(*[set(R[n]) for n in names]))
print(f"rupture times averaged over the {len(common)} squares of 1.5 km that every run ruptures whole; RMS (largest) difference, s")
print("| runs compared | difference |")
print("|---|---|")
for a, b in [("pc750", "pc500"), ("plain750", "plain500"), ("pc750", "plain750"), ("pc500", "plain500")]:
    if a not in R or b not in R: continue
    d = np.array([R[a][k] - R[b][k] for k in common])
    print(f"| {a} vs {b} | {np.sqrt(np.mean(d * d)):.4f} ({np.abs(d).max():.4f}) |")
PY
