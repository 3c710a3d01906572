"""Per-call cost of the three binding layers: the same unary and binary calls over a 24-byte
handle (capi_probe.cc, pybind_probe.cc, cython_probe.pyx), timed from Python. Run by ./run."""
import sys
import timeit

import capi_probe
import cython_probe
import pybind_probe

N = 200000
REPEAT = 7


def per_call_ns(stmt, env):
    best = min(timeit.repeat(stmt, globals=env, number=N, repeat=REPEAT))
    return best / N * 1e9


def main():
    empty = per_call_ns("pass", {})
    print("%-10s %10s %10s   (ns per call, best of %d x %d, loop cost %.1f ns subtracted)"
          % ("layer", "unary", "binary", REPEAT, N, empty))
    for name, mod in (("cpython", capi_probe), ("cython", cython_probe), ("pybind11", pybind_probe)):
        env = {"m": mod, "a": mod.make(), "b": mod.make()}
        u = per_call_ns("m.unary(a)", env) - empty
        b = per_call_ns("m.binary(a, b)", env) - empty
        print("%-10s %10.1f %10.1f" % (name, u, b))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
