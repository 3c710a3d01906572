"""Graph construction from Python, ns per node: the graphs of bench/graph_construction (the C++
program, run beside it by --with-cpp) built through `import dynet`: steps of 5 nodes (lookup,
affine_transform, tanh, cmult, esum), warm (median of --reps graphs after the first).

    PYTHONPATH=build/python /usr/bin/python3 bench/python/graph_construction.py [--with-cpp build/bench/graph_construction]
"""
import argparse
import subprocess
import time

import dynet as dy


def build(m, nodes):
    emb, W, U, b = m
    cg = dy.cg()
    h = dy.lookup(emb, 0)
    n = 4
    step = 0
    while n + 5 <= nodes:
        x = dy.lookup(emb, step % 1000)
        a = dy.affine_transform([b, W, x, U, h])
        t = dy.tanh(a)
        g = dy.cmult(t, x)
        h = dy.esum([g, h])
        n += 5
        step += 1
    return n


def measure(m, nodes):
    dy.renew_cg()
    t0 = time.perf_counter_ns()
    n = build(m, nodes)
    t1 = time.perf_counter_ns()
    return (t1 - t0) / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--with-cpp", default="", help="the C++ graph_construction program, run after for comparison")
    args = ap.parse_args()
    pc = dy.ParameterCollection()
    m = (pc.add_lookup_parameters((1000, 64)), pc.add_parameters((64, 64)), pc.add_parameters((64, 64)),
         pc.add_parameters(64))
    print("graph construction from Python, ops: lookup, affine_transform, tanh, cmult, esum (5 nodes a step)")
    print("%10s %14s %14s" % ("nodes", "cold ns/node", "warm ns/node"))
    for nodes in (1000, 10000, 100000):
        cold = measure(m, nodes)
        warm = sorted(measure(m, nodes) for _ in range(args.reps))
        print("%10d %14.1f %14.1f" % (nodes, cold, warm[len(warm) // 2]))
    if args.with_cpp:
        print(subprocess.run([args.with_cpp, "--reps", str(args.reps)], check=True, capture_output=True,
                             text=True).stdout)


if __name__ == "__main__":
    main()
