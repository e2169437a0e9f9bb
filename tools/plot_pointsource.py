#!/usr/bin/python3
"""Draw the seismograms of `starquake verify pointsource --dump FILE` to a PNG.

usage: tools/plot_pointsource.py FILE [-o pointsource.png] [--receivers 1 4] [--title TEXT]

FILE has the rows "t receiver v1 v2 v3 v1_exact v2_exact v3_exact", and with --attenuation three more
columns, the elastic closed form.  One row of panels per receiver, one panel per velocity component: the run
(solid), the closed form (dashed) and, when given, the elastic closed form (dotted).  Needs matplotlib and
numpy (Debian: apt-get install python3-matplotlib python3-numpy).
"""
import argparse

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("-o", "--output", default="pointsource.png")
    ap.add_argument("--receivers", type=int, nargs="+", default=[1, 4])
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    d = np.loadtxt(a.file, ndmin=2)
    if d.shape[1] not in (8, 11):
        raise SystemExit("%s: expected 8 or 11 columns (verify pointsource --dump), found %d" % (a.file, d.shape[1]))
    fig, axes = plt.subplots(len(a.receivers), 3, figsize=(12, 2.6 * len(a.receivers)), squeeze=False)
    for row, r in enumerate(a.receivers):
        m = d[:, 1] == r
        if not m.any():
            raise SystemExit("%s: no receiver %d" % (a.file, r))
        t = d[m, 0]
        for c in range(3):
            ax = axes[row][c]
            ax.plot(t, d[m, 2 + c], "k-", lw=1.2, label="starquake")
            ax.plot(t, d[m, 5 + c], "r--", lw=1.0, label="closed form")
            if d.shape[1] == 11:
                ax.plot(t, d[m, 8 + c], "b:", lw=1.0, label="elastic closed form")
            ax.set_title("receiver %d, v%d" % (r, c + 1), fontsize=9)
            ax.set_xlabel("t")
    axes[0][0].legend(fontsize=8)
    if a.title:
        fig.suptitle(a.title)
    fig.tight_layout()
    fig.savefig(a.output, dpi=110)


if __name__ == "__main__":
    main()
