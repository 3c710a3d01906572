"""XOR with one hidden layer: the smallest complete dynet program.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/xor.py [--epochs 100] [--dynet-seed 1]

Exits with status 1 if the network has not learnt XOR (final loss above --max-loss)."""
import argparse
import sys

import dynet as dy  # reads the --dynet-* flags of sys.argv, which stay there, as in DyNet


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=100)
    ap.add_argument("--hidden", type=int, default=8)
    ap.add_argument("--max-loss", type=float, default=0.05)
    for flag in ("--dynet-seed", "--dynet-autobatch", "--dynet-mem"):  # read by `import dynet`
        ap.add_argument(flag)
    args = ap.parse_args()

    model = dy.ParameterCollection()
    W = model.add_parameters((args.hidden, 2))
    b = model.add_parameters(args.hidden)
    V = model.add_parameters((1, args.hidden))
    a = model.add_parameters(1)
    trainer = dy.SimpleSGDTrainer(model)
    data = [((x1, x2), 1.0 if x1 != x2 else -1.0) for x1 in (-1.0, 1.0) for x2 in (-1.0, 1.0)]
    for epoch in range(args.epochs):
        total = 0.0
        for x, y in data:
            dy.renew_cg()
            out = V * dy.tanh(W * dy.inputVector(x) + b) + a
            loss = dy.squared_distance(out, dy.scalarInput(y))
            total += loss.value()
            loss.backward()
            trainer.update()
        if epoch % 10 == 0 or epoch == args.epochs - 1:
            print("epoch %3d  loss %.5f" % (epoch, total / len(data)))
    final = total / len(data)
    print("final loss %.5f (%s)" % (final, "learnt" if final <= args.max_loss else "NOT learnt"))
    return 0 if final <= args.max_loss else 1


if __name__ == "__main__":
    sys.exit(main())
