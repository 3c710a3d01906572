"""A BiLSTM tagger (word embeddings, a forward and a backward LSTM, a softmax over tags per word),
trained on word|TAG sentences, one sentence a graph.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/bilstm_tagger.py \
        --train ../shared/data/tags/train.txt --dev ../shared/data/tags/dev.txt [--sentences 2000]

Exits with status 1 if the development accuracy does not beat always predicting the most frequent tag."""
import argparse
import collections
import random
import sys
import time

import dynet as dy


def read(path, limit):
    sentences = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            pairs = [tok.rsplit("|", 1) for tok in line.split()]
            pairs = [p for p in pairs if len(p) == 2]
            if pairs:
                sentences.append(pairs)
            if limit and len(sentences) >= limit:
                break
    return sentences


class Tagger:
    def __init__(self, model, words, tags, emb=64, hidden=64):
        self.words, self.tags = words, tags
        self.E = model.add_lookup_parameters((len(words) + 1, emb))
        self.fwd = dy.VanillaLSTMBuilder(1, emb, hidden, model)
        self.bwd = dy.VanillaLSTMBuilder(1, emb, hidden, model)
        self.W = model.add_parameters((len(tags), 2 * hidden))
        self.b = model.add_parameters(len(tags))

    def scores(self, sentence):
        unk = len(self.words)
        xs = [self.E[self.words.get(w, unk)] for w, _ in sentence]
        fs = self.fwd.initial_state().transduce(xs)
        bs = self.bwd.initial_state().transduce(reversed(xs))
        return [dy.affine_transform([self.b, self.W, dy.concatenate([f, b])]) for f, b in zip(fs, reversed(bs))]

    def loss(self, sentence):
        return dy.esum([dy.pickneglogsoftmax(s, self.tags[t]) for s, (_, t) in zip(self.scores(sentence), sentence)])

    def predict(self, sentence):
        return [int(s.npvalue().argmax()) for s in self.scores(sentence)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", default="../shared/data/tags/train.txt")
    ap.add_argument("--dev", default="../shared/data/tags/dev.txt")
    ap.add_argument("--sentences", type=int, default=2000, help="training sentences read (0: all)")
    ap.add_argument("--dev-sentences", type=int, default=300)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    for flag in ("--dynet-seed", "--dynet-autobatch", "--dynet-mem"):  # read by `import dynet`
        ap.add_argument(flag)
    args = ap.parse_args()
    random.seed(args.seed)

    train, dev = read(args.train, args.sentences), read(args.dev, args.dev_sentences)
    counts = collections.Counter(w for s in train for w, _ in s)
    words = {w: i for i, w in enumerate(w for w, c in counts.items() if c > 1)}
    tag_counts = collections.Counter(t for s in train for _, t in s)
    tags = {t: i for i, t in enumerate(sorted(tag_counts))}
    majority = tag_counts.most_common(1)[0][0]
    model = dy.ParameterCollection()
    tagger = Tagger(model, words, tags)
    trainer = dy.AdamTrainer(model)
    baseline = sum(t == majority for s in dev for _, t in s) / sum(len(s) for s in dev)
    acc = 0.0
    for epoch in range(args.epochs):
        random.shuffle(train)
        start, total, n = time.time(), 0.0, 0
        for s in train:
            dy.renew_cg()
            loss = tagger.loss(s)
            total += loss.value()
            n += len(s)
            loss.backward()
            trainer.update()
        good = count = 0
        for s in dev:
            dy.renew_cg()
            good += sum(p == tags.get(t, -1) for p, (_, t) in zip(tagger.predict(s), s))
            count += len(s)
        acc = good / count
        print("epoch %d  loss/word %.4f  dev accuracy %.4f (most frequent tag %.4f)  %.0f words/s"
              % (epoch, total / n, acc, baseline, n / (time.time() - start)))
    return 0 if acc > baseline else 1


if __name__ == "__main__":
    sys.exit(main())
