#!/bin/bash
# TPV6 (configs/tpv6) rupture times under mesh refinement (docs/RUPTURE.md, *Bimaterial faults*): gmsh meshes of
# tpv6.geo in a 60 x 60 x 30 km box with fault elements of h m, 6 s, with the Prakash-Clifton regularisation
# (REGULARISE=0: without it).  Rupture times of the fault faces are averaged over squares of 1.5 km that every
# run ruptures whole, then compared between successive resolutions and against the finest run.
#   tests/bench/tpv6_convergence.sh [OUTDIR]
# Environment:
#   RUNS       ORDER:H pairs, coarse to fine (default "4:750 4:500 4:350 4:250")
#   STEP       mesh (meshes and configurations only) | run | table | all (default)
#   SQ_BIN     the starquake binary (default: this tree's); SQ_ARGS: its extra options
# The default runs take about 80 s on one H100 (GPU alone, SQ_ARGS="--tile-size 4096", STARPU_NCPU=0) and
# hours on 2 cores.  On a GPU host without gmsh: STEP=mesh here, carry OUTDIR there, STEP=run, then STEP=table.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
sq=${SQ_BIN:-$here/starquake}
out=${1:-$(mktemp -d)}
runs=${RUNS:-4:750 4:500 4:350 4:250}
step=${STEP:-all}
mkdir -p "$out"
out=$(cd "$out" && pwd)
names=""
for spec in $runs; do
  o=${spec%%:*} h=${spec##*:}
  n=o${o}h$h
  [ "${REGULARISE:-1}" = 0 ] && n=plain$n
  names="$names $n"
  if [ "$step" = mesh ] || [ "$step" = all ]; then
    [ -s "$out/tpv6-$h.msh" ] || gmsh -3 -setnumber h_fault "$h" -setnumber h_far 15000 -setnumber Lh 30000 -setnumber Lz 30000 \
      -format msh22 -o "$out/tpv6-$h.msh" "$here/configs/tpv6/tpv6.geo" > "$out/gmsh-$h.log" 2>&1
    sed -e "s/file: tpv6.msh/file: tpv6-$h.msh/" -e 's/end_time: [0-9.]*/end_time: 6.0/' -e "s/order: 4/order: $o/" \
      -e "s/prefix: tpv6/prefix: $n/" -e 's/output_interval: 0.5/output_interval: 6.0/' -e 's/^  interval: 1.0/  interval: 6.0/' \
      "$here/configs/tpv6/tpv6.yaml" > "$out/$n.yaml"
    [ "${REGULARISE:-1}" = 0 ] && sed -i '/pc_v_star\|pc_length/d' "$out/$n.yaml"
  fi
  if [ "$step" = run ] || [ "$step" = all ]; then
    if [ ! -s "$out/$n/$n-summary.txt" ]; then
      t=$(date +%s)
      # shellcheck disable=SC2086 # SQ_ARGS: several options
      nice "$sq" "$out/$n.yaml" --quiet ${SQ_ARGS:-} --output "$out/$n" > "$out/$n.log" 2>&1
      echo "$n: $(($(date +%s) - t)) s"
    fi
  fi
done
[ "$step" = table ] || [ "$step" = all ] || exit 0
/usr/bin/python3 - "$out" $names << 'PY'
import sys, h5py, numpy as np
out, names = sys.argv[1], sys.argv[2:]
def faces(name):
    with h5py.File(f"{out}/{name}/{name}-fault.h5", "r") as f:
        g = f["mesh/geometry"][:]
        last = sorted(k for k in f.keys() if k.startswith("step_"))[-1]
        rt = f[last + "/rupture_time"][:]
    tri = g.reshape(len(rt), 3, 3)
    area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    return tri.mean(axis=1), area, rt
def binned(name, h=1500.0):
    c, area, rt = faces(name)
    key = np.stack([np.floor((c[:, 0] + 15000) / h), np.floor(-c[:, 2] / h)], axis=1).astype(int)
    b = {}
    for k, a, t in zip(map(tuple, key), area, rt):
        s = b.setdefault(k, [0.0, 0.0, True]); s[0] += a * t; s[1] += a; s[2] &= t >= 0
    return {k: s[0] / s[1] for k, s in b.items() if s[2]}
print("| run | faces | fault area ruptured by 6 s |")
print("|---|---|---|")
for n in names:
    c, area, rt = faces(n)
    print(f"| {n} | {len(rt)} | {area[rt >= 0].sum() / area.sum():.3f} |")
R = {n: binned(n) for n in names}
common = sorted(set.intersection(*[set(R[n]) for n in names]))
if not common:
    sys.exit("no square of 1.5 km is ruptured whole by every run: the meshes are too coarse")
print(f"\nrupture times averaged over the {len(common)} squares of 1.5 km that every run ruptures whole; "
      "RMS (largest) difference and mean difference, s")
print("| runs compared | RMS (largest) | mean |")
print("|---|---|---|")
pairs = list(zip(names, names[1:])) + [(a, names[-1]) for a in names[:-2]]
for a, b in pairs:
    d = np.array([R[a][k] - R[b][k] for k in common])
    print(f"| {a} vs {b} | {np.sqrt(np.mean(d * d)):.4f} ({np.abs(d).max():.4f}) | {d.mean():+.4f} |")
PY
