#!/usr/bin/env bash
# tests/bench/attenuation_cases.sh: sourced by the attenuation cost benchmarks (tests/bench/attenuation_cpu.sh,
# tests/bench/device/attenuation_gpu.sh).  attenuation_cases DIR CELLS TILE END writes the two cases they
# compare: DIR/el.yaml, a P plane wave (order 6, single precision) on a box of CELLS^3 cubes (6 tets each) in
# tiles of TILE elements up to END, and DIR/ve.yaml, the same with attenuation (3 mechanisms, Qp 50, Qs 25,
# central frequency 1, frequency ratio 100).  Output prefixes: el and ve.
attenuation_cases() {
  local dir=$1 cells=$2 tile=$3 end=$4
  cat > "$dir/el.yaml" << YAML
mesh:
  type: box
  box: {cells: [$cells, $cells, $cells]}
materials:
  default: {rho: 1.0, lambda: 2.0, mu: 1.0}
initial_condition:
  type: planewave
  wave_vector: [6.283185307179586, 0.0, 0.0]
  modes:
    - {type: p, amplitude: 1.0, direction: 1}
equations:
  order: 6
  precision: single
  end_time: $end
output:
  prefix: el
runtime:
  tile_size: $tile
YAML
  sed -e 's/prefix: el/prefix: ve/' -e 's/mu: 1.0}/mu: 1.0, qp: 50, qs: 25}/' "$dir/el.yaml" > "$dir/ve.yaml"
  printf 'attenuation:\n  central_frequency: 1.0\n  frequency_ratio: 100\n' >> "$dir/ve.yaml"
}
