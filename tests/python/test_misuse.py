"""Misuse from Python raises a Python exception with the library's message, never crashes; objects
dropped in any order leave the others valid. scripts/test --sanitize runs this under AddressSanitizer,
where a read of freed memory fails the run."""
import gc
import random

import numpy as np
import pytest

import dynet as dy


def table(rows=2, dim=2):
    return dy.ParameterCollection().add_lookup_parameters((rows, dim))


CASES = [
    (ValueError, lambda: dy.Tensor().as_numpy()),
    (RuntimeError, lambda: dy.Expression().npvalue()),  # stale, as in DyNet
    (RuntimeError, lambda: dy.tanh(dy.Expression())),
    (ValueError, lambda: dy.Parameters().as_array()),
    (ValueError, lambda: dy.tanh(dy.Parameters())),
    (ValueError, lambda: dy.LookupParameters().as_array()),
    (ValueError, lambda: dy.lookup(dy.LookupParameters(), 0)),
    (RuntimeError, lambda: dy.ParameterCollection().save("/nonexistent/dir/model")),
    (RuntimeError, lambda: dy.Trainer().update()),
    (RuntimeError, lambda: dy._RNNBuilder().initial_state()),
    (RuntimeError, lambda: dy.SoftmaxBuilder().sample(dy.inputVector([1]))),
    (RuntimeError, lambda: dy.inputVector([1, 2]).gradient()),
    (ValueError, lambda: dy.inputTensor(np.array(["a"]))),
    (ValueError, lambda: dy.inputTensor(np.zeros((0,)))),
    (ValueError, lambda: dy.reshape(dy.inputVector([1, 2]), (3,))),
    (ValueError, lambda: dy.lookup_batch(table(), [5]).npvalue()),
    (ValueError, lambda: dy.ParameterCollection().add_parameters(3).set_value([1, 2])),
    (ValueError, lambda: dy.ParameterCollection().add_parameters((2, 3)).set_value(np.zeros((3, 2)))),
    (ValueError, lambda: table().init_row(5, [1, 2])),
    (IndexError, lambda: table().row_as_array(-1)),
    (ValueError, lambda: dy.pickneglogsoftmax(dy.inputVector([1, 2]), 7).value()),
    # DyNet's max_dim, min_dim and logsumexp_dim reduce a dimension the input has.
    (ValueError, lambda: dy.max_dim(dy.inputVector([1, 5, 3]), d=1)),
    (ValueError, lambda: dy.min_dim(dy.inputVector([1, 5, 3]), d=1)),
    (ValueError, lambda: dy.logsumexp_dim(dy.inputVector([1, 5, 3]), d=1)),
    (ValueError, lambda: dy.renew_cg(autobatching=9)),
    (ValueError, lambda: dy.VanillaLSTMBuilder(1, 2, 3, dy.ParameterCollection()).initial_state([dy.inputVector([1])])),
    (ValueError, lambda: dy.sparse_inputTensor([100], [1.0], (2, 2)).npvalue()),
    (IndexError, lambda: dy.cg().forward(-1)),
    (ValueError, lambda: dy.transpose(dy.inputVector([1, 2]), [3, 0])),
    (ValueError, lambda: dy.select_rows(dy.inputVector([1, 2]), [9]).npvalue()),
    (ValueError, lambda: dy.strided_select(dy.inputVector([1, 2]), [0], [0], [5]).npvalue()),
    (ValueError, lambda: dy.zeros((1 << 20, 1 << 20))),
    (OverflowError, lambda: dy.zeros((-1,))),
    (TypeError, lambda: dy.esum([None])),
    # DyNet's list ops assert the list is not empty: AssertionError there, and a ValueError too here.
    *[(error, lambda f=f: f([])) for error in (AssertionError, ValueError)
      for f in (dy.esum, dy.logsumexp, dy.average, dy.concatenate_cols, dy.concatenate_to_batch,
                dy.affine_transform, dy.concatenate, dy.emax)],
    (TypeError, lambda: dy.BiRNNBuilder.__new__(dy.BiRNNBuilder).transduce([dy.inputVector([1])])),
]


@pytest.mark.parametrize("error,call", CASES)
def test_misuse_raises(error, call):
    with pytest.raises(error):
        call()


def test_corrupt_and_truncated_files(tmp_path):
    bad = tmp_path / "bad"
    bad.write_text("garbage")
    with pytest.raises(RuntimeError, match="not a dybatch file"):
        dy.ParameterCollection().populate(str(bad))
    pc = dy.ParameterCollection()
    pc.add_parameters((3, 3), name="W")
    good = tmp_path / "good"
    pc.save(str(good))
    data = good.read_bytes()
    (tmp_path / "cut").write_bytes(data[: len(data) // 2])
    target = dy.ParameterCollection()
    W = target.add_parameters((3, 3), name="W", init=1.0)
    with pytest.raises(RuntimeError):
        target.populate(str(tmp_path / "cut"))
    assert np.all(W.as_array() == 1.0)  # nothing was partly loaded


def test_objects_dropped_in_any_order():
    rng = random.Random(3)
    for _ in range(20):
        dy.renew_cg()
        pc = dy.ParameterCollection()
        objs = {"pc": pc, "W": pc.add_parameters((3, 3)), "E": pc.add_lookup_parameters((4, 3)),
                "lstm": dy.VanillaLSTMBuilder(1, 3, 3, pc), "bi": dy.BiRNNBuilder(1, 3, 4, pc, dy.GRUBuilder),
                "sm": dy.StandardSoftmaxBuilder(3, 4, pc), "trainer": dy.AdamTrainer(pc)}
        objs["state"] = objs["lstm"].initial_state().add_input(objs["E"][1])
        objs["expr"] = objs["W"] * objs["E"][2]
        del pc
        names = list(objs)
        rng.shuffle(names)
        for name in names[: rng.randint(1, len(names))]:
            del objs[name]
            gc.collect()
        # whatever is left still works, or reports a stale graph
        for name, o in objs.items():
            if name == "W":
                assert o.as_array().shape == (3, 3)
                dy.sum_elems(o * dy.inputVector([1, 2, 3])).backward()
            elif name == "E":
                assert dy.lookup(o, 3).dim() == ((3,), 1)
            elif name == "lstm":
                o.initial_state().add_input(dy.inputVector([1, 2, 3])).output().npvalue()
            elif name == "bi":
                o.transduce([dy.inputVector([1, 2, 3])])[0].npvalue()
            elif name == "sm":
                o.neg_log_softmax(dy.inputVector([1, 2, 3]), 1).value()
            elif name == "trainer":
                o.update()
            elif name == "state":
                o.add_input(dy.inputVector([1, 2, 3])).output().npvalue()
            elif name == "expr":
                o.npvalue()
        dy.renew_cg()
        for name in ("state", "expr"):
            if name in objs:
                with pytest.raises(RuntimeError):
                    objs[name].npvalue() if name == "expr" else objs[name].add_input(dy.inputVector([1, 2, 3]))
