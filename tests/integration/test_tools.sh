#!/bin/bash
# tools/receivers_to_sac.py: a receiver file in starquake's layout becomes SAC files whose header and
# samples a small independent numpy reader checks field by field, and a SCEC CVWS station file with
# integrated displacements; a file written by a real starquake run converts as well; bad inputs fail
# with one message naming the file and line.
set -u
. "${srcdir:-.}/tests/lib.sh"
TOOL=$SRC/tools/receivers_to_sac.py
tempdir T
if ! $PY -c 'import numpy' 2> /dev/null; then
  echo "SKIP: $PY has no numpy (apt-get install python3-numpy)"
  exit 77
fi
# a receiver file as io/receiver_writer.c writes it: 201 samples, dt = 0.005; v1 = sin(2 pi t), v2 = 2, v3 = t,
# s_xx = 1e6 t^2, the other stresses 0
$PY - "$T/run-receiver-00007.dat" << 'PY'
import math, sys
names = ["s_xx", "s_yy", "s_zz", "s_xy", "s_yz", "s_xz", "v1", "v2", "v3"]
with open(sys.argv[1], "w") as f:
    f.write('TITLE = "Temporal Signal for receiver number 00007"\n')
    f.write('VARIABLES = "Time"' + "".join(',"%s"' % n for n in names) + "\n")
    f.write("# x1  1.2500000000000000E+03\n# x2 -2.5000000000000000E+02\n# x3 -3.0000000000000000E+03\n")
    for j in range(201):
        t = 0.005 * j
        v = [1e6 * t * t, 0, 0, 0, 0, 0, math.sin(2 * math.pi * t), 2.0, t]
        f.write("% .16E" % t + "".join(" % .16E" % x for x in v) + "\n")
PY

# an independent reader of SAC files: header words by their documented byte offsets
cat > "$T/check_sac.py" << 'PY'
import sys
import numpy as np
def read_sac(path):
    raw = open(path, "rb").read()
    f = np.frombuffer(raw[0:280], "<f4"); i = np.frombuffer(raw[280:440], "<i4"); k = raw[440:632]
    h = {"delta": f[0], "depmin": f[1], "depmax": f[2], "b": f[5], "e": f[6], "o": f[7], "stla": f[31],
         "stlo": f[32], "stel": f[33], "user0": f[40], "user1": f[41], "user2": f[42], "depmen": f[56],
         "nzyear": i[0], "nzjday": i[1], "nzhour": i[2], "nzmin": i[3], "nzsec": i[4], "nzmsec": i[5],
         "nvhdr": i[6], "npts": i[9], "iftype": i[15], "idep": i[16], "iztype": i[17], "leven": i[35],
         "kstnm": k[0:8].decode().strip(), "kevnm": k[8:24].decode().strip(),
         "kuser0": k[136:144].decode().strip(), "kcmpnm": k[160:168].decode().strip(),
         "knetwk": k[168:176].decode().strip()}
    data = np.frombuffer(raw[632:], "<f4")
    return h, data
def expect(cond, what):
    if not cond:
        print("FAIL", what); sys.exit(1)
mode, path = sys.argv[1], sys.argv[2]
h, d = read_sac(path)
t = 0.005 * np.arange(201)
expect(len(d) == h["npts"] == 201, "npts %d, %d samples" % (h["npts"], len(d)))
expect(h["nvhdr"] == 6 and h["iftype"] == 1 and h["leven"] == 1, "nvhdr/iftype/leven %s" % h)
expect(abs(h["delta"] - 0.005) < 1e-9 and h["b"] == 0 and abs(h["e"] - 1.0) < 1e-6, "delta/b/e %s" % h)
expect(h["kstnm"] == "R00007" and h["knetwk"] == "SQ" and h["kevnm"] == "-12345", "strings %s" % h)
if mode == "v1":
    expect(h["kcmpnm"] == "v1" and h["idep"] == 7, "kcmpnm/idep %s" % h)
    expect(np.allclose(d, np.sin(2 * np.pi * t).astype("f4"), atol=1e-7), "v1 samples")
    expect(abs(h["depmax"] - d.max()) < 1e-7 and abs(h["depmin"] - d.min()) < 1e-7, "depmin/depmax")
    expect(h["user0"] == 1250 and h["user1"] == -250 and h["user2"] == -3000 and h["kuser0"] == "x1x2x3",
           "user0..2 %s" % h)
    expect(h["stla"] == -12345 and h["nzyear"] == -12345, "undefined fields %s" % h)
elif mode == "sxx":
    expect(h["kcmpnm"] == "s_xx" and h["idep"] == 5, "kcmpnm/idep %s" % h)
    expect(np.allclose(d, (1e6 * t * t).astype("f4"), rtol=1e-6), "s_xx samples")
elif mode == "geo":
    expect(h["stlo"] == 1250 and h["stla"] == -250 and h["stel"] == -3000 and h["user0"] == -12345, "geo %s" % h)
    expect((h["nzyear"], h["nzjday"], h["nzhour"], h["nzmin"], h["nzsec"], h["nzmsec"]) == (2004, 272, 17, 15, 24, 250)
           and h["iztype"] == 11 and h["o"] == 0, "origin %s" % h)
print("header and %d samples of %s as expected" % (len(d), path.split("/")[-1]))
PY

if $PY "$TOOL" -o "$T/sac" "$T/run-receiver-00007.dat" > "$T/conv.out" 2>&1 \
  && [ "$(find "$T/sac" -name '*.sac' | wc -l)" -eq 9 ]; then
  ok "9 SAC files: $(cd "$T/sac" && echo ./*.sac)"
else bad "conversion: $(cat "$T/conv.out")"; fi
for m in v1 sxx; do
  f=$T/sac/run-receiver-00007.v1.sac
  [ $m = sxx ] && f=$T/sac/run-receiver-00007.s_xx.sac
  if out=$($PY "$T/check_sac.py" $m "$f" 2>&1); then ok "$out"; else bad "$out"; fi
done
if $PY "$TOOL" -o "$T/geo" --components v1 --coordinates geographic --origin 2004-09-28T17:15:24.250 \
  "$T/run-receiver-00007.dat" > "$T/geo.out" 2>&1 \
  && out=$($PY "$T/check_sac.py" geo "$T/geo/run-receiver-00007.v1.sac" 2>&1); then
  ok "geographic coordinates and origin time: $out"
else bad "geographic: $(cat "$T/geo.out") $out"; fi

# CVWS: h = v1, v = v3, n = -v2 (axes 1,3,-2); displacements are the integrals of the velocities
if $PY "$TOOL" -o "$T/cvws" --format cvws --axes 1,3,-2 --problem TPV5 "$T/run-receiver-00007.dat" > "$T/cvws.out" 2>&1 \
  && $PY - "$T/cvws/run-receiver-00007.cvws" << 'PY'
import sys
import numpy as np
lines = open(sys.argv[1]).read().splitlines()
assert "# problem=TPV5" in lines and "t h-disp h-vel v-disp v-vel n-disp n-vel" in lines, lines[:25]
d = np.loadtxt(sys.argv[1], comments="#", skiprows=lines.index("t h-disp h-vel v-disp v-vel n-disp n-vel") + 1)
t = d[:, 0]
assert d.shape == (201, 7), d.shape
assert np.allclose(d[:, 2], np.sin(2 * np.pi * t), atol=1e-7)
assert np.allclose(d[:, 1], (1 - np.cos(2 * np.pi * t)) / (2 * np.pi), atol=1e-4)  # integral of sin
assert np.allclose(d[:, 4], t) and np.allclose(d[:, 3], t * t / 2, atol=1e-6)          # integral of t
assert np.allclose(d[:, 6], -2.0) and np.allclose(d[:, 5], -2.0 * t)                   # integral of -2
PY
then ok "CVWS file: 7 columns, displacements integrate the velocities"
else bad "CVWS: $(cat "$T/cvws.out")"; fi

# bad inputs: one message naming the file (and line)
printf 'TITLE = "x"\nVARIABLES = "Time","v1"\n# x1 0\n# x2 0\n# x3 0\n0 1\n0.1 oops\n' > "$T/bad-receiver-00001.dat"
if $PY "$TOOL" -o "$T/bad" "$T/bad-receiver-00001.dat" > /dev/null 2> "$T/bad.err"; then bad "bad row: exit status 0"
elif grep -q "^receivers_to_sac: error: .*bad-receiver-00001.dat:7: " "$T/bad.err"; then ok "bad row: $(cat "$T/bad.err")"
else bad "bad row: $(cat "$T/bad.err")"; fi
printf 'TITLE = "x"\nVARIABLES = "Time","v1"\n# x1 0\n# x2 0\n# x3 0\n0 1\n0.1 1\n0.3 1\n' > "$T/uneven-receiver-00001.dat"
if ! $PY "$TOOL" -o "$T/bad" "$T/uneven-receiver-00001.dat" > /dev/null 2> "$T/uneven.err" \
  && grep -q "not evenly spaced" "$T/uneven.err"; then ok "uneven samples: $(cat "$T/uneven.err")"
else bad "uneven samples: $(cat "$T/uneven.err")"; fi

# a receiver file from a real run
sed "s|@OUT@|$T/run|" "$CONFIGS/tools_receiver.yaml" > "$T/run.yaml" # output.directory: @OUT@
if "$SQ" "$T/run.yaml" --quiet > "$T/run.out" 2>&1 && [ -f "$T/run/real-receiver-00001.dat" ]; then
  if $PY "$TOOL" --format both "$T/run/real-receiver-00001.dat" > "$T/real.out" 2>&1 \
    && [ -f "$T/run/real-receiver-00001.v1.sac" ] && [ -f "$T/run/real-receiver-00001.cvws" ] \
    && $PY -c "
import numpy as np, sys
raw = open('$T/run/real-receiver-00001.v1.sac', 'rb').read()
rows = np.loadtxt('$T/run/real-receiver-00001.dat', comments=('#', 'TITLE', 'VARIABLES'))
n = np.frombuffer(raw[280:440], '<i4')[9]
d = np.frombuffer(raw[632:], '<f4')
sys.exit(0 if n == len(rows) == len(d) and np.allclose(d, rows[:, 7].astype('f4')) else 1)"; then
    ok "a receiver file of a real run converts ($(head -c 60 "$T/real.out")...)"
  else bad "real run: $(cat "$T/real.out")"; fi
else
  bad "the starquake run with a receiver failed: $(tail -5 "$T/run.out")"
fi

# tools/plot_receivers.py: stored executable and run as documented, axes in SI units, rotation to
# radial / transverse / vertical for a source (checked on a synthetic receiver NE of the source)
PLOT=$SRC/tools/plot_receivers.py
mode=$(cd "$SRC" && git ls-files -s tools/plot_receivers.py 2> /dev/null | cut -c1-6)
if [ -x "$PLOT" ] && { [ -z "$mode" ] || [ "$mode" = 100755 ]; }; then ok "plot_receivers.py is executable (git mode ${mode:-n/a})"
else bad "plot_receivers.py is not executable (git mode $mode)"; fi
if [ -f "$T/run/real-receiver-00001.dat" ] && out=$("$PLOT" "$T/run/real" -o "$T/seis.png" 2>&1) && [ -s "$T/seis.png" ] &&
  out2=$("$PLOT" "$T/run/real" --source 0.1 0.2 0.5 -o "$T/seis-rot.png" 2>&1) && [ -s "$T/seis-rot.png" ] &&
  grep -q "vr vt vz" <<< "$out2"; then
  ok "plot_receivers.py: $out; --source: $out2"
else bad "plot_receivers.py: $out $out2"; fi
printf 'TITLE = "x"\nVARIABLES = "Time","v1","v2","v3","u1","u2","u3"\n# x1 4\n# x2 5\n# x3 -1\n' > "$T/rot-receiver-00001.dat"
printf '%s\n' "0 0.6 0.8 2 0 0 0" "0.1 -0.8 0.6 1 0.06 0.08 0.2" >> "$T/rot-receiver-00001.dat"
if out=$(cd "$SRC/tools" && $PY -B - "$T/rot-receiver-00001.dat" << 'PY' 2>&1
import sys
import numpy as np
import plot_receivers as pr
names, loc, data = pr.read_receiver(sys.argv[1])
src = (1.0, 1.0, -3.0)  # receiver - source = (3, 4): radial (0.6, 0.8), transverse (-0.8, 0.6)
get = lambda q: pr.column(names, loc, data, q, src)
assert np.allclose(get("vr"), [1, 0]) and np.allclose(get("vt"), [0, 1]) and np.allclose(get("vz"), [2, 1]), \
    (get("vr"), get("vt"))
assert np.allclose(get("ur"), [0, 0.1]) and np.allclose(get("ut"), [0, 0]) and np.allclose(get("uz"), [0, 0.2])
assert pr.unit("vr") == "m/s" and pr.unit("u1") == "m" and pr.unit("s_xy") == "Pa"
print("vr vt vz, ur ut uz as expected; units m/s, m, Pa")
PY
); then ok "plot_receivers.py rotation: $out"; else bad "plot_receivers.py rotation: $out"; fi

# tools/plot_fault.py stations: the dominant slip-rate component by default (dip on a dip-slip station)
for c in h v; do
  f=$T/faults-$c/run-faultst000dp120
  mkdir -p "$T/faults-$c"
  printf '# location= 0.0 km along strike, 12.0 km down-dip\n# depth= 10.4 km\n' > "$f"
  echo "t h-slip h-slip-rate h-shear-stress v-slip v-slip-rate v-shear-stress n-stress" >> "$f"
  for k in 0 1 2 3; do
    if [ $c = v ]; then echo "0.$k 0 0.0$k 1 0 -$k.4 2 -3"; else echo "0.$k 0 $k.4 1 0 0.0$k 2 -3"; fi
  done >> "$f"
  if out=$($PY "$SRC/tools/plot_fault.py" stations "$T/faults-$c" -o "$T/st-$c.png" 2>&1) &&
    grep -q "^component $c " <<< "$out" && grep -q "x 2 quantities" <<< "$out" && [ -s "$T/st-$c.png" ]; then
    ok "plot_fault.py stations picks the $c component: $(head -1 <<< "$out")"
  else bad "plot_fault.py stations, $c-dominant station: $out"; fi
done
if out=$($PY "$SRC/tools/plot_fault.py" stations "$T/faults-v" --component both -o "$T/st-both.png" 2>&1) &&
  grep -q "x 4 quantities" <<< "$out"; then ok "plot_fault.py stations --component both: $out"
else bad "plot_fault.py stations --component both: $out"; fi
report tools
