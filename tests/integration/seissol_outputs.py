#!/usr/bin/env python3
"""Read the outputs of a run made with output.style: seissol as SeisSol's users read them, written from
SeisSol's published format descriptions (receiver files: TITLE, VARIABLES, "# x1".."# x3" header lines and
whitespace-separated rows; fault receivers: the same plus "# P_0", "# T_s", "# T_d", columns as the
OutputMask selects; the energy CSV: time,variable,measurement; XDMF: a temporal collection whose attributes
are HyperSlabs of /mesh0/NAME, as seissolxdmf reads them), and compare them with the native files of the
same run.

usage: seissol_outputs.py NATIVE_DIR SEISSOL_DIR PREFIX [MASK [DIP_SIGN [D_C]]]
  MASK      fault.output_mask as digits (default 11111111111), DIP_SIGN -1 for fault.reference_convention:
            native (default), +1 for seissol, D_C the critical slip distance (default 0.1)
Prints "ok ..." / "FAIL ..." lines; exits 1 on any failure.
"""
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

import numpy as np

try:
    import h5py
except ImportError:  # the XDMF/HDF5 checks need it (python3-h5py); the text files do not
    h5py = None

FAILS = []


def check(cond, text):
    print(("ok   " if cond else "FAIL ") + text)
    if not cond:
        FAILS.append(text)


def read_tecplot(path):
    """A SeisSol receiver or fault-receiver file: (title, variables, header values {name: floats}, rows)."""
    with open(path) as f:
        lines = f.read().splitlines()
    m = re.fullmatch(r'TITLE = "(.*)"', lines[0])
    if not m:
        raise ValueError(f"{path}: line 1 is not TITLE = \"...\": {lines[0]!r}")
    if not lines[1].startswith("VARIABLES = "):
        raise ValueError(f"{path}: line 2 is not VARIABLES = ...")
    names = re.findall(r'"([^"]*)"', lines[1])
    header, rows = {}, []
    for line in lines[2:]:
        if line.startswith("#"):
            key, *vals = line[1:].split()
            header[key] = [float(v) for v in vals]
        elif line.strip():
            rows.append([float(v) for v in line.split()])
    rows = np.array(rows)
    if rows.ndim != 2 or rows.shape[1] != len(names):
        raise ValueError(f"{path}: rows of {rows.shape} values, {len(names)} variables")
    return m.group(1), names, header, rows


def close(a, b, rel=1e-9):
    a, b = np.asarray(a, float), np.asarray(b, float)
    scale = max(np.max(np.abs(b)), 1e-300)
    return a.shape == b.shape and np.max(np.abs(a - b)) <= rel * scale + 1e-300


def receivers(nat, ss, prefix):
    files = sorted(glob.glob(os.path.join(ss, f"{prefix}-receiver-*.dat")))
    check(len(files) > 0 and all(re.fullmatch(rf"{re.escape(prefix)}-receiver-\d{{5}}-\d{{5}}\.dat",
                                              os.path.basename(f)) for f in files),
          f"receiver files named PREFIX-receiver-NNNNN-RRRRR.dat: {[os.path.basename(f) for f in files]}")
    for f in files:
        number = os.path.basename(f).split("-")[-2]
        title, names, header, rows = read_tecplot(f)
        check(title == f"Temporal Signal for receiver number {number}", f"{os.path.basename(f)}: TITLE {title!r}")
        want = ["Time", "xx", "yy", "zz", "xy", "yz", "xz", "v1", "v2", "v3"]
        check(names == want, f"{os.path.basename(f)}: VARIABLES {names}")
        _, nnames, nheader, nrows = read_tecplot(os.path.join(nat, f"{prefix}-receiver-{number}.dat"))
        check(all(close(header[f"x{k}"], nheader[f"x{k}"], 1e-12) for k in (1, 2, 3)),
              f"{os.path.basename(f)}: position {[header[f'x{k}'][0] for k in (1, 2, 3)]}")
        check(close(rows, nrows, 1e-14) and np.max(np.abs(rows[:, 7:10])) > 0,
              f"{os.path.basename(f)}: {rows.shape[0]} rows equal the native file's "
              f"(max |v| {np.max(np.abs(rows[:, 7:10])):.3e} m/s)")


GROUPS = [["SRs", "SRd"], ["T_s", "T_d", "P_n"], ["u_n"], ["Mud", "StV"], ["Ts0", "Td0", "Pn0"], ["Sls", "Sld"],
          ["Vr"], ["ASl"], ["PSR"], ["RT"], ["DS"], ["P_f", "Tmp"]]


def fault_receivers(nat, ss, prefix, mask, dip_sign, d_c):
    files = sorted(glob.glob(os.path.join(ss, f"{prefix}-faultreceiver-*.dat")))
    check(len(files) > 0, f"fault receiver files: {[os.path.basename(f) for f in files]}")
    want = ["Time"] + [n for g, names in enumerate(GROUPS) if mask[g] for n in names]
    for f in files:
        base = os.path.basename(f)
        number = base.split("-")[-2]
        title, names, header, rows = read_tecplot(f)
        check(title == f"Temporal Signal for fault receiver number {int(number)}", f"{base}: TITLE {title!r}")
        check(names == want, f"{base}: VARIABLES {' '.join(names)}")
        # the native file of the same run: Time SRs SRd T_s T_d P_n Mud StV Sls Sld ASl PSR RT (totals)
        _, nn, nheader, nrows = read_tecplot(os.path.join(nat, f"{prefix}-faultreceiver-{number}.dat"))
        check(all(close(header[f"x{k}"], nheader[f"x{k}"], 1e-9) for k in (1, 2, 3)), f"{base}: position")
        n = {name: nrows[:, nn.index(name)] for name in nn}
        c = {name: rows[:, names.index(name)] for name in names}
        p0, ts0, td0 = header["P_0"][0], header["T_s"][0], header["T_d"][0]
        check(close(p0, n["P_n"][0]) and close(ts0, n["T_s"][0]) and close(td0, dip_sign * n["T_d"][0]),
              f"{base}: initial traction P_0 {p0:.4e} T_s {ts0:.4e} T_d {td0:.4e}")
        expect = {"SRs": n["SRs"], "SRd": dip_sign * n["SRd"], "Ts0": n["T_s"], "Td0": dip_sign * n["T_d"],
                  "Pn0": n["P_n"], "T_s": n["T_s"] - ts0, "T_d": dip_sign * n["T_d"] - td0, "P_n": n["P_n"] - p0,
                  "u_n": 0 * n["SRs"], "Mud": n["Mud"], "StV": n["StV"], "Sls": n["Sls"],
                  "Sld": dip_sign * n["Sld"], "ASl": n["ASl"], "PSR": n["PSR"], "RT": np.maximum(n["RT"], 0)}
        reached = np.nonzero(n["ASl"] >= d_c)[0]
        ds = n["Time"][reached[0]] if len(reached) else 0.0
        expect["DS"] = np.where(n["Time"] >= ds, ds, 0.0) if len(reached) else 0 * n["Time"]
        check(close(c["Time"], n["Time"]), f"{base}: {len(c['Time'])} rows at the native file's times")
        # the changes T_s, T_d, P_n: checked as totals (the native file has 11 digits of the totals)
        for k, init in (("T_s", ts0), ("T_d", td0), ("P_n", p0)):
            if k in c:
                c[k] = c[k] + init
                expect[k] = expect[k] + init
        bad = [k for k, v in expect.items() if k in c and not close(c[k], v, 1e-9)]
        check(not bad, f"{base}: columns equal the native ones (dip sign {dip_sign:+d}, T_s T_d P_n less the "
              f"initial traction, DS {ds:g} s){': differ: ' + ' '.join(bad) if bad else ''}")
        if "Vr" in c:
            check(np.all(c["Vr"] >= 0) and (np.max(c["Vr"]) > 0) == (np.max(n["RT"]) >= 0),
                  f"{base}: Vr in [0, {np.max(c['Vr']):.0f}] m/s")


def energy(nat, ss, prefix):
    path = os.path.join(ss, f"{prefix}-energy.csv")
    with open(path) as f:
        lines = f.read().splitlines()
    check(lines[0] == "time,variable,measurement", f"energy CSV header {lines[0]!r}")
    table = {}
    for line in lines[1:]:
        t, var, val = line.split(",")
        table.setdefault(var, []).append((float(t), float(val)))
    want = {"gravitational_energy", "acoustic_energy", "acoustic_kinetic_energy", "elastic_energy",
            "elastic_kinetic_energy", "total_frictional_work", "static_frictional_work", "seismic_moment",
            "plastic_moment"}
    check(set(table) == want, f"energy variables: {' '.join(sorted(table))}")
    native = np.genfromtxt(os.path.join(nat, f"{prefix}-energy.csv"), delimiter=",", names=True)
    e = {k: np.array(v) for k, v in table.items()}
    check(close(e["elastic_energy"][:, 0], native["time"]) and close(e["elastic_energy"][:, 1], native["elastic"])
          and close(e["elastic_kinetic_energy"][:, 1], native["kinetic"]),
          f"elastic_energy and elastic_kinetic_energy equal the native elastic and kinetic columns "
          f"({len(native)} rows)")
    wt, ws, m0 = e["total_frictional_work"][-1, 1], e["static_frictional_work"][-1, 1], e["seismic_moment"][-1, 1]
    m0n = native["seismic_moment"][-1]
    check(wt > ws > 0 and abs(m0 - m0n) <= 0.02 * m0n,
          f"total_frictional_work {wt:.4e} > static_frictional_work {ws:.4e} > 0 (radiated {wt - ws:.4e} J); "
          f"seismic_moment {m0:.4e} (mu x slip path) within 2 % of the native {m0n:.4e} (mu x |slip|)")


def xdmf_attributes(path):
    """{step: (time, {name: values})} read through the XDMF, as seissolxdmf does."""
    base = os.path.dirname(path)
    root = ET.parse(path).getroot()
    series = root.find("Domain/Grid")
    check(series.get("GridType") == "Collection" and series.get("CollectionType") == "Temporal",
          f"{os.path.basename(path)}: a temporal collection")
    out = []
    for grid in series.findall("Grid"):
        time = float(grid.find("Time").get("Value"))
        values = {}
        for attr in grid.findall("Attribute"):
            slab = attr.find("DataItem")
            assert slab.get("ItemType") == "HyperSlab", "attribute is not a HyperSlab"
            rng, data = slab.findall("DataItem")
            start, stride, count = np.array(rng.text.split(), int).reshape(3, 2)
            h5name, dset = data.text.strip().split(":")
            with h5py.File(os.path.join(base, h5name), "r") as h5:
                values[attr.get("Name")] = h5[dset][start[0], start[1]:start[1] + count[1]]
        out.append((time, values))
    return out


def fault_xdmf(nat, ss, prefix, mask, dip_sign):
    steps = xdmf_attributes(os.path.join(ss, f"{prefix}-fault.xdmf"))
    want = [n for g, names in enumerate(GROUPS) if mask[g] for n in names]
    check(len(steps) > 1 and all(list(v) == want for _, v in steps),
          f"fault XDMF: {len(steps)} snapshots of {' '.join(want)}")
    with h5py.File(os.path.join(nat, f"{prefix}-fault.h5"), "r") as h5:
        bad = []
        for k, (t, v) in enumerate(steps):
            g = h5[f"step_{k:06d}"]
            pairs = {"SRs": g["slip_rate_strike"][:], "SRd": dip_sign * g["slip_rate_dip"][:],
                     "Sls": g["slip_strike"][:], "Sld": dip_sign * g["slip_dip"][:], "ASl": g["slip"][:],
                     "Ts0": g["traction_strike"][:], "Td0": dip_sign * g["traction_dip"][:],
                     "Pn0": g["normal_stress"][:], "Mud": g["mu"][:], "PSR": g["peak_slip_rate"][:],
                     "RT": np.maximum(g["rupture_time"][:], 0), "Vr": g["rupture_velocity"][:]}
            if not close(t, g.attrs["time"]):
                bad.append(f"time {k}")
            bad += [f"{n}@{k}" for n, ref in pairs.items() if n in v and not close(v[n], ref, 1e-12)]
    check(not bad, "fault XDMF values equal the native snapshots (SRs SRd Sls Sld ASl Ts0 Td0 Pn0 Mud PSR RT Vr)"
          + (": differ " + " ".join(bad) if bad else ""))
    # the mesh as seissolxdmf reads it: /mesh0/geometry and /mesh0/connect
    with h5py.File(os.path.join(ss, f"{prefix}-fault.h5"), "r") as a, \
            h5py.File(os.path.join(nat, f"{prefix}-fault.h5"), "r") as b:
        check(np.array_equal(a["mesh0/connect"][:], b["mesh/topology"][:]) and
              np.array_equal(a["mesh0/geometry"][:], b["mesh/geometry"][:]) and
              a["mesh0/SRs"].shape == (len(steps), b["mesh/topology"].shape[0]),
              f"fault mesh0/geometry, mesh0/connect, mesh0/SRs {a['mesh0/SRs'].shape}")


def wavefield_xdmf(nat, ss, prefix):
    steps = xdmf_attributes(os.path.join(ss, f"{prefix}.xdmf"))  # SeisSol's name of the wavefield series
    with h5py.File(os.path.join(nat, f"{prefix}-wavefield.h5"), "r") as h5:
        same = all(close(v[n], h5[f"step_{k:06d}"][n][:], 1e-14) for k, (_, v) in enumerate(steps) for n in v)
        names = sorted(steps[0][1])
    check(len(steps) > 1 and same, f"wavefield XDMF: {len(steps)} snapshots of {' '.join(names)} equal the native")


def main():
    nat, ss, prefix = sys.argv[1:4]
    mask = [int(c) for c in (sys.argv[4] if len(sys.argv) > 4 else "11111111111")]
    mask += [0] * (12 - len(mask))
    dip_sign = int(sys.argv[5]) if len(sys.argv) > 5 else -1
    d_c = float(sys.argv[6]) if len(sys.argv) > 6 else 0.1
    if os.path.exists(os.path.join(nat, f"{prefix}-receiver-00001.dat")):
        receivers(nat, ss, prefix)
    fault_receivers(nat, ss, prefix, mask, dip_sign, d_c)
    energy(nat, ss, prefix)
    if h5py and os.path.exists(os.path.join(nat, f"{prefix}-wavefield.h5")):
        fault_xdmf(nat, ss, prefix, mask, dip_sign)
        wavefield_xdmf(nat, ss, prefix)
    else:
        print("skip the XDMF/HDF5 checks: no h5py (apt-get install python3-h5py)")
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
