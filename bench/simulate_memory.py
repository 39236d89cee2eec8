#!/usr/bin/env python3
"""Replays one FastCuda build's steps (`fastcuda table DIR` CSV: real step
times and peak memory) under a memory limit, to compare ways of keeping the
steps within it before measuring them. Not a benchmark: a model, in which a
step holds its peak memory from start to end (FastCuda's ledger before a
running step held less once fallen from its high: the model does not
follow a step's course, so it tells how the ledger did then, not now).

  plain -j N     N nvcc calls at once, each running its TU's steps one after
                 another; the fastest N whose peak fits the limit
  pools          the old plan: classes of steps by guessed peak (powers of two
                 from 256 MiB), an equal share of the budget each, a Ninja
                 pool per class that cannot hold all jobs
  ledger         every step takes a Ninja slot, then waits in the ledger until
                 the running steps leave room for its expected peak (a quarter
                 over its kind's highest peak so far, else the guess), in the
                 order the steps came, a light step passing (memory_ledger.h)
                 or where three steps of its kind or more have run, half
                 over the line of their peaks over input size (LINE_MARGIN;
                 INPUT_SIZES=0: without), a quarter over it for a larger
                 input, and without a line, a larger input's size times the
                 highest peak per input (RATIO=0: not); a waiting step's
                 expectation follows what the ledger learns (REVISE=0: it
                 stays what it was when the step came, as before); where
                 three steps of its kind or more had inputs as large (within
                 an eighth), at most a 32nd over their highest peak, grown
                 with its input, and 8 MiB (SEEN=0: not)
  ledger, known  the same where an earlier build measured every step (a
                 rebuild): an eighth over the step's own peak, and 8 MiB

The budget is BUDGET_SHARE (default 0.95) of the limit, as FastCuda's default
takes 95 % of what a cgroup leaves (85 % before). Ninja starts ready steps by
their longest remaining chain, as Ninja 1.12 and later do.

Usage: bench/simulate_memory.py TABLE.csv [JOBS] [LIMIT_MIB...]
(default limits: 3/5 and 2/5 of plain -j JOBS's peak)"""
import heapq
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from simulate_schedule import remaining, steps_of  # noqa: E402
import csv  # noqa: E402

GUESS_MIB = {"CICC": 1024, "PTXAS": 512, "CUDAFE": 512, "HOST_CC": 512}
KNOWN_MARGIN = float(os.environ.get("KNOWN_MARGIN", "1.125"))
LEARNED_MARGIN = float(os.environ.get("LEARNED_MARGIN", "1.25"))
LINE_MARGIN = float(os.environ.get("LINE_MARGIN", "1.5"))
LINE_MIN = int(os.environ.get("LINE_MIN", "3"))
INPUT_SIZES = os.environ.get("INPUT_SIZES", "1") == "1"
REVISE = os.environ.get("REVISE", "1") == "1"
RATIO = os.environ.get("RATIO", "1") == "1"
SEEN = os.environ.get("SEEN", "1") == "1"
CHAIN = ["CPP_HOST", "CUDAFE", "CPP_DEVICE", "CICC", "PTXAS", "FATBINARY", "HOST_CC"]


def guess(key):
    return GUESS_MIB.get(key[1], 256)


def plain(steps, jobs):
    """(wall ms, peak MiB) of N whole nvcc calls at once, TUs in order."""
    chains = {}
    for key in sorted(steps, key=lambda k: (k[0], CHAIN.index(k[1]), k[2])):
        chains.setdefault(key[0], []).append(key)
    free = [(0, worker) for worker in range(jobs)]
    intervals = []
    for tu in sorted(chains):
        start, worker = heapq.heappop(free)
        for key in chains[tu]:
            intervals.append((start, start + steps[key]["ms"], steps[key]["mib"]))
            start += steps[key]["ms"]
        heapq.heappush(free, (start, worker))
    return max(end for _, end, _ in intervals), peak_of(intervals)


def peak_of(intervals):
    events = sorted([(s, m) for s, _, m in intervals] + [(e, -m) for _, e, m in intervals])
    now = peak = 0
    for _, change in events:
        now += change
        peak = max(peak, now)
    return peak


def graph(steps, jobs, budget, policy):
    """(wall ms, peak MiB) of FastCuda's graph under `policy`."""
    priority = remaining(steps, lambda step: step["ms"])
    followers = {key: [] for key in steps}
    for key, step in steps.items():
        for dep in step["deps"]:
            followers[dep].append(key)
    missing = {key: len(step["deps"]) for key, step in steps.items()}
    ready = [(-priority[k], str(k), k) for k in steps if not missing[k]]
    heapq.heapify(ready)
    pools = pool_depths(steps, jobs, budget) if policy == "pools" else {}
    in_pool, learned, fits, ratios, queue, running, intervals = {}, {}, {}, {}, [], [], []
    largest = {}
    slots, now, ticket = jobs, 0, 0

    def expected(key):
        if policy == "known":
            return steps[key]["mib"] * KNOWN_MARGIN + 8
        if key[1] not in learned:
            return guess(key)
        size = steps[key].get("input_mb")
        seen = None
        if SEEN and size and len(fits.get(key[1], [])) >= 3 and size <= largest[key[1]] * 9 / 8:
            grown = learned[key[1]] * max(size, largest[key[1]]) / largest[key[1]]
            seen = grown * 33 / 32 + 8
        return min(learned_expectation(key), seen or float("inf"))

    def learned_expectation(key):
        most = learned[key[1]] * LEARNED_MARGIN
        line = on_line(fits.get(key[1], []), steps[key].get("input_mb"))
        if line is not None:  # a larger input than those before: a quarter over the line
            return max(min(most, max(0, line) * LINE_MARGIN + 16), line * LEARNED_MARGIN)
        size = steps[key].get("input_mb")
        if RATIO and size and ratios.get(key[1]):  # without a line: the highest peak per input
            return max(most, ratios[key[1]] * size * LEARNED_MARGIN)
        return most

    def admit():
        if REVISE:  # a waiting step expects what the ledger knows now, not when it joined
            queue[:] = [(t, key, expected(key)) for t, key, _ in queue]
        held = sum(e for _, _, e, _ in running)
        passed = []
        for i, (t, key, need) in enumerate(queue):
            ahead = sum(n for _, _, n in queue[:i] if (_, _, n) not in passed)
            first = i == 0 or all(q in passed for q in queue[:i])
            if (first and (held == 0 or held + need <= budget)) or held + ahead + need <= budget or (
                    need <= budget / 8 and held + need <= budget):
                passed.append((t, key, need))
                held += need
                heapq.heappush(running, (now + steps[key]["ms"], str(key), need, key))
                intervals.append((now, now + steps[key]["ms"], steps[key]["mib"]))
        for item in passed:
            queue.remove(item)

    while ready or queue or running:
        held_back = []
        while ready and slots:
            item = heapq.heappop(ready)
            key = item[2]
            bound = class_of(guess(key))
            if bound in pools and in_pool.get(bound, 0) >= pools[bound]:
                held_back.append(item)
                continue
            slots -= 1
            if policy == "pools":
                in_pool[class_of(guess(key))] = in_pool.get(class_of(guess(key)), 0) + 1
                heapq.heappush(running, (now + steps[key]["ms"], str(key), 0, key))
                intervals.append((now, now + steps[key]["ms"], steps[key]["mib"]))
            else:
                ticket += 1
                queue.append((ticket, key, expected(key)))
        for item in held_back:
            heapq.heappush(ready, item)
        if policy != "pools":
            admit()
        now, _, _, key = heapq.heappop(running)
        slots += 1
        learned[key[1]] = max(learned.get(key[1], 0), steps[key]["mib"])
        if steps[key].get("input_mb"):
            ratios[key[1]] = max(ratios.get(key[1], 0), steps[key]["mib"] / steps[key]["input_mb"])
            fits.setdefault(key[1], []).append((steps[key]["input_mb"], steps[key]["mib"]))
            largest[key[1]] = max(largest.get(key[1], 0), steps[key]["input_mb"])
        if policy == "pools":
            in_pool[class_of(guess(key))] -= 1
        for follower in followers[key]:
            missing[follower] -= 1
            if not missing[follower]:
                heapq.heappush(ready, (-priority[follower], str(follower), follower))
    return now, peak_of(intervals)


def on_line(points, x):
    """The least-squares line of `points` (input MB, peak MiB) at x, or None
    without a rising line of three points or more (memory_ledger.cc)."""
    n = len(points)
    if n < LINE_MIN or not x:
        return None
    sx, sy = sum(p[0] for p in points), sum(p[1] for p in points)
    spread = n * sum(p[0] ** 2 for p in points) - sx * sx
    if spread <= 0:
        return None
    slope = (n * sum(p[0] * p[1] for p in points) - sx * sy) / spread
    return None if slope <= 0 else (sy - slope * sx) / n + slope * x


def class_of(mib):
    bound = 256
    while bound < mib:
        bound *= 2
    return bound


def pool_depths(steps, jobs, budget):
    classes = {class_of(guess(key)) for key in steps}
    share = budget / len(classes)
    depths = {bound: max(1, int(share // bound)) for bound in classes}
    return {bound: depth for bound, depth in depths.items() if depth < jobs}


def main():
    table = sys.argv[1]
    jobs = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    rows = list(csv.DictReader(open(table)))
    steps = steps_of(rows, own_module_id=False)
    for row in rows:
        key = (int(row["tu"]), row["kind"], row["arch"])
        if key in steps:
            steps[key]["mib"] = int(row["peak_rss_kib"]) / 1024
    steps = {key: step for key, step in steps.items() if "mib" in step}
    # The input a step's peak grows with: its producer's output (memory_budget.cc, MemoryInputOf).
    produced = {(int(r["tu"]), r["kind"], r["arch"]): int(r["output_bytes"]) / 1e6 for r in rows}
    # The table has no PTX sizes (cicc's first output is a stub): ptxas's own
    # cubin stands in for its PTX.
    producer = {"CICC": lambda k: (k[0], "CPP_DEVICE", k[2]), "CUDAFE": lambda k: (k[0], "CPP_HOST", ""),
                "HOST_CC": lambda k: (k[0], "CUDAFE", ""), "PTXAS": lambda k: k}
    for key, step in steps.items():
        if key[1] in producer and INPUT_SIZES:
            step["input_mb"] = produced.get(producer[key[1]](key))
    share = float(os.environ.get("BUDGET_SHARE", "0.95"))
    free_wall, free_peak = plain(steps, jobs)
    limits = [float(x) for x in sys.argv[3:]] or [free_peak * 3 / 5, free_peak * 2 / 5]
    print(f"{table}: {len(steps)} steps, {jobs} jobs; plain -j {jobs}: {free_wall / 1000:.1f} s, peak {free_peak:.0f} MiB")
    for limit in limits:
        budget = limit * share
        fits = [(plain(steps, n), n) for n in range(jobs, 0, -1)]
        (fit_wall, fit_peak), n = next(((r, n) for r, n in fits if r[1] <= limit), ((None, None), None))
        print(f"limit {limit:.0f} MiB, budget {budget:.0f} MiB: fastest plain that fits: -j {n}, "
              f"{fit_wall / 1000:.1f} s (peak {fit_peak:.0f})")
        for policy, name in [("pools", "pools"), ("ledger", "ledger"), ("known", "ledger, known")]:
            wall, peak = graph(steps, jobs, budget, policy)
            print(f"  {name:14} {wall / 1000:7.1f} s  peak {peak:5.0f} MiB  / plain that fits {wall / fit_wall:.3f}")


if __name__ == "__main__":
    main()
