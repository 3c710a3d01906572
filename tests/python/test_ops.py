"""Every generated op is bound and computes what numpy computes; gradients match central
differences; autobatching does not change values or gradients."""
import os
import sys

import numpy as np
import pytest

import dynet as dy

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python", "tools"))
import gen_bindings  # noqa: E402

NUMPY_UNARY = {
    "tanh": np.tanh, "exp": np.exp, "log": np.log, "square": np.square, "sqrt": np.sqrt, "abs": np.abs,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "asinh": np.arcsinh, "atanh": np.arctanh, "cube": lambda x: x ** 3,
    "logistic": lambda x: 1 / (1 + np.exp(-x)), "rectify": lambda x: np.maximum(x, 0),
    "softsign": lambda x: x / (1 + np.abs(x)), "log_sigmoid": lambda x: -np.log1p(np.exp(-x)),
    "sum_elems": lambda x: np.sum(x, keepdims=True), "squared_norm": lambda x: np.sum(x * x, keepdims=True),
    "l2_norm": lambda x: np.sqrt(np.sum(x * x, keepdims=True)), "mean_elems": lambda x: np.mean(x, keepdims=True),
    "nobackprop": lambda x: x, "flip_gradient": lambda x: x,
}


def test_every_table_row_is_bound():
    for name, _, _, _ in gen_bindings.rows():
        assert callable(getattr(dy, name)), name


@pytest.mark.parametrize("name", sorted(NUMPY_UNARY))
def test_unary_values(name, rng):
    a = rng.uniform(0.1, 0.9, 6).astype(np.float32)
    out = getattr(dy, name)(dy.inputTensor(a)).npvalue()
    np.testing.assert_allclose(out, NUMPY_UNARY[name](a.astype(np.float64)), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("name", [n for n in gen_bindings.UNARY if n not in NUMPY_UNARY and n != "transpose_default"])
def test_other_unary_ops_run(name, rng):
    a = rng.uniform(1.1, 1.9, (3, 3)).astype(np.float32) + 3 * np.eye(3, dtype=np.float32)
    x = dy.inputTensor(a)
    if name in ("sparsemax",):
        x = dy.inputTensor(a[:, 0])
    if name == "acosh":
        x = dy.inputTensor(a + 1)
    assert np.all(np.isfinite(getattr(dy, name)(x).npvalue()))


@pytest.mark.parametrize("py,cpp", gen_bindings.BINARY)
def test_binary_ops_run(py, cpp, rng):
    a = rng.uniform(0.5, 1.5, 4).astype(np.float32)
    b = rng.uniform(0.5, 1.5, 4).astype(np.float32)
    x, y = dy.inputTensor(a), dy.inputTensor(b)
    if py == "trace_of_product":
        x, y = dy.inputTensor(a.reshape(2, 2)), dy.inputTensor(b.reshape(2, 2))
    if py == "filter1d_narrow":
        y = dy.inputTensor(b.reshape(4, 1))
    if py == "weight_norm":
        x, y = dy.inputTensor(a.reshape(2, 2)), dy.scalarInput(2.0)
    if py == "contract3d_1d":
        x, y = dy.inputTensor(np.ones((2, 2, 4), np.float32)), dy.inputTensor(a)
    if py == "colwise_add":
        x = dy.inputTensor(np.ones((4, 3), np.float32))
    if py == "binary_log_loss":  # probabilities
        a, b = a / 2, b / 2
        x, y = dy.inputTensor(a), dy.inputTensor(b)
    v = getattr(dy, py)(x, y).npvalue()
    assert np.all(np.isfinite(v))
    expected = {"cmult": a * b, "cdiv": a / b, "bmin": np.minimum(a, b), "bmax": np.maximum(a, b),
                "pow": a ** b, "dot_product": [np.dot(a, b)], "squared_distance": [np.sum((a - b) ** 2)],
                "l1_distance": [np.sum(np.abs(a - b))]}
    if py == "binary_log_loss":
        expected[py] = [-np.sum(b * np.log(a) + (1 - b) * np.log(1 - a))]
    if py in expected:
        np.testing.assert_allclose(v, expected[py], rtol=1e-5)


def test_list_ops(rng):
    a, b = rng.standard_normal(3).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    xs = [dy.inputTensor(a), dy.inputTensor(b)]
    np.testing.assert_allclose(dy.esum(xs).npvalue(), a + b, rtol=1e-6)
    np.testing.assert_allclose(dy.average(xs).npvalue(), (a + b) / 2, rtol=1e-6)
    np.testing.assert_allclose(dy.emax(xs).npvalue(), np.maximum(a, b))
    np.testing.assert_allclose(dy.logsumexp(xs).npvalue(), np.logaddexp(a, b), rtol=1e-5)
    np.testing.assert_allclose(dy.concatenate(xs).npvalue(), np.concatenate([a, b]))
    np.testing.assert_allclose(dy.concatenate_cols(xs).npvalue(), np.stack([a, b], 1))
    assert dy.concatenate_to_batch(xs).dim() == ((3,), 2)
    W = rng.standard_normal((3, 3)).astype(np.float32)
    np.testing.assert_allclose(dy.affine_transform([xs[0], dy.inputTensor(W), xs[1]]).npvalue(), a + W @ b,
                               rtol=1e-5)


def test_other_rows_run():
    x = dy.inputTensor(np.arange(1, 7, dtype=np.float32).reshape(2, 3))
    v = dy.inputVector([1.0, 2.0, 3.0])
    assert dy.pickneglogsoftmax(v, 2).scalar_value() == pytest.approx(-np.log(np.exp(3) / np.exp([1, 2, 3]).sum()),
                                                                      rel=1e-5)
    np.testing.assert_allclose(dy.softmax(v).npvalue(), np.exp([1, 2, 3]) / np.exp([1, 2, 3]).sum(), rtol=1e-5)
    np.testing.assert_allclose(dy.transpose(x).npvalue(), np.arange(1, 7).reshape(2, 3).T)
    np.testing.assert_allclose(dy.sum_dim(x, [1]).npvalue(), np.arange(1, 7).reshape(2, 3).sum(1))
    np.testing.assert_allclose(dy.reshape(x, (3, 2)).npvalue(),
                               np.arange(1, 7).reshape(2, 3).ravel(order="F").reshape((3, 2), order="F"))
    assert dy.zeros(3).vec_value() == [0, 0, 0]
    assert dy.ones((2,), batch_size=3).dim() == ((2,), 3)
    assert dy.constant(2, 7).vec_value() == [7, 7]
    assert dy.random_normal(4).dim() == ((4,), 1)
    assert dy.select_rows(x, [1]).dim() == ((1, 3), 1)
    assert dy.pick_range(v, 0, 2).vec_value() == [1, 2]
    assert dy.max_dim(v).scalar_value() == 3
    assert dy.hinge(v, 2).scalar_value() == pytest.approx(0.0)
    assert dy.dropout(v, 0.0).vec_value() == [1, 2, 3]
    assert dy.one_hot(3, 1).vec_value() == [0, 1, 0]
    # A list of indices makes a batch, element b one-hot at idx[b] (DyNet's one_hot).
    batch = dy.one_hot(4, [2, 0, 3])
    assert batch.dim() == ((4,), 3)
    np.testing.assert_array_equal(batch.npvalue(), np.eye(4)[:, [2, 0, 3]])
    assert dy.elu(dy.inputVector([-1.0]), 2.0).scalar_value() == pytest.approx(2 * (np.exp(-1) - 1), rel=1e-5)
    assert dy.log_softmax(v, [0, 2]).dim() == ((3,), 1)
    p = dy.constrained_softmax(dy.inputVector([0, 0, 0, 0]), dy.inputVector([0.1, 1, 1, 1]))
    np.testing.assert_allclose(p.npvalue(), [0.1, 0.3, 0.3, 0.3], rtol=1e-6)
    with pytest.raises(ValueError, match="constrained_softmax"):
        dy.constrained_softmax(v, dy.inputVector([1, 2]))


def test_ops_of_several_arguments_take_positions_and_keywords_alike():
    # Each is bound by METH_FASTCALL, with its row's signature for inspect (a def has none here).
    import ast
    import inspect
    for name, params, _, _ in gen_bindings.rows():
        args = gen_bindings.parameters(params)
        if len(args) > 1 or args[0][1] is not None:
            want = [(n, inspect.Parameter.empty if d is None else ast.literal_eval(d)) for n, d in args]
            got = [(p.name, p.default) for p in inspect.signature(getattr(dy, name)).parameters.values()]
            assert got == want, name
    v = dy.inputVector([1.0, 2.0, 3.0])
    for calls in ([lambda: dy.pick_range(v, 0, 2), lambda: dy.pick_range(v, 0, 2, 0),
                   lambda: dy.pick_range(v, 0, 2, d=0), lambda: dy.pick_range(x=v, s=0, e=2)],
                  [lambda: dy.concatenate([v, v]), lambda: dy.concatenate([v, v], 0), lambda: dy.concatenate(xs=[v, v])],
                  [lambda: dy.constant(2, 7), lambda: dy.constant(2, 7, 1), lambda: dy.constant(2, val=7, batch_size=1)],
                  [lambda: dy.cmult(v, v), lambda: dy.cmult(v, y=v), lambda: dy.cmult(y=v, x=v)]):
        values = [c().npvalue() for c in calls]
        for got in values[1:]:
            np.testing.assert_array_equal(got, values[0])
    for bad in (lambda: dy.cmult(v), lambda: dy.pick_range(v, 0, 1, 0, 9), lambda: dy.cmult(v, v, z=1)):
        with pytest.raises(TypeError):
            bad()
    with pytest.raises(TypeError, match="an Expression"):
        dy.cmult(v, 3)


def random_graph(rng, pc, W, b):
    """A small random graph over the parameters: its loss."""
    x = dy.inputTensor(rng.standard_normal(4).astype(np.float32))
    h = dy.tanh(W * x + b)
    for _ in range(3):
        op = rng.integers(3)
        h = dy.logistic(h) if op == 0 else dy.cmult(h, dy.tanh(W * h + b)) if op == 1 else h + dy.square(h)
    return dy.sum_elems(dy.square(h))


def test_gradients_match_central_differences(rng):
    pc = dy.ParameterCollection()
    W = pc.add_parameters((4, 4), init="normal")
    b = pc.add_parameters(4, init=0.1)
    seed = 7
    dy.renew_cg()
    loss = random_graph(np.random.default_rng(seed), pc, W, b)
    loss.backward()
    analytic = W.grad_as_array()
    w0 = W.as_array()
    eps = 1e-2
    for (i, j) in [(0, 0), (1, 2), (3, 1)]:
        vals = []
        for sign in (1, -1):
            w = w0.copy()
            w[i, j] += sign * eps
            W.set_value(w)
            dy.renew_cg()
            vals.append(random_graph(np.random.default_rng(seed), pc, W, b).scalar_value())
        W.set_value(w0)
        assert analytic[i, j] == pytest.approx((vals[0] - vals[1]) / (2 * eps), rel=2e-2, abs=1e-3)


@pytest.mark.parametrize("strategy", [1, 2])
def test_autobatching_gives_the_same_values_and_gradients(strategy, rng):
    # W from the test's own generator: the library's initializer draws from a stream that earlier
    # tests advance, and some draws make the loss a sum of 30 terms that nearly cancel.
    pc = dy.ParameterCollection()
    W = pc.add_parameters((5, 5), init=rng.standard_normal((5, 5)).astype(np.float32) * 0.5)
    inputs = [rng.standard_normal(5).astype(np.float32) for _ in range(6)]

    def run(autobatch):
        dy.renew_cg(autobatching=autobatch)
        losses = [dy.sum_elems(dy.tanh(W * dy.tanh(W * dy.inputTensor(a)))) for a in inputs]
        loss = dy.esum(losses)
        value = loss.scalar_value()
        loss.backward()
        g = W.grad_as_array().copy()
        W.scale_gradient(0.0)
        return value, g

    v0, g0 = run(0)
    v1, g1 = run(strategy)
    # The loss sums 30 tanh outputs of up to 1: their rounding, not the sum's size, bounds the difference.
    assert v1 == pytest.approx(v0, rel=1e-5, abs=30 * 1e-7)
    np.testing.assert_allclose(g1, g0, rtol=1e-4, atol=1e-6)
    dy.renew_cg(autobatching=0)
