#!/usr/bin/env python3
"""Reads nvcc's time traces (-fdevice-time-trace) of one TU's device chains,
written by bench/chain_phases.sh as CONFIG.rROUND.SM.json, and prints the
chain phase by phase per CONFIG (medians over rounds and architectures,
and the median over rounds of each round's longest chain: what the TU waits
for), then
the floor of the chain on this machine: the phases that do not split, plus the
CPU time of those that do (cicc's "Phase II", ptxas's compilation units)
spread over all cores, when ARCHS chains run at once.

Usage: bench/chain_phases.py CORES ARCHS TRACE.json..."""
import collections
import json
import os
import statistics
import sys


def phases(path):
    """Seconds of one device chain's phases, from one nvcc trace."""
    events = json.load(open(path))
    events = events["traceEvents"] if isinstance(events, dict) else events
    total = collections.defaultdict(float)
    units = []
    for event in events:
        if event.get("ph") != "X":
            continue
        seconds = event["dur"] / 1e6
        if event["name"] == "Optimizing compilation unit":
            units.append(seconds)
        else:
            total[event["name"]] += seconds
    chain = {
        "preprocess": total["gcc (preprocessing 1)"],
        "front end": total["CUDA C++ Front-End"],  # includes generating the NVVM IR
        "libnvvm": total["LibNVVM"],  # optimizer (Phase I holds Phase II) and codegen
        "phase II": total["Phase II"],  # traced only without split compile
        "ptxas": total["Total PTXAS Time"],
        "ptxas units": sum(units),
        "biggest unit": max(units, default=0.0),
    }
    chain["chain"] = chain["preprocess"] + chain["front end"] + chain["libnvvm"] + chain["ptxas"]
    return chain


def main():
    cores, archs, paths = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    by_config = collections.defaultdict(list)
    longest = collections.defaultdict(lambda: collections.defaultdict(float))
    for path in paths:
        config, rest = os.path.basename(path).split(".r", 1)
        chain = phases(path)
        by_config[config].append(chain)
        round_ = rest.split(".")[0]
        longest[config][round_] = max(longest[config][round_], chain["chain"])
    columns = ["preprocess", "front end", "libnvvm", "phase II", "ptxas", "biggest unit", "chain"]
    print(f"{'config':<14}" + "".join(f"{c:>13}" for c in columns) + f"{'longest chain':>15}")
    in_order = sorted(by_config, key=lambda c: (c.rsplit("_", 1)[0], int(c.rsplit("_", 1)[1])))
    for config in in_order:
        runs = by_config[config]
        row = "".join(f"{statistics.median(r[c] for r in runs):13.2f}" for c in columns)
        print(f"{config:<14}{row}{statistics.median(longest[config].values()):15.2f}")
    unsplit = by_config.get("at_once_1")
    if not unsplit:
        return
    split_cpu = statistics.median(r["phase II"] + r["ptxas units"] for r in unsplit)
    serial = statistics.median(r["chain"] - r["phase II"] - r["ptxas units"] for r in unsplit)
    floor = serial + archs * split_cpu / cores
    print(f"at once, unsplit: phases that do not split {serial:.2f} s, split phases {split_cpu:.2f} CPU s per chain")
    print(f"floor of {archs} chains at once on {cores} cores: {serial:.2f} + {archs} x {split_cpu:.2f} / {cores} = {floor:.2f} s")
    for config in (c for c in in_order if c.startswith("at_once_") and c != "at_once_1"):
        chain = statistics.median(longest[config].values())
        print(f"{config}: longest chain {chain:.2f} s = {chain / floor:.3f} x the floor")


if __name__ == "__main__":
    main()
