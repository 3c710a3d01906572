"""Python against C++ on the same workloads: bench/python/workloads.py (import dynet), the C++
dybatch_workloads and, where python3-torch is installed, PyTorch eager from Python
(torch_workloads.py), run in turn (C++, Python, torch, C++, ...) on one core (taskset), the median
of --rounds runs each; prints a table of items/s, the ratios, and graph construction per node.

    /usr/bin/python3 bench/python/compare.py --build build [--rounds 3] [--seconds 5]
"""
import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = [("treenn", 1), ("treenn", 64), ("bilstm-tagger", 1), ("bilstm-tagger", 64)]


def result(argv, env):
    out = subprocess.run(argv, capture_output=True, text=True, env=env, check=True).stdout
    for line in out.splitlines():
        if line.startswith("RESULT "):
            return dict(kv.split("=", 1) for kv in line.split()[1:])
    raise RuntimeError("no RESULT line from %s" % " ".join(argv))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--data", default=os.path.join(HERE, "..", "..", "..", "shared", "data"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--autobatch", type=int, default=1)
    ap.add_argument("--tasks", default=",".join("%s:%d" % c for c in CONFIGS))
    args = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.abspath(args.build), "python"))
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    common = ["--seconds", str(args.seconds), "--data", args.data, "--dynet-autobatch", str(args.autobatch)]
    programs = {"c++": pin + [os.path.join(args.build, "bench", "dybatch_workloads")],
                "python": pin + [sys.executable, os.path.join(HERE, "workloads.py")]}
    if importlib.util.find_spec("torch"):
        programs["torch"] = pin + [sys.executable, os.path.join(HERE, "torch_workloads.py")]
    print("%-14s %5s %12s %12s %7s %12s %9s %17s %16s" % ("task", "batch", "c++ items/s", "py items/s", "py/c++",
                                                         "torch items/s", "py/torch", "c++ build ns/node",
                                                         "py build ns/node"))
    for config in args.tasks.split(","):
        task, batch = config.split(":")
        runs = {name: [] for name in programs}
        for _ in range(args.rounds):
            for name, argv in programs.items():
                flags = common if name != "torch" else common[:4]  # torch takes no --dynet-* flags
                runs[name].append(result(argv + ["--task", task, "--batch", batch] + flags, env))

        def median(name, key):
            return statistics.median(float(r[key]) for r in runs[name])

        def ns_per_node(name):
            return statistics.median(1e6 * float(r["build_ms"]) / float(r["nodes_per_graph"]) for r in runs[name])

        c, p = median("c++", "items_per_s"), median("python", "items_per_s")
        t = median("torch", "items_per_s") if "torch" in runs else float("nan")
        print("%-14s %5s %12.0f %12.0f %7.2f %12.1f %9.1f %17.1f %16.1f" % (
            task, batch, c, p, p / c, t, p / t, ns_per_node("c++"), ns_per_node("python")))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
