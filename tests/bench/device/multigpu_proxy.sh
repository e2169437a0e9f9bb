#!/usr/bin/env bash
# tests/bench/device/multigpu_proxy.sh: several GPUs in one process (target: 2 GPUs >= 1.8 x one).
# starquake-proxy, GTS order 6 single precision, SQ_MG_ELEMS (default 512k) elements, GPUs only, on 1
# and on all GPUs of the host, for each scheduler in SQ_MG_SCHEDS (default dmda) and each tile size
# in SQ_MG_TILES (default 32768).  The perf models are calibrated by the first run of each kind (the
# proxy's warm-up steps); prints the ratio of element updates/s to the 1-GPU run last.
set -u
. tests/bench/device/env.sh
LOG=${OUT:-/tmp/sq-mg}
mkdir -p "$LOG"
NGPU=$(nvidia-smi -L | wc -l)
ELEMS=${SQ_MG_ELEMS:-512k}
rows=()
for tile in ${SQ_MG_TILES:-32768}; do
  for sched in ${SQ_MG_SCHEDS:-dmda}; do
    base=
    for n in 1 "$NGPU"; do
      r=$(STARPU_NCUDA=$n STARPU_SCHED=$sched SQ_PROXY_SECONDS=${SQ_PROXY_SECONDS:-3} timeout 240 \
        "$CARRY/bin/starquake-proxy" "$ELEMS" 0 all 6 single gpu "$tile" 2>&1 | tee -a "$LOG/mg.log" |
        sed -n 's/^RESULT .*upd_per_s=\([^ ]*\).*bus_bytes_per_step=\([^ ]*\).*/\1 \2/p')
      read -r ups bus <<< "$r"
      [ -z "$base" ] && base=$ups
      ratio=$(awk -v a="${ups:-0}" -v b="${base:-0}" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}')
      rows+=("| $n | $sched | $tile | ${ups:-failed} | ${bus:-} | $ratio |")
      [ "$NGPU" -eq 1 ] && break
    done
  done
done
echo "| GPUs | scheduler | tile | element updates/s | StarPU bytes moved per step | ratio to 1 GPU |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
