#!/bin/bash
# The files of a run (tests/configs/sources.yaml, prefix src): PREFIX-manifest.txt and the closing
# message list exactly the files the run wrote; re-running into the same folder with fewer receivers
# removes the old run's extra receiver files (the default, --clean), or keeps them with --keep-stale
# (named in a warning, left out of the manifest); a file of that prefix that no manifest lists is never
# touched.
set -u
. "${srcdir:-.}/tests/lib.sh"
CFG=$CONFIGS/sources.yaml
tempdir OUT
sed -e '/^    - \[0.3, -0.3, -0.2\]$/d' -e '/^    - \[0.0, 0.0, 0.0\]$/d' "$CFG" > "$OUT/two.yaml"
grep -c '^    - \[' "$OUT/two.yaml" | grep -qx 2 || bad "two.yaml does not have 2 receivers"

# same_files DIR WHAT: the manifest lists exactly the src-* files in DIR (but itself), by their names in DIR
same_files() {
  (cd "$1" && ls src-*) | grep -v -e '-manifest.txt$' -e '-notes.txt$' | sort > "$OUT/present.txt"
  sort "$1/src-manifest.txt" | cmp -s - "$OUT/present.txt" &&
    ok "$2: the manifest lists the $(wc -l < "$OUT/present.txt") files present" ||
    bad "$2: manifest [$(cat "$1/src-manifest.txt" | tr '\n' ' ')] != present [$(cat "$OUT/present.txt" | tr '\n' ' ')]"
}

D=$OUT/run
mkdir -p "$D"
echo "the user's own notes" > "$D/src-notes.txt"
"$SQ" "$CFG" --output "$D" > "$OUT/four.log" 2>&1 || bad "run with 4 receivers"
same_files "$D" "4 receivers"
grep -q "^results: $(wc -l < "$D/src-manifest.txt") files in $D/, listed in $D/src-manifest.txt:" "$OUT/four.log" &&
  ok "the closing message names the manifest and the count" || bad "closing message: $(tail -3 "$OUT/four.log")"
sed -n '/^results:/,$p' "$OUT/four.log" | grep '^  ' | sed 's/^  //' | cmp -s - "$D/src-manifest.txt" &&
  ok "the closing message lists every file of the manifest" || bad "closing message lists: $(sed -n '/^results:/,$p' "$OUT/four.log")"

"$SQ" "$OUT/two.yaml" --quiet --output "$D" || bad "run with 2 receivers"
[ ! -e "$D/src-receiver-00003.dat" ] && [ ! -e "$D/src-receiver-00004.dat" ] && [ -s "$D/src-receiver-00002.dat" ] &&
  ok "default: the stale receiver files 3 and 4 are removed" || bad "default: $(ls "$D")"
same_files "$D" "2 receivers after 4"
[ -s "$D/src-notes.txt" ] && ok "a file no manifest lists is kept" || bad "src-notes.txt was removed"

K=$OUT/keep
"$SQ" "$CFG" --quiet --output "$K" || bad "run with 4 receivers (keep)"
"$SQ" "$OUT/two.yaml" --quiet --output "$K" --keep-stale 2> "$OUT/keep.err" || bad "run with 2 receivers, --keep-stale"
[ -s "$K/src-receiver-00003.dat" ] && [ -s "$K/src-receiver-00004.dat" ] && ok "--keep-stale: the stale files stay" ||
  bad "--keep-stale: $(ls "$K")"
grep -q "warning: 2 files of an earlier run with prefix src kept (--keep-stale).*src-receiver-00003.dat $K/src-receiver-00004.dat" \
  "$OUT/keep.err" && ok "--keep-stale: a warning names them" || bad "--keep-stale warning: $(cat "$OUT/keep.err")"
grep -q 'receiver-0000[34]' "$K/src-manifest.txt" && bad "--keep-stale: the stale files are in the manifest" ||
  ok "--keep-stale: the manifest leaves them out"
[ "$(wc -l < "$K/src-manifest.txt")" -eq $(($(ls "$K"/src-* | wc -l) - 3)) ] &&
  ok "--keep-stale: the manifest lists the other files" || bad "--keep-stale manifest: $(cat "$K/src-manifest.txt")"

report manifest
