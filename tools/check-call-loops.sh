#!/bin/bash
# Files that call each other in a loop, and headers that include each other in a loop.
#
#   tools/check-call-loops.sh [-v] [BUILDDIR [SRCDIR]]     (after make; both default to .)
#   FOLDERS="app sim" tools/check-call-loops.sh             (only those folders' files)
#
# Calls: for every object file of the source folders (nm), its undefined symbols are mapped to the
# object that defines them; a strongly connected group of two or more objects is a call loop.  The
# objects are named by their source file (automake's "target-" prefix dropped); an object whose source
# is gone (left over from an older tree) is skipped.  Includes: every
# #include "..." of the folders' .c/.h files that names a file of the folders; a group of headers that
# reach each other is an include loop.  Prints every loop with one cycle through it and exits 1 if
# there is any; -v also prints, for each source file, the files defining the functions it calls.
set -eu
verbose=0
if [ "${1:-}" = "-v" ]; then verbose=1; shift; fi
builddir=${1:-.}
srcdir=${2:-$builddir}
folders=${FOLDERS:-"src src/cuda mesh easi io runtime codelets graph sim seissol app"}

objects=$(cd "$builddir" && for d in $folders; do ls "$d"/*.o 2>/dev/null || true; done)
[ -n "$objects" ] || { echo "check-call-loops: no object files under $builddir ($folders): run make first" >&2; exit 2; }

{
  for o in $objects; do
    echo "@ $o"
    nm "$builddir/$o" | awk '$1 == "U" { print "U", $2 } NF == 3 && $2 ~ /^[TDBRGSVW]$/ { print "D", $3 }'
  done
  echo "@@ includes"
  for d in $folders; do
    for f in "$srcdir/$d"/*.[ch]; do
      [ -e "$f" ] || continue
      echo "@ $d/$(basename "$f")"
      sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/I \1/p' "$f"
    done
  done
} | /usr/bin/env python3 -c '
import os, sys
verbose, folders, srcdir = int(sys.argv[1]), sys.argv[2].split(), sys.argv[3]

def source_of(obj):
    d, base = os.path.split(obj)
    name = base[:-2]
    if "-" in name:
        name = name.split("-", 1)[1]
    return d + "/" + name

defs, uses, incs = {}, {}, {}
section, cur = "calls", None
for line in sys.stdin:
    line = line.rstrip("\n")
    if line == "@@ includes":
        section = "includes"
        continue
    if line.startswith("@ "):
        cur = line[2:]
        if section == "calls":
            cur = source_of(cur)
            if not any(os.path.exists(os.path.join(srcdir, cur + ext)) for ext in (".c", ".cu", ".cc", ".cpp")):
                cur = None  # stale: its source is gone
                continue
            uses.setdefault(cur, set())
        else:
            incs.setdefault(cur, set())
        continue
    kind, name = line.split(" ", 1)
    if cur is None:
        continue
    if kind == "D":
        defs.setdefault(name, set()).add(cur)
    elif kind == "U":
        uses[cur].add(name)
    elif kind == "I":
        incs[cur].add(name)

calls = {f: set() for f in uses}
for f, syms in uses.items():
    for s in syms:
        for g in defs.get(s, ()):
            if g != f:
                calls[f].add(g)

# headers: resolve an include by its name among the folders (the build puts every folder on -I)
by_name = {}
for f in incs:
    by_name.setdefault(os.path.basename(f), f)
include = {f: {by_name[i] for i in names if i in by_name} for f, names in incs.items()}

def loops(graph):
    """Strongly connected groups of two or more nodes (or a node that reaches itself), Tarjan."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    def visit(v):
        work = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
        while work:
            node, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = n[0]; n[0] += 1; stack.append(w); on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        w = stack.pop(); on.discard(w); group.append(w)
                        if w == node:
                            break
                    if len(group) > 1 or node in graph.get(node, ()):
                        out.append(sorted(group))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out

def cycle(graph, group):
    """One cycle through the first node of the group, by breadth-first search inside it."""
    start, members = group[0], set(group)
    prev, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph.get(v, ())):
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if w in members and w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return group

if verbose:
    for f in sorted(calls):
        print("%s calls into: %s" % (f, " ".join(sorted(calls[f])) or "-"))
status = 0
call_loops, include_loops = loops(calls), loops(include)
for g in call_loops:
    print("call loop among %s: %s" % (" ".join(g), " -> ".join(cycle(calls, g))))
for g in include_loops:
    print("include loop among %s: %s" % (" ".join(g), " -> ".join(cycle(include, g))))
print("check-call-loops: %d source files, %d call loops; %d files, %d include loops"
      % (len(calls), len(call_loops), len(include), len(include_loops)))
sys.exit(1 if call_loops or include_loops else 0)
' "$verbose" "$folders" "$srcdir"
