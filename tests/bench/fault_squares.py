"""tests/bench/fault_squares.py: rupture times of a run's fault output (NAME-fault.h5, the last step) averaged
over squares of the fault plane, for the rupture-convergence benchmarks (tests/bench/*_convergence.sh), which
compare runs on different meshes square by square."""
import h5py
import numpy as np


def squares(path, h, x0):
    """{(i, j): area-weighted mean rupture time} over the squares of side h of the plane (x, -z), counted from
    x = -x0 and the surface, that hold only ruptured faces (a face's square is that of its centroid)."""
    with h5py.File(path, "r") as f:
        g = f["mesh/geometry"][:]
        last = sorted(k for k in f.keys() if k.startswith("step_"))[-1]
        rt = f[last + "/rupture_time"][:]
    tri = g.reshape(len(rt), 3, 3)
    c = tri.mean(axis=1)
    area = 0.5 * np.linalg.norm(np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]), axis=1)
    key = np.stack([np.floor((c[:, 0] + x0) / h), np.floor(-c[:, 2] / h)], axis=1).astype(int)
    bins = {}
    for k, a, t in zip(map(tuple, key), area, rt):
        s = bins.setdefault(k, [0.0, 0.0, True])
        s[0] += a * t
        s[1] += a
        s[2] &= t >= 0
    return {k: v[0] / v[1] for k, v in bins.items() if v[2]}
