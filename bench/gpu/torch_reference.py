#!/usr/bin/env python3
"""PyTorch eager references for bench/gpu: the Tree-LSTM reference program (random 16-leaf binary
trees, embedding and hidden 128, 64 trees a step, Adam 0.001, a loss at every node) and Var-LSTM
(an LSTM with h = 512 over a batch of 64 sequences of their own lengths, 10 to 40 steps, masked,
a softmax over a 10,000-word vocabulary at every step). Prints, and with --markdown writes, table
rows: trees/s and sequences/s on the GPU (and the CPU with --cpu)."""

import argparse
import random
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

H = E = 128
VOCAB = 1000


def random_tree(rng, leaves):
    if leaves == 1:
        w = rng.randrange(VOCAB)
        return (w, w % 5)
    left = rng.randint(1, leaves - 1)
    l, r = random_tree(rng, left), random_tree(rng, leaves - left)
    return (l, r, (l[-1] + r[-1]) % 5)


class TreeLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, E)
        self.leaf = nn.Linear(E, 3 * H)
        self.node = nn.Linear(2 * H, 5 * H)
        self.out = nn.Linear(H, 5)

    def run(self, tree, losses, dev):
        if len(tree) == 2:
            i, o, u = self.leaf(self.emb(torch.tensor([tree[0]], device=dev))).chunk(3, dim=1)
            c = torch.sigmoid(i) * torch.tanh(u)
            h = torch.sigmoid(o) * torch.tanh(c)
        else:
            hl, cl = self.run(tree[0], losses, dev)
            hr, cr = self.run(tree[1], losses, dev)
            i, fl, fr, o, u = self.node(torch.cat([hl, hr], dim=1)).chunk(5, dim=1)
            c = torch.sigmoid(i) * torch.tanh(u) + torch.sigmoid(fl) * cl + torch.sigmoid(fr) * cr
            h = torch.sigmoid(o) * torch.tanh(c)
        losses.append(F.cross_entropy(self.out(h), torch.tensor([tree[-1]], device=dev), reduction="sum"))
        return h, c


def train(opt, loss):
    opt.zero_grad()
    loss.backward()
    opt.step()


def rate(step, dev, seconds):
    """Items a second of step(k) (which returns its items), after two warm-up steps."""
    for k in range(2):
        step(k)
    if dev.type == "cuda":
        torch.cuda.synchronize()
    done, k, start = 0, 2, time.perf_counter()
    while time.perf_counter() - start < seconds:
        done += step(k)
        k += 1
        if dev.type == "cuda":
            torch.cuda.synchronize()
    return done / (time.perf_counter() - start)


def tree_lstm(dev, seconds):
    rng = random.Random(1)
    trees = [random_tree(rng, 16) for _ in range(512)]
    model = TreeLSTM().to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=0.001)

    def step(k):
        batch = trees[(k * 64) % 512:(k * 64) % 512 + 64]
        losses = []
        for t in batch:
            model.run(t, losses, dev)
        train(opt, torch.stack(losses).sum())
        return len(batch)

    return rate(step, dev, seconds)


def var_lstm(dev, seconds, hidden=512, batch=64, vocab=10000):
    rng = random.Random(2)
    emb = nn.Embedding(vocab, hidden).to(dev)
    cell = nn.LSTMCell(hidden, hidden).to(dev)
    out = nn.Linear(hidden, vocab).to(dev)
    params = list(emb.parameters()) + list(cell.parameters()) + list(out.parameters())
    opt = torch.optim.Adam(params, lr=0.001)

    def step(_):
        lengths = [rng.randint(10, 40) for _ in range(batch)]
        steps = max(lengths)
        words = torch.randint(vocab, (steps + 1, batch), device=dev)
        mask = (torch.arange(steps, device=dev)[:, None] < torch.tensor(lengths, device=dev)[None, :]).float()
        h = torch.zeros(batch, hidden, device=dev)
        c = torch.zeros(batch, hidden, device=dev)
        loss = 0
        for t in range(steps):
            h, c = cell(emb(words[t]), (h, c))
            loss = loss + (F.cross_entropy(out(h), words[t + 1], reduction="none") * mask[t]).sum()
        train(opt, loss)
        return batch

    return rate(step, dev, seconds)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=15.0, help="timed seconds per workload and device")
    ap.add_argument("--cpu", action="store_true", help="also run on the CPU")
    ap.add_argument("--markdown", help="write the table rows here")
    args = ap.parse_args()
    torch.manual_seed(0)
    devices = ([torch.device("cuda")] if torch.cuda.is_available() else []) + (
        [torch.device("cpu")] if args.cpu or not torch.cuda.is_available() else [])
    rows = []
    for dev in devices:
        rows.append(f"| PyTorch {torch.__version__} eager Tree-LSTM, h=128, 64 trees a step | {dev.type} | "
                    f"{tree_lstm(dev, args.seconds):.1f} trees/s |")
        rows.append(f"| PyTorch {torch.__version__} eager Var-LSTM, h=512, batch 64, lengths 10-40 | {dev.type} | "
                    f"{var_lstm(dev, args.seconds):.1f} sequences/s |")
        print("\n".join(rows[-2:]), flush=True)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
