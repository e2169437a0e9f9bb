# shellcheck shell=bash
# Helpers of the scenario scripts (configs/*/run.sh, configs/rupture_scenario.sh), sourced by them:
#   scenario_size ARGS...        the size, the first argument when it is one: short (the default, seconds to
#                                minutes on a laptop) or production (the benchmark's resolution: hours, GBs);
#                                sets SIZE, and SHIFT to 1 when the first argument was the size
#   scenario_child COMMAND...    runs COMMAND as a child that the script's signals reach: TERM, INT and HUP
#                                sent to the script are passed on to it, and the script waits for it
#                                (killing the script never leaves it running); returns its exit status
#   scenario_run STARQUAKE CONFIG OPTIONS...
#                                prints the run's memory estimate and its estimated run time (the lines of
#                                `starquake CONFIG OPTIONS --dry-run`; SQ_NO_ESTIMATE=1 skips them), then
#                                runs it with scenario_child
#   scenario_loh_mesh NAME       LOH.1's geometry NAME.geo beside the script ($here) meshed for the size:
#                                short: NAME-short.msh (2 km near the source and receivers, 3 km in the layer,
#                                10 km far) and SCENARIO_OPTS the options that run it (that mesh, order 3);
#                                production: NAME.msh as NAME.yaml names it, SCENARIO_OPTS empty
#   scenario_plot TOOL ARGS...   tools/TOOL ARGS... with the system python, when it has matplotlib
# Sourcing this file sets sq, the starquake binary, unless the script set it: SQ_BIN, else the one at the top
# of the repository.
# The child runs in a session of its own (setsid), so that a Ctrl-C at the terminal reaches it once,
# through the script, and not twice (once from the terminal, once forwarded).

SCENARIO_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sq=${sq:-${SQ_BIN:-$SCENARIO_TOP/starquake}}

scenario_size() {
  SIZE=short SHIFT=0
  case "${1:-}" in
    short | production) SIZE=$1 SHIFT=1 ;;
  esac
}

scenario_child() {
  local pid rc
  if command -v setsid > /dev/null; then setsid "$@" & else "$@" & fi
  pid=$!
  # shellcheck disable=SC2064 # the child's pid is meant to be fixed now
  for sig in TERM INT HUP; do trap "echo \"${0##*/}: SIG$sig: passed on to $1 (pid $pid)\" >&2; kill -$sig $pid 2> /dev/null" $sig; done
  while :; do
    rc=0
    wait "$pid" || rc=$? # (set -e must not end the script here: a trapped signal interrupts the wait)
    kill -0 "$pid" 2> /dev/null || break # wait returned for a trapped signal: the child still runs
  done
  trap - TERM INT HUP
  return $rc
}

# scenario_mesh GEO FORMAT OUT.msh GMSH-OPTIONS...: mesh GEO with gmsh into OUT.msh (Gmsh format FORMAT),
# unless OUT.msh exists; gmsh's log goes to gmsh.log beside GEO, and is shown if gmsh fails
scenario_mesh() {
  local geo=$1 format=$2 out=$3 log
  shift 3
  [ -s "$out" ] && return 0
  log=$(dirname "$geo")/gmsh.log
  scenario_child gmsh -3 "$@" -format "$format" -o "$out" "$geo" > "$log" || { cat "$log"; exit 1; }
}

scenario_run() {
  local sq=$1 a dry=()
  shift
  for a in "$@"; do [ "$a" = --quiet ] || dry+=("$a"); done
  if [ "${SQ_NO_ESTIMATE:-0}" != 1 ]; then
    echo "${0##*/}: $SIZE size; estimating its memory and run time (starquake --dry-run; SQ_NO_ESTIMATE=1 skips this)"
    local log
    log=$(mktemp) || return 1
    if ! scenario_child "$sq" "${dry[@]}" --dry-run > "$log" 2>&1; then
      cat "$log" >&2
      rm -f "$log"
      return 1
    fi
    grep -E '^  (mesh|order|memory|estimate) ' "$log"
    rm -f "$log"
  fi
  scenario_child "$sq" "$@"
}

# shellcheck disable=SC2154 # here: the calling script's folder
scenario_loh_mesh() {
  SCENARIO_OPTS=()
  if [ "$SIZE" = short ]; then
    scenario_mesh "$here/$1.geo" msh41 "$here/$1-short.msh" -setnumber lc_fine 2000 -setnumber lc_layer 3000 -setnumber lc_far 10000
    SCENARIO_OPTS=(--set "mesh.file=$1-short.msh" --set equations.order=3)
  else
    scenario_mesh "$here/$1.geo" msh41 "$here/$1.msh"
  fi
}

scenario_plot() {
  local tool=$1
  shift
  if /usr/bin/python3 -c 'import matplotlib' 2> /dev/null; then
    /usr/bin/python3 "$SCENARIO_TOP/tools/$tool" "$@"
  fi
}
