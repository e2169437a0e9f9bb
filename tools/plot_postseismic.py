#!/usr/bin/env python3
"""Plot the outputs of `starquake postseismic`: the GPS-like station series (PREFIX-gps-NAME.csv; east, north and
up displacement against years, the post-seismic part u(t) - u(0) beside the coseismic offset u(0)) and the surface
maps of PREFIX-surface.h5 (the coseismic horizontal displacement at t = 0 and the post-seismic displacement of the
last snapshot, u(t_end) - u(0), with arrows).

usage: tools/plot_postseismic.py OUTPUT_DIR PREFIX OUT_PREFIX   writes OUT_PREFIX-gps.png and OUT_PREFIX-map.png
"""
import glob
import os
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.tri as mtri  # noqa: E402
import numpy as np  # noqa: E402


def stations(outdir, prefix):
    series = {}
    for path in sorted(glob.glob(os.path.join(outdir, prefix + "-gps-*.csv"))):
        name = os.path.basename(path)[len(prefix) + 5:-4]
        series[name] = np.loadtxt(path, delimiter=",", comments="#", skiprows=3)
    return series


def plot_gps(series, png):
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.2), sharex=True)
    for name, d in series.items():
        d = np.atleast_2d(d)
        for k, label in enumerate(["east", "north", "up"]):
            ax[k].plot(d[:, 1], 1e3 * (d[:, 2 + k] - d[0, 2 + k]), label="%s (coseismic %+.3g m)" % (name, d[0, 2 + k]))
    for k, label in enumerate(["east", "north", "up"]):
        ax[k].set_xlabel("years after the earthquake")
        ax[k].set_ylabel("post-seismic u_%s (mm)" % label)
        ax[k].grid(alpha=0.3)
    ax[0].legend(fontsize=7)
    fig.suptitle("GPS-like stations: displacement after the elastic (coseismic) response")
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def plot_map(h5path, series_xy, png):
    with h5py.File(h5path, "r") as f:
        xyz = f["mesh/geometry"][()]
        tri = f["mesh/topology"][()]
        steps = sorted(k for k in f if k.startswith("step_"))
        first, last = f[steps[0]], f[steps[-1]]
        u0 = np.stack([first["u_east"][()], first["u_north"][()], first["u_up"][()]], axis=1)
        u1 = np.stack([last["u_east"][()], last["u_north"][()], last["u_up"][()]], axis=1)
        t1 = last.attrs["time"] / 31557600.0
    t = mtri.Triangulation(xyz[:, 0] / 1e3, xyz[:, 1] / 1e3, tri)
    fig, ax = plt.subplots(1, 2, figsize=(13, 5))
    for a, u, title in ((ax[0], u0, "coseismic (t = 0)"), (ax[1], u1 - u0, "post-seismic, t = %.3g years" % t1)):
        h = np.hypot(u[:, 0], u[:, 1])
        c = a.tripcolor(t, h if u is u0 else 1e3 * h, shading="gouraud", cmap="viridis")
        fig.colorbar(c, ax=a, label="horizontal displacement (%s)" % ("m" if u is u0 else "mm"))
        a.tricontour(t, u[:, 2] * (1 if u is u0 else 1e3), levels=8, colors="w", linewidths=0.6)
        keep = np.arange(0, len(h), max(1, len(h) // 300))
        a.quiver(xyz[keep, 0] / 1e3, xyz[keep, 1] / 1e3, u[keep, 0], u[keep, 1], color="k", width=0.002)
        for name, (x, y) in series_xy.items():
            a.plot(x / 1e3, y / 1e3, "r^", ms=5)
            a.annotate(name, (x / 1e3, y / 1e3), fontsize=6, color="r")
        a.set_title(title + " (white: vertical contours)")
        a.set_xlabel("x, east (km)")
        a.set_ylabel("y, north (km)")
        a.set_aspect("equal")
    fig.tight_layout()
    fig.savefig(png, dpi=80)


def station_xy(outdir, prefix):
    xy = {}
    for path in sorted(glob.glob(os.path.join(outdir, prefix + "-gps-*.csv"))):
        head = open(path).readline().split()
        name = head[2]
        xy[name] = (float(head[6]), float(head[11]))
    return xy


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    outdir, prefix, out = sys.argv[1:]
    s = stations(outdir, prefix)
    if s:
        plot_gps(s, out + "-gps.png")
        print("wrote " + out + "-gps.png")
    plot_map(os.path.join(outdir, prefix + "-surface.h5"), station_xy(outdir, prefix), out + "-map.png")
    print("wrote " + out + "-map.png")


if __name__ == "__main__":
    main()
