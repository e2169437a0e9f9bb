#!/usr/bin/python3
"""Write the PUML (HDF5) fixtures of the bad-input suite into the folder given as argument.

The base mesh is the unit cube in 6 tetrahedra (Kuhn split) with absorbing boundaries, the same as
cube.msh; every puml_*.puml.h5 file breaks it in one way (see the matching .expect file).
Needs python3-h5py and python3-numpy (Debian packages, installed by ./quickstart).
"""
import itertools
import os
import sys

import h5py
import numpy as np

PUML_FACES = [(0, 1, 2), (0, 1, 3), (1, 2, 3), (0, 2, 3)]


def cube():
    verts = [(x, y, z) for z in (0.0, 1.0) for y in (0.0, 1.0) for x in (0.0, 1.0)]
    index = {v: i for i, v in enumerate(verts)}
    cells = []
    for perm in itertools.permutations(range(3)):
        p = [0.0, 0.0, 0.0]
        path = [tuple(p)]
        for axis in perm:
            p[axis] = 1.0
            path.append(tuple(p))
        c = [index[v] for v in path]
        a, b, d, e = (np.array(verts[i]) for i in c)
        if np.linalg.det(np.array([b - a, d - a, e - a])) < 0:
            c[1], c[2] = c[2], c[1]
        cells.append(c)
    return np.array(verts), np.array(cells, dtype=np.uint64)


def boundary_codes(cells, code=5):
    """ncell x 4 PUML face codes: `code` on faces with one cell, 0 inside."""
    count = {}
    for c in cells:
        for f in PUML_FACES:
            key = tuple(sorted(int(c[i]) for i in f))
            count[key] = count.get(key, 0) + 1
    return np.array([[code if count[tuple(sorted(int(c[i]) for i in f))] == 1 else 0 for f in PUML_FACES]
                     for c in cells], dtype=np.int32)


def pack_i32(codes):
    return np.array([sum(int(v) << (8 * f) for f, v in enumerate(row)) for row in codes], dtype=np.int32)


def write(path, geometry, connect, codes, boundary=None, skip=()):
    with h5py.File(path, "w") as h5:
        if "geometry" not in skip:
            h5.create_dataset("geometry", data=geometry)
        if "connect" not in skip:
            h5.create_dataset("connect", data=connect)
        h5.create_dataset("group", data=np.ones(len(codes), dtype=np.int32))
        h5.create_dataset("boundary", data=pack_i32(codes) if boundary is None else boundary)
        h5.attrs["boundary-format"] = np.bytes_("i32")


def main(out):
    geometry, connect = cube()
    codes = boundary_codes(connect)
    f = lambda name: os.path.join(out, name + ".puml.h5")

    write(f("puml_good"), geometry, connect, codes)
    with open(f("puml_not_hdf5"), "w") as h:
        h.write("this is not an HDF5 file\n")
    open(f("puml_empty"), "wb").close()
    data = open(f("puml_good"), "rb").read()
    with open(f("puml_truncated"), "wb") as h:
        h.write(data[: len(data) // 2])
    write(f("puml_missing_connect"), geometry, connect, codes, skip=("connect",))
    write(f("puml_connect_shape"), geometry, connect[:, :3], codes)
    bad = connect.astype(np.int64)
    bad[2, 3] = 99
    write(f("puml_vertex_out_of_range"), geometry, bad, codes)
    inv = connect.copy()
    inv[3, [1, 2]] = inv[3, [2, 1]]
    write(f("puml_inverted"), geometry, inv, codes)
    nan = geometry.copy()
    nan[5, 1] = np.nan
    write(f("puml_nan_geometry"), nan, connect, codes)
    grav = codes.copy()
    grav[0, 0] = 2
    write(f("puml_boundary_code"), geometry, connect, grav)
    write(f("puml_boundary_rows"), geometry, connect, codes, boundary=pack_i32(codes)[:-1])
    # vertex 8 repeats vertex 7 = (1, 1, 1); the last two cells use it instead: the faces they should
    # share with the other cells have one cell each, and /boundary (of the conforming cube) leaves them 0
    dup_geometry = np.vstack([geometry, geometry[7:8]])
    dup = connect.copy()
    dup[4:][dup[4:] == 7] = 8
    write(f("puml_duplicate_vertices"), dup_geometry, dup, codes)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
