#!/bin/bash
# TPV13 with the plasticity's initial stress at the nodal points of each element (the default) and at the
# element centroids (plasticity.initial_stress_at: centroid), on the same coarse mesh; compares plastic
# strain, plastic moment, the on-fault stations (slip, peak slip rate, rupture time) and the receivers.
#   configs/tpv13/compare_stress_at.sh [starquake options]
# Environment: H_FAULT (default 1500 m), H_FAR (15000 m), ORDER (3), END (8 s); OUT (output/tpv13-stress-at).
# Writes $OUT/nodes/ and $OUT/centroid/ (the runs), prints the comparison and, with matplotlib and h5py,
# draws $OUT/receivers.png, $OUT/fault.png and $OUT/eta.png (the figures of docs/PLASTICITY.md).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
sq=${SQ_BIN:-$here/../../starquake}
out=${OUT:-output/tpv13-stress-at}
mkdir -p "$out"
mesh=$out/tpv13-${H_FAULT:-1500}-${H_FAR:-15000}.msh
[ -s "$mesh" ] || gmsh -3 -setnumber h_fault "${H_FAULT:-1500}" -setnumber h_far "${H_FAR:-15000}" -format msh22 \
  -o "$mesh" "$here/tpv13.geo" > "$out/gmsh.log"
for at in nodes centroid; do
  t0=$(date +%s.%N)
  "$sq" "$here/tpv13.yaml" --set "mesh.file=$(cd "$(dirname "$mesh")" && pwd)/$(basename "$mesh")" \
    --set "equations.order=${ORDER:-3}" --set "equations.end_time=${END:-8}" --set "plasticity.initial_stress_at=$at" \
    --output "$out/$at" --quiet "$@"
  printf '%s: wall time %.1f s\n' "$at" "$(echo "$(date +%s.%N) - $t0" | bc)"
done
/usr/bin/python3 - "$out" "$here/tpv13.yaml" << 'PY'
import glob, math, os, sys
import numpy as np
out, cfg = sys.argv[1], sys.argv[2]
runs = ("nodes", "centroid")
mu = 2.9403e10  # tpv13.yaml: one material

def summary(run):
    d = {}
    for line in open(os.path.join(out, run, "tpv13-summary.txt")):
        k, _, v = line.partition(":")
        d[k.strip()] = v.strip()
    return d

S = {r: summary(r) for r in runs}
print("%-28s %18s %18s" % ("", *runs))
for k in ("plastic_yielded_cells", "plastic_yield_updates", "plastic_yield_fraction", "plastic_max_eta",
          "seismic_moment", "moment_magnitude", "ruptured_area", "peak_slip", "peak_slip_rate"):
    print("%-28s %18s %18s" % (k, S["nodes"][k], S["centroid"][k]))

def load(path):
    return np.loadtxt(path, comments=("#", "TITLE", "VARIABLES", "t "))

# on-fault stations: final slip, peak slip rate, rupture time (slip rate first above 1 mm/s)
print("\non-fault station        final slip (m)        peak slip rate (m/s)     rupture time (s)")
fault = {}
for st in sorted(os.path.basename(p) for p in glob.glob(os.path.join(out, "nodes", "tpv13-faultst*"))):
    row = []
    for r in runs:
        d = load(os.path.join(out, r, st))
        slip, rate = np.hypot(d[:, 1], d[:, 4]), np.hypot(d[:, 2], d[:, 5])
        above = np.nonzero(rate > 1e-3)[0]
        fault[(st, r)] = (d[:, 0], rate)
        row.append((slip[-1], rate.max(), d[above[0], 0] if len(above) else math.nan))
    print("%-20s %8.3f %8.3f  %10.3f %10.3f  %10.3f %10.3f" % (st[len("tpv13-faultst"):], row[0][0], row[1][0],
                                                               row[0][1], row[1][1], row[0][2], row[1][2]))

# receivers: peak |v| and the relative L2 difference of the velocity traces
print("\nreceiver   peak |v| nodes   centroid   |v_nodes - v_centroid|_2 / |v_nodes|_2")
rec = {}
for k in (1, 2, 3):
    d = {r: load(os.path.join(out, r, "tpv13-receiver-%05d.dat" % k)) for r in runs}
    n = min(len(d[r]) for r in runs)
    v = {r: d[r][:n, 7:10] for r in runs}
    rec[k] = (d["nodes"][:n, 0], v)
    diff = np.sqrt(((v["nodes"] - v["centroid"]) ** 2).sum() / (v["nodes"] ** 2).sum())
    print("%8d   %12.4f %10.4f   %.3f" % (k, *(np.sqrt((v[r] ** 2).sum(axis=1)).max() for r in runs), diff))

try:
    import h5py
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("(no h5py/matplotlib: no plastic moment, no figures)")
    sys.exit(0)

# plastic moment int mu eta dV and eta per cell from the wavefield snapshots
eta, moment = {}, {}
for r in runs:
    with h5py.File(os.path.join(out, r, "tpv13-wavefield.h5"), "r") as f:
        X, T = f["/mesh/geometry"][()], f["/mesh/topology"][()]
        vol = np.abs(np.einsum("ij,ij->i", np.cross(X[T[:, 1]] - X[T[:, 0]], X[T[:, 2]] - X[T[:, 0]]),
                               X[T[:, 3]] - X[T[:, 0]])) / 6.0
        steps = sorted(k for k in f if k.startswith("step_"))
        moment[r] = [(float(f[s].attrs.get("time", i)), mu * (vol * f[s]["eta"][()]).sum()) for i, s in enumerate(steps)]
        eta[r] = f[steps[-1]]["eta"][()]
        centroid = X[T].mean(axis=1)
print("\nplastic moment (N m), last snapshot: nodes %.4e, centroid %.4e (ratio %.3f)"
      % (moment["nodes"][-1][1], moment["centroid"][-1][1], moment["nodes"][-1][1] / moment["centroid"][-1][1]))
depth = -centroid[:, 2]
for lo, hi in ((0, 3000), (3000, 6000), (6000, 10000), (10000, 1e9)):
    m = (depth >= lo) & (depth < hi)
    print("cells %5.0f-%5s m deep: with eta > 0 nodes %5d centroid %5d; sum mu eta dV nodes %.3e centroid %.3e"
          % (lo, "" if hi > 1e8 else "%.0f" % hi, (eta["nodes"][m] > 0).sum(), (eta["centroid"][m] > 0).sum(),
             mu * (vol[m] * eta["nodes"][m]).sum(), mu * (vol[m] * eta["centroid"][m]).sum()))
# eta near the on-fault stations: largest eta of the cells whose centroid lies within 2 km
stations = {"000dp030": (0, 1500, -2598.08), "000dp075": (0, 3750, -6495.19), "000dp120": (0, 6000, -10392.30)}
for name, x in stations.items():
    near = np.linalg.norm(centroid - np.array(x), axis=1) < 2000
    print("max eta within 2 km of station %s: nodes %.3e centroid %.3e" % (name, eta["nodes"][near].max(),
                                                                         eta["centroid"][near].max()))

fig, ax = plt.subplots(3, 3, figsize=(13, 8), sharex=True)
for i, k in enumerate((1, 2, 3)):
    t, v = rec[k]
    for j, c in enumerate(("v1", "v2", "v3")):
        ax[i, j].plot(t, v["nodes"][:, j], "C0", lw=1, label="nodal points")
        ax[i, j].plot(t, v["centroid"][:, j], "C3--", lw=1, label="centroid")
        ax[i, j].set_title("receiver %d %s (m/s)" % (k, c), fontsize=9)
ax[0, 0].legend(fontsize=8)
for a in ax[-1]: a.set_xlabel("t (s)")
fig.tight_layout()
fig.savefig(os.path.join(out, "receivers.png"), dpi=90)

fig, ax = plt.subplots(1, 3, figsize=(13, 3.5))
for a, st in zip(ax, ("tpv13-faultst000dp030", "tpv13-faultst000dp075", "tpv13-faultst000dp120")):
    for r, style in zip(runs, ("C0", "C3--")):
        t, rate = fault[(st, r)]
        a.plot(t, rate, style, lw=1, label="nodal points" if r == "nodes" else "centroid")
    a.set_title("slip rate (m/s), station %s" % st[len("tpv13-faultst"):], fontsize=9)
    a.set_xlabel("t (s)")
ax[0].legend(fontsize=8)
fig.tight_layout()
fig.savefig(os.path.join(out, "fault.png"), dpi=90)

fig, ax = plt.subplots(1, 2, figsize=(12, 4))
for r, style in zip(runs, ("C0", "C3--")):
    ax[0].plot(*zip(*moment[r]), style, marker="o", label="nodal points" if r == "nodes" else "centroid")
ax[0].set_xlabel("t (s)"), ax[0].set_ylabel("plastic moment (N m)"), ax[0].legend(fontsize=8)
bins = np.linspace(0, depth.max(), 25)
for r, style in zip(runs, ("C0", "C3")):
    h, _ = np.histogram(depth, bins, weights=mu * vol * eta[r])
    ax[1].step(0.5 * (bins[1:] + bins[:-1]) / 1000, h, style, where="mid",
               label="nodal points" if r == "nodes" else "centroid")
ax[1].set_xlabel("cell centroid depth (km)"), ax[1].set_ylabel("plastic moment per depth bin (N m), t = end")
ax[1].legend(fontsize=8)
fig.tight_layout()
fig.savefig(os.path.join(out, "eta.png"), dpi=90)
print("figures: %s/receivers.png, fault.png, eta.png" % out)
PY
