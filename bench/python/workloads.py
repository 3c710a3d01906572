"""The benchmark suite's DyNet tasks written in Python with `import dynet`: the same models, data
and training steps as bench/workloads/dybatch_workloads.cc (treenn: bench/autobatch/treelstm_model,
root loss only; bilstm-tagger: bench/autobatch/tagger_model; rnnlm-batch: bench/workloads/
rnn_language_model), trained with SGD (0.1) for a time budget under the --dynet-* flags given,
reported as the C++ program reports (a RESULT line, impl=python), so that scripts/bench and
compare.py put the two side by side.

    PYTHONPATH=build/python python3 bench/python/workloads.py --task treenn --batch 1 --dynet-autobatch 1
"""
import sys
import time

import dynet as dy  # reads the --dynet-* flags of sys.argv

from workload_common import TASKS, load, minibatches, parse_args, run


# ---- treenn: the TreeLSTM reference model, loss at the root

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
        Wl, bl, U, bn = self.W_leaf, self.b_leaf, self.U, self.b_node
        Wo, bo = self.W_out, self.b_out
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
        hw, hb, ow, ob = self.hw, self.hb, self.ow, self.ob
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


def main():
    args = parse_args()
    unit, batch, emb, hidden = TASKS[args.task]
    batch, hidden = args.batch or batch, args.hidden or hidden
    examples, sizes, items, vocab = load(args.task, args.data)
    pc = dy.ParameterCollection()
    if args.task == "treenn":
        model = TreeLstm(pc, vocab["words"], emb, hidden)
    elif args.task == "bilstm-tagger":
        model = Tagger(pc, vocab["words"], vocab["tags"], emb, hidden)
    else:
        model = LanguageModel(pc, vocab["words"], vocab["boundary"], emb, hidden)
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

    run(args, unit, batch, hidden, "python", args.dynet_autobatch, step, batches, sizes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
