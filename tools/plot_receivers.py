#!/usr/bin/python3
"""Draw receiver seismograms written by starquake to a PNG.

usage: tools/plot_receivers.py PREFIX [-o seismograms.png] [--quantities v1 v2 v3] [--receivers 1 2 5]
                               [--compare OTHER_PREFIX] [--title TEXT]

PREFIX is the output directory and prefix of a run, e.g. output/loh1 for the files
output/loh1-receiver-00001.dat, ...  Each receiver gets one row of panels, one panel per quantity.
With --compare, a second run's receivers (same numbering) are drawn dashed on top, e.g. to compare
two resolutions or a run against a reference.  The quantity `vmag` is the velocity magnitude
sqrt(v1^2 + v2^2 + v3^2).  Needs matplotlib (Debian: apt-get install
python3-matplotlib) and numpy.
"""
import argparse
import glob
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


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


def column(names, data, q):
    """Column @q of a receiver's data, or the velocity magnitude for q = 'vmag' (None if absent)."""
    if q == "vmag" and all(v in names for v in ("v1", "v2", "v3")):
        return np.sqrt(sum(data[:, names.index(v)] ** 2 for v in ("v1", "v2", "v3")))
    return data[:, names.index(q)] if q in names else None


def receivers(prefix):
    files = sorted(glob.glob(prefix + "-receiver-*.dat"))
    out = {}
    for f in files:
        m = re.search(r"-receiver-(\d+)\.dat$", f)
        if m:
            out[int(m.group(1))] = f
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("prefix", help="output directory and prefix, e.g. output/loh1")
    ap.add_argument("-o", "--output", default="seismograms.png", help="PNG file to write")
    ap.add_argument("--quantities", nargs="+", default=["v1", "v2", "v3"], help="columns to draw (vmag: |v|)")
    ap.add_argument("--receivers", nargs="+", type=int, help="receiver numbers (default: all, at most 20)")
    ap.add_argument("--compare", help="a second run's prefix, drawn dashed")
    ap.add_argument("--title", help="figure title")
    args = ap.parse_args()

    found = receivers(args.prefix)
    if not found:
        sys.exit("no files %s-receiver-*.dat" % args.prefix)
    numbers = args.receivers or sorted(found)[:20]
    other = receivers(args.compare) if args.compare else {}
    nq = len(args.quantities)
    fig, axes = plt.subplots(len(numbers), nq, figsize=(4.0 * nq, 1.8 * len(numbers) + 0.8), sharex=True, squeeze=False)
    for row, r in enumerate(numbers):
        if r not in found:
            sys.exit("receiver %d: no file %s-receiver-%05d.dat" % (r, args.prefix, r))
        names, loc, data = read_receiver(found[r])
        ref = read_receiver(other[r]) if r in other else None
        for col, q in enumerate(args.quantities):
            values = column(names, data, q)
            if values is None:
                sys.exit("%s: no column '%s' (columns: %s, vmag)" % (found[r], q, ", ".join(names)))
            ax = axes[row][col]
            ax.plot(data[:, 0], values, lw=1.0, label=args.prefix)
            other_values = column(ref[0], ref[2], q) if ref is not None else None
            if other_values is not None:
                ax.plot(ref[2][:, 0], other_values, "--", lw=1.0, label=args.compare)
            if row == 0:
                ax.set_title(q)
            if col == 0:
                ax.set_ylabel("rec %d\n(%.0f, %.0f, %.0f)" % (r, loc[0], loc[1], loc[2]), fontsize=8)
            ax.tick_params(labelsize=7)
            ax.grid(alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("time")
    if args.compare:
        axes[0][0].legend(fontsize=7)
    fig.suptitle(args.title or args.prefix)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print("wrote %s (%d receivers x %d quantities)" % (args.output, len(numbers), nq))


if __name__ == "__main__":
    main()
