#!/bin/bash
# SCEC TPV6: mesh, estimate, run, plot (configs/rupture_scenario.sh; docs/RUPTURE.md).
#   configs/tpv6/run.sh [short|production] [starquake options]
#     short (default): a coarse mesh, order 3, about a minute; production: the benchmark's resolution
#   e.g. configs/tpv6/run.sh production --tile-size 4096;  configs/tpv6/run.sh --set equations.end_time=3
exec "$(dirname "$0")/../rupture_scenario.sh" "$(dirname "$0")" "$@"
