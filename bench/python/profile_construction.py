"""Where graph construction from Python goes, on the treenn model of workloads.py: ns per node
building real graphs, against the same model code calling a C-level stub ("".format, which takes
any arguments and builds nothing) instead of each op, i.e. the interpreter's share. The difference
is the library's node construction plus the binding's per-call cost (bench/python/binding_overhead).

    PYTHONPATH=build/python /usr/bin/python3 bench/python/profile_construction.py [--trees 2000]
"""
import argparse
import gc
import os
import sys
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads  # noqa: E402
import dynet as dy  # noqa: E402

OPS = ["parameter", "affine_transform", "lookup", "logistic", "pick_range", "tanh", "cmult", "concatenate", "esum",
       "pickneglogsoftmax"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trees", type=int, default=2000)
    ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    trees, _, _, vocab = workloads.load("treenn", args.data)
    model = workloads.TreeLstm(dy.ParameterCollection(), vocab["words"], 128, 128)
    sample = trees[:args.trees]
    nodes = 0
    for t in sample:
        dy.renew_cg()
        nodes += model.loss([t]).vindex + 1

    def real():
        start = time.perf_counter()
        for t in sample:
            dy.renew_cg()
            model.loss([t])
        return time.perf_counter() - start

    stub = types.SimpleNamespace(**{name: "".format for name in OPS})

    def stubbed():
        workloads.dy = stub
        try:
            start = time.perf_counter()
            for t in sample:
                model.loss([t])
            return time.perf_counter() - start
        finally:
            workloads.dy = dy

    gc.disable()  # both runs alike: no collection in the middle of one
    r = min(real() for _ in range(args.rounds)) / nodes * 1e9
    s = min(stubbed() for _ in range(args.rounds)) / nodes * 1e9
    gc.enable()
    print("treenn construction from Python: %.1f ns/node; the model's code over a C-level stub op: %.1f ns/node "
          "(%.0f%%); library node construction + binding: %.1f ns/node" % (r, s, 100 * s / r, r - s))


if __name__ == "__main__":
    main()
