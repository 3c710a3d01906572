"""A binary TreeLSTM (Tai et al.'s N-ary cell, written with dynet's ops) classifying the sentiment of
Stanford Sentiment Treebank trees, trained at every node and evaluated at the root, one tree a graph.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/tree_lstm.py \
        --train ../shared/data/trees/train.txt --dev ../shared/data/trees/dev.txt [--trees 1000]

Exits with status 1 if the training loss does not fall over the epochs or the development root
accuracy does not beat the most frequent label."""
import argparse
import collections
import random
import re
import sys
import time

import dynet as dy


class Tree:
    def __init__(self, label, children=None, word=None):
        self.label, self.children, self.word = label, children or [], word


def parse(line):
    tokens = re.findall(r"\(|\)|[^\s()]+", line)
    pos = 0

    def node():
        nonlocal pos
        assert tokens[pos] == "("
        label = int(tokens[pos + 1])
        pos += 2
        if tokens[pos] == "(":
            children = []
            while tokens[pos] == "(":
                children.append(node())
            pos += 1
            return Tree(label, children)
        word = tokens[pos]
        pos += 2
        return Tree(label, word=word)

    return node()


def read(path, limit):
    trees = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                trees.append(parse(line))
            if limit and len(trees) >= limit:
                break
    return trees


class TreeLSTM:
    def __init__(self, model, words, emb=64, hidden=64, labels=5):
        self.words = words
        self.E = model.add_lookup_parameters((len(words) + 1, emb))
        self.W_leaf = model.add_parameters((3 * hidden, emb))  # i, o, u of a leaf
        self.b_leaf = model.add_parameters(3 * hidden)
        self.U = model.add_parameters((5 * hidden, 2 * hidden))  # i, f_left, f_right, o, u of an inner node
        self.b = model.add_parameters(5 * hidden)
        self.out = model.add_parameters((labels, hidden))
        self.hidden = hidden

    def node(self, t, losses):
        """(h, c) of t; appends to `losses` (unless None) the loss of the label of t and every node below."""
        H = self.hidden
        if t.word is not None:
            g = dy.affine_transform([self.b_leaf, self.W_leaf, self.E[self.words.get(t.word, len(self.words))]])
            i, o, u = dy.logistic(g[0:H]), dy.logistic(g[H:2 * H]), dy.tanh(g[2 * H:3 * H])
            c = dy.cmult(i, u)
        else:
            (hl, cl), (hr, cr) = [self.node(child, losses) for child in t.children[:2]]
            g = dy.affine_transform([self.b, self.U, dy.concatenate([hl, hr])])
            i, fl, fr = dy.logistic(g[0:H]), dy.logistic(g[H:2 * H]), dy.logistic(g[2 * H:3 * H])
            o, u = dy.logistic(g[3 * H:4 * H]), dy.tanh(g[4 * H:5 * H])
            c = dy.cmult(i, u) + dy.cmult(fl, cl) + dy.cmult(fr, cr)
        h = dy.cmult(o, dy.tanh(c))
        if losses is not None:
            losses.append(dy.pickneglogsoftmax(self.out * h, t.label))
        return h, c

    def scores(self, tree):
        return self.out * self.node(tree, None)[0]

    def loss(self, tree):
        losses = []
        self.node(tree, losses)
        return dy.esum(losses)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", default="../shared/data/trees/train.txt")
    ap.add_argument("--dev", default="../shared/data/trees/dev.txt")
    ap.add_argument("--trees", type=int, default=1000, help="training trees read (0: all)")
    ap.add_argument("--dev-trees", type=int, default=300)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    for flag in ("--dynet-seed", "--dynet-autobatch", "--dynet-mem"):  # read by `import dynet`
        ap.add_argument(flag)
    args = ap.parse_args()
    random.seed(args.seed)

    train, dev = read(args.train, args.trees), read(args.dev, args.dev_trees)

    def leaves(t):
        return [t.word] if t.word is not None else [w for c in t.children for w in leaves(c)]

    counts = collections.Counter(w for t in train for w in leaves(t))
    words = {w: i for i, w in enumerate(w for w, c in counts.items() if c > 1)}
    majority = collections.Counter(t.label for t in train).most_common(1)[0][0]
    baseline = sum(t.label == majority for t in dev) / len(dev)
    model = dy.ParameterCollection()
    net = TreeLSTM(model, words)
    trainer = dy.AdamTrainer(model)
    losses, acc = [], 0.0
    for epoch in range(args.epochs):
        random.shuffle(train)
        start, total = time.time(), 0.0
        for t in train:
            dy.renew_cg()
            loss = net.loss(t)
            total += loss.value()
            loss.backward()
            trainer.update()
        losses.append(total / len(train))
        good = 0
        for t in dev:
            dy.renew_cg()
            good += int(net.scores(t).npvalue().argmax()) == t.label
        acc = good / len(dev)
        print("epoch %d  loss %.4f  dev root accuracy %.4f (most frequent label %.4f)  %.0f trees/s"
              % (epoch, losses[-1], acc, baseline, len(train) / (time.time() - start)))
    return 0 if losses[-1] < losses[0] and acc > baseline else 1


if __name__ == "__main__":
    sys.exit(main())
