#!/usr/bin/env python3
"""Whether a longer history ranks a rebuild better: each of several
step tables (`fastcuda table` CSVs) of clean builds of one corpus is replayed
(bench/simulate_schedule.py) under the priority ladder ranked by its own
times, by one other build's (as a rebuild is ranked by the build before it),
and by the mean and the median of the times of two and three others. Steps
are matched by TU, kind and architecture, so the builds may have run in
different directories. Prints each ranking's mean wall over the tables,
against each table's lower bound. Not a benchmark: a model, checked against
measured builds in bench/RESULTS.md.

Usage: bench/history_ranking.py [JOBS] TABLE.csv TABLE.csv..."""
import csv
import itertools
import statistics
import sys

from simulate_schedule import ladder, lower_bound, manifest_order, remaining, simulate, steps_of


def times_of(path):
    """(tu, kind, arch) -> ms of one table, and its rows."""
    rows = list(csv.DictReader(open(path)))
    return {(int(r["tu"]), r["kind"], r["arch"]): int(r["duration_ms"]) for r in rows}, rows


def wall_over_bound(rows, times, rank_times, jobs):
    """The replayed wall of the build whose steps took `times`, ranked by `rank_times`."""
    steps = {key: {"ms": times[key], "deps": step["deps"]} for key, step in steps_of(rows, False).items()}
    bound = lower_bound(steps, jobs)
    ranked = remaining({key: {"ms": rank_times[key], "deps": s["deps"]} for key, s in steps.items()}, lambda s: s["ms"])
    return simulate(steps, ladder(steps, ranked), manifest_order(steps, ranked), jobs) / bound


def combined(tables, pick):
    """Each step's time in `tables`, combined by `pick` (mean, median, ...)."""
    return {key: pick([table[key] for table in tables]) for key in tables[0]}


def main():
    args = sys.argv[1:]
    jobs = int(args.pop(0)) if args and args[0].isdigit() else 16
    builds = [times_of(path) for path in args]
    # name -> (the histories to rank each build by, given the other builds; how to combine one)
    rankings = {
        "its own times": (lambda own, others: [[own]], statistics.mean),
        "one other build's": (lambda own, others: [[o] for o in others], statistics.mean),
        "the mean of two others": (lambda own, others: list(itertools.combinations(others, 2)), statistics.mean),
        "the mean of three others": (lambda own, others: list(itertools.combinations(others, 3)), statistics.mean),
        "the median of three others": (lambda own, others: list(itertools.combinations(others, 3)), statistics.median),
    }
    print(f"{len(builds)} builds, {jobs} jobs; the ladder ranked by ... (mean wall / bound over the builds)")
    for name, (histories_of, pick) in rankings.items():
        per_build = []
        for index, (times, rows) in enumerate(builds):
            histories = histories_of(times, [t for i, (t, _) in enumerate(builds) if i != index])
            if histories:
                per_build.append(statistics.mean(wall_over_bound(rows, times, combined(h, pick), jobs) for h in histories))
        if per_build:
            print(f"  {name:28s} {statistics.mean(per_build):.3f}   " + " ".join(f"{w:.3f}" for w in per_build))

if __name__ == "__main__":
    main()
