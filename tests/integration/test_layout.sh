#!/bin/bash
# The tree keeps its layering (docs/ARCHITECTURE.md): numerics and the LTS graph name neither StarPU nor MPI,
# app/ never calls StarPU, no two files call each other or include each other in a loop, no hand-written
# source is over 1,000 lines, and no code, build file or document carries work-log text.
set -u
. "${srcdir:-.}/tests/lib.sh"
BUILD=${SQ_BUILDDIR:-$(dirname "$SQ")}
cd "$SRC" || exit 99
sources() { find "$@" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cc' \); }

# layers: src/ (with src/cuda/) and graph/ include neither StarPU's nor MPI's headers; app/ calls no StarPU
hits=$(grep -nE '#include *[<"](starpu|mpi)' $(sources src graph) 2> /dev/null)
[ -z "$hits" ] && ok "src/ and graph/ include neither StarPU nor MPI" || bad "StarPU or MPI in src/ or graph/: $hits"
hits=$(grep -nE '\bstarpu_[a-z_]+\(|#include *<starpu' $(sources app) 2> /dev/null)
[ -z "$hits" ] && ok "app/ calls no StarPU function" || bad "app/ calls StarPU: $hits"
hits=$(grep -lE 'starpu' graph/Makefile.am)
[ -z "$hits" ] && ok "graph/ is compiled without StarPU's flags" || bad "graph/Makefile.am names StarPU"

# file size: no hand-written source over 1,000 lines
long=$(sources src mesh easi io runtime codelets graph sim seissol app tests | xargs wc -l | awk '$2 != "total" && $1 > 1000')
[ -z "$long" ] && ok "no source file over 1000 lines" || bad "source files over 1000 lines: $long"

# call and include loops, from the built objects
if out=$(bash tools/check-call-loops.sh "$BUILD" "$SRC" 2>&1); then ok "$(echo "$out" | tail -n 1)"
else bad "$out"; fi

# work-log text: session numbers, issue numbers, numbered device calls and device-time budgets
pattern='[Ss]ession [0-9]|[Ii]ssue #?[0-9]|\(#[0-9]+\)|GPU call [0-9]|device time left|budget_left'
hits=$(grep -rnE "$pattern" --include='*.c' --include='*.h' --include='*.cu' --include='*.cuh' --include='*.cc' \
  --include='*.am' --include='*.ac' --include='*.m4' --include='*.sh' --include='*.py' --include='*.md' \
  src mesh easi io runtime codelets graph sim seissol app tests tools docs configs m4 Makefile.am configure.ac README.md quickstart \
  2> /dev/null | grep -v '^tests/integration/test_layout.sh:')
[ -z "$hits" ] && ok "no work-log text in code, build files or docs" || bad "work-log text: $hits"
report layout
