#!/usr/bin/env python3
"""Replays one FastCuda build's steps (`fastcuda table DIR` CSV: the real step
times) through a list scheduler with JOBS slots under the priority rules of
different Ninja versions, to tell how much of a build's distance from its
lower bound is the scheduler's. Not a benchmark: a model, checked against the
measured wall time of the same build (the "database order" line, for a
build generated without history, as a first build is).

Also replays first phases (the steps of some kinds first, then the rest).
With RANKED_BY, the `.ninja_log` of the graph that TABLE.csv comes from, also
replays the ladder ranked by the times the build itself was ranked by: each
step's last record before the log's last build (a previous build's time, or a
first phase's estimate); and, for a first build's log, the phases with the
phase's steps measured and the rest ranked by its estimates.

Usage: bench/simulate_schedule.py TABLE.csv [JOBS] [RANKED_BY]"""
import csv
import heapq
import sys

KINDS = ["CPP_HOST", "CPP_DEVICE", "CUDAFE", "CICC", "PTXAS", "FATBINARY", "FATBIN_STITCH", "HOST_CC", "EMBED_FATBIN"]


def steps_of(rows, own_module_id):
    """(tu, kind, arch) -> {'ms', 'deps'}: nvcc's sub-step graph per TU."""
    steps = {(int(r["tu"]), r["kind"], r["arch"]): {"ms": int(r["duration_ms"]), "deps": []} for r in rows}
    for (tu, kind, arch), step in steps.items():
        virtual = arch.replace("sm_", "compute_")
        ptxas = [key for key in steps if key[:2] == (tu, "PTXAS")]
        ciccs = sorted(key for key in steps if key[:2] == (tu, "CICC"))
        # One fatbinary per TU, or (since) one per image that a stitch joins
        images = [key for key in steps if key[:2] == (tu, "FATBINARY") and key[2]]
        fatbin = (tu, "FATBIN_STITCH", "") if images else (tu, "FATBINARY", "")
        step["deps"] = {
            "CUDAFE": [(tu, "CPP_HOST", "")],
            "CICC": [(tu, "CPP_DEVICE", virtual)] + ([] if own_module_id else [(tu, "CUDAFE", "")]),
            "PTXAS": [(tu, "CICC", virtual)],
            "FATBINARY": [(tu, "PTXAS", arch)] if arch else ptxas,
            "FATBIN_STITCH": images,
            "HOST_CC": [(tu, "CUDAFE", ""), fatbin] + ciccs[-1:],
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


def ladder(steps, by_time):
    """ladder_rank with FastCuda's rungs: 250 ms, or a hundredth of the
    longest remaining chain where that is longer."""
    return ladder_rank(steps, by_time, max(250, max(by_time.values()) / 100))


def simulate(steps, priority, order, jobs, pool_of=lambda key: None, limit=None, spill=None):
    """Wall time when every free slot takes the ready step of highest priority.
    jobs: the number of slots, or {pool: slots} with pool_of(key) naming each
    step's pool (local cores and remote workers, say). limit: (limited(key),
    depth): at most depth of the limited steps run at once (a Ninja pool
    within the slots). spill: (from_pool, to_pool, ms): a step of from_pool
    taken while to_pool has a slot its own steps leave free runs there
    instead, for ms[key] (FastCuda's client running a remote step on an
    idle local core)."""
    slots = jobs if isinstance(jobs, dict) else {None: jobs}
    busy = {pool: 0 for pool in slots}
    done, running, waiting, ready, now = {}, [], set(steps), {pool: [] for pool in slots}, 0
    limited, depth = limit or (lambda key: False, None)
    in_limit = 0
    spilled = {}  # key -> the pool it ran in, where not its own

    def release():
        for key in [k for k in waiting if all(d in done for d in steps[k]["deps"])]:
            heapq.heappush(ready[pool_of(key)], (-priority[key], order[key], key))
            waiting.discard(key)

    def finish(key):
        nonlocal in_limit
        done[key] = now
        busy[spilled.pop(key, pool_of(key))] -= 1
        in_limit -= limited(key)

    def start(key, pool):
        nonlocal in_limit
        ms = steps[key]["ms"]
        if spill and pool == spill[0] and busy[spill[1]] < slots[spill[1]] and not ready[spill[1]]:
            pool, ms, spilled[key] = spill[1], spill[2][key], spill[1]
        busy[pool] += 1
        in_limit += limited(key)
        heapq.heappush(running, (now + ms, key))

    release()
    while any(ready.values()) or running:
        for pool, queue in ready.items():
            held = []  # limited steps that wait for the pool
            while queue and busy[pool] < slots[pool]:
                item = heapq.heappop(queue)
                key = item[2]
                if limited(key) and in_limit >= depth:
                    held.append(item)
                    continue
                start(key, pool)
            for item in held:
                heapq.heappush(queue, item)
        now, key = heapq.heappop(running)
        finish(key)
        while running and running[0][0] == now:
            finish(heapq.heappop(running)[1])
        release()
    return now


def simulate_preemptive(steps, priority, order, jobs, switch_ms=0, started_max=None, limit=None):
    """Wall time when the `jobs` started steps of highest priority run and a
    step that ranks higher stops one that ranks lower until a slot frees (a
    stopped step keeps its progress). switch_ms: how late a stop or a
    resumption takes effect (a watcher's polling period). started_max:
    Ninja's -j, how many ready steps it starts (by priority) and keeps
    started, running or stopped; None: every ready step. limit: (limited(key),
    depth): at most depth of the limited steps started at once (a pool)."""
    left = {key: step["ms"] for key, step in steps.items()}
    waiting, ready, started, done, now = set(steps), set(), set(), set(), 0
    running = set()
    rank = lambda k: (-priority[k], order[k], str(k))  # one TU's architectures tie: by name, not set order

    def release():
        for key in [k for k in waiting if all(d in done for d in steps[k]["deps"])]:
            ready.add(key)
            waiting.discard(key)
        free = len(ready) if started_max is None else started_max - len(started)
        limited, depth = limit or (lambda key: False, None)
        in_pool = sum(1 for k in started if limited(k))
        for key in sorted(ready - started, key=rank):
            if free <= 0:
                break
            if limited(key):
                if in_pool >= depth:
                    continue
                in_pool += 1
            started.add(key)
            free -= 1

    release()
    while started:
        chosen = set(sorted(started, key=rank)[:jobs])
        # A switch costs the slot switch_ms: what is resumed or started in
        # place of a stopped step waits that long.
        if switch_ms and chosen != running and running - chosen:
            for key in chosen - running:
                left[key] += switch_ms
        running = chosen
        dt = min(left[k] for k in running)
        now += dt
        for key in list(running):
            left[key] -= dt
            if left[key] == 0:
                ready.discard(key)
                started.discard(key)
                done.add(key)
        running &= started
        release()
    return now


def lower_bound(steps, jobs):
    """The schedule's lower bound: the longest chain, or all the work spread
    over every slot."""
    return max(max(remaining(steps, lambda s: s["ms"]).values()), sum(s["ms"] for s in steps.values()) / jobs)


def after_phase(steps, kinds):
    """steps where those of other kinds wait for every step of `kinds`: a
    first phase of those kinds, then the build (a step of 0 ms between)."""
    barrier = ("phase", "", "")
    phased = {key: {"ms": step["ms"], "deps": list(step["deps"])} for key, step in steps.items()}
    phased[barrier] = {"ms": 0, "deps": [key for key in steps if key[1] in kinds]}
    for key in steps:
        if key[1] not in kinds:
            phased[key]["deps"].append(barrier)
    return phased


def times_ranked_by(log_path, rows):
    """(tu, kind, arch) -> ms: each step's last record in the Ninja log before
    its last build; and whether that build was a first build, ranked by a
    first phase's estimates (records with mtime and hash 0, which belong to
    no build) that no measured build came after. A build begins where a
    record ends before the one above it."""
    records = [line.rstrip("\n").split("\t") for line in open(log_path) if not line.startswith("#")]
    estimate = [r[2] == "0" and r[4] == "0" for r in records]
    measured = [i for i, r in enumerate(records) if not estimate[i]]
    last_build = max([b for a, b in zip(measured, measured[1:]) if int(records[b][1]) < int(records[a][1])], default=0)
    before = {r[3]: int(r[1]) - int(r[0]) for r in records[:last_build]}
    times = {}
    for r in rows:
        for name in (r["output"], r["output"].split("/fastcuda/")[-1], r["output"].split("/.fastcuda/")[-1]):
            if name in before:
                times[(int(r["tu"]), r["kind"], r["arch"])] = before[name]
                break
    measured_before = [i for i in measured if i < last_build]
    estimated_last = any(estimate) and max(i for i, e in enumerate(estimate) if e) > max(measured_before, default=-1)
    return times, estimated_last


def phase_then_ranked(steps, kinds, times):
    """A first build: a phase of the steps of `kinds` (their own times), then
    the rest ranked by `times` ((tu, kind, arch) -> ms). (priority, order,
    the phased steps) for simulate."""
    phased = after_phase(steps, kinds)
    ranked = {k: {"ms": s["ms"] if k[1] in kinds or k not in steps else times[k], "deps": s["deps"]}
              for k, s in phased.items()}
    by_times = remaining({k: {"ms": times[k], "deps": s["deps"]} for k, s in steps.items()}, lambda s: s["ms"])
    return (ladder(phased, remaining(ranked, lambda s: s["ms"])),
            {**manifest_order(steps, by_times), ("phase", "", ""): 0}, phased)


def database_order(steps):
    """The compile database's order: TUs as listed, each TU's steps in nvcc's
    order (a manifest generated without any times)."""
    return {k: k[0] * 100 + KINDS.index(k[1]) for k in steps}


def manifest_order(steps, by_time):
    """FastCuda's manifest order: TUs by their longest remaining chain under
    by_time, longest first, each TU's steps in nvcc's order."""
    longest_first = sorted({k[0] for k in steps}, key=lambda tu: -max(v for k, v in by_time.items() if k[0] == tu))
    return {k: longest_first.index(k[0]) * 100 + KINDS.index(k[1]) for k in steps}


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    jobs = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    ranked_by, first_build = times_ranked_by(sys.argv[3], rows) if len(sys.argv) > 3 else (None, False)
    for own in (False, True):
        steps = steps_of(rows, own)
        by_time = remaining(steps, lambda s: s["ms"])
        depth = remaining(steps, lambda s: 1)
        bound = lower_bound(steps, jobs)
        manifest = manifest_order(steps, by_time)
        database = database_order(steps)
        exact_ladder = ladder(steps, by_time)
        off_critical = lambda key: by_time[key] < 0.7 * max(by_time.values())
        rules = {
            "ninja 1.12+: edge count, database order (a first build)": (depth, database, None, steps),
            "ninja 1.11: manifest order (TUs longest first)": ({k: 0 for k in steps}, manifest, None, steps),
            "ninja 1.12+: edge count, then manifest order": (depth, manifest, None, steps),
            "ninja 1.12+ with the priority ladder (250 ms rungs)": (exact_ladder, manifest, None, steps),
        }
        for kept in (k for k in (1, 2) if jobs - k >= 1):
            rules[f"the ladder, {kept} slot(s) kept from steps off the critical path"] = (
                exact_ladder, manifest, (off_critical, jobs - kept), steps)
        phases = {"the host preprocessing": {"CPP_HOST"},
                  "what cicc waits for": {"CPP_DEVICE"} if own else {"CPP_HOST", "CPP_DEVICE", "CUDAFE"}}
        for name, kinds in phases.items():
            phased = after_phase(steps, kinds)
            by_phased = remaining(phased, lambda s: s["ms"])
            rules[f"a first phase of {name}, then the ladder"] = (
                ladder(phased, by_phased), {**manifest, ("phase", "", ""): 0}, None, phased)
        if ranked_by:
            times = {k: ranked_by.get(k, s["ms"]) for k, s in steps.items()}
            by_ranked = remaining({k: {"ms": times[k], "deps": s["deps"]} for k, s in steps.items()}, lambda s: s["ms"])
            rules["the ladder ranked by the times the build was ranked by"] = (
                ladder(steps, by_ranked), manifest_order(steps, by_ranked), None, steps)
            for name, kinds in phases.items() if first_build else ():  # its steps measured, the rest estimated
                priority, order, phased = phase_then_ranked(steps, kinds, times)
                rules[f"a first phase of {name}, then as ranked"] = (priority, order, None, phased)
        print(f"module id {'own' if own else 'nvcc'}, {jobs} jobs: lower bound {bound / 1000:.2f} s")
        for name, (priority, order, limit, graph) in rules.items():
            wall = simulate(graph, priority, order, jobs, limit=limit)
            print(f"  {name:56s} {wall / 1000:6.2f} s  {wall / bound:.3f} x bound")
        preemptive = {"the ladder, preemptive (a higher step stops a lower one)": (exact_ladder, manifest)}
        if ranked_by:
            preemptive["the ladder ranked as the build was, preemptive"] = (
                ladder(steps, by_ranked), manifest_order(steps, by_ranked))
        for name, (priority, order) in preemptive.items():
            for started_max in (None, 2 * jobs):
                wall = simulate_preemptive(steps, priority, order, jobs, 100, started_max)
                label = f"{name}, -j {started_max or 'all'}"
                print(f"  {label:56s} {wall / 1000:6.2f} s  {wall / bound:.3f} x bound")
            for share in (0.5, 0.7):
                critical = lambda key: priority[key] >= share * max(priority.values())
                wall = simulate_preemptive(steps, priority, order, jobs, 100, 2 * jobs,
                                           (lambda key: not critical(key), jobs))
                label = f"{name}, -j {2 * jobs}, steps under {share} of the top in a pool of {jobs}"
                print(f"  {label:56s} {wall / 1000:6.2f} s  {wall / bound:.3f} x bound")


if __name__ == "__main__":
    main()
