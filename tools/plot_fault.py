#!/usr/bin/python3
"""Draw starquake's dynamic-rupture (on-fault) output to PNG files.

usage: tools/plot_fault.py snapshots PREFIX-fault.h5 [--times 1 2 3] [--quantity slip_rate] [-o out.png]
       tools/plot_fault.py stations DIR_OR_FILES_OR_PREFIX... [--component dominant|h|v|both]
                                    [--quantities h-slip-rate h-shear-stress] [--stations faultst-075dp075 ...] [--compare OTHER_DIR] [-o out.png]
       tools/plot_fault.py cplot FILE_OR_PREFIX [--compare OTHER_FILE] [--interval 0.5] [--fault PREFIX-fault.h5
                                [--quantity slip]] [-o out.png]

snapshots: one panel per chosen time (the nearest written snapshot), the cell-centred values of one
  fault quantity drawn over the fault triangles in along-strike / down-dip coordinates (km; the
  down-dip axis points down).  The file holds /geometry (nvert x 3), /connect (ntri x 3, 0-based),
  /time (nsnap) and one dataset (nsnap x ntri) per quantity: slip_rate_strike, slip_rate_dip,
  slip_rate, slip_strike, slip_dip, slip, traction_strike, traction_dip, normal_stress, state, mu,
  rupture_time (-1 where not ruptured; such triangles are left blank), rupture_velocity,
  peak_slip_rate.  The XDMF-series layout (/mesh/geometry, /mesh/topology, one group
  /step_KKKKKK per snapshot with an attribute time and one dataset per quantity) is read too.
  The root attributes strike and dip give the unit along-strike and down-dip directions; without
  them a plane frame is fitted to the vertices (PCA; strike horizontal, dip pointing down).  The
  coordinates are the projections of the vertices (minus --origin, default 0 0 0) on these
  directions, so for the SCEC benchmarks, whose surface trace passes through the origin, they are
  the distance along strike and the distance down-dip from the free surface.  Values are taken in
  SI units; stresses (traction_*, normal_stress) are drawn in MPa (--scale and --unit change that).
  --list prints the datasets and snapshot times.
stations: one row of panels per on-fault station, one panel per quantity, from SCEC-format station
  files ([PREFIX-]faultst{strike}dp{depth}[.ext]: '#' header lines, a line of field names, rows of
  numbers; strike and dp are the along-strike and down-dip distances in hectometres).  By default
  (--component dominant) it draws the slip rate and shear stress of the component (h: along strike,
  v: along dip) whose peak slip rate over the drawn stations is larger, and says which: the dip
  component on a dip-slip fault such as TPV13, the strike component on TPV5.  --component both
  draws both; --quantities names the columns outright.  Arguments are files, directories (all *faultst*dp* files in them) or run prefixes
  (output/tpv5 for output/tpv5-faultst*).  With --compare, the stations of the same name
  faultst{strike}dp{depth} in another directory or run (e.g. a reference solution) are drawn dashed.
cplot: rupture-time contours (every --interval s, default 0.5 s) from a SCEC `cplot` file (or
  PREFIX-cplot for a run prefix) with the columns j (along strike, m), k (down-dip, m), t (s);
  negative times (not ruptured) are left out.  With --compare, a second cplot file is drawn dashed.
  With --fault, the last snapshot of a fault output file's --quantity (default slip) is drawn in colour
  under the contours, in the same along-strike / down-dip coordinates (the snapshots' frame, origin 0 0 0).

Needs matplotlib, numpy and, for snapshots, h5py (Debian: apt-get install python3-matplotlib
python3-h5py).
"""
import argparse
import glob
import math
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.tri as mtri  # noqa: E402
import numpy as np  # noqa: E402

STRESS_QUANTITIES = ("traction_strike", "traction_dip", "normal_stress")
UNITS = {
    "slip_rate_strike": "m/s", "slip_rate_dip": "m/s", "slip_rate": "m/s", "peak_slip_rate": "m/s",
    "slip_strike": "m", "slip_dip": "m", "slip": "m", "rupture_time": "s", "rupture_velocity": "m/s",
    "mu": "", "state": "",
}
STATION_UNITS = {"slip": "m", "slip-rate": "m/s", "shear-stress": "MPa", "n-stress": "MPa", "psi": ""}
# drawn on a symmetric, diverging colour scale when they take both signs
SIGNED_QUANTITIES = ("slip_rate_strike", "slip_rate_dip", "slip_strike", "slip_dip")
# drawn from 0
MAGNITUDES = ("slip_rate", "slip", "peak_slip_rate", "rupture_time", "rupture_velocity")


# ------------------------------------------------------------------------------------------------
# snapshots
# ------------------------------------------------------------------------------------------------

def unit(v):
    v = np.asarray(v, dtype=float).reshape(3)
    n = np.linalg.norm(v)
    if n == 0:
        raise ValueError("zero direction vector")
    return v / n


def plane_frame(xyz):
    """Unit (strike, dip) of the plane fitted to the points: strike horizontal, dip pointing down."""
    c = xyz.mean(axis=0)
    _, _, vt = np.linalg.svd(xyz - c, full_matrices=False)
    normal = vt[2]
    strike = np.cross([0.0, 0.0, 1.0], normal)
    if np.linalg.norm(strike) < 1e-6:  # horizontal plane: take the direction of largest extent
        strike = vt[0]
    strike = unit(strike)
    if strike[np.argmax(np.abs(strike))] < 0:
        strike = -strike
    dip = unit(np.cross(normal, strike))
    if dip[2] > 0 or (dip[2] == 0 and dip[np.argmax(np.abs(dip))] < 0):
        dip = -dip
    return strike, dip


class FaultFile:
    """A fault output file in either layout: flat (/geometry, /connect, /time, /<name> of nsnap x ntri) or
    the XDMF series of sq_xdmf_open() (/mesh/geometry, /mesh/topology, /step_KKKKKK/<name> with an
    attribute time)."""

    def __init__(self, path):
        import h5py  # only the snapshots command needs it

        self.path = path
        self.f = f = h5py.File(path, "r")
        self.steps = sorted(k for k in f.keys() if re.match(r"^step_\d+$", k))
        if "geometry" in f and "connect" in f and "time" in f:
            self.layout = "flat"
            geom, conn = f["geometry"], f["connect"]
            self.time = np.asarray(f["time"][...], dtype=float).reshape(-1)
            self.names = sorted(k for k in f.keys() if k not in ("geometry", "connect", "time")
                                and isinstance(f[k], h5py.Dataset))
        elif "mesh" in f and "geometry" in f["mesh"] and "topology" in f["mesh"]:
            self.layout = "series"
            geom, conn = f["mesh"]["geometry"], f["mesh"]["topology"]
            self.time = np.array([float(np.ravel(f[g].attrs.get("time", np.nan))[0]) for g in self.steps])
            self.names = sorted(f[self.steps[0]].keys()) if self.steps else []
        else:
            sys.exit("%s: neither /geometry, /connect, /time nor /mesh/geometry, /mesh/topology; not a starquake "
                     "fault output file" % path)
        self.xyz = np.asarray(geom[...], dtype=float).reshape(-1, 3)
        self.tri = np.asarray(conn[...], dtype=np.int64).reshape(-1, 3)
        if self.tri.size and (self.tri.min() < 0 or self.tri.max() >= len(self.xyz)):
            sys.exit("%s: the triangles refer to vertices outside 0..%d" % (path, len(self.xyz) - 1))
        attrs = [f.attrs] + ([f["mesh"].attrs] if "mesh" in f else [])
        found = [a for a in attrs if "strike" in a and "dip" in a]
        if found:
            self.strike, self.dip, self.frame = unit(found[0]["strike"]), unit(found[0]["dip"]), "attributes"
        else:
            self.strike, self.dip = plane_frame(self.xyz)
            self.frame = "fitted"

    def shape(self, name):
        if self.layout == "flat":
            return self.f[name].shape
        return (len(self.steps),) + self.f[self.steps[0]][name].shape

    def data(self, name):
        """The (nsnap x ntri) values of one quantity (node values are averaged over each triangle)."""
        nsnap, ntri, nvert = len(self.time), len(self.tri), len(self.xyz)
        if name not in self.names:
            sys.exit("%s: no quantity '%s' (quantities: %s)" % (self.path, name, ", ".join(self.names)))
        if self.layout == "flat":
            a = np.asarray(self.f[name][...], dtype=float)
            if a.ndim == 1 and a.size in (ntri, nvert):
                a = a.reshape(1, -1)
            elif a.ndim == 2 and a.shape[0] in (ntri, nvert) and a.shape[1] == nsnap and a.shape[0] != nsnap:
                a = a.T
        else:
            a = np.array([np.asarray(self.f[g][name][...], dtype=float).reshape(-1) for g in self.steps])
        if a.ndim == 2 and a.shape[1] == nvert and nvert != ntri:
            a = a[:, self.tri].mean(axis=2)
        if a.ndim != 2 or a.shape[1] != ntri:
            sys.exit("%s: %s has shape %s, expected (%d, %d)" % (self.path, name, a.shape, nsnap, ntri))
        if a.shape[0] != nsnap:
            if a.shape[0] != 1:
                sys.exit("%s: %s has %d rows but there are %d times" % (self.path, name, a.shape[0], nsnap))
            a = np.repeat(a, nsnap, axis=0)  # a time-independent quantity, written once
        return a


def cmd_snapshots(args):
    ff = FaultFile(args.file)
    xyz, tri, time, strike, dip, frame = ff.xyz, ff.tri, ff.time, ff.strike, ff.dip, ff.frame
    ntri, nsnap = len(tri), len(time)
    if args.list:
        print("%s (%s layout): %d vertices, %d triangles, %d snapshots (t = %s)" % (
            args.file, ff.layout, len(xyz), ntri, nsnap, " ".join("%g" % t for t in time)))
        print("strike %s, dip %s (%s)" % (np.round(strike, 4) + 0.0, np.round(dip, 4) + 0.0, frame))
        for k in ff.names:
            print("  %-18s %s" % (k, ff.shape(k)))
        return
    if nsnap == 0:
        sys.exit("%s: no snapshots" % args.file)
    data = ff.data(args.quantity)

    # snapshots: the nearest to each requested time, or up to 6 spread over the run
    if args.times:
        idx = [int(np.argmin(np.abs(time - t))) for t in args.times]
    else:
        idx = sorted(set(np.linspace(0, nsnap - 1, min(nsnap, 6)).round().astype(int).tolist()))

    scale, unit_name = args.scale, args.unit
    if scale is None:
        scale = 1e-6 if args.quantity in STRESS_QUANTITIES else 1.0
    if unit_name is None:
        unit_name = "MPa" if args.quantity in STRESS_QUANTITIES else UNITS.get(args.quantity, "")
    origin = np.asarray(args.origin, dtype=float)
    s = (xyz - origin) @ strike / 1000.0
    d = (xyz - origin) @ dip / 1000.0
    values = data[idx] * scale
    invalid = ~np.isfinite(values)
    if args.quantity == "rupture_time":
        invalid |= data[idx] < 0
    shown = values[~invalid]
    signed = args.quantity in SIGNED_QUANTITIES and shown.size and shown.min() < 0
    vmin, vmax = args.vmin, args.vmax
    if shown.size:
        if signed:
            m = np.abs(shown).max()
            vmin = -m if vmin is None else vmin
            vmax = m if vmax is None else vmax
        else:
            low = min(0.0, shown.min()) if args.quantity in MAGNITUDES else shown.min()
            vmin = low if vmin is None else vmin
            vmax = shown.max() if vmax is None else vmax
    if vmin is not None and vmax is not None and vmax <= vmin:
        vmax = vmin + 1.0
    cmap = args.cmap or ("RdBu_r" if signed else "viridis")

    n = len(idx)
    ncol = args.columns or min(n, 3)
    nrow = int(math.ceil(n / ncol))
    ws, wd = max(s.max() - s.min(), 1e-9), max(d.max() - d.min(), 1e-9)
    panel_w = 4.2
    panel_h = min(max(0.85 * panel_w * wd / ws, 1.2), 6.0) + 0.6
    fig, axes = plt.subplots(nrow, ncol, figsize=(panel_w * ncol + 1.0, panel_h * nrow + 0.8), sharex=True,
                             sharey=True, squeeze=False, constrained_layout=True)
    triang = mtri.Triangulation(s, d, tri)
    mappable = None
    for k, i in enumerate(idx):
        ax = axes[k // ncol][k % ncol]
        v = values[k]
        bad = invalid[k]
        if bad.all():
            ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center", va="center")
        else:
            triang.set_mask(bad if bad.any() else None)
            mappable = ax.tripcolor(triang, facecolors=np.where(bad, 0.0, v), cmap=cmap, vmin=vmin, vmax=vmax,
                                    edgecolors="none")
            triang.set_mask(None)
        if args.edges:
            ax.triplot(triang, lw=0.2, color="0.5")
        ax.set_title("t = %g s" % time[i], fontsize=9)
        ax.set_aspect("equal")
        ax.tick_params(labelsize=7)
        if k % ncol == 0:
            ax.set_ylabel("down-dip (km)", fontsize=8)
        if k // ncol == nrow - 1 or k + ncol >= n:
            ax.set_xlabel("along strike (km)", fontsize=8)
    for k in range(n, nrow * ncol):
        axes[k // ncol][k % ncol].set_visible(False)
    axes[0][0].set_xlim(s.min(), s.max())
    axes[0][0].set_ylim(d.max(), d.min())  # down-dip grows downwards
    if mappable is not None:
        cb = fig.colorbar(mappable, ax=axes.ravel().tolist(), shrink=0.9)
        cb.set_label("%s%s" % (args.quantity, " (%s)" % unit_name if unit_name else ""))
    fig.suptitle(args.title or "%s: %s" % (args.file, args.quantity), fontsize=10)
    fig.savefig(args.output, dpi=110)
    print("wrote %s (%s at %d times: %s; %d triangles, %s frame)" % (
        args.output, args.quantity, n, " ".join("%g" % time[i] for i in idx), ntri, frame))


# ------------------------------------------------------------------------------------------------
# stations
# ------------------------------------------------------------------------------------------------

STATION_RE = re.compile(r"faultst([+-]?\d+)dp([+-]?\d+)")


def station_key(path):
    """The station's name faultst{strike}dp{down-dip} (without a run prefix or an extension), else the file name."""
    base = os.path.basename(path)
    m = STATION_RE.search(base)
    return m.group(0) if m else base


def station_position(path):
    """(strike, down-dip) in km from a name [PREFIX-]faultst{strike_hm}dp{down_dip_hm}[.ext], or None."""
    m = STATION_RE.search(os.path.basename(path))
    return (int(m.group(1)) / 10.0, int(m.group(2)) / 10.0) if m else None


def read_station(path):
    """Return (names, data) of one SCEC-format station file."""
    names, rows = None, []
    with open(path) as f:
        for line in f:
            t = line.strip()
            if not t or t.startswith("#"):
                continue
            tokens = t.replace(",", " ").split()
            try:
                row = [float(v.replace("D", "E").replace("d", "e")) for v in tokens]
            except ValueError:
                if names is None and not rows:
                    names = [v.strip('"') for v in tokens]
                    continue
                raise ValueError("%s: cannot read the line '%s'" % (path, t))
            rows.append(row)
    if names is None:
        raise ValueError("%s: no line of field names (e.g. 't h-slip h-slip-rate ...')" % path)
    rows = [r for r in rows if len(r) == len(names)]
    return names, np.array(rows, dtype=float).reshape(-1, len(names))


def find_stations(items):
    """{station name: path} of files, directories (their *faultst*dp* files) or run prefixes (PREFIX-faultst*)."""
    out = {}
    for it in items:
        if os.path.isdir(it):
            paths = sorted(glob.glob(os.path.join(it, "*faultst*dp*")))
        elif os.path.isfile(it):
            paths = [it]
        else:
            paths = sorted(glob.glob(it + "-faultst*dp*"))
            if not paths:
                sys.exit("%s: no such file or directory, and no files %s-faultst*" % (it, it))
        for p in paths:
            if os.path.isfile(p):
                out.setdefault(station_key(p), p)
    return out


def station_order(key):
    pos = station_position(key)
    return (0, pos[1], pos[0], key) if pos else (1, 0.0, 0.0, key)


def station_label(key):
    pos = station_position(key)
    if pos:
        return "%s\nst %g km, dp %g km" % (key, pos[0], pos[1])
    return key


def quantity_unit(q):
    for k, u in STATION_UNITS.items():
        if q.endswith(k):
            return u
    return ""


def station_quantities(component, stations):
    """The columns to draw for --component: h, v, both, or dominant (the component of larger peak slip rate)."""
    if component == "both":
        return ["h-slip-rate", "v-slip-rate", "h-shear-stress", "v-shear-stress"]
    if component == "dominant":
        peak = {}
        for c in ("h", "v"):
            q = c + "-slip-rate"
            peak[c] = max([float(np.max(np.abs(d[:, n.index(q)]))) for n, d in stations if q in n and len(d)] or [0.0])
        component = "v" if peak["v"] > peak["h"] else "h"
        print("component %s (peak slip rate: h %.3g m/s, v %.3g m/s; --component both draws both)"
              % (component, peak["h"], peak["v"]))
    return [component + "-slip-rate", component + "-shear-stress"]


def cmd_stations(args):
    found = find_stations(args.inputs)
    if not found:
        sys.exit("no on-fault station files (faultst*) in %s" % " ".join(args.inputs))
    if args.stations:
        chosen = []
        for want in args.stations:
            if station_key(want) not in found:
                sys.exit("station %s: not found (stations: %s)" % (want, ", ".join(sorted(found, key=station_order))))
            chosen.append(station_key(want))
    else:
        chosen = sorted(found, key=station_order)[:20]
    other = find_stations([args.compare]) if args.compare else {}
    if not args.quantities:
        args.quantities = station_quantities(args.component, [read_station(found[n]) for n in chosen])
    nq = len(args.quantities)
    fig, axes = plt.subplots(len(chosen), nq, figsize=(4.0 * nq, 1.8 * len(chosen) + 0.8), sharex=True,
                             squeeze=False)
    label = args.label or " ".join(args.inputs)
    for row, name in enumerate(chosen):
        names, data = read_station(found[name])
        ref = read_station(other[name]) if name in other else None
        if args.compare and ref is None:
            print("note: %s has no station %s" % (args.compare, name), file=sys.stderr)
        for col, q in enumerate(args.quantities):
            if q not in names:
                sys.exit("%s: no column '%s' (columns: %s)" % (found[name], q, ", ".join(names)))
            ax = axes[row][col]
            ax.plot(data[:, 0], data[:, names.index(q)], lw=1.0, label=label)
            if ref is not None and q in ref[0]:
                ax.plot(ref[1][:, 0], ref[1][:, ref[0].index(q)], "--", lw=1.0,
                        label=args.compare_label or args.compare)
            if row == 0:
                u = quantity_unit(q)
                ax.set_title(q + (" (%s)" % u if u else ""))
            if col == 0:
                ax.set_ylabel(station_label(name), fontsize=8)
            ax.tick_params(labelsize=7)
            ax.grid(alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("time (s)")
    if args.compare:
        axes[0][0].legend(fontsize=7)
    fig.suptitle(args.title or label)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print("wrote %s (%d stations x %d quantities)" % (args.output, len(chosen), nq))


# ------------------------------------------------------------------------------------------------
# cplot
# ------------------------------------------------------------------------------------------------

def read_cplot(path):
    """Return (j, k, t) arrays of a SCEC cplot file (header lines, a 'j k t' line, rows)."""
    names, data = read_station(path)
    low = [n.lower() for n in names]
    try:
        cols = [low.index("j"), low.index("k"), low.index("t")]
    except ValueError:
        if len(names) < 3:
            raise ValueError("%s: expected the columns j k t, found %s" % (path, " ".join(names)))
        cols = [0, 1, 2]
    return data[:, cols[0]], data[:, cols[1]], data[:, cols[2]]


def cplot_path(path):
    """PATH itself, or PREFIX-cplot for a run prefix."""
    if not os.path.isfile(path) and os.path.isfile(path + "-cplot"):
        return path + "-cplot"
    return path


def cplot_contours(ax, path, levels, style, color, with_labels):
    j, k, t = read_cplot(path)
    if len(t) < 3:
        sys.exit("%s: fewer than 3 points" % path)
    x, y = j / 1000.0, k / 1000.0
    tri = mtri.Triangulation(x, y)
    bad = (~np.isfinite(t)) | (t < 0)
    if bad.any():
        tri.set_mask(bad[tri.triangles].any(axis=1))
    cs = ax.tricontour(tri, np.where(bad, 0.0, t), levels=levels, colors=color, linestyles=style, linewidths=0.9)
    if with_labels:
        ax.clabel(cs, cs.levels[::2], fontsize=6, fmt="%g")
    return x, y, t[~bad]


def cplot_colour(fig, ax, path, quantity):
    """Draw the last snapshot of @quantity of the fault output file @path, with a colour bar."""
    ff = FaultFile(path)
    if len(ff.time) == 0:
        sys.exit("%s: no snapshots" % path)
    v = ff.data(quantity)[-1]
    scale = 1e-6 if quantity in STRESS_QUANTITIES else 1.0
    unit_name = "MPa" if quantity in STRESS_QUANTITIES else UNITS.get(quantity, "")
    v = v * scale
    bad = ~np.isfinite(v)
    s = ff.xyz @ ff.strike / 1000.0
    d = ff.xyz @ ff.dip / 1000.0
    triang = mtri.Triangulation(s, d, ff.tri)
    if bad.any():
        triang.set_mask(bad)
    shown = v[~bad]
    vmax = float(shown.max()) if shown.size and shown.max() > 0 else 1.0
    m = ax.tripcolor(triang, facecolors=np.where(bad, 0.0, v), cmap="viridis", vmin=0.0 if quantity in MAGNITUDES
                     else None, vmax=vmax, edgecolors="none")
    cb = fig.colorbar(m, ax=ax, shrink=0.9)
    cb.set_label("%s at t = %g s%s" % (quantity, ff.time[-1], " (%s)" % unit_name if unit_name else ""))
    return s, d


def cmd_cplot(args):
    args.file = cplot_path(args.file)
    if args.compare:
        args.compare = cplot_path(args.compare)
    tmax = 0.0
    for p in [args.file] + ([args.compare] if args.compare else []):
        _, _, t = read_cplot(p)
        t = t[np.isfinite(t) & (t >= 0)]
        if t.size:
            tmax = max(tmax, t.max())
    if tmax <= 0:
        sys.exit("%s: no ruptured points (all t < 0)" % args.file)
    levels = np.arange(args.interval, tmax + 0.5 * args.interval, args.interval)
    if levels.size == 0:
        levels = np.array([tmax])
    fig, ax = plt.subplots(figsize=(args.width, args.width * 0.55 + 0.8))
    extent = cplot_colour(fig, ax, args.fault, args.quantity) if args.fault else None
    x, y, _ = cplot_contours(ax, args.file, levels, "solid", "k" if args.fault else "C0", True)
    if extent is not None:  # the whole fault, ruptured or not
        x, y = np.concatenate([x, extent[0]]), np.concatenate([y, extent[1]])
    handles = [plt.Line2D([], [], color="k" if args.fault else "C0", lw=0.9, label=args.label or args.file)]
    if args.compare:
        cplot_contours(ax, args.compare, levels, "dashed", "C3", False)
        handles.append(plt.Line2D([], [], color="C3", lw=0.9, ls="--", label=args.compare_label or args.compare))
        ax.legend(handles=handles, fontsize=7, loc="lower right")
    ax.set_xlim(x.min(), x.max())
    ax.set_ylim(y.max(), y.min())  # down-dip grows downwards
    ax.set_aspect("equal")
    ax.set_xlabel("along strike (km)")
    ax.set_ylabel("down-dip (km)")
    ax.grid(alpha=0.3)
    ax.set_title(args.title or "rupture time, contours every %g s" % args.interval, fontsize=10)
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print("wrote %s (%d contour levels, %g .. %g s)" % (args.output, len(levels), levels[0], levels[-1]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("snapshots", help="fault quantity at chosen times, from PREFIX-fault.h5")
    p.add_argument("file", help="fault output file, e.g. output/tpv5-fault.h5")
    p.add_argument("--times", nargs="+", type=float, help="times (s); the nearest snapshots are drawn "
                   "(default: up to 6 spread over the run)")
    p.add_argument("--quantity", default="slip_rate", help="dataset to draw (default slip_rate)")
    p.add_argument("-o", "--output", default="fault-snapshots.png", help="PNG file to write")
    p.add_argument("--vmin", type=float, help="colour scale minimum (after --scale)")
    p.add_argument("--vmax", type=float, help="colour scale maximum (after --scale)")
    p.add_argument("--cmap", help="matplotlib colour map (default viridis, RdBu_r for signed data)")
    p.add_argument("--scale", type=float, help="factor applied to the values (default 1e-6 for stresses)")
    p.add_argument("--unit", help="unit shown on the colour bar")
    p.add_argument("--origin", nargs=3, type=float, default=[0.0, 0.0, 0.0], metavar=("X", "Y", "Z"),
                   help="point of zero along-strike and down-dip coordinates (default 0 0 0)")
    p.add_argument("--columns", type=int, help="panels per row (default up to 3)")
    p.add_argument("--edges", action="store_true", help="draw the triangle edges")
    p.add_argument("--list", action="store_true", help="print the datasets and times, draw nothing")
    p.add_argument("--title", help="figure title")
    p.set_defaults(func=cmd_snapshots)

    p = sub.add_parser("stations", help="on-fault station time series (SCEC format)")
    p.add_argument("inputs", nargs="+", help="station files or directories holding faultst* files")
    p.add_argument("--component", choices=["dominant", "h", "v", "both"], default="dominant",
                   help="slip rate and shear stress along strike (h), along dip (v), both, or the component of "
                        "larger peak slip rate (default)")
    p.add_argument("--quantities", nargs="+", help="columns to draw (overrides --component)")
    p.add_argument("--stations", nargs="+", help="station names, e.g. faultst-075dp075 (default: all, at most 20)")
    p.add_argument("--compare", help="a directory with stations of the same names, drawn dashed")
    p.add_argument("--label", help="legend label of the stations (default: the inputs)")
    p.add_argument("--compare-label", help="legend label of --compare (default: its path)")
    p.add_argument("-o", "--output", default="fault-stations.png", help="PNG file to write")
    p.add_argument("--title", help="figure title")
    p.set_defaults(func=cmd_stations)

    p = sub.add_parser("cplot", help="rupture-time contours from a SCEC cplot file")
    p.add_argument("file", help="cplot file: columns j (along strike, m), k (down-dip, m), t (s)")
    p.add_argument("--interval", type=float, default=0.5, help="contour interval in s (default 0.5)")
    p.add_argument("--compare", help="a second cplot file, drawn dashed")
    p.add_argument("--label", help="legend label of FILE")
    p.add_argument("--compare-label", help="legend label of --compare")
    p.add_argument("--width", type=float, default=8.0, help="figure width in inches (default 8)")
    p.add_argument("--fault", help="fault output file (PREFIX-fault.h5): its last snapshot of --quantity drawn "
                   "in colour under the contours")
    p.add_argument("--quantity", default="slip", help="with --fault: the dataset drawn in colour (default slip)")
    p.add_argument("-o", "--output", default="cplot.png", help="PNG file to write")
    p.add_argument("--title", help="figure title")
    p.set_defaults(func=cmd_cplot)

    args = ap.parse_args()
    if getattr(args, "interval", 1.0) <= 0:
        sys.exit("--interval must be positive")
    try:
        args.func(args)
    except (OSError, ValueError) as e:
        sys.exit(str(e))


if __name__ == "__main__":
    main()
