#!/usr/bin/python3
"""Convert starquake receiver files to SAC binary files and SCEC CVWS station files.

starquake writes one text file per receiver, <prefix>-receiver-NNNNN.dat, in SeisSol's layout:

    TITLE = "Temporal Signal for receiver number 00001"
    VARIABLES = "Time","s_xx","s_yy","s_zz","s_xy","s_yz","s_xz","v1","v2","v3"
    # x1  1.0000000000000000E+03
    # x2  ...
    # x3  ...
     0.0000000000000000E+00  ...one row per sample...

For every receiver file this writes
  - SAC (--format sac, the default): one binary file per quantity, NAME.<quantity>.sac, little endian,
    header version 6: npts, delta, b, e, depmin/depmax/depmen, iftype ITIME, leven true, idep IVEL
    for velocities (IUNKN for stresses), kstnm R<number>, kcmpnm the quantity, knetwk, and the
    receiver position in user0..user2 (kuser0 "x1x2x3"), or as stlo/stla/stel with
    --coordinates geographic (x1 longitude, x2 latitude, x3 elevation in m).  --origin sets the
    reference time (nzyear..nzmsec, iztype IO, o = 0) to the simulation's t = 0.
  - CVWS (--format cvws): NAME.cvws, the time-series layout of the SCEC/USGS dynamic-rupture code
    verification exercises for off-fault stations: t h-disp h-vel v-disp v-vel n-disp n-vel, with the
    displacements integrated from the velocities (trapezoidal rule).  --axes says which velocity
    components are along strike (h), up (v) and fault-normal (n), with an optional minus sign.

Reading SAC files:  ObsPy's obspy.read("X.v1.sac") or SAC itself.  Needs only python3 and numpy.
"""
import argparse
import datetime
import os
import re
import sys

import numpy as np

UNDEF_F, UNDEF_I, UNDEF_K = -12345.0, -12345, b"-12345  "
ITIME, IUNKN, IVEL, IO = 1, 5, 7, 11
QUANTITIES = ["s_xx", "s_yy", "s_zz", "s_xy", "s_yz", "s_xz", "v1", "v2", "v3"]

# Word index of every SAC header field (version 6): 70 floats, 40 integers/enums/logicals,
# then the strings (kevnm is 16 bytes, the others 8).
FLOATS = {"delta": 0, "depmin": 1, "depmax": 2, "scale": 3, "odelta": 4, "b": 5, "e": 6, "o": 7, "a": 8,
          "stla": 31, "stlo": 32, "stel": 33, "stdp": 34, "evla": 35, "evlo": 36, "evel": 37, "evdp": 38,
          "mag": 39, "user0": 40, "user1": 41, "user2": 42, "dist": 50, "az": 51, "baz": 52, "gcarc": 53,
          "depmen": 56, "cmpaz": 57, "cmpinc": 58}
INTS = {"nzyear": 0, "nzjday": 1, "nzhour": 2, "nzmin": 3, "nzsec": 4, "nzmsec": 5, "nvhdr": 6, "norid": 7,
        "nevid": 8, "npts": 9, "nwfid": 11, "iftype": 15, "idep": 16, "iztype": 17, "iinst": 19, "isynth": 24,
        "leven": 35, "lpspol": 36, "lovrok": 37, "lcalda": 38}
STRINGS = ["kstnm", "kevnm", "khole", "ko", "ka"] + ["kt%d" % i for i in range(10)] + \
          ["kf", "kuser0", "kuser1", "kuser2", "kcmpnm", "knetwk", "kdatrd", "kinst"]


class InputError(Exception):
    """A problem with an input file; the message names the file and the line."""


def read_receiver(path):
    """Return (number, names, position[3], times, values[nsamples, nnames]) of a receiver file."""
    try:
        with open(path, "r", encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError("%s: cannot read it: %s" % (path, e))
    number, names, pos, rows = None, None, [None, None, None], []
    for i, line in enumerate(lines, 1):
        s = line.strip()
        if not s:
            continue
        if s.startswith("TITLE"):
            m = re.search(r"(\d+)\s*\"?\s*$", s)
            number = int(m.group(1)) if m else None
        elif s.startswith("VARIABLES"):
            names = re.findall(r'"([^"]*)"', s)
            if not names or names[0].lower() != "time":
                raise InputError('%s:%d: VARIABLES must start with "Time"' % (path, i))
            names = names[1:]
        elif s.startswith("#"):
            m = re.match(r"#\s*x([123])\s+(\S+)\s*$", s)
            if m:
                try:
                    pos[int(m.group(1)) - 1] = float(m.group(2))
                except ValueError:
                    raise InputError("%s:%d: '%s' is not a coordinate" % (path, i, m.group(2)))
        else:
            if names is None:
                raise InputError("%s:%d: data before the VARIABLES line" % (path, i))
            try:
                row = [float(v) for v in s.split()]
            except ValueError:
                raise InputError("%s:%d: not a row of numbers: %.60s" % (path, i, s))
            if len(row) != len(names) + 1:
                raise InputError("%s:%d: %d columns, but VARIABLES names %d" % (path, i, len(row), len(names) + 1))
            rows.append(row)
    if names is None:
        raise InputError("%s: no VARIABLES line; not a receiver file" % path)
    if None in pos:
        raise InputError("%s: the '# x1', '# x2' and '# x3' position lines are missing" % path)
    if not rows:
        raise InputError("%s: no samples" % path)
    if number is None:
        m = re.search(r"receiver-(\d+)", os.path.basename(path))
        number = int(m.group(1)) if m else 0
    data = np.array(rows, dtype=np.float64)
    if not np.all(np.isfinite(data)):
        raise InputError("%s: the samples hold NaN or Inf" % path)
    return number, names, pos, data[:, 0], data[:, 1:]


def even_step(path, t):
    """The constant sampling interval of @t (SAC's leven), or an error."""
    if len(t) < 2:
        return 1.0
    dt = np.diff(t)
    delta = (t[-1] - t[0]) / (len(t) - 1)
    if delta <= 0 or np.max(np.abs(dt - delta)) > 1e-6 * delta:
        raise InputError("%s: the sample times are not evenly spaced (steps %g .. %g)" % (path, dt.min(), dt.max()))
    return delta


def sac_bytes(values, t, delta, header):
    """A SAC file: the 632-byte header (fields in @header override the undefined values), then the data."""
    floats = np.full(70, UNDEF_F, dtype="<f4")
    ints = np.full(40, UNDEF_I, dtype="<i4")
    strings = {k: UNDEF_K for k in STRINGS}
    strings["kevnm"] = b"-12345          "
    data = np.asarray(values, dtype="<f4")
    fields = {"delta": delta, "b": t[0], "e": t[0] + (len(t) - 1) * delta, "depmin": float(data.min()),
              "depmax": float(data.max()), "depmen": float(data.mean()), "npts": len(data), "nvhdr": 6,
              "iftype": ITIME, "leven": 1, "lpspol": 1, "lovrok": 1, "lcalda": 0}
    fields.update(header)
    for key, value in fields.items():
        if key in FLOATS:
            floats[FLOATS[key]] = value
        elif key in INTS:
            ints[INTS[key]] = value
        elif key in strings:
            size = 16 if key == "kevnm" else 8
            strings[key] = str(value).encode("ascii")[:size].ljust(size)
        else:
            raise KeyError(key)
    text = b"".join(strings[k] for k in STRINGS)
    head = floats.tobytes() + ints.tobytes() + text
    assert len(head) == 632
    return head + data.tobytes()


def origin_fields(text):
    """SAC reference-time fields for an ISO 8601 time (the simulation's t = 0)."""
    try:
        when = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise InputError("--origin: '%s' is not a time like 2020-01-31T12:00:00.000" % text)
    return {"nzyear": when.year, "nzjday": when.timetuple().tm_yday, "nzhour": when.hour, "nzmin": when.minute,
            "nzsec": when.second, "nzmsec": when.microsecond // 1000, "iztype": IO, "o": 0.0}


def write_sac(path, out_base, args, number, names, pos, t, values):
    delta = even_step(path, t)
    wanted = args.components.split(",") if args.components else names
    written = []
    for comp in wanted:
        if comp not in names:
            raise InputError("%s: no quantity '%s' (the file has %s)" % (path, comp, ", ".join(names)))
        k = names.index(comp)
        header = {"kstnm": "R%05d" % number, "kcmpnm": comp, "knetwk": args.network,
                  "idep": IVEL if comp.startswith("v") else IUNKN, "isynth": 1}
        if args.coordinates == "geographic":
            header.update({"stlo": pos[0], "stla": pos[1], "stel": pos[2]})
        else:
            header.update({"user0": pos[0], "user1": pos[1], "user2": pos[2], "kuser0": "x1x2x3"})
        if args.origin:
            header.update(origin_fields(args.origin))
        name = "%s.%s.sac" % (out_base, comp)
        with open(name, "wb") as f:
            f.write(sac_bytes(values[:, k], t, delta, header))
        written.append(name)
    return written


def write_cvws(path, out_base, args, number, names, pos, t, values):
    cols = []
    for spec in args.axes.split(","):
        sign = -1.0 if spec.startswith("-") else 1.0
        comp = "v" + spec.lstrip("+-")
        if comp not in names:
            raise InputError("%s: --axes names %s, which the file lacks" % (path, comp))
        cols.append(sign * values[:, names.index(comp)])
    if len(cols) != 3:
        raise InputError("--axes needs three components (h, v, n), e.g. 1,3,2")
    out = [t]
    for vel in cols:
        disp = np.concatenate([[0.0], np.cumsum(0.5 * (vel[1:] + vel[:-1]) * np.diff(t))])
        out += [disp, vel]
    name = out_base + ".cvws"
    dt = (t[-1] - t[0]) / max(len(t) - 1, 1)
    with open(name, "w") as f:
        f.write("# problem=%s\n# author=%s\n# date=%s\n# code=starquake\n# code_version=%s\n"
                % (args.problem, args.author, datetime.date.today().strftime("%Y/%m/%d"), args.code_version))
        f.write("# element_size=%s\n# time_step=%g\n# num_time_steps=%d\n" % (args.element_size, dt, len(t)))
        f.write("# location= receiver %05d at x1=%g x2=%g x3=%g\n" % (number, pos[0], pos[1], pos[2]))
        f.write("# Time series in 7 column format\n# Column #1 = Time (s)\n"
                "# Column #2 = horizontal displacement (m)\n# Column #3 = horizontal velocity (m/s)\n"
                "# Column #4 = vertical displacement (m)\n# Column #5 = vertical velocity (m/s)\n"
                "# Column #6 = normal displacement (m)\n# Column #7 = normal velocity (m/s)\n#\n"
                "# The line below lists the names of the data fields:\nt h-disp h-vel v-disp v-vel n-disp n-vel\n"
                "#\n# Here is the time-series data.\n")
        for row in np.column_stack(out):
            f.write(" ".join("%.7E" % v for v in row) + "\n")
    return [name]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    p.add_argument("files", nargs="+", help="receiver files <prefix>-receiver-NNNNN.dat")
    p.add_argument("-o", "--output", help="output folder (default: next to each input file)")
    p.add_argument("--format", choices=["sac", "cvws", "both"], default="sac")
    p.add_argument("--components", help="SAC: comma-separated quantities (default: all in the file)")
    p.add_argument("--coordinates", choices=["user", "geographic"], default="user",
                   help="SAC: position in user0..2 (default) or as stlo, stla, stel")
    p.add_argument("--origin", help="SAC: reference time of t = 0, ISO 8601 (e.g. 2004-09-28T17:15:24)")
    p.add_argument("--network", default="SQ", help="SAC knetwk (default SQ)")
    p.add_argument("--axes", default="1,3,2",
                   help="CVWS: velocity components along strike, up, normal (default 1,3,2; '-3' flips)")
    p.add_argument("--problem", default="unknown", help="CVWS header: problem name (e.g. TPV5)")
    p.add_argument("--author", default="unknown", help="CVWS header: author")
    p.add_argument("--code-version", default="", help="CVWS header: code version")
    p.add_argument("--element-size", default="unknown", help="CVWS header: element size")
    args = p.parse_args(argv)
    try:
        for path in args.files:
            number, names, pos, t, values = read_receiver(path)
            folder = args.output or os.path.dirname(path) or "."
            os.makedirs(folder, exist_ok=True)
            base = os.path.join(folder, re.sub(r"\.dat$", "", os.path.basename(path)))
            written = []
            if args.format in ("sac", "both"):
                written += write_sac(path, base, args, number, names, pos, t, values)
            if args.format in ("cvws", "both"):
                written += write_cvws(path, base, args, number, names, pos, t, values)
            print("%s: %d samples -> %s" % (path, len(t), " ".join(written)))
    except (InputError, OSError) as e:
        print("receivers_to_sac: error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
