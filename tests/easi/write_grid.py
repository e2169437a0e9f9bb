#!/usr/bin/env python3
"""Write a netCDF classic (CDF-1) file with one double variable on a regular (z, y, x) grid, as !ASAGI reads
it: write_grid.py OUT.nc VAR NX NY NZ XLO XHI YLO YHI ZLO ZHI EXPR, EXPR a Python expression in x, y, z
(e.g. "2670 + 0.01 * x - 0.3 * z").  The classic format is simple enough to write with struct (no netCDF
module needed); the easi tests and the timings of docs/EASI.md use it."""
import math
import struct
import sys


def name(s):
    b = s.encode()
    return struct.pack(">i", len(b)) + b + b"\0" * (-len(b) % 4)


def main():
    out, var = sys.argv[1], sys.argv[2]
    n = [int(v) for v in sys.argv[3:6]]
    lim = [float(v) for v in sys.argv[6:12]]
    expr = compile(sys.argv[12], "EXPR", "eval")
    coords = [[lim[2 * a] + (lim[2 * a + 1] - lim[2 * a]) * i / (n[a] - 1) for i in range(n[a])] for a in range(3)]
    # dimensions z, y, x (x fastest); variables z, y, x, then VAR(z, y, x)
    dims = [("z", n[2]), ("y", n[1]), ("x", n[0])]
    variables = [("z", [0], coords[2]), ("y", [1], coords[1]), ("x", [2], coords[0])]
    data = []
    for z in coords[2]:
        for y in coords[1]:
            for x in coords[0]:
                data.append(eval(expr, {"math": math}, {"x": x, "y": y, "z": z}))
    variables.append((var, [0, 1, 2], data))
    head = b"CDF\x01" + struct.pack(">i", 0)
    head += struct.pack(">ii", 0x0A, len(dims)) + b"".join(name(d) + struct.pack(">i", k) for d, k in dims)
    head += struct.pack(">ii", 0, 0)  # no global attributes
    # the variable list: its size first (begin offsets depend on it)
    def var_entry(v, begin):
        nm, ids, vals = v
        return (name(nm) + struct.pack(">i", len(ids)) + b"".join(struct.pack(">i", i) for i in ids) +
                struct.pack(">ii", 0, 0) + struct.pack(">iii", 6, 8 * len(vals), begin))
    size = len(head) + 8 + sum(len(var_entry(v, 0)) for v in variables)
    entries, begin = b"", size
    for v in variables:
        entries += var_entry(v, begin)
        begin += 8 * len(v[2])
    body = b"".join(struct.pack(">%dd" % len(v[2]), *v[2]) for v in variables)
    with open(out, "wb") as f:
        f.write(head + struct.pack(">ii", 0x0B, len(variables)) + entries + body)


main()
