#!/usr/bin/env python3
"""How well what is known before a TU's heavy steps run ranks its work.

Reads a FastCuda graph directory after a build: steps.json (each TU's steps),
the build's .ninja_log (each step's time) and the preprocessed files the first
steps left in the TU's work directory. For every TU, candidate estimates:
  ii_bytes        size of the device preprocessing's .cpp1.ii (first arch)
  host_ii_bytes   size of the host preprocessing's .cpp4.ii
  kernels         kernels in the .cpp1.ii (`__global__`, which the preprocessor
                  makes `__attribute__((global))`)
  templates       `template` in the .cpp1.ii
  source_bytes    size of the source file itself
and, measured, each TU's total step time, its cicc and ptxas time, and its
longest chain. Prints each estimate's Spearman rank correlation with each
measured column (1: the same order; 0: no relation).

Usage: bench/estimate_correlation.py GRAPH_DIR
"""
import json
import os
import re
import sys


def ninja_durations(path):
    """The last record of each output: its duration in ms."""
    durations = {}
    with open(path) as log:
        for line in log:
            fields = line.rstrip("\n").split("\t")
            if len(fields) == 5 and fields[0].isdigit():
                durations[fields[3]] = int(fields[1]) - int(fields[0])
    return durations


def ranks(values):
    """Average ranks from 1, ties sharing theirs."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    result = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            result[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return result


def spearman(xs, ys):
    rx, ry = ranks(xs), ranks(ys)
    n = len(xs)
    mx, my = sum(rx) / n, sum(ry) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sx = sum((a - mx) ** 2 for a in rx) ** 0.5
    sy = sum((b - my) ** 2 for b in ry) ** 0.5
    return cov / (sx * sy) if sx and sy else float("nan")


def longest_chain(steps, durations):
    finish = []
    for step in steps:
        start = max((finish[i] for i in step["after"]), default=0)
        finish.append(start + durations.get(step["output"], 0))
    return max(finish, default=0)


def main(graph_dir):
    log_path = os.path.join(graph_dir, "ninja-log-path")
    log = open(log_path).read().strip() if os.path.exists(log_path) else os.path.join(graph_dir, ".ninja_log")
    durations = ninja_durations(log)
    ninja_dir = os.path.dirname(log)
    durations = {os.path.normpath(os.path.join(ninja_dir, out)): ms for out, ms in durations.items()}
    rows = []
    for tu in json.load(open(os.path.join(graph_dir, "steps.json")))["tus"]:
        # An output in the TU's work dir is named after it (in_work_dir).
        output_of = lambda s: s["output"] if "output" in s else tu["work_dir"] + "/" + s["in_work_dir"]
        steps = [dict(s, output=os.path.normpath(os.path.join(ninja_dir, output_of(s)))) for s in tu["steps"]]
        device_ii = next((s["output"] for s in steps if s["kind"] == "CPP_DEVICE"), None)
        host_ii = next((s["output"] for s in steps if s["kind"] == "CPP_HOST"), None)
        if not device_ii or not os.path.exists(device_ii):
            continue
        text = open(device_ii, errors="replace").read()
        source = tu["source"] if os.path.isabs(tu["source"]) else os.path.join(ninja_dir, tu["source"])
        of_kind = lambda kind: sum(durations.get(s["output"], 0) for s in steps if s["kind"] == kind)
        rows.append({
            "tu": os.path.basename(tu["source"]),
            "ii_bytes": os.path.getsize(device_ii),
            "host_ii_bytes": os.path.getsize(host_ii) if host_ii and os.path.exists(host_ii) else 0,
            "kernels": len(re.findall(r"__global__|__attribute__\(\(global\)\)", text)),
            "templates": len(re.findall(r"\btemplate\b", text)),
            "source_bytes": os.path.getsize(source) if os.path.exists(source) else 0,
            "total_ms": sum(durations.get(s["output"], 0) for s in steps),
            "cicc_ms": of_kind("CICC"),
            "ptxas_ms": of_kind("PTXAS"),
            "chain_ms": longest_chain(steps, durations),
        })
    estimates = ["ii_bytes", "host_ii_bytes", "kernels", "templates", "source_bytes"]
    measured = ["total_ms", "cicc_ms", "ptxas_ms", "chain_ms"]
    print(f"{len(rows)} TUs of {graph_dir}; Spearman rank correlation, estimate (rows) against measured (columns)")
    print(f"{'':15}" + "".join(f"{m:>10}" for m in measured))
    for estimate in estimates:
        values = [row[estimate] for row in rows]
        print(f"{estimate:15}" + "".join(f"{spearman(values, [row[m] for row in rows]):10.2f}" for m in measured))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
