#!/usr/bin/env python3
"""No configuration or script in configs/ names a file outside the repository, and every file a
configuration needs is in the repository, made by the folder's run.sh (a Gmsh mesh from a .geo beside
it), or described in the configuration's comments: where to get it (an https:// address) and that the
repository does not ship it.  Usage: check_config_paths.py REPOSITORY; prints one line per problem."""
import os
import re
import sys

root = os.path.realpath(sys.argv[1])
configs = os.path.join(root, "configs")
problems = []
token = re.compile(r"(?:\.\./)+[\w.$/{}-]*|(?<![\w.$}])/(?:work|home|scratch|shared|tmp)/[\w./-]*|\bshared/[\w./-]+")


def inside(path):
    return os.path.realpath(path).startswith(root + os.sep)


for folder, _, names in os.walk(configs):
    for name in names:
        path = os.path.join(folder, name)
        if name.endswith((".msh", ".h5", ".png")):
            continue
        try:
            text = open(path, encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        rel = os.path.relpath(path, root)
        for n, line in enumerate(text.splitlines(), 1):
            for t in token.findall(line):
                if t.startswith("shared/") or "/shared/" in t:
                    problems.append("%s:%d: names %s, which a clone of the repository does not have" % (rel, n, t))
                    continue
                if t.startswith("/"):
                    problems.append("%s:%d: names the absolute path %s" % (rel, n, t))
                    continue
                plain = re.sub(r"\$\{?\w+\}?/?", "", t)
                # a script in configs/ runs on behalf of configs/NAME/ ($here/../../starquake)
                if not inside(os.path.join(folder, plain)) and not inside(os.path.join(folder, "x", plain)):
                    problems.append("%s:%d: %s lies outside the repository" % (rel, n, t))
        if not name.endswith(".yaml"):
            continue
        lines = text.splitlines()
        for n, line in enumerate(lines, 1):
            m = re.match(r"\s*file:\s*([^\s#]+)", line)
            if not m:
                continue
            f = m.group(1).strip("'\"")
            target = os.path.join(folder, f)
            if not inside(target):
                problems.append("%s:%d: file %s lies outside the repository" % (rel, n, f))
            elif os.path.exists(target):
                continue
            elif f.endswith(".msh") and any(g.endswith(".geo") for g in os.listdir(folder)) and \
                    os.path.exists(os.path.join(folder, "run.sh")):
                continue  # run.sh meshes it
            else:
                above = "\n".join(lines[max(0, n - 6):n - 1])
                if not ("https://" in above and re.search(r"not in this repository|not shipped", above, re.I)):
                    problems.append("%s:%d: file %s is not in the repository, and the comments above it do not say "
                                    "how to get it" % (rel, n, f))
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
