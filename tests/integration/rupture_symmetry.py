#!/usr/bin/python3
"""Rupture times of mirrored fault faces (x -> -x) of a starquake fault output: prints the largest
relative difference and exits 1 if it exceeds the tolerance or too few faces ruptured.

usage: tests/integration/rupture_symmetry.py PREFIX-fault.h5 [--tol 0.01] [--min-faces N]
"""
import argparse
import sys

import h5py
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("file")
ap.add_argument("--tol", type=float, default=0.01)
ap.add_argument("--min-faces", type=int, default=1)
a = ap.parse_args()
with h5py.File(a.file, "r") as f:
    geom = f["mesh/geometry"][:]
    last = sorted(k for k in f.keys() if k.startswith("step_"))[-1]
    rt = f[last + "/rupture_time"][:]
n = len(rt)
centre = geom.reshape(n, 3, 3).mean(axis=1)
scale = np.abs(centre).max()
index = {tuple(np.round(c / scale, 9)): i for i, c in enumerate(centre)}
worst, pairs, unmatched = 0.0, 0, 0
for i, c in enumerate(centre):
    j = index.get(tuple(np.round(np.array([-c[0], c[1], c[2]]) / scale, 9) + 0.0))
    if j is None:
        unmatched += 1
        continue
    if (rt[i] >= 0) != (rt[j] >= 0):
        print(f"face at {c} ruptured at {rt[i]:.4f} s, its mirror at {rt[j]:.4f} s")
        worst = np.inf
    elif rt[i] >= 0:
        pairs += 1
        worst = max(worst, abs(rt[i] - rt[j]) / max(rt[i], rt[j]))
print(f"{pairs} mirrored pairs of ruptured faces ({(rt >= 0).sum()} of {n} faces ruptured, {unmatched} without a "
      f"mirror): largest relative rupture-time difference {worst:.3e} (tolerance {a.tol})")
sys.exit(0 if unmatched == 0 and pairs >= a.min_faces and worst <= a.tol else 1)
