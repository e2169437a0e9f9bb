#!/usr/bin/env bash
# tools/format.sh [--check]: apply .clang-format to every hand-written C, C++ and CUDA source of the tree
# (make format), or with --check list the files that do not match it and exit 1 (make check runs this
# through tests/integration/test_format.sh).  CLANG_FORMAT names the program (default clang-format).
set -euo pipefail
cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.."
CF=${CLANG_FORMAT:-clang-format}
mapfile -t files < <(find src mesh easi io runtime codelets graph sim seissol app tests -type f \
  \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cc' \) ! -path '*/.deps/*' | sort)
if [ "${1:-}" != "--check" ]; then
  "$CF" -i "${files[@]}"
  exit 0
fi
bad=0
for f in "${files[@]}"; do
  if ! "$CF" --dry-run --Werror "$f" > /dev/null 2>&1; then
    echo "not formatted: $f (make format)"
    bad=$((bad + 1))
  fi
done
echo "format: ${#files[@]} files checked with $("$CF" --version | head -n 1), $bad not formatted"
[ "$bad" -eq 0 ]
