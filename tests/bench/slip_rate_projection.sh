#!/bin/bash
# SeisSol's slip-rate projection for linear slip weakening against starquake's point values (docs/RUPTURE.md,
# *Slip rate and state*).  The projection is not in starquake: slip_rate_projection.patch adds it to a copy of
# this (built) tree, hard-wired, in sq_fault_update (CPU): after each time point, the slip path grows by the L2
# projection of the points' |V| onto the face polynomials of degree O - 1, evaluated back at the points
# (clamped at 0 where SeisSol takes the magnitude).  Both binaries run the TPV5-like box problem of
# tests/configs/rupture_box.yaml at order 3 on nested meshes (cube sizes 3, 1.5, 0.75 km) with 7 on-fault
# stations; the table gives the slip-rate smoothness at the stations, the rupture velocities' upper tail,
# and the rupture time and peak slip rate against the finest runs.
#   tests/bench/slip_rate_projection.sh [OUTDIR]       (about 10 min on 2 cores, after make)
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$(mktemp -d)}
mkdir -p "$out"
base_bin=${SQ_BIN:-$here/starquake}
if [ ! -x "$out/tree/starquake" ]; then
  rm -rf "$out/tree"
  cp -a "$here" "$out/tree"
  (cd "$out/tree" && patch -p1 < "$here/tests/bench/slip_rate_projection.patch" > /dev/null && nice make -j2 starquake > "$out/build.log" 2>&1)
fi
cfg=$here/tests/configs/rupture_box.yaml
for cx in 8 16 32; do
  for m in base proj; do
    n=$m$cx
    sed -e "s/cells: \[16, 8, 8\]/cells: [$cx, $((cx / 2)), $((cx / 2))]/" -e "s/prefix: sym/prefix: $n/" \
      -e 's/  output_interval: 3.0/  output_interval: 3.0\n  stations: [[0, 0, -4500], [3000, 0, -4500], [6000, 0, -4500], [-6000, 0, -4500], [3000, 0, -7500], [0, 0, -1500], [7500, 0, -3000]]/' \
      "$cfg" > "$out/$n.yaml"
    bin=$base_bin
    [ $m = proj ] && bin=$out/tree/starquake
    [ -s "$out/$n/$n-summary.txt" ] || nice "$bin" "$out/$n.yaml" --quiet --output "$out/$n" > "$out/$n.log" 2>&1
  done
done
/usr/bin/python3 - "$out" <<'PY'
import sys, glob, os, h5py, numpy as np
out = sys.argv[1]
def series(n):
    r = {}
    for f in sorted(glob.glob(f"{out}/{n}/{n}-faultst*")):
        d = np.array([[float(x) for x in l.split()] for l in open(f) if l[0] not in "#t" and l.strip()])
        r[f.split("faultst")[1]] = d
    return r
def tv_excess(v):  # total variation over that of one pulse (2 x peak), minus 1: 0 for a clean pulse
    pk = np.abs(v).max()
    return np.abs(np.diff(v)).sum() / (2 * pk) - 1 if pk > 0 else 0.0
def binned(n, q, h=3000.0):
    with h5py.File(f"{out}/{n}/{n}-fault.h5", "r") as f:
        g = f["mesh/geometry"][:]
        last = sorted(k for k in f.keys() if k.startswith("step_"))[-1]
        v = f[last + "/" + q][:]; rt = f[last + "/rupture_time"][:]
    tri = g.reshape(len(v), 3, 3); c = tri.mean(axis=1)
    area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    key = np.stack([np.floor((c[:, 0] + 9000) / h), np.floor(-c[:, 2] / h)], axis=1).astype(int)
    b = {}
    for k, a, x, t in zip(map(tuple, key), area, v, rt):
        s = b.setdefault(k, [0.0, 0.0, True]); s[0] += a * x; s[1] += a; s[2] &= t >= 0
    return {k: s[0] / s[1] for k, s in b.items() if s[2]}
def roughness(n):  # RMS over faces of (face rupture time - mean of its 3 km square): front raggedness
    with h5py.File(f"{out}/{n}/{n}-fault.h5", "r") as f:
        g = f["mesh/geometry"][:]
        last = sorted(k for k in f.keys() if k.startswith("step_"))[-1]
        rt = f[last + "/rupture_time"][:]; rv = f[last + "/rupture_velocity"][:]
    ok = (rt >= 0) & np.isfinite(rv)
    return np.percentile(rv[ok], 95), np.percentile(rv[ok], 99)
print("| run | slip-rate TV excess at stations (mean, max) | rupture velocity p95, p99 (m/s) |")
print("|---|---|---|")
for n in ["base8", "proj8", "base16", "proj16", "base32", "proj32"]:
    if not os.path.exists(f"{out}/{n}/{n}-summary.txt"): continue
    s = series(n); tv = [tv_excess(d[:, 2]) for d in s.values()]
    p95, p99 = roughness(n)
    print(f"| {n} | {np.mean(tv):.3f}, {np.max(tv):.3f} | {p95:.0f}, {p99:.0f} |")
names = [n for n in ["base8", "proj8", "base16", "proj16", "base32", "proj32"] if os.path.exists(f"{out}/{n}/{n}-summary.txt")]
RT = {n: binned(n, "rupture_time") for n in names}; PS = {n: binned(n, "peak_slip_rate") for n in names}
common = sorted(set.intersection(*[set(RT[n]) for n in names]))
print(f"\naccuracy over the {len(common)} squares of 3 km every run ruptures whole: RMS difference of rupture time (s), of peak slip rate (relative)")
print("| runs compared | rupture time | peak slip rate |")
print("|---|---|---|")
pairs = [("base8", "base32"), ("proj8", "proj32"), ("base16", "base32"), ("proj16", "proj32"), ("proj8", "base32"), ("proj16", "base32"), ("base8", "proj32"), ("base16", "proj32"), ("base32", "proj32")]
for a, b in pairs:
    if a in RT and b in RT:
        dt = np.array([RT[a][k] - RT[b][k] for k in common]); dp = np.array([(PS[a][k] - PS[b][k]) / PS[b][k] for k in common])
        print(f"| {a} vs {b} | {np.sqrt(np.mean(dt * dt)):.4f} | {np.sqrt(np.mean(dp * dp)):.3f} |")
PY
