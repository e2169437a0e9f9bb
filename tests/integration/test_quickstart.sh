#!/bin/bash
# The example earthquake of `./quickstart run` (configs/quickstart.yaml), made small: the same
# resolution (800 m cubes, order 4), friction, stresses and nucleation disc on a smaller box and fault
# (9.6 km long, 6.4 km deep), until t = 2.2 s.  It must rupture: every on-fault station gets a rupture
# time, and Mw lies within the bounds derived below from the set-up; the fault's area is the closed form;
# the energy file's and the summary's Mw are 2/3 (log10 M0 - 9.1); `./quickstart pictures` draws three
# valid PNGs (skipped, exit 77, only where matplotlib is missing: ./quickstart installs it).
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir T
L=9600 W=6400 # the fault: |x| <= L/2, -W <= z <= 0
SMALL=(--set 'mesh.box.cells=[16, 6, 10]' --set 'mesh.box.lo=[-6400, -2400, -8000]'
  --set 'mesh.box.hi=[6400, 2400, 0]' --set "mesh.box.fault={lo: [-$((L / 2)), 0, -$W], hi: [$((L / 2)), 0, 0]}"
  --set 'fault.stations=[[0, 0, -4500], [4000, 0, -4500], [-4000, 0, -4500], [0, 0, -1000], [0, 0, -6000]]'
  --set 'receivers.points=[[0, 2000, 0], [4000, 2000, 0]]' --set equations.end_time=2.2)
if ! run "$T/eq" "$SRC/configs/quickstart.yaml" "${SMALL[@]}"; then
  report test_quickstart
  exit 1
fi
P=$T/eq/quickstart

# Bounds on M0 (stated in docs/USER_GUIDE.md), from the config's values: mu = rho vs^2 = 3.204e10 Pa.
# - lower: the nucleation disc (radius 1.6 km, loaded above the static strength) ruptures and weakens
#   fully, so it slips at least d_c = 0.4 m: M0 >= mu * pi 1600^2 m^2 * 0.4 m = 1.03e17 N m, Mw >= 5.28;
# - upper: the stress drop is at most dtau = 81.6 - 63 = 18.6 MPa (in the disc; 70 - 63 = 7 MPa
#   beyond its taper).  A vertical strike-slip crack of width W that breaks the free surface slips at most
#   2 dtau W / mu under a uniform drop dtau (its mirror image is a crack of half-width W), and less under
#   a smaller one; doubled for dynamic overshoot: D <= 4 dtau W / mu = 14.9 m, so
#   M0 <= mu * L W * D = 4 dtau W * L W = 2.9e19 N m, Mw <= 6.91.
# The rupture has not stopped at 2.2 s: Mw 6.14 here.
if out=$($PY - "$P" "$L" "$W" << 'EOF' 2>&1
import math, sys
prefix, L, W = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
rho, vs, d_c, dtau, disc = 2670.0, 3464.0, 0.4, 81.6e6 - 63e6, math.pi * 1600.0**2
mu = rho * vs * vs
mw = lambda m0: 2.0 / 3.0 * (math.log10(m0) - 9.1)
summ = dict(l.split(": ", 1) for l in open(prefix + "-summary.txt").read().splitlines() if ": " in l)
m0, mw_s = float(summ["seismic_moment"]), float(summ["moment_magnitude"])
area, ruptured = float(summ["fault_area"]), float(summ["ruptured_area"])
peak_slip, peak_rate = float(summ["peak_slip"]), float(summ["peak_slip_rate"])
lo, hi = mu * disc * d_c, mu * L * W * 4 * dtau * W / mu
errs = []
if not lo <= m0 <= hi:
    errs.append("M0 %.4g outside [%.4g, %.4g]" % (m0, lo, hi))
if abs(mw_s - mw(m0)) > 6e-5:
    errs.append("summary Mw %s, 2/3 (log10 M0 - 9.1) = %.6f" % (mw_s, mw(m0)))
if abs(area - L * W) > 1e-9 * L * W:
    errs.append("fault_area %.10g, the fault is %g x %g = %.10g m^2" % (area, L, W, L * W))
if not disc <= ruptured <= area * (1 + 1e-12):
    errs.append("ruptured_area %.4g outside [the nucleation disc %.4g, the fault %.4g]" % (ruptured, disc, area))
if not d_c <= peak_slip <= 4 * dtau * W / mu:
    errs.append("peak_slip %.4g outside [d_c, %.4g]" % (peak_slip, 4 * dtau * W / mu))
x, y, z = (float(v) for v in summ["peak_slip_position"].split())
if not (abs(y) <= 1e-6 * L and abs(x) <= L / 2 * (1 + 1e-12) and -W * (1 + 1e-12) <= z <= 0):
    errs.append("peak_slip_position (%g, %g, %g) is not on the fault" % (x, y, z))
face_slip = float(summ["peak_face_slip"])
if not 0 < face_slip <= peak_slip:
    errs.append("peak_face_slip %.4g outside (0, peak_slip %.4g]" % (face_slip, peak_slip))
if not peak_rate > 0.1:
    errs.append("peak_slip_rate %.4g" % peak_rate)
lines = open(prefix + "-energy.csv").read().split()
head = lines[0].split(",")
if head[-2:] != ["seismic_moment", "moment_magnitude"]:
    errs.append("energy header %s" % lines[0])
rows = [[float(v) for v in r.split(",")] for r in lines[1:]]
for r in rows:
    m, w = r[head.index("seismic_moment")], r[head.index("moment_magnitude")]
    if (m > 0 and abs(w - mw(m)) > 1e-6) or (m <= 0 and not math.isnan(w)):
        errs.append("energy row t=%g: M0 %g, Mw %g" % (r[0], m, w))
if abs(rows[-1][head.index("seismic_moment")] - m0) > 1e-6 * m0:
    errs.append("the energy file's last M0 %g is not the summary's %g" % (rows[-1][head.index("seismic_moment")], m0))
if errs:
    sys.exit("; ".join(errs))
print("M0 %.4g N m in [%.3g, %.3g], Mw %.4f in [%.2f, %.2f]; ruptured %.1f of %.1f km^2; peak slip %.2f m "
      "at (%.0f, %.0f, %.0f) m, largest face average %.2f m, peak slip rate %.2f m/s; %d energy rows with "
      "Mw = 2/3 (log10 M0 - 9.1)" % (m0, lo, hi, mw_s, mw(lo), mw(hi), ruptured / 1e6, area / 1e6, peak_slip,
                                     x, y, z, face_slip, peak_rate, len(rows)))
EOF
); then ok "it ruptures: $out"; else bad "rupture: $out"; fi

# every on-fault station ruptures: the last row's rupture time (column RT of the SeisSol file) is set
n=0
for f in "$P"-faultreceiver-*.dat; do
  [ -f "$f" ] || continue
  n=$((n + 1))
  rt=$(awk '/^VARIABLES/ { for (i = 1; i <= NF; ++i) if ($i == "\"RT\"") c = i - 2 } /^[-0-9]/ { v = $c } END { print v }' "$f")
  awk -v t="$rt" 'BEGIN { exit !(t > 0 && t < 2.2) }' && ok "station $(basename "$f"): rupture time $rt s" ||
    bad "station $(basename "$f"): rupture time '$rt' (not ruptured by t = 2.2 s)"
done
[ "$n" = 5 ] && ok "5 on-fault station files" || bad "$n on-fault station files, expected 5"

# the summary's M0 against the fault snapshot at the end: sum of mu |face-average slip| x triangle area
# (the same integral from the face averages; |average| and average of |.| differ only by the dip slip)
if ! $PY -c 'import matplotlib, numpy, h5py' 2> /dev/null; then
  echo "SKIP the pictures: python3-matplotlib, python3-numpy or python3-h5py missing (./quickstart installs them)"
  report test_quickstart || exit 1
  exit 77
fi
check "M0 from the last fault snapshot" $PY - "$P" "$SRC/tools" << 'EOF'
import sys
import numpy as np
sys.path.insert(0, sys.argv[2])
from plot_fault import FaultFile
prefix = sys.argv[1]
ff = FaultFile(prefix + "-fault.h5")
summ = dict(l.split(": ", 1) for l in open(prefix + "-summary.txt").read().splitlines() if ": " in l)
e1, e2 = ff.xyz[ff.tri[:, 1]] - ff.xyz[ff.tri[:, 0]], ff.xyz[ff.tri[:, 2]] - ff.xyz[ff.tri[:, 0]]
area = 0.5 * np.linalg.norm(np.cross(e1, e2), axis=1)
slip = np.hypot(ff.data("slip_strike")[-1], ff.data("slip_dip")[-1])
m0 = 2670.0 * 3464.0**2 * float((slip * area).sum())
want = float(summ["seismic_moment"])
if abs(ff.time[-1] - float(summ["end_time"])) > 1e-9 or abs(m0 - want) > 1e-3 * want:
    sys.exit("t = %g: %.6g N m, the summary's %.6g" % (ff.time[-1], m0, want))
print("t = %g s: %.6g N m, the summary's %.6g (%.2g relative)" % (ff.time[-1], m0, want, m0 / want - 1))
EOF

# the pictures, as ./quickstart run draws them
if out=$("$SRC/quickstart" pictures "$P" 2>&1); then ok "./quickstart pictures: $(tr '\n' ' ' <<< "$out")"
else bad "./quickstart pictures: $out"; fi
for png in rupture fault-stations seismograms; do
  check "$png.png is a valid, non-blank PNG" $PY - "$P-$png.png" << 'EOF'
import sys
import matplotlib.image
path = sys.argv[1]
with open(path, "rb") as f:
    if f.read(8) != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s: no PNG signature" % path)
img = matplotlib.image.imread(path)  # decodes every row: a truncated file fails here
if img.shape[0] < 200 or img.shape[1] < 200 or img.std() == 0:
    sys.exit("%s: %s pixels, std %g" % (path, img.shape, img.std()))
print("%d x %d pixels" % (img.shape[1], img.shape[0]))
EOF
done
report test_quickstart
