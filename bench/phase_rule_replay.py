#!/usr/bin/env python3
"""Where a first build's first phase pays: replays subsets of one measured
build's steps (`fastcuda table DIR` CSV) as a first build without a phase
(Ninja 1.12+ ranks by edge count, in the database's order) and with one (each
TU's host preprocessing first, a barrier of REGEN_MS for the regeneration,
then the priority ladder ranked by estimates: the build's times, each TU's
scaled by a random factor of the spread that the phase's estimates showed),
for every count of TUs, architectures and job slots asked. Prints each
case's work a slot by FastCuda's default step times (what its rule
`FirstPhasePays` sees) beside both replays over the schedule's lower bound.

Usage: [ESTIMATE_SPREAD=0.7] bench/phase_rule_replay.py TABLE.csv [TUS] [ARCH_COUNTS] [JOBS]
       (comma-separated lists; defaults 8,16,24,32,48 1,2,3,5 2,4,8,16)"""
import csv
import os
import random
import statistics
import sys

from simulate_schedule import database_order, lower_bound, phase_then_ranked, remaining, simulate, steps_of

DEFAULT_MS = {"CICC": 2000, "PTXAS": 1000, "CUDAFE": 1000, "HOST_CC": 800, "CPP_HOST": 400, "CPP_DEVICE": 400}
REGEN_MS = 100       # measured: 0.08 s of regeneration between the phase and the build
# The estimates' error, a TU's factor exp(N(0, spread)): the first phase's
# estimates of each TU's longest chain over its measured one, in the three
# first builds of bench/data/h200-16core-mixed16x5-anatomy.tar.gz (run2),
# had a log spread of 0.66-0.69.
ESTIMATE_SPREAD = float(os.environ.get("ESTIMATE_SPREAD", 0.7))
SEEDS = 5


def subset(rows, tus, archs):
    """The rows of the first `tus` TUs, for the first `archs` architectures."""
    kept_tus = sorted({int(r["tu"]) for r in rows})[:tus]
    all_archs = sorted({r["arch"].replace("compute_", "sm_") for r in rows if r["arch"]})
    kept_archs = set(all_archs[:archs])
    return [r for r in rows
            if int(r["tu"]) in kept_tus and (not r["arch"] or r["arch"].replace("compute_", "sm_") in kept_archs)]


def without_phase(steps, jobs):
    return simulate(steps, remaining(steps, lambda s: 1), database_order(steps), jobs)


def with_phase(steps, jobs, seed):
    """A phase of host preprocessing, then the ladder ranked by estimates
    that miss each TU's steps by one random factor."""
    rng = random.Random(seed)
    factor = {tu: rng.lognormvariate(0, ESTIMATE_SPREAD) for tu in {k[0] for k in steps}}
    estimates = {k: s["ms"] * factor[k[0]] for k, s in steps.items()}
    priority, order, phased = phase_then_ranked(steps, {"CPP_HOST"}, estimates)
    phased[("phase", "", "")]["ms"] = REGEN_MS
    return simulate(phased, priority, order, jobs)


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    lists = [[int(x) for x in arg.split(",")] for arg in sys.argv[2:5]]
    tu_counts, arch_counts, job_counts = lists + [[8, 16, 24, 32, 48], [1, 2, 3, 5], [2, 4, 8, 16]][len(lists):]
    print("tus archs jobs  default s/slot  no phase  phase (mean of seeds)  tus/slot")
    for archs in arch_counts:
        for tus in tu_counts:
            steps = steps_of(subset(rows, tus, archs), False)
            for jobs in job_counts:
                bound = lower_bound(steps, jobs)
                default = sum(DEFAULT_MS.get(k[1], 50) for k in steps) / jobs / 1000
                plain = without_phase(steps, jobs) / bound
                phase = statistics.mean(with_phase(steps, jobs, seed) for seed in range(SEEDS)) / bound
                print(f"{tus:3d} {archs:5d} {jobs:4d}  {default:14.1f}  {plain:8.3f}  {phase:21.3f}  {tus / jobs:8.1f}")


if __name__ == "__main__":
    main()
