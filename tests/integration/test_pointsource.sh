#!/bin/bash
# A point source in a homogeneous full space against Aki & Richards' closed-form solution
# (`starquake verify pointsource`, app/verify_source.c; docs/VERIFICATION.md).  Quick size: order 4,
# 3072 elements in two LTS clusters, relative L2 misfit of the six velocity seismograms <= 25% (0.6
# length units from the source, the mesh resolves the pulse coarsely).  With STARQUAKE_LONG_TESTS=1 the
# long size (order 5, 16464 elements) must reach <= 2%, for the moment tensor and for a single force.
set -u
. "${srcdir:-.}/tests/lib.sh"
"$SQ" verify pointsource --json || fail=1
if [ "${STARQUAKE_LONG_TESTS:-0}" = 1 ]; then
  "$SQ" verify pointsource --size long --json || fail=1
  "$SQ" verify pointsource --size long --force --json || fail=1
fi
[ $fail -eq 0 ]
