#!/bin/bash
# docs/CONFIG_REFERENCE.md must be what `starquake config-reference` prints from the schema tables in
# io/config_tables*.c, so that the documented keys, types, defaults and ranges cannot drift from the loader.
set -u
. "${srcdir:-.}/tests/lib.sh"
DOC=$SRC/docs/CONFIG_REFERENCE.md
tempdir T
if ! "$SQ" config-reference > "$T/ref.md" 2> "$T/ref.err"; then
  echo "FAIL starquake config-reference: $(cat "$T/ref.err")"
  exit 1
fi
if ! diff -u "$DOC" "$T/ref.md" > "$T/diff"; then
  echo "FAIL $DOC differs from \`starquake config-reference\` (the schema in io/config_tables*.c changed):"
  head -60 "$T/diff"
  echo "regenerate it with tools/gen-config-reference.sh and commit the result"
  exit 1
fi
for key in mesh.type equations.order equations.cfl materials.default.rho output.prefix; do
  grep -q "| \`$key\` |" "$T/ref.md" || { echo "FAIL the reference lacks $key"; exit 1; }
done
echo "ok   docs/CONFIG_REFERENCE.md matches the schema ($(grep -c '^| `' "$T/ref.md") keys)"
