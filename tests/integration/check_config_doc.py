#!/usr/bin/env python3
"""Every key of the schema (the tables that `starquake config-reference` prints) is documented in
docs/CONFIG.md: a section whose heading names the key's parent or a section above it (## `fault`,
### `mesh.box`, ### `sources[i].time_function`) writes the key's name in backticks, in a table row or
in its text, or its path below the heading (`lts.rate` in the section `equations`).
Usage: check_config_doc.py REFERENCE.md CONFIG.md; prints each key that is missing."""
import re
import sys

reference, doc = (open(p, encoding="utf-8").read() for p in sys.argv[1:3])
schema = re.findall(r"^\| `([^`]+)` \|", reference, re.M)
sections, heading, text = [], None, []
for line in doc.splitlines() + ["# end"]:
    if line.startswith("#"):
        if heading:
            sections.append((heading, "\n".join(text)))
        h = re.match(r"^#{2,4} `([^`]+)`", line)
        heading, text = (h.group(1) if h else None), []
    else:
        text.append(line)


def documented(key):
    leaf = re.split(r"[.\]]", key)[-1]
    for head, body in sections:
        if key.startswith(head) and key[len(head)] in ".[":
            rest = key[len(head) + 1:]  # `lts.rate` in the section `equations`
            if "`%s`" % leaf in body or "`%s`" % rest in body:
                return True
    return False


missing = [k for k in schema if not documented(k)]
for k in missing:
    print("docs/CONFIG.md does not document %s" % k)
print("%d keys in the schema, %d documented in docs/CONFIG.md" % (len(schema), len(schema) - len(missing)))
sys.exit(1 if missing or not schema else 0)
