"""What bench/python's workloads share, without any framework: the tasks' shapes, their data read as
bench/workloads/datasets.cc reads it, minibatches, the command line, and the timed loop that prints
the suite's RESULT line."""
import argparse
import collections
import os
import random
import re
import sys
import time

# name: (unit, default batch, embedding, hidden), as bench/workloads/workload_options.cc
TASKS = {"treenn": ("sentences", 1, 128, 128), "bilstm-tagger": ("words", 1, 128, 50),
         "rnnlm-batch": ("words", 64, 128, 256)}


def read_tokens(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            tokens = line.split()
            if tokens:
                yield tokens


class Vocabulary(dict):
    def id(self, word):
        return self.setdefault(word, len(self))


# ---- treenn: the TreeLSTM reference model, loss at the root

def parse_tree(line, words):
    """The tree's nodes children first: (word id or None, left, right, label); unary chains skipped."""
    tokens = re.findall(r"\(|\)|[^\s()]+", line)
    nodes, pos = [], 0

    def node():
        nonlocal pos
        pos += 1
        label = max(0, int(tokens[pos]))
        pos += 1
        if tokens[pos] != "(":
            word = words.id(tokens[pos])
            pos += 2
            nodes.append((word, -1, -1, label))
            return len(nodes) - 1
        children = []
        while tokens[pos] == "(":
            children.append(node())
        pos += 1
        if len(children) == 1:
            return children[0]
        nodes.append((None, children[0], children[1], label))
        return len(nodes) - 1

    node()
    return nodes


def load(task, data):
    """(examples, size of each, items of each, vocabulary sizes) of the task."""
    if task == "treenn":
        words = Vocabulary()
        trees = [parse_tree(line, words) for line in open(os.path.join(data, "trees", "train.txt"), encoding="utf-8")
                 if line.strip()]
        return trees, [len(t) for t in trees], [1] * len(trees), {"words": len(words)}
    if task == "bilstm-tagger":
        raw = [[tok.rsplit("|", 1) for tok in s] for s in read_tokens(os.path.join(data, "tags", "train.txt"))]
        counts = collections.Counter(w for s in raw for w, _ in s)
        words, tags = Vocabulary(), Vocabulary()
        for w in counts:
            words.id(w)
        words.id("<unk>")
        sentences = [([words[w] for w, _ in s], [tags.id(t) for _, t in s]) for s in raw]
        lengths = [len(s[0]) for s in sentences]
        return sentences, lengths, lengths, {"words": len(words), "tags": len(tags)}
    words = Vocabulary()
    boundary = words.id("<s>")
    sentences = [[words.id(w) for w in s] for s in read_tokens(os.path.join(data, "text", "train.txt"))]
    return sentences, [len(s) for s in sentences], [len(s) + 1 for s in sentences], {"words": len(words),
                                                                                      "boundary": boundary}


def minibatches(sizes, batch, by_length, seed=15):
    order = list(range(len(sizes)))
    rng = random.Random(seed)
    if not by_length:
        rng.shuffle(order)
        return [order[i:i + batch] for i in range(0, len(order) - batch + 1, batch)]
    order.sort(key=lambda i: sizes[i])
    batches = [order[i:i + batch] for i in range(0, len(order) - batch + 1, batch)]
    rng.shuffle(batches)
    return batches


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", required=True, choices=sorted(TASKS))
    ap.add_argument("--batch", type=int, default=0)
    ap.add_argument("--hidden", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--variant", default="model")
    # Read by `import dynet`, which leaves them in sys.argv as DyNet does.
    for flag in ("--dynet-autobatch", "--dynet-vertex", "--dynet-threads", "--dynet-mem", "--dynet-seed"):
        ap.add_argument(flag, default="0" if flag == "--dynet-autobatch" else None)
    return ap.parse_args()


def run(args, unit, batch, hidden, impl, autobatch, step, batches, sizes):
    """Warms up (the largest steps, then a tenth of the budget), trains for --seconds and prints
    the RESULT line. step(k) trains step k and returns (items, construction seconds, nodes)."""
    largest = max(range(len(batches)), key=lambda k: sum(sizes[i] for i in batches[k]))
    longest = max(range(len(batches)), key=lambda k: max(sizes[i] for i in batches[k]))
    for k in {largest, longest}:
        step(k)
    k, start = 0, time.perf_counter()
    while time.perf_counter() - start < 0.1 * args.seconds:
        step(k)
        k += 1
    total_items = build_s = total_nodes = steps = 0
    start = time.perf_counter()
    while steps == 0 or time.perf_counter() - start < args.seconds:
        n, b, nodes = step(k)
        k += 1
        steps += 1
        total_items, build_s, total_nodes = total_items + n, build_s + b, total_nodes + nodes
    seconds = time.perf_counter() - start
    print("RESULT task=%s impl=%s variant=%s batch=%d hidden=%d threads=%d autobatch=%s vertex=- unit=%s "
          "items_per_s=%.3f gflops=0 step_ms=%.4f build_ms=%.4f build_share=%.5f nodes_per_graph=%.1f steps=%d "
          "seconds=%.3f" % (args.task, impl, args.variant, batch, hidden, args.threads, autobatch, unit,
                            total_items / seconds, 1e3 * seconds / steps, 1e3 * build_s / steps, build_s / seconds,
                            total_nodes / steps, steps, seconds))
    print("%s %s, %d a step, hidden %d: %.0f %s/s, %.2f ms a step, graph construction %.2f ms (%.1f%%) for %.0f "
          "nodes (%d steps in %.1f s)" % (args.task, impl, batch, hidden, total_items / seconds, unit,
                                          1e3 * seconds / steps, 1e3 * build_s / steps, 100 * build_s / seconds,
                                          total_nodes / steps, steps, seconds))
    sys.stdout.flush()
