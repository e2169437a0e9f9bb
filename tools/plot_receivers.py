#!/usr/bin/python3
"""Draw receiver seismograms written by starquake to a PNG.

usage: tools/plot_receivers.py PREFIX [-o seismograms.png] [--quantities v1 v2 v3] [--receivers 1 XX.S001]
                               [--source X Y Z] [--compare OTHER_PREFIX] [--title TEXT]

PREFIX is the output directory and prefix of a run, e.g. output/loh1 for the files
output/loh1-receiver-00001.dat, ... (receivers.points, receivers.file) and output/loh1-receiver-NET.STA.dat
(receivers.stations).  Each receiver gets one row of panels, one panel per quantity.  The axes carry
SI units (s, m/s, m, Pa: the mesh in metres, as starquake's configurations are).

Quantities: the file's columns (s_xx ... s_xz, v1 v2 v3, and u1 u2 u3 with receivers.displacement),
vmag = sqrt(v1^2 + v2^2 + v3^2), and with --source X Y Z (the source position in mesh coordinates,
x east, y north, z up) the rotated components vr vt vz and ur ut uz: radial = the horizontal
direction from the source to the receiver, transverse = z x radial (ObsPy's rotate_ne_rt
convention), vertical = z up.  With --source and no --quantities it draws vr vt vz.
With --compare, a second run's receivers (same names) are drawn dashed on top, e.g. to compare two
resolutions or a run against a reference.  Needs matplotlib and numpy (Debian: apt-get install
python3-matplotlib python3-numpy).
"""
import argparse
import glob
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

UNITS = {"s_": "Pa", "v": "m/s", "u": "m"}


def unit(q):
    """SI unit of quantity @q."""
    if q.startswith("s_"):
        return UNITS["s_"]
    return UNITS.get(q[:1], "")


def read_receiver(path):
    """Return (names, location, data) of one receiver file in starquake's (SeisSol's) text format."""
    names, loc, rows = None, [None, None, None], []
    with open(path) as f:
        for line in f:
            if line.startswith("TITLE"):
                continue
            if line.startswith("VARIABLES"):
                names = [n.strip().strip('"') for n in line.split("=", 1)[1].split(",")]
                continue
            m = re.match(r"#\s*x([123])\s+(\S+)", line)
            if m:
                loc[int(m.group(1)) - 1] = float(m.group(2))
                continue
            if line.strip() and not line.startswith("#"):
                rows.append([float(v) for v in line.split()])
    if names is None:
        raise ValueError("%s: no VARIABLES line; not a receiver file" % path)
    return names, loc, np.array(rows).reshape(-1, len(names))


def rotation(loc, source):
    """Unit radial and transverse horizontal vectors at receiver @loc for a source at @source."""
    r = np.array([loc[0] - source[0], loc[1] - source[1]], dtype=float)
    norm = np.hypot(r[0], r[1])
    if norm < 1e-9 * max(1.0, abs(loc[0]) + abs(loc[1])):
        return None
    r /= norm
    return r, np.array([-r[1], r[0]])  # transverse = z x radial


def column(names, loc, data, q, source):
    """Column @q of a receiver's data: a file column, vmag, or a rotated component (None if absent)."""
    if q == "vmag" and all(v in names for v in ("v1", "v2", "v3")):
        return np.sqrt(sum(data[:, names.index(v)] ** 2 for v in ("v1", "v2", "v3")))
    m = re.fullmatch(r"([vu])([rtz])", q)
    if m and source is not None:
        f = m.group(1)
        comps = [f + "1", f + "2", f + "3"]
        if not all(c in names for c in comps):
            return None
        x, y, z = (data[:, names.index(c)] for c in comps)
        if m.group(2) == "z":
            return z
        rt = rotation(loc, source)
        if rt is None:
            sys.exit("receiver at (%g, %g, %g) is above the source: no radial direction" % tuple(loc))
        d = rt[0] if m.group(2) == "r" else rt[1]
        return d[0] * x + d[1] * y
    return data[:, names.index(q)] if q in names else None


def receivers(prefix):
    """{name: path}: numbered receivers by number (int), named ones (stations) by name."""
    out = {}
    for f in sorted(glob.glob(prefix + "-receiver-*.dat")):
        m = re.search(r"-receiver-(.+)\.dat$", f)
        if m:
            key = m.group(1)
            out[int(key) if key.isdigit() else key] = f
    return out


def order(key):
    return (0, key, "") if isinstance(key, int) else (1, 0, key)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("prefix", help="output directory and prefix, e.g. output/loh1")
    ap.add_argument("-o", "--output", default="seismograms.png", help="PNG file to write")
    ap.add_argument("--quantities", nargs="+",
                    help="columns to draw (vmag: |v|; with --source: vr vt vz ur ut uz); default v1 v2 v3, "
                         "with --source vr vt vz")
    ap.add_argument("--receivers", nargs="+", help="receiver numbers or station names (default: all, at most 20)")
    ap.add_argument("--source", nargs=3, type=float, metavar=("X", "Y", "Z"),
                    help="source position: rotate to radial, transverse, vertical")
    ap.add_argument("--compare", help="a second run's prefix, drawn dashed")
    ap.add_argument("--title", help="figure title")
    args = ap.parse_args()
    quantities = args.quantities or (["vr", "vt", "vz"] if args.source else ["v1", "v2", "v3"])

    found = receivers(args.prefix)
    if not found:
        sys.exit("no files %s-receiver-*.dat" % args.prefix)
    if args.receivers:
        keys = [int(r) if r.isdigit() else r for r in args.receivers]
    else:
        keys = sorted(found, key=order)[:20]
    other = receivers(args.compare) if args.compare else {}
    nq = len(quantities)
    fig, axes = plt.subplots(len(keys), nq, figsize=(4.0 * nq, 1.8 * len(keys) + 0.8), sharex=True, squeeze=False)
    for row, r in enumerate(keys):
        if r not in found:
            sys.exit("receiver %s: no file %s-receiver-%s.dat" % (r, args.prefix,
                                                                  "%05d" % r if isinstance(r, int) else r))
        names, loc, data = read_receiver(found[r])
        ref = read_receiver(other[r]) if r in other else None
        for col, q in enumerate(quantities):
            values = column(names, loc, data, q, args.source)
            if values is None:
                rot = ", vr vt vz ur ut uz (with --source)" if not args.source else ""
                sys.exit("%s: no column '%s' (columns: %s, vmag%s)" % (found[r], q, ", ".join(names[1:]), rot))
            ax = axes[row][col]
            ax.plot(data[:, 0], values, lw=1.0, label=args.prefix)
            other_values = column(ref[0], ref[1], ref[2], q, args.source) if ref is not None else None
            if other_values is not None:
                ax.plot(ref[2][:, 0], other_values, "--", lw=1.0, label=args.compare)
            if row == 0:
                ax.set_title(q)
            u = unit(q)
            label = "%s (%s)" % (q, u) if u else q
            if col == 0:
                name = "rec %d" % r if isinstance(r, int) else r
                label = "%s\n(%.0f, %.0f, %.0f) m\n%s" % (name, loc[0], loc[1], loc[2], label)
            ax.set_ylabel(label, fontsize=8)
            ax.tick_params(labelsize=7)
            ax.grid(alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("time (s)")
    if args.compare:
        axes[0][0].legend(fontsize=7)
    rot = " (rotated for the source at (%g, %g, %g) m)" % tuple(args.source) if args.source else ""
    fig.suptitle((args.title or args.prefix) + rot)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print("wrote %s (%d receivers x %d quantities: %s)" % (args.output, len(keys), nq, " ".join(quantities)))


if __name__ == "__main__":
    main()
