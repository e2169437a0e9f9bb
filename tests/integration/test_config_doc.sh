#!/bin/bash
# Every key of the schema (io/config_tables*.c, as `starquake config-reference` prints them) appears in
# docs/CONFIG.md in the section of its path (check_config_doc.py), and the default scheduler that
# CONFIG.md names is the one the code picks (sim/process.c).
set -u
. "${srcdir:-.}/tests/lib.sh"
tempdir T

"$SQ" config-reference > "$T/reference.md" || bad "starquake config-reference: exit status $?"
if $PY "$SRC/tests/integration/check_config_doc.py" "$T/reference.md" "$SRC/docs/CONFIG.md" > "$T/doc.out" 2>&1; then
  ok "$(tail -1 "$T/doc.out")"
else
  bad "docs/CONFIG.md lacks keys: $(cat "$T/doc.out")"
fi
sched=$(grep -o 'sched_policy_name = "[a-z]*"' "$SRC/sim/process.c" | grep -o '"[a-z]*"' | tr -d '"')
if [ -n "$sched" ] && grep -q "the default \`$sched\`" "$SRC/docs/CONFIG.md"; then ok "CONFIG.md names the default scheduler $sched"
else bad "the code's default scheduler is '$sched'; CONFIG.md says: $(grep -o 'the default `[a-z]*`' "$SRC/docs/CONFIG.md")"; fi
report test_config_doc
