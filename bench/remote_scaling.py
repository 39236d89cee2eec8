#!/usr/bin/env python3
"""Predicts the wall time of one measured FastCuda build (`fastcuda table
DIR` CSV) with cudafe++, cicc and ptxas on W remote workers (a REAPI
service, sccache-dist) and the other steps on the local cores: the steps'
measured times, plus for each remote step a round trip and the transfer of
what it reads and writes at the given bandwidth. A remote step that starts
while a local core has nothing of its own to run runs there instead, in its
local time (FASTCUDA_REMOTE_LOCAL=idle, the client's default; LOCAL_RUNS=never
leaves them all remote). The priority ladder ranks the steps by their
remaining time, transfers included. Not a measurement: a model
(bench/simulate_schedule.py's list scheduler, checked there against measured
builds).

Sizes: the table has each step's first output. A .cpp1.ii is the device
preprocessing's output; the PTX that cicc writes is not in the table, so it
is taken as PTX_SHARE of its .cpp1.ii (0.29: 0.8 MiB of PTX for 2.8 MiB of
.cpp1.ii on average, docs/distributed.md); a cubin is the table's own.

Measured costs, where a remote build was measured (bench/remote_build.sh
prints them): STATS, the FASTCUDA_REMOTE_STATS file of that build, gives
each remote kind's mean time in the client outside the remote action (the
transfers and the client's own cost) over the steps that ran remotely, which
replaces the bandwidth and the round trip; ACTION_MS adds what a worker
spends per action beside the tool (the service's dispatch, fetching inputs,
sending outputs: the bots' timings). WORKERS lists the worker counts to predict (16 64 256).

Usage: [STATS=FILE] [ACTION_MS=N] [WORKERS="N..."] [LOCAL_RUNS=idle|never] bench/remote_scaling.py TABLE.csv [LOCAL_JOBS] [GBIT_PER_S] [ROUND_TRIP_MS]"""
import csv
import os
import statistics
import sys

from simulate_schedule import ladder, remaining, simulate, steps_of

REMOTE = {"CUDAFE", "CICC", "PTXAS"}  # fatbinary: 7 ms locally, a loss as a remote step
PTX_SHARE = 0.29
WORKERS = [int(n) for n in os.environ.get("WORKERS", "16 64 256").split()]
# A remote step's first output, as FASTCUDA_REMOTE_STATS names it, by kind
STATS_SUFFIX = {"CUDAFE": ".cudafe1.cpp", "CICC": ".cudafe1.c", "PTXAS": ".cubin"}


def transfer_bytes(rows):
    """(tu, kind, arch) -> bytes a remote step reads and writes."""
    size = {(int(r["tu"]), r["kind"], r["arch"]): max(int(r["output_bytes"]), 0) for r in rows}
    moved = {}
    for (tu, kind, arch), own in size.items():
        if kind == "CUDAFE":
            moved[(tu, kind, arch)] = size.get((tu, "CPP_HOST", ""), 0) + own
        elif kind == "CICC":
            source = size.get((tu, "CPP_DEVICE", arch), 0)
            moved[(tu, kind, arch)] = source + PTX_SHARE * source
        elif kind == "PTXAS":
            ptx = PTX_SHARE * size.get((tu, "CPP_DEVICE", arch.replace("sm_", "compute_")), 0)
            moved[(tu, kind, arch)] = ptx + own
    return moved


def client_ms(stats_path):
    """kind -> mean ms a remote step spent in the client outside its remote
    action, from a FASTCUDA_REMOTE_STATS file (wall, remote, transfer, hit,
    ..., output; seconds; hit "L" or "C": run on a local core, "S": its
    result's store after it, neither counted)."""
    spent = {kind: [] for kind in STATS_SUFFIX}
    for line in open(stats_path):
        fields = line.split()
        if fields[3] in ("L", "C", "S"):
            continue
        wall, remote, output = float(fields[0]), float(fields[1]), fields[-1]
        kind = max((k for k, suffix in STATS_SUFFIX.items() if output.endswith(suffix)),
                   key=lambda k: len(STATS_SUFFIX[k]), default=None)
        if kind:
            spent[kind].append((wall - remote) * 1000)
    return {kind: statistics.mean(ms) for kind, ms in spent.items() if ms}


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    local = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    gbit = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    round_trip_ms = float(sys.argv[4]) if len(sys.argv) > 4 else 100.0
    steps = steps_of(rows, False)
    local_run_ms = {key: step["ms"] for key, step in steps.items()}
    spill = ("remote", "local", local_run_ms) if os.environ.get("LOCAL_RUNS", "idle") == "idle" else None
    measured_ms = sum(s["ms"] for s in steps.values())
    action_ms = float(os.environ.get("ACTION_MS", "0"))
    measured = client_ms(os.environ["STATS"]) if os.environ.get("STATS") else None
    for key, moved in transfer_bytes(rows).items():
        outside = measured.get(key[1], 0) if measured else round_trip_ms + moved * 8 / (gbit * 1e9) * 1000
        steps[key]["ms"] += round(outside + action_ms)
    pool_of = lambda key: "remote" if key[1] in REMOTE else "local"
    by_time = remaining(steps, lambda s: s["ms"])
    priority = ladder(steps, by_time)
    order = {key: key[0] * 100 for key in steps}
    local_ms = sum(s["ms"] for k, s in steps.items() if pool_of(k) == "local")
    remote_ms = sum(s["ms"] for k, s in steps.items() if pool_of(k) == "remote")
    # Where remote steps may run locally, their local time is the least
    # they take, on the longest chain and in a slot of either kind.
    chain_ms = max((remaining(steps_of(rows, False), lambda s: s["ms"]) if spill else by_time).values())
    least_ms = local_ms + sum(local_run_ms[k] for k in steps if pool_of(k) == "remote")
    spilled_bound = lambda workers: least_ms / (local + workers)
    on_cores = simulate(steps_of(rows, False), priority, order, local)
    print(f"{len(steps)} steps, {measured_ms / 1000:.1f} s measured; all on {local} local cores: "
          f"{on_cores / 1000:.2f} s (simulated)")
    costs = (", ".join(f"{kind} {ms:.0f} ms" for kind, ms in measured.items()) + " in the client (measured)"
             if measured else f"transfers at {gbit:g} Gbit/s and {round_trip_ms:g} ms a round trip")
    idle = "; a remote step that finds a local core idle runs there" if spill else ""
    print(f"remote: cudafe++, cicc, ptxas ({remote_ms / 1000:.1f} s with {costs}, {action_ms:g} ms a worker's "
          f"per action); local: the rest ({local_ms / 1000:.1f} s) on {local} cores{idle}")
    print(f"floor: the longest chain {chain_ms / 1000:.2f} s; local work / {local}: {local_ms / local / 1000:.2f} s")
    print(f"{'workers':>8} {'predicted s':>12} {'bound s':>8} {'x bound':>8} {'x local':>8}")
    for workers in WORKERS:
        wall = simulate(steps, priority, order, {"local": local, "remote": workers}, pool_of, spill=spill)
        bound = max(chain_ms, local_ms / local, spilled_bound(workers) if spill else remote_ms / workers)
        print(f"{workers:8d} {wall / 1000:12.2f} {bound / 1000:8.2f} {wall / bound:8.3f} {wall / on_cores:8.3f}")


if __name__ == "__main__":
    main()
