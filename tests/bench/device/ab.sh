#!/usr/bin/env bash
# tests/bench/device/ab.sh: compare kernel builds on the GPU host, interleaved so that clock and thermal
# drift hit every build alike.  The builds are the carried proxies named in SQ_AB_BUILDS (space-separated;
# "default" is .deps/carry/bin/starquake-proxy, any other name X is .deps/carry/bin/starquake-proxy-X;
# default "default b": prepare them here with tests/bench/device/prepare.sh, a second build copied into
# .deps/carry-stage/bin as starquake-proxy-b, and prepare.sh --pack).  Each point of SQ_AB_POINTS (";"-separated proxy argument
# lists, default the order-6 512k GTS point with its kernels) runs SQ_AB_REPEAT times (default 2) per
# build (and per setting of SQ_AB_ENVS, below).  Prints every RESULT line and a table of element updates/s and % of the FP32 (or FP64) peak
# per build, point and kernel (median over the repeats).  Extra environment (STARPU_*, SQ_*) passes
# through to the proxies.  Needs .deps/{starpu,carry} carried.
set -u
. tests/bench/device/env.sh
export STARPU_NCPU=${STARPU_NCPU:-0} STARPU_NCUDA=${STARPU_NCUDA:-1}
export STARPU_NWORKER_PER_CUDA=${STARPU_NWORKER_PER_CUDA:-2}
read -r -a builds <<< "${SQ_AB_BUILDS:-default b}"
POINTS=${SQ_AB_POINTS:-"512k 0 all,ader,local,neighbor 6 single gpu"}
REPEAT=${SQ_AB_REPEAT:-2}
OUTDIR=${OUT:-/tmp/sq-ab}
mkdir -p "$OUTDIR"
LOG=$OUTDIR/ab.log
: > "$LOG"
IFS=';' read -r -a points <<< "$POINTS"
# SQ_AB_ENVS: ";"-separated environment settings ("VAR=x VAR2=y"), each run with every build; an empty
# item runs without extra settings (default: one empty item)
IFS=';' read -r -a envs <<< "${SQ_AB_ENVS:-}"
[ ${#envs[@]} -gt 0 ] || envs=("")
for ((r = 0; r < REPEAT; ++r)); do
  for p in "${points[@]}"; do
    for b in "${builds[@]}"; do
      bin=$CARRY/bin/starquake-proxy
      [ "$b" = default ] || bin=$bin-$b
      for v in "${envs[@]}"; do
        label=$b${v:+[${v// /,}]}
        echo "## build '$label' repeat $r: starquake-proxy $p" >> "$LOG"
        # shellcheck disable=SC2086
        timeout 300 env $v "$bin" $p 2>&1 | sed "s/^RESULT/RESULT build=$label/" >> "$LOG"
      done
    done
  done
done
grep '^RESULT' "$LOG"
echo
python3 - "$LOG" <<'EOF'
import re, sys, statistics
rows = {}
for line in open(sys.argv[1]):
    if not line.startswith('RESULT'):
        continue
    kv = dict(re.findall(r'(\w+)=(\S+)', line))
    key = (kv.get('build'), kv.get('elems'), kv.get('order'), kv.get('prec'), kv.get('kernel') + ('' if kv.get('tile') in (None, '0') else ' tile ' + kv['tile']))
    rows.setdefault(key, []).append((float(kv.get('upd_per_s', 'nan')), float(kv.get('pct_peak_flops', 'nan'))))
print('| build | elements | order | precision | kernel | updates/s (median) | % of peak | samples |')
print('|---|---|---|---|---|---|---|---|')
for key in sorted(rows, key=lambda k: (int(k[1] or 0), int(k[2] or 0), k[3] or '', k[4] or '', k[0] or '')):
    v = rows[key]
    print('| %s | %s | %s | %s | %s | %.4g | %.1f | %d |' % (key + (statistics.median(x[0] for x in v),
          statistics.median(x[1] for x in v), len(v))))
EOF
