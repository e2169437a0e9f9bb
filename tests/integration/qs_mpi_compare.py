#!/usr/bin/python3
"""Compare two `starquake postseismic` output folders: the station series (CSV) and the surface snapshots (HDF5,
when h5py is there) agree within a bound relative to the largest displacement.

usage: qs_mpi_compare.py DIR_A DIR_B PREFIX BOUND [--rows N]
prints the largest difference relative to the largest value; exits 1 when it exceeds BOUND, the row counts or times
differ, or a file is missing.
"""
import glob
import os
import sys

import numpy as np


def series(d, prefix):
    out = {}
    for path in sorted(glob.glob(os.path.join(d, prefix + "-gps-*.csv"))):
        rows = [l for l in open(path) if l[:1].isdigit() or l[:1] == "-"]
        out[os.path.basename(path)] = np.array([[float(x) for x in l.split(",")] for l in rows])
    return out


def main():
    a_dir, b_dir, prefix, bound = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    nrows = int(sys.argv[6]) if len(sys.argv) > 6 and sys.argv[5] == "--rows" else None
    sa, sb = series(a_dir, prefix), series(b_dir, prefix)
    if not sa or sorted(sa) != sorted(sb):
        print("station files differ: %s vs %s" % (sorted(sa), sorted(sb)))
        return 1
    umax, dmax = 0.0, 0.0
    for k in sa:
        x, y = sa[k], sb[k]
        if nrows is not None:
            x = x[:nrows]
        if x.shape != y.shape or not np.array_equal(x[:, :2], y[:, :2]):
            print("%s: rows or times differ (%s vs %s)" % (k, x.shape, y.shape))
            return 1
        umax = max(umax, np.abs(x[:, 2:]).max())
        dmax = max(dmax, np.abs(x[:, 2:] - y[:, 2:]).max())
    msg = "stations %.2e" % (dmax / umax)
    worst = dmax / umax
    try:
        import h5py
    except ImportError:
        h5py = None
    if h5py is not None:
        ha = h5py.File(os.path.join(a_dir, prefix + "-surface.h5"), "r")
        hb = h5py.File(os.path.join(b_dir, prefix + "-surface.h5"), "r")
        steps = sorted(k for k in hb.keys() if k.startswith("step_"))
        if not steps or any(k not in ha for k in steps):
            print("surface snapshots differ: %s vs %s" % (sorted(ha.keys()), sorted(hb.keys())))
            return 1
        smax, sdiff = 0.0, 0.0
        for k in steps:
            if ha[k].attrs["time"] != hb[k].attrs["time"]:
                print("%s: time %s vs %s" % (k, ha[k].attrs["time"], hb[k].attrs["time"]))
                return 1
            for f in ("u_east", "u_north", "u_up"):
                x, y = np.asarray(ha[k][f]), np.asarray(hb[k][f])
                smax = max(smax, np.abs(x).max())
                sdiff = max(sdiff, np.abs(x - y).max())
        for f in ("mesh/geometry", "mesh/topology"):
            if not np.array_equal(np.asarray(ha[f]), np.asarray(hb[f])):
                print("%s differs" % f)
                return 1
        msg += ", surface %.2e (%d snapshots)" % (sdiff / smax, len(steps))
        worst = max(worst, sdiff / smax)
    print(msg)
    return 0 if worst <= bound else 1


if __name__ == "__main__":
    sys.exit(main())
