"""The same tasks as common.py (treenn, bilstm-tagger, rnnlm-batch) in PyTorch eager from
Python (python3-torch): the peer a Python user would otherwise write, node by node as written,
with SGD (0.1), reported with the same RESULT line (impl=torch-eager-python).

    /usr/bin/python3 bench/python/torch_common.py --task treenn --batch 1
"""
import sys
import time

import torch
import torch.nn.functional as F

import workload_common as common


class TreeLstm(torch.nn.Module):
    def __init__(self, vocab, emb, h):
        super().__init__()
        self.h = h
        self.E = torch.nn.Embedding(vocab, emb)
        self.leaf = torch.nn.Linear(emb, 3 * h)
        self.node = torch.nn.Linear(2 * h, 5 * h)
        self.out = torch.nn.Linear(h, 5)

    def loss(self, trees):
        h, losses = self.h, []
        for nodes in trees:
            hs, cs = [], []
            # one embedding lookup a tree: a lookup per leaf would add a dense gradient of the whole table each
            leaves = [word for word, left, _, _ in nodes if left < 0]
            embedded = iter(self.E(torch.tensor(leaves)).unbind(0))
            for word, left, right, label in nodes:
                if left < 0:
                    g = self.leaf(next(embedded))
                    i, o, u = torch.sigmoid(g[:h]), torch.sigmoid(g[h:2 * h]), torch.tanh(g[2 * h:])
                    c = i * u
                else:
                    g = self.node(torch.cat([hs[left], hs[right]]))
                    i, fl, fr = torch.sigmoid(g[:h]), torch.sigmoid(g[h:2 * h]), torch.sigmoid(g[2 * h:3 * h])
                    o, u = torch.sigmoid(g[3 * h:4 * h]), torch.tanh(g[4 * h:])
                    c = i * u + fl * cs[left] + fr * cs[right]
                cs.append(c)
                hs.append(o * torch.tanh(c))
            losses.append(F.cross_entropy(self.out(hs[-1]).unsqueeze(0), torch.tensor([nodes[-1][3]])))
        return torch.stack(losses).sum()


class Tagger(torch.nn.Module):
    def __init__(self, words, tags, emb, hidden, mlp=32):
        super().__init__()
        self.E = torch.nn.Embedding(words, emb)
        self.rnn = torch.nn.LSTM(emb, hidden, bidirectional=True)
        self.mlp = torch.nn.Linear(2 * hidden, mlp)
        self.out = torch.nn.Linear(mlp, tags)

    def loss(self, sentences):
        losses = []
        for ws, ts in sentences:
            states, _ = self.rnn(self.E(torch.tensor(ws)).unsqueeze(1))
            scores = self.out(torch.tanh(self.mlp(states.squeeze(1))))
            losses.append(F.cross_entropy(scores, torch.tensor(ts), reduction="sum"))
        return torch.stack(losses).sum()


class LanguageModel(torch.nn.Module):
    def __init__(self, words, boundary, emb, hidden):
        super().__init__()
        self.boundary = boundary
        self.E = torch.nn.Embedding(words, emb)
        self.rnn = torch.nn.LSTM(emb, hidden)
        self.out = torch.nn.Linear(hidden, words)

    def loss(self, sentences):
        n = max(len(s) for s in sentences) + 1
        inputs = torch.tensor([[self.boundary] + s + [self.boundary] * (n - 1 - len(s)) for s in sentences]).T
        targets = torch.tensor([s + [self.boundary] * (n - len(s)) for s in sentences]).T
        mask = torch.tensor([[1.0] * (len(s) + 1) + [0.0] * (n - 1 - len(s)) for s in sentences]).T
        states, _ = self.rnn(self.E(inputs))
        nll = F.cross_entropy(self.out(states).reshape(-1, self.out.out_features), targets.reshape(-1), reduction="none")
        return (nll * mask.reshape(-1)).sum()


def main():
    torch.set_num_threads(1)
    args = common.parse_args()
    unit, batch, emb, hidden = common.TASKS[args.task]
    batch, hidden = args.batch or batch, args.hidden or hidden
    examples, sizes, items, vocab = common.load(args.task, args.data)
    if args.task == "treenn":
        model = TreeLstm(vocab["words"], emb, hidden)
    elif args.task == "bilstm-tagger":
        model = Tagger(vocab["words"], vocab["tags"], emb, hidden)
    else:
        model = LanguageModel(vocab["words"], vocab["boundary"], emb, hidden)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = common.minibatches(sizes, batch, args.task == "rnnlm-batch")

    def step(k):
        b = batches[k % len(batches)]
        t0 = time.perf_counter()
        loss = model.loss([examples[i] for i in b])
        built = time.perf_counter() - t0
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return sum(items[i] for i in b), built, 0

    common.run(args, unit, batch, hidden, "torch-eager-python", "-", step, batches, sizes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
