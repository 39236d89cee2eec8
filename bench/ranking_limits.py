#!/usr/bin/env python3
"""How close to its lower bound any Ninja ranking can bring a build,
replayed on step tables (`fastcuda table` CSVs) of clean builds of one corpus
(bench/simulate_schedule.py's list scheduler, nvcc's module ids):

  energetic bound  a tighter lower bound than max(critical path, work / jobs):
                   for every time t, the work that cannot start before t
                   (each step's earliest start is its longest chain of
                   predecessors) must still fit after it
  ladder           FastCuda's priority ladder, ranked by the build's own times
  searched         the best priorities a local search finds (ITERS replays:
                   the ladder's ranks scaled per step, per TU and per kind),
                   ranked by the build's own times: what a perfect ranking
                   of this one build could reach
  ... by another   the same two, ranked by the next table's times (a rebuild
                   ranked by the build before it): whether the searched
                   ranks survive the step times' change between builds
  gated            every other TU's cicc waits for the critical TU's
                   cudafe++, so that the critical ciccs find free slots
  estimated        with the build's Ninja log (a first build's): a phase of
                   host preprocessing, then the ladder ranked by the phase's
                   estimates
  early host       the host compile waits only for cudafe++
                   (FASTCUDA_EARLY_HOST=on): ladder on own times, and as
                   "estimated"

Each figure is wall / the table's bound (for early host, the bound of the
early host graph). Not a benchmark: a model, checked against measured builds
in bench/RESULTS.md.

Usage: bench/ranking_limits.py [ITERS] TABLE.csv[:NINJA_LOG] TABLE.csv..."""
import csv
import random
import statistics
import sys

from simulate_schedule import (KINDS, ladder, lower_bound, manifest_order, phase_then_ranked, remaining, simulate,
                               steps_of, times_ranked_by)

JOBS = 16


def earliest_starts(steps):
    """Each step's longest chain of predecessors."""
    memo = {}

    def of(key):
        if key not in memo:
            memo[key] = max((of(dep) + steps[dep]["ms"] for dep in steps[key]["deps"]), default=0)
        return memo[key]

    return {key: of(key) for key in steps}


def energetic_bound(steps):
    start = earliest_starts(steps)
    best = lower_bound(steps, JOBS)
    for t in sorted(set(start.values())):
        after = sum(max(0, min(s["ms"], start[key] + s["ms"] - t)) for key, s in steps.items())
        best = max(best, t + after / JOBS)
    return best


def with_times(steps, times):
    return {key: {"ms": times.get(key, s["ms"]), "deps": s["deps"]} for key, s in steps.items()}


def ranked_wall(steps, rank_steps, priority=None):
    """The replayed wall of `steps` under the ladder of `rank_steps`'s times
    (or `priority`), ties in the manifest's order."""
    by_time = remaining(rank_steps, lambda s: s["ms"])
    return simulate(steps, priority or ladder(rank_steps, by_time), manifest_order(rank_steps, by_time), JOBS)


def searched_priority(steps, iters, rng):
    """Priorities for `steps` that a local search found to replay shortest."""
    by_time = remaining(steps, lambda s: s["ms"])
    order = manifest_order(steps, by_time)
    best, best_wall = by_time, simulate(steps, by_time, order, JOBS)
    tus = sorted({key[0] for key in steps})
    for _ in range(iters):
        move = rng.random()
        if move < 0.4:
            trial = {key: p * (1 + rng.gauss(0, 0.15)) for key, p in best.items()}
        else:
            scale = 1 + rng.gauss(0, 0.3)
            picked = rng.choice(tus) if move < 0.7 else rng.choice(KINDS)
            trial = {key: p * (scale if picked in (key[0], key[1]) else 1) for key, p in best.items()}
        wall = simulate(steps, trial, order, JOBS)
        if wall <= best_wall:
            best, best_wall = trial, wall
    return best


def gated(steps):
    """`steps` where every other TU's cicc waits for the critical TU's cudafe++."""
    by_time = remaining(steps, lambda s: s["ms"])
    critical = max(by_time, key=by_time.get)[0]
    gate = (critical, "CUDAFE", "")
    return {key: {"ms": s["ms"], "deps": s["deps"] + ([gate] if key[1] == "CICC" and key[0] != critical else [])}
            for key, s in steps.items()}


def early_host(steps):
    """`steps` with FASTCUDA_EARLY_HOST's graph: the host compile after
    cudafe++, a 60 ms embedding after it and fatbinary."""
    early = {key: {"ms": s["ms"], "deps": list(s["deps"])} for key, s in steps.items()}
    for key in [k for k in early if k[1] == "HOST_CC"]:
        early[key]["deps"] = [(key[0], "CUDAFE", "")]
        early[(key[0], "EMBED_FATBIN", "")] = {"ms": 60, "deps": [key, (key[0], "FATBINARY", "")]}
    return early


def estimated_wall(steps, estimates):
    """A first build: a phase of host preprocessing, then the ladder of the
    estimates."""
    priority, order, phased = phase_then_ranked(steps, {"CPP_HOST"}, {k: estimates.get(k, s["ms"]) for k, s in steps.items()})
    return simulate(phased, priority, order, JOBS)


def main():
    args = sys.argv[1:]
    iters = int(args.pop(0)) if args and args[0].isdigit() else 300
    tables = []
    for arg in args:
        path, _, log = arg.partition(":")
        rows = list(csv.DictReader(open(path)))
        tables.append((path, steps_of(rows, False), times_ranked_by(log, rows)[0] if log else None))
    columns = ["energetic", "ladder", "searched", "ladder by another", "searched by another", "gated",
               "estimated", "early host", "early host, estimated"]
    print(f"{len(tables)} tables, {JOBS} jobs, {iters} search steps; wall / bound:")
    print("  " + " | ".join(columns))
    sums = {c: [] for c in columns}
    for index, (path, steps, estimates) in enumerate(tables):
        bound = lower_bound(steps, JOBS)
        other = with_times(steps, {key: s["ms"] for key, s in tables[(index + 1) % len(tables)][1].items()})
        early = early_host(steps)
        row = {
            "energetic": energetic_bound(steps) / bound,
            "ladder": ranked_wall(steps, steps) / bound,
            "searched": ranked_wall(steps, steps, searched_priority(steps, iters, random.Random(index))) / bound,
            "ladder by another": ranked_wall(steps, other) / bound,
            "searched by another": ranked_wall(steps, other, searched_priority(other, iters, random.Random(index))) / bound,
            "gated": ranked_wall(gated(steps), steps) / bound,
            "early host": ranked_wall(early, early) / lower_bound(early, JOBS),
        }
        if estimates:
            row["estimated"] = estimated_wall(steps, estimates) / bound
            row["early host, estimated"] = estimated_wall(early, estimates) / lower_bound(early, JOBS)
        for name, value in row.items():
            sums[name].append(value)
        print(f"  {'/'.join(path.split('/')[-2:])}: " + " | ".join(f"{row[c]:.3f}" if c in row else "-" for c in columns),
              flush=True)
    print("  mean: " + " | ".join(f"{statistics.mean(sums[c]):.3f}" if sums[c] else "-" for c in columns))


if __name__ == "__main__":
    main()
