#!/bin/bash
# Every hand-written C, C++ and CUDA source matches .clang-format (tools/format.sh --check; make format fixes
# it).  Skipped (77) only where clang-format is not installed; ./quickstart installs it, so CI always checks.
set -u
. "${srcdir:-.}/tests/lib.sh"
command -v "${CLANG_FORMAT:-clang-format}" > /dev/null || { echo "clang-format not found: skipped"; exit 77; }
out=$(bash "$SRC/tools/format.sh" --check 2>&1) && ok "$(echo "$out" | tail -n 1)" || bad "$out"
report format
