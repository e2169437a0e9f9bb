#!/usr/bin/python3
"""Compare every dataset (and the `time` attributes) of two HDF5 files bit for bit.

usage: h5compare.py A.h5 B.h5   exits 0 when identical, 1 with the first difference printed.
"""
import sys

import h5py
import numpy as np


def items(f):
    out = {}
    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            out[name] = obj[()]
        if "time" in obj.attrs:
            out[name + "@time"] = np.asarray(obj.attrs["time"])
    f.visititems(visit)
    return out


def main():
    with h5py.File(sys.argv[1], "r") as fa, h5py.File(sys.argv[2], "r") as fb:
        a, b = items(fa), items(fb)
    if sorted(a) != sorted(b):
        print("different datasets: %s vs %s" % (sorted(set(a) - set(b)), sorted(set(b) - set(a))))
        return 1
    for k in sorted(a):
        x, y = np.asarray(a[k]), np.asarray(b[k])
        if x.shape != y.shape or x.dtype != y.dtype or x.tobytes() != y.tobytes():
            print("dataset %s differs (shapes %s %s)" % (k, x.shape, y.shape))
            return 1
    print("%d datasets identical" % len(a))
    return 0


if __name__ == "__main__":
    sys.exit(main())
