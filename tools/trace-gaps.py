#!/usr/bin/env python3
"""Where the workers of a starquake run wait: reads the task traces of `starquake --trace FILE.csv`
(one file per rank) and prints, per rank and worker, the busy fraction over the traced window and the
idle time before each kind of task (kind, cluster, layer of the task that ended the wait); then, per kind
and cluster, the median time from a task's readiness (its dependencies met) to its start, split into its wait
for a worker (ready to popped), the fetch of its inputs that was still to come then (popped to fetched), and the
wait behind its worker's earlier tasks (fetched to start: a CUDA worker takes up to STARPU_CUDA_PIPELINE tasks
ahead, and StarPU starts a task's clock when the one before it on the stream ends).  Where the fastest cluster
takes whole steps ("step" tasks, runtime.steps_per_task), also the chain they form with cluster 1's predictor
(the last to end between two whole-step tasks, on their workers where one ran there): per step of cluster 1 the medians of the whole-step task, the predictor's readiness after it,
its start, its length, the next whole-step task's readiness after the predictor, its wait for a worker, its
copies still to come, and the period from one whole-step task's start to the next; and, for the steps of cluster 1
whose predictor the whole-step task took ahead (runtime.fuse_chain_prediction), the same without the predictor; and
what the next whole-step task became ready on (the last task to end before its readiness, by kind and cluster).
Last, per worker, how much longer than later in the trace the tasks of its first --start milliseconds (default 30)
took, and when the first whole-step task started: with `--trace-all`, what the first chunk's start costs.

usage: tools/trace-gaps.py TRACE.csv [TRACE.csv.1 ...] [--gap MICROSECONDS] [--start MILLISECONDS]
"""
import bisect
import collections
import statistics
import sys

LAYERS = {0: "interior", 1: "copy", 2: "ghost", -1: "-"}


def read(path):
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or line.startswith("kind,"):
                continue
            fields = line.rstrip("\n").split(",")
            k, tile, cl, layer, w, sub, st, en = fields[:8]
            ready = [float(x) for x in fields[8:11]] if len(fields) >= 11 else None  # ready, popped, fetched
            rows.append((k, int(tile), int(cl), int(layer), int(w), float(sub), float(st), float(en), ready))
    if not rows:
        sys.exit(f"trace-gaps: {path}: no task in the trace")
    return rows


def chain(rows):
    """The chain of whole-step tasks and cluster 1's predictors between them (medians, us): per pair of consecutive
    whole-step tasks, the cluster-1 predictor that ended last between them, on their workers where one ran there
    (on several GPUs: the chain tile's, on the fastest cluster's GPU)."""
    steps = sorted((r for r in rows if r[0] == "step" and r[2] == 0 and r[8] is not None), key=lambda r: r[6])
    workers = {r[4] for r in steps}
    preds = [r for r in rows if r[2] == 1 and r[0] in ("merged", "ader") and r[8] is not None]
    parts, direct = [], []
    for a, b in zip(steps, steps[1:]):
        between = [p for p in preds if p[6] >= a[7] and p[7] <= b[6]]
        between = [p for p in between if p[4] in workers] or between
        po, fe = b[8][1], max(b[8][2], b[8][1])
        if not between:  # the whole-step task predicted cluster 1 ahead (runtime.fuse_chain_prediction)
            direct.append((a[7] - a[6], b[8][0] - a[7], po - b[8][0], fe - po, b[6] - a[6]))
            continue
        p = max(between, key=lambda r: r[7])
        parts.append((a[7] - a[6], p[8][0] - a[7], p[6] - p[8][0], p[7] - p[6], b[8][0] - p[7], po - b[8][0], fe - po,
                      b[6] - a[6]))
    names = ("whole step", "predictor ready after it", "predictor waits", "predictor", "next step ready after it",
             "its wait for a worker", "its copies", "period")
    if parts:
        print(f"  chain, {len(parts)} steps of cluster 1, median us: " + ", ".join(
            f"{n} {statistics.median(x[i] for x in parts):.0f}" for i, n in enumerate(names)))
    names = ("whole step", "next step ready after it", "its wait for a worker", "its copies", "period")
    if direct:
        print(f"  chain without a predictor task, {len(direct)} steps of cluster 1, median us: " + ", ".join(
            f"{n} {statistics.median(x[i] for x in direct):.0f}" for i, n in enumerate(names)))
    # what each next whole-step task became ready on: the last task to end before its readiness (itself where it
    # was ready at once), and how long after the whole-step task before it
    by_end = sorted((r for r in rows if r[8] is not None), key=lambda r: r[7])
    ends = [r[7] for r in by_end]
    last = collections.defaultdict(list)
    for a, b in zip(steps, steps[1:]):
        rd = b[8][0]
        i = bisect.bisect_right(ends, rd) - 1
        key = "the one before" if i < 0 or by_end[i] is a else f"{by_end[i][0]} c{by_end[i][2]}"
        last[key].append(rd - a[7])
    print("  next whole step ready on (count, median us after the one before): " + ", ".join(
        f"{k} {len(v)} {statistics.median(v):.0f}" for k, v in sorted(last.items(), key=lambda kv: -len(kv[1]))))


def start_up(rows, window):
    """Per worker, the tasks that started in the trace's first `window` us: their time against the medians of the same
    kind and tile later in the trace (a --trace-all trace: the first chunk waits for the upload and makes the first
    launches and allocations; 1.0 where it runs as later)."""
    t0 = min(r[6] for r in rows)
    later = collections.defaultdict(list)
    for r in rows:
        if r[6] >= t0 + window:
            later[(r[0], r[1])].append(r[7] - r[6])
    med = {k: statistics.median(v) for k, v in later.items()}
    out = []
    for w in sorted({r[4] for r in rows}):
        first = [r for r in rows if r[4] == w and r[6] < t0 + window and (r[0], r[1]) in med]
        base = sum(med[(r[0], r[1])] for r in first)
        if first and base > 0:
            out.append(f"worker {w} {len(first)} tasks {sum(r[7] - r[6] for r in first) / base:.1f}x")
    steps = [r[6] for r in rows if r[0] == "step"]
    first_step = f"; the first whole-step task started {(min(steps) - min(r[5] for r in rows)) / 1e3:.2f} ms after " \
        "the first submission" if steps else ""
    if out:
        print(f"  start-up, tasks of the first {window / 1e3:g} ms against their later medians: " + ", ".join(out) +
              first_step)


def main(argv):
    gap_min = 20.0
    window = 30000.0
    paths = []
    i = 0
    while i < len(argv):
        if argv[i] == "--gap" and i + 1 < len(argv):
            gap_min = float(argv[i + 1])
            i += 2
        elif argv[i] == "--start" and i + 1 < len(argv):
            window = 1e3 * float(argv[i + 1])
            i += 2
        else:
            paths.append(argv[i])
            i += 1
    if not paths:
        sys.exit(__doc__)
    for path in paths:
        rows = read(path)
        t_lo = min(r[6] for r in rows)
        t_hi = max(r[7] for r in rows)
        span = t_hi - t_lo
        print(f"{path}: {len(rows)} tasks over {span / 1e3:.1f} ms")
        by_worker = collections.defaultdict(list)
        for r in rows:
            by_worker[r[4]].append(r)
        for w, rs in sorted(by_worker.items()):
            rs.sort(key=lambda r: r[6])
            busy = 0.0
            end = t_lo
            waits = collections.Counter()
            nwaits = collections.Counter()
            for r in rs:
                st, en = r[6], r[7]
                if st > end:
                    g = st - end
                    if g >= gap_min:
                        key = (r[0], r[2], LAYERS.get(r[3], str(r[3])))
                        waits[key] += g
                        nwaits[key] += 1
                    busy += en - st
                elif en > end:
                    busy += en - end
                end = max(end, en)
            idle = span - busy
            print(f"  worker {w}: {len(rs)} tasks, busy {busy / 1e3:.1f} ms ({100 * busy / span:.1f} %), "
                  f"idle {idle / 1e3:.1f} ms; waits of >= {gap_min:g} us, by the task that ended them:")
            for key, g in waits.most_common(8):
                print(f"    {g / 1e3:8.2f} ms in {nwaits[key]:5d} waits before {key[0]:<10} cluster {key[1]} {key[2]}")
        kinds = collections.defaultdict(lambda: [0, 0.0])
        for r in rows:
            kinds[(r[0], r[2])][0] += 1
            kinds[(r[0], r[2])][1] += r[7] - r[6]
        print("  tasks by kind and cluster: " + ", ".join(
            f"{k} c{c} {n} x {1e3 * t / n / 1e3:.0f} us" for (k, c), (n, t) in sorted(kinds.items())))
        ready = collections.defaultdict(lambda: ([], [], []))
        for r in rows:
            if r[8] is None:
                continue
            rd, po, fe = r[8]
            fe = max(fe, po)  # inputs already there when the worker took it: no fetch left
            if rd <= po <= fe <= r[6]:
                for i, v in enumerate((po - rd, fe - po, r[6] - fe)):
                    ready[(r[0], r[2])][i].append(v)
        if ready:
            print("  ready to start, median us (worker + fetch + behind earlier tasks): " + ", ".join(
                f"{k} c{c} " + " + ".join(f"{statistics.median(v):.0f}" for v in vs)
                for (k, c), vs in sorted(ready.items())))
        chain(rows)
        start_up(rows, window)


if __name__ == "__main__":
    main(sys.argv[1:])
