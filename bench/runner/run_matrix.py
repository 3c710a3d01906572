#!/usr/bin/env python3
"""Runs the benchmark matrix of scripts/bench and writes its report.

Every configuration (workload, minibatch, hidden size, threads) runs each program it compares
in turn, A, B, C, A, B, C ..., so that drift on a shared machine hits all of them, pinned with
taskset; a figure is the median of the repetitions. Writes results.csv (medians), runs.csv (every
run), report.md and PNG plots drawn by gnuplot into the output folder. Standard library only.
"""

import argparse
import csv
import ctypes.util
import datetime
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys

import plots
import report

DYNET_TASKS = ["treenn", "bilstm-tagger", "bilstm-tagger-withchar", "rnnlm-batch"]
CAVS_TASKS = ["fixed-lstm", "var-lstm", "tree-fc", "tree-lstm"]
# The attention encoder-decoder reversing digit strings, of lengths 3-8 or all 8.
SEQ2SEQ_TASKS = ["seq2seq-mixed", "seq2seq-equal"]
TORCH_TASKS = {"treenn", "tree-lstm", "var-lstm", "fixed-lstm", "bilstm-tagger", "rnnlm-batch"} | set(SEQ2SEQ_TASKS)
TREE_TASKS = {"treenn", "tree-lstm"}
ENGINES = {0: "sequential", 1: "agenda", 2: "depth"}
# The phases of a step after building the graph, where a program times them (one graph a step).
PHASES = ["forward_ms", "backward_ms", "update_ms"]

# The targets: dybatch's best engine over libtorch's best version, same threads.
TARGETS = {("treenn", 64): 3.0, ("tree-lstm", 64): 3.0, ("bilstm-tagger", 1): 2.0, ("bilstm-tagger", 64): 2.0,
           ("rnnlm-batch", 64): 1.2}


class Program:
    """One program of a comparison: dybatch under some engine flags, or a libtorch variant."""

    def __init__(self, name, argv):
        self.name, self.argv = name, argv


def dybatch_programs(build, engines, vertex, threads, sharded):
    binary = os.path.join(build, "bench", "dybatch_workloads")
    out = []
    for e in engines:
        # Op by op (--dynet-vertex 0) where the build has the flag: its default is 1, run below.
        op_by_op = ["--dynet-vertex", "0"] if vertex and e > 0 else []
        out.append(Program("dybatch-" + ENGINES[e], [binary, "--dynet-autobatch", str(e)] + op_by_op))
        if vertex and e > 0:
            out.append(Program("dybatch-" + ENGINES[e] + "+vertex",
                               [binary, "--dynet-autobatch", str(e), "--dynet-vertex", "1"]))
    # With several threads a dybatch user may train one graph a thread (ShardedTraining), as the
    # docs/distributed.md's "Several cores" shows, beside one graph whose products the threads split.
    if sharded and threads > 1 and 1 in engines:
        out.append(Program("dybatch-agenda+shards", [binary, "--dynet-autobatch", "1", "--variant", "sharded"]))
    return out


def torch_programs(build, task, batch, full):
    binary = os.path.join(build, "bench", "peers", "torch", "torch_workloads")
    if task not in TORCH_TASKS or not os.path.exists(binary):
        return []
    out = [Program("torch-batched", [binary, "--variant", "batched"])]
    # Node by node costs the same per tree at any minibatch size, and is slow: the quick matrix
    # measures it on small minibatches only.
    if task in TREE_TASKS and (full or batch <= 8):
        out.append(Program("torch-eager", [binary, "--variant", "eager"]))
    return out


PYTHON_TASKS = {"treenn", "bilstm-tagger", "rnnlm-batch"}


def python_programs(build, task):
    """The task from Python (bench/python): over the build's dynet package with agenda
    autobatching, and in PyTorch eager where python3-torch is installed. Named python-*, so that
    the report's best-of-dybatch and best-of-libtorch comparisons leave them out."""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python")
    package = os.path.join(build, "python")
    if task not in PYTHON_TASKS:
        return []
    out = []
    if os.path.isdir(os.path.join(package, "dynet")):
        out.append(Program("python-dynet-agenda", ["env", "PYTHONPATH=" + os.path.abspath(package), "/usr/bin/python3",
                                                   os.path.join(here, "workloads.py"), "--dynet-autobatch", "1"]))
    if subprocess.run(["/usr/bin/python3", "-c", "import torch"], capture_output=True).returncode == 0:
        out.append(Program("python-torch-eager", ["/usr/bin/python3", os.path.join(here, "torch_workloads.py")]))
    return out


# DyNet's benchmark programs' settings (treenn 128/128, bilstm-tagger 128/50/32, bilstm-tagger-withchar
# 20/128/50/32, rnnlm-batch 16/128/256), one example a graph but for rnnlm-batch's minibatches of 16,
# trained as those programs train: Adam, with sparse (SPARSE 1) or dense (SPARSE 0) updates. The
# sweep names the updates (`--updates`).
DYNET_SETTINGS = [("treenn", 1), ("bilstm-tagger", 1), ("bilstm-tagger-withchar", 1), ("rnnlm-batch", 16)]
UPDATE_SWEEPS = {"dynet-sparse": "sparse", "dynet-dense": "dense"}


def matrix(full):
    """(task, batch, hidden or None, dybatch engines, sweep) for every configuration."""
    rows = [(task, b, None, [0, 1], sweep) for sweep in UPDATE_SWEEPS for task, b in DYNET_SETTINGS]
    if full:
        for task in DYNET_TASKS:
            batches = [1, 4, 16, 64] if task == "rnnlm-batch" else [1, 64]
            rows += [(task, b, None, [0, 1, 2], "dynet") for b in batches]
        for task, h in [("fixed-lstm", 512), ("var-lstm", 512), ("tree-fc", 512), ("tree-lstm", 128)]:
            rows += [(task, b, h, [1, 2], "batch") for b in [1, 8, 16, 32, 64, 128]]
        for task in ["fixed-lstm", "var-lstm", "tree-fc"]:
            rows += [(task, 64, h, [1, 2], "hidden") for h in [64, 128, 256, 512, 1024]]
        rows += [("tree-lstm", 64, h, [1, 2], "hidden") for h in [128, 256, 512]]
        rows += [(task, b, None, [0, 1, 2], "batch") for task in SEQ2SEQ_TASKS for b in [1, 8, 32, 64]]
        return rows
    # Quick: DyNet's tasks at 1 and 64 a graph, and short sweeps of the cheaper Cavs sizes.
    rows += [("treenn", 1, None, [0, 1], "dynet"), ("treenn", 64, None, [0, 1, 2], "dynet"),
             ("bilstm-tagger", 1, None, [0, 1], "dynet"), ("bilstm-tagger", 64, None, [0, 1, 2], "dynet"),
             ("bilstm-tagger-withchar", 1, None, [0, 1], "dynet"), ("bilstm-tagger-withchar", 64, None, [1], "dynet"),
             ("rnnlm-batch", 64, None, [0, 1], "dynet")]
    rows += [("tree-lstm", b, 128, [1], "batch") for b in [1, 8, 64]]
    rows += [("tree-lstm", 64, h, [1], "hidden") for h in [256, 512]]
    rows += [("var-lstm", b, 256, [1], "batch") for b in [4, 16]]
    rows += [("fixed-lstm", 16, 128, [1], "batch"), ("tree-fc", 8, 256, [1], "batch")]
    # Two sizes of the mixed lengths, for a line to plot, and the equal lengths at the default size.
    rows += [("seq2seq-mixed", b, None, [1], "batch") for b in [8, 32]] + [("seq2seq-equal", 32, None, [1], "batch")]
    return rows


def parse_result(stdout):
    for line in stdout.splitlines():
        if line.startswith("RESULT "):
            return dict(kv.split("=", 1) for kv in line.split()[1:])
    return None


def allocator():
    """TCMalloc's shared object where it is installed, else None (glibc's malloc).

    PyTorch's CPU performance guide tells users to run with TCMalloc or jemalloc: glibc returns
    libtorch's large tensors to the kernel when they are freed (they are mmapped), so every step
    takes its page faults again. On this suite's sequence workloads that is most of libtorch's time
    (var-lstm at 64 sentences, hidden 128: 5.7x slower under glibc; jemalloc did not help). dybatch
    keeps its memory in pools, so the allocator changes its figures by about 2%. Every program of a
    run gets the same allocator."""
    return ctypes.util.find_library("tcmalloc_minimal")


def run(argv, cpus, timeout):
    command = ["taskset", "-c", cpus] + argv
    env = dict(os.environ)
    if allocator():
        env["LD_PRELOAD"] = allocator()
    try:
        p = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        print("  timed out: " + shlex.join(command), file=sys.stderr)
        return None
    result = parse_result(p.stdout)
    if p.returncode != 0 or result is None:
        print("  failed (%d): %s\n%s" % (p.returncode, shlex.join(command), p.stderr[-2000:]), file=sys.stderr)
        return None
    return result


def accepts_flag(binary, flag, value):
    """Whether the program takes a flag with that value (another branch may add it)."""
    p = subprocess.run([binary, flag, value, "--help"], capture_output=True, text=True)
    return p.returncode == 0


def machine_line(cpus):
    model, flags = "unknown CPU", []
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name") and model == "unknown CPU":
                model = line.split(":", 1)[1].strip()
            if line.startswith("flags"):
                flags = line.split(":", 1)[1].split()
                break
    if "avx512f" in flags:
        model += " (AVX-512)"
    elif "avx2" in flags:
        model += " (AVX2)"
    with open("/proc/meminfo") as f:
        mem_kib = int(f.readline().split()[1])
    load = os.getloadavg()
    return ("%s, %s, %d CPUs, %.1f GiB, %s %s; pinned to CPUs %s; load average %.1f/%.1f/%.1f at start" %
            (platform.node(), model, os.cpu_count(), mem_kib / 2**20, platform.system(), platform.release(), cpus,
             *load))


def git_commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build")
    ap.add_argument("--data")
    ap.add_argument("--out", required=True)
    ap.add_argument("--redraw", action="store_true", help="only redraw the plots and report of --out's CSV")
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seconds", type=float, help="time budget of one run (default 1.5 quick, 5 full)")
    ap.add_argument("--threads", help="comma-separated thread counts (default 1; --full: 1,2)")
    ap.add_argument("--note", default="", help="a line about the machine's state, put in the report")
    a = ap.parse_args()
    if a.redraw:
        write_report(a.out)
        return
    if not a.build or not a.data:
        ap.error("--build and --data are required")
    if a.reps < 3:
        ap.error("--reps: medians need 3 runs at least")
    seconds = a.seconds or (5.0 if a.full else 1.5)
    threads = [int(t) for t in (a.threads or ("1,2" if a.full else "1")).split(",")]
    os.makedirs(a.out, exist_ok=True)
    dybatch = os.path.join(a.build, "bench", "dybatch_workloads")
    vertex = accepts_flag(dybatch, "--dynet-vertex", "0")
    sharded = accepts_flag(dybatch, "--variant", "sharded")
    updates_flag = accepts_flag(dybatch, "--updates", "dense")
    started = datetime.datetime.now(datetime.timezone.utc)
    machine = machine_line(",".join(str(c) for c in range(max(threads))))

    # The GEMM peak is measured before every configuration, so that it sees the same load as the
    # workloads; the report uses the median.
    peaks = []

    def measure_peak():
        r = run([dybatch, "--gemm-peak"], "0", 120)
        if r:
            peaks.append(float(r["gflops"]))

    runs, medians = [], []
    for n_threads in threads:
        cpus = ",".join(str(c) for c in range(n_threads))
        for task, batch, hidden, engines, sweep in matrix(a.full):
            settings = ["--task", task, "--batch", str(batch), "--seconds", str(seconds), "--data", a.data]
            if hidden:
                settings += ["--hidden", str(hidden)]
            updates = UPDATE_SWEEPS.get(sweep)
            if updates and not updates_flag:
                continue
            programs = [Program(p.name, p.argv + ["--dynet-threads", str(n_threads)] +
                                (["--updates", updates] if updates else []))
                        for p in dybatch_programs(a.build, engines, vertex, n_threads, sharded)]
            if not updates:
                programs += [Program(p.name, p.argv + ["--threads", str(n_threads)])
                             for p in torch_programs(a.build, task, batch, a.full)]
                programs += [Program(p.name, p.argv + ["--threads", str(n_threads)])
                             for p in python_programs(a.build, task)]
            results = {p.name: [] for p in programs}
            measure_peak()
            for rep in range(a.reps):
                for p in programs:
                    r = run(p.argv + settings, cpus, 60 + 20 * seconds)
                    if r:
                        r.update(program=p.name, rep=rep, sweep=sweep)
                        runs.append(r)
                        results[p.name].append(r)
            for name, rs in results.items():
                if not rs:
                    continue
                ips = [float(r["items_per_s"]) for r in rs]
                mid = sorted(rs, key=lambda r: float(r["items_per_s"]))[len(rs) // 2]
                row = dict(task=task, batch=int(mid["batch"]), hidden=int(mid["hidden"]), threads=n_threads,
                           program=name, sweep=sweep, updates=mid.get("updates", "sgd"), unit=mid["unit"], runs=len(rs),
                           items_per_s=statistics.median(ips), min=min(ips), max=max(ips),
                           gflops=float(mid["gflops"]), peak_share=None,
                           step_ms=float(mid["step_ms"]), build_ms=float(mid["build_ms"]),
                           build_share=float(mid["build_share"]), nodes_per_graph=float(mid["nodes_per_graph"]),
                           **{k: float(mid.get(k, 0)) for k in PHASES})
                medians.append(row)
                print("%-24s b=%-3d h=%-4d t=%d %-26s %10.1f %s/s  (%d runs, %.0f..%.0f)  %.1f GFLOP/s (GEMM %.1f)" %
                      (task, row["batch"], row["hidden"], n_threads, name, row["items_per_s"], row["unit"],
                       len(rs), row["min"], row["max"], row["gflops"], peaks[-1] if peaks else 0), flush=True)

    finished = datetime.datetime.now(datetime.timezone.utc)
    peak = statistics.median(peaks) if peaks else float("nan")
    for row in medians:
        row["peak_share"] = row["gflops"] / (peak * row["threads"])
    fields = ["task", "batch", "hidden", "threads", "program", "sweep", "updates", "unit", "runs", "items_per_s", "min",
              "max", "gflops", "peak_share", "step_ms", "build_ms", "build_share", "nodes_per_graph"] + PHASES
    with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(medians)
    run_fields = ["program", "rep", "sweep"] + [k for k in runs[0] if k not in ("program", "rep", "sweep")] if runs else []
    with open(os.path.join(a.out, "runs.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=run_fields)
        w.writeheader()
        w.writerows(runs)
    context = dict(machine=machine, note=a.note, started=started.isoformat(), finished=finished.isoformat(),
                   peak=peak, peaks=peaks, seconds=seconds, reps=a.reps, full=a.full, commit=git_commit(),
                   vertex=vertex, load_end=os.getloadavg(), command=" ".join(sys.argv), allocator=allocator())
    with open(os.path.join(a.out, "run.json"), "w") as f:
        json.dump(context, f, indent=1)
    write_report(a.out)


def write_report(out):
    """Plots and report.md from the folder's results.csv and run.json."""
    with open(os.path.join(out, "run.json")) as f:
        context = json.load(f)
    for key in ("started", "finished"):
        context[key] = datetime.datetime.fromisoformat(context[key])
    with open(os.path.join(out, "results.csv")) as f:
        medians = list(csv.DictReader(f))
    for r in medians:
        for k in ("batch", "hidden", "threads", "runs"):
            r[k] = int(r[k])
        for k in ["items_per_s", "min", "max", "gflops", "peak_share", "step_ms", "build_ms", "build_share",
                  "nodes_per_graph"] + PHASES:
            r[k] = float(r.get(k) or 0)
        r.setdefault("updates", "sgd")
    figures = plots.draw(medians, context["peak"], out)
    report.write(os.path.join(out, "report.md"), medians, figures, TARGETS, context)
    print("wrote %s" % os.path.join(out, "report.md"))

if __name__ == "__main__":
    main()
