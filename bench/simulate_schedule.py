#!/usr/bin/env python3
"""Replays one FastCuda build's steps (`fastcuda table DIR` CSV: the real step
times) through a list scheduler with JOBS slots under the priority rules of
different Ninja versions, to tell how much of a build's distance from its
lower bound is the scheduler's. Not a benchmark: a model, checked against the
measured wall time of the same build (the "database order" line, for a
build generated without history, as a first build is).

Usage: bench/simulate_schedule.py TABLE.csv [JOBS]"""
import csv
import heapq
import sys

KINDS = ["CPP_HOST", "CPP_DEVICE", "CUDAFE", "CICC", "PTXAS", "FATBINARY", "HOST_CC"]


def steps_of(rows, own_module_id):
    """(tu, kind, arch) -> {'ms', 'deps'}: nvcc's sub-step graph per TU."""
    steps = {(int(r["tu"]), r["kind"], r["arch"]): {"ms": int(r["duration_ms"]), "deps": []} for r in rows}
    for (tu, kind, arch), step in steps.items():
        virtual = arch.replace("sm_", "compute_")
        ptxas = [key for key in steps if key[:2] == (tu, "PTXAS")]
        ciccs = sorted(key for key in steps if key[:2] == (tu, "CICC"))
        step["deps"] = {
            "CUDAFE": [(tu, "CPP_HOST", "")],
            "CICC": [(tu, "CPP_DEVICE", virtual)] + ([] if own_module_id else [(tu, "CUDAFE", "")]),
            "PTXAS": [(tu, "CICC", virtual)],
            "FATBINARY": ptxas,
            "HOST_CC": [(tu, "CUDAFE", ""), (tu, "FATBINARY", "")] + ciccs[-1:],
        }.get(kind, [])
    return steps


def backward(steps, value):
    """value(key, best) for every step, best being the highest value of the
    steps waiting for it (0 for none)."""
    followers = {key: [] for key in steps}
    for key, step in steps.items():
        for dep in step["deps"]:
            followers[dep].append(key)
    memo = {}

    def of(key):
        if key not in memo:
            memo[key] = value(key, max((of(f) for f in followers[key]), default=0))
        return memo[key]

    return {key: of(key) for key in steps}


def remaining(steps, weight):
    """Each step's weight plus the heaviest chain of steps waiting for it."""
    return backward(steps, lambda key, best: weight(steps[key]) + best)


def ladder_rank(steps, by_time, quantum_ms):
    """Ninja's rank with the priority ladder: rung k ranks k, a step on rung
    round(remaining / quantum) ranks one more, and every step ranks one more
    than the edges waiting for it (ninja-gen/priority_ladder.cc)."""
    return backward(steps, lambda key, best: max(round(by_time[key] / quantum_ms) + 1, 1 + best))


def simulate(steps, priority, order, jobs, pool_of=lambda key: None):
    """Wall time when every free slot takes the ready step of highest priority.
    jobs: the number of slots, or {pool: slots} with pool_of(key) naming each
    step's pool (local cores and remote workers, say)."""
    slots = jobs if isinstance(jobs, dict) else {None: jobs}
    busy = {pool: 0 for pool in slots}
    done, running, waiting, ready, now = {}, [], set(steps), {pool: [] for pool in slots}, 0

    def release():
        for key in [k for k in waiting if all(d in done for d in steps[k]["deps"])]:
            heapq.heappush(ready[pool_of(key)], (-priority[key], order[key], key))
            waiting.discard(key)

    def finish(key):
        done[key] = now
        busy[pool_of(key)] -= 1

    release()
    while any(ready.values()) or running:
        for pool, queue in ready.items():
            while queue and busy[pool] < slots[pool]:
                _, _, key = heapq.heappop(queue)
                busy[pool] += 1
                heapq.heappush(running, (now + steps[key]["ms"], key))
        now, key = heapq.heappop(running)
        finish(key)
        while running and running[0][0] == now:
            finish(heapq.heappop(running)[1])
        release()
    return now


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    jobs = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    for own in (False, True):
        steps = steps_of(rows, own)
        by_time = remaining(steps, lambda s: s["ms"])
        depth = remaining(steps, lambda s: 1)
        bound = max(max(by_time.values()), sum(s["ms"] for s in steps.values()) / jobs)
        longest_first = sorted({k[0] for k in steps}, key=lambda tu: -max(v for k, v in by_time.items() if k[0] == tu))
        manifest = {k: longest_first.index(k[0]) * 100 + KINDS.index(k[1]) for k in steps}
        database = {k: k[0] * 100 + KINDS.index(k[1]) for k in steps}
        rules = {
            "ninja 1.12+: edge count, database order (a first build)": (depth, database),
            "ninja 1.11: manifest order (TUs longest first)": ({k: 0 for k in steps}, manifest),
            "ninja 1.12+: edge count, then manifest order": (depth, manifest),
            "ninja 1.12+ with the priority ladder (250 ms rungs)": (
                ladder_rank(steps, by_time, max(250, max(by_time.values()) / 100)), manifest),
        }
        print(f"module id {'own' if own else 'nvcc'}, {jobs} jobs: lower bound {bound / 1000:.2f} s")
        for name, (priority, order) in rules.items():
            wall = simulate(steps, priority, order, jobs)
            print(f"  {name:56s} {wall / 1000:6.2f} s  {wall / bound:.3f} x bound")


if __name__ == "__main__":
    main()
