"""The benchmark suite's DyNet tasks written in Python with `import dynet`: the same models, data
and training steps as bench/workloads/dybatch_workloads.cc (treenn: bench/autobatch/treelstm_model,
root loss only; bilstm-tagger: bench/autobatch/tagger_model; rnnlm-batch: bench/workloads/
rnn_language_model), trained with SGD (0.1) for a time budget under the --dynet-* flags given,
reported as the C++ program reports (a RESULT line, impl=python), so that scripts/bench and
compare.py put the two side by side.

    PYTHONPATH=build/python python3 bench/python/workloads.py --task treenn --batch 1 --dynet-autobatch 1
"""
import argparse
import collections
import os
import random
import re
import sys
import time

FLAGS = list(sys.argv)
import dynet as dy  # noqa: E402  (takes the --dynet-* flags out of sys.argv)

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


class TreeLstm:
    def __init__(self, pc, vocab, emb, h):
        self.h = h
        self.E = pc.add_lookup_parameters((vocab, emb))
        self.W_leaf = pc.add_parameters((3 * h, emb))
        self.b_leaf = pc.add_parameters(3 * h, init=0.0)
        self.U = pc.add_parameters((5 * h, 2 * h))
        self.b_node = pc.add_parameters(5 * h, init=0.0)
        self.W_out = pc.add_parameters((5, h))
        self.b_out = pc.add_parameters(5, init=0.0)

    def loss(self, trees):
        h = self.h
        Wl, bl, U, bn = dy.parameter(self.W_leaf), dy.parameter(self.b_leaf), dy.parameter(self.U), dy.parameter(self.b_node)
        Wo, bo = dy.parameter(self.W_out), dy.parameter(self.b_out)
        losses = []
        for nodes in trees:
            hs, cs = [], []
            for word, left, right, label in nodes:
                if left < 0:
                    g = dy.affine_transform([bl, Wl, dy.lookup(self.E, word)])
                    i, o, u = dy.logistic(dy.pick_range(g, 0, h)), dy.logistic(dy.pick_range(g, h, 2 * h)), \
                        dy.tanh(dy.pick_range(g, 2 * h, 3 * h))
                    c = dy.cmult(i, u)
                else:
                    g = dy.affine_transform([bn, U, dy.concatenate([hs[left], hs[right]])])
                    i, fl = dy.logistic(dy.pick_range(g, 0, h)), dy.logistic(dy.pick_range(g, h, 2 * h))
                    fr, o = dy.logistic(dy.pick_range(g, 2 * h, 3 * h)), dy.logistic(dy.pick_range(g, 3 * h, 4 * h))
                    u = dy.tanh(dy.pick_range(g, 4 * h, 5 * h))
                    c = dy.esum([dy.cmult(i, u), dy.cmult(fl, cs[left]), dy.cmult(fr, cs[right])])
                cs.append(c)
                hs.append(dy.cmult(o, dy.tanh(c)))
            losses.append(dy.pickneglogsoftmax(dy.affine_transform([bo, Wo, hs[-1]]), nodes[-1][3]))
        return dy.esum(losses)


# ---- bilstm-tagger: embeddings, a BiLSTM, an MLP and a softmax per word

class Tagger:
    def __init__(self, pc, words, tags, emb, hidden, mlp=32):
        self.rnn = dy.BiRNNBuilder(1, emb, 2 * hidden, pc, dy.VanillaLSTMBuilder)
        self.E = pc.add_lookup_parameters((words, emb))
        self.hw = pc.add_parameters((mlp, 2 * hidden), init="glorot")
        self.hb = pc.add_parameters(mlp, init=0.0)
        self.ow = pc.add_parameters((tags, mlp), init="glorot")
        self.ob = pc.add_parameters(tags, init=0.0)

    def loss(self, sentences):
        hw, hb, ow, ob = dy.parameter(self.hw), dy.parameter(self.hb), dy.parameter(self.ow), dy.parameter(self.ob)
        losses = []
        for ws, ts in sentences:
            states = self.rnn.transduce([dy.lookup(self.E, w) for w in ws])
            for s, t in zip(states, ts):
                losses.append(dy.pickneglogsoftmax(dy.affine_transform([ob, ow, dy.tanh(dy.affine_transform([hb, hw, s]))]), t))
        return dy.esum(losses)


# ---- rnnlm-batch: an LSTM language model over minibatches of similar length, padded and masked

class LanguageModel:
    def __init__(self, pc, words, boundary, emb, hidden):
        self.boundary = boundary
        self.lstm = dy.VanillaLSTMBuilder(1, emb, hidden, pc)
        self.E = pc.add_lookup_parameters((words, emb), name="embeddings")
        self.softmax = dy.StandardSoftmaxBuilder(hidden, words, pc)

    def loss(self, sentences):
        batch = len(sentences)
        state = self.lstm.initial_state()
        inputs = [self.boundary] * batch
        losses = []
        for t in range(max(len(s) for s in sentences) + 1):
            targets = [s[t] if t < len(s) else self.boundary for s in sentences]
            mask = [1.0 if t <= len(s) else 0.0 for s in sentences]
            state = state.add_input(dy.lookup_batch(self.E, inputs))
            step = self.softmax.neg_log_softmax_batch(state.output(), targets)
            if min(mask) == 0.0:
                step = dy.cmult(step, dy.inputTensor([mask], batched=True))
            losses.append(dy.sum_batches(step))
            inputs = targets
        return dy.esum(losses)


def load(task, data):
    """(model maker, examples, size of each, items of each) for the task."""
    if task == "treenn":
        words = Vocabulary()
        trees = [parse_tree(line, words) for line in open(os.path.join(data, "trees", "train.txt"), encoding="utf-8")
                 if line.strip()]
        return (lambda pc, emb, h: TreeLstm(pc, len(words), emb, h)), trees, [len(t) for t in trees], [1] * len(trees)
    if task == "bilstm-tagger":
        raw = [[tok.rsplit("|", 1) for tok in s] for s in read_tokens(os.path.join(data, "tags", "train.txt"))]
        counts = collections.Counter(w for s in raw for w, _ in s)
        words, tags = Vocabulary(), Vocabulary()
        for w in counts:
            words.id(w)
        words.id("<unk>")
        sentences = [([words[w] for w, _ in s], [tags.id(t) for _, t in s]) for s in raw]
        return ((lambda pc, emb, h: Tagger(pc, len(words), len(tags), emb, h)), sentences,
                [len(s[0]) for s in sentences], [len(s[0]) for s in sentences])
    words = Vocabulary()
    boundary = words.id("<s>")
    sentences = [[words.id(w) for w in s] for s in read_tokens(os.path.join(data, "text", "train.txt"))]
    return ((lambda pc, emb, h: LanguageModel(pc, len(words), boundary, emb, h)), sentences,
            [len(s) for s in sentences], [len(s) + 1 for s in sentences])


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", required=True, choices=sorted(TASKS))
    ap.add_argument("--batch", type=int, default=0)
    ap.add_argument("--hidden", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--variant", default="model")
    args = ap.parse_args()
    unit, batch, emb, hidden = TASKS[args.task]
    batch, hidden = args.batch or batch, args.hidden or hidden
    make, examples, sizes, items = load(args.task, args.data)
    pc = dy.ParameterCollection()
    model = make(pc, emb, hidden)
    trainer = dy.SimpleSGDTrainer(pc, 0.1)
    batches = minibatches(sizes, batch, args.task == "rnnlm-batch")

    def step(k):
        b = batches[k % len(batches)]
        dy.renew_cg()
        t0 = time.perf_counter()
        loss = model.loss([examples[i] for i in b])
        built = time.perf_counter() - t0
        nodes = loss.vindex + 1
        loss.scalar_value()
        loss.backward()
        trainer.update()
        return sum(items[i] for i in b), built, nodes

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
    autobatch = FLAGS[FLAGS.index("--dynet-autobatch") + 1] if "--dynet-autobatch" in FLAGS else "0"
    print("RESULT task=%s impl=python variant=%s batch=%d hidden=%d threads=%d autobatch=%s vertex=- unit=%s "
          "items_per_s=%.3f gflops=0 step_ms=%.4f build_ms=%.4f build_share=%.5f nodes_per_graph=%.1f steps=%d "
          "seconds=%.3f" % (args.task, args.variant, batch, hidden, args.threads, autobatch, unit,
                            total_items / seconds, 1e3 * seconds / steps, 1e3 * build_s / steps, build_s / seconds,
                            total_nodes / steps, steps, seconds))
    print("%s python, %d a step, hidden %d: %.0f %s/s, %.2f ms a step, graph construction %.2f ms (%.1f%%) for %.0f "
          "nodes (%d steps in %.1f s)" % (args.task, batch, hidden, total_items / seconds, unit, 1e3 * seconds / steps,
                                          1e3 * build_s / steps, 100 * build_s / seconds, total_nodes / steps, steps,
                                          seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
