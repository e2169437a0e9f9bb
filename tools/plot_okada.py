#!/usr/bin/env python3
"""Plot `starquake verify okada --dump FILE --json > JSON`: the surface displacement across the fault (profile y = 0)
of each case at each mesh against Okada's closed form, and the relative L2 misfit against the mesh spacing.

usage: tools/plot_okada.py DUMP JSON OUT.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    rows = {}
    with open(sys.argv[1]) as f:
        for line in f:
            if line.startswith("#"):
                continue
            p = line.split()
            rows.setdefault((p[0], float(p[1])), []).append([float(v) for v in p[2:]])
    res = json.load(open(sys.argv[2]))
    cases = sorted({c for c, _ in rows})
    fig, ax = plt.subplots(1, len(cases) + 1, figsize=(5 * (len(cases) + 1), 4))
    comp = {"strike_slip": (1, "u_y (along strike)"), "dip_slip": (2, "u_z (vertical)")}
    for i, case in enumerate(cases):
        k, label = comp.get(case, (2, "u_z"))
        hs = sorted({h for c, h in rows if c == case}, reverse=True)
        for h in hs:
            a = np.array(rows[(case, h)])
            a = a[np.abs(a[:, 1]) < 1e-9]
            a = a[np.argsort(a[:, 0])]
            ax[i].plot(a[:, 0], a[:, 2 + k], "o", ms=3, label="P2, h = %.3g" % h)
        ax[i].plot(a[:, 0], a[:, 5 + k], "k-", lw=1, label="Okada (1992)")
        ax[i].set_xlabel("x across the fault (fault width 1)")
        ax[i].set_ylabel(label + " per unit slip")
        ax[i].set_title(case.replace("_", " ") + ", surface profile y = 0")
        ax[i].legend(fontsize=8)
    for case in cases:
        cs = [c for c in res["cases"] if c["case"] == case]
        ax[-1].loglog([c["h"] for c in cs], [c["rel_l2"] for c in cs], "o-", label=case.replace("_", " "))
    c0 = [c for c in res["cases"] if c["case"] == cases[0]]
    hh = np.array(sorted(c["h"] for c in c0))
    e0 = max(c["rel_l2"] for c in c0)
    for p, ls in ((2, "--"), (3, ":")):
        ax[-1].loglog(hh, e0 * (hh / hh[-1]) ** p, "k" + ls, lw=0.8, label="h^%d" % p)
    ax[-1].axhline(0.01, color="r", lw=0.8, ls="--", label="1% acceptance")
    ax[-1].set_xlabel("mesh spacing h")
    ax[-1].set_ylabel("relative L2 misfit at the surface")
    ax[-1].set_title("convergence")
    ax[-1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[3], dpi=110)


if __name__ == "__main__":
    main()
