#!/bin/bash
# SCEC TPV104 at production resolution: mesh, run, plot (configs/rupture_scenario.sh; docs/RUPTURE.md).
#   configs/tpv104/run.sh [starquake options]      e.g. H_FAULT=500 configs/tpv104/run.sh --tile-size 4096
exec "$(dirname "$0")/../rupture_scenario.sh" "$(dirname "$0")" "$@"
