#!/bin/bash
# tools/gen-config-reference.sh [STARQUAKE]: regenerate docs/CONFIG_REFERENCE.md from the schema tables
# in io/config_tables*.c, through the hidden command `starquake config-reference`.  Run it after changing a
# table; tests/integration/test_config_reference.sh fails until the committed file matches.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SQ=${1:-$ROOT/starquake}
[ -x "$SQ" ] || { echo "gen-config-reference: $SQ not found; build starquake first (make)" >&2; exit 1; }
"$SQ" config-reference > "$ROOT/docs/CONFIG_REFERENCE.md.tmp"
mv "$ROOT/docs/CONFIG_REFERENCE.md.tmp" "$ROOT/docs/CONFIG_REFERENCE.md"
echo "wrote $ROOT/docs/CONFIG_REFERENCE.md"
