"""The global graph, numpy in and out (column-major, batch last), and errors as exceptions."""
import numpy as np
import pytest

import dynet as dy


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4, 5)])
def test_input_tensor_round_trip(shape, rng):
    a = rng.standard_normal(shape).astype(np.float32)
    x = dy.inputTensor(a)
    assert x.dim() == (shape, 1)
    np.testing.assert_array_equal(x.npvalue(), a)


def test_batched_round_trip_puts_the_batch_last(rng):
    a = rng.standard_normal((3, 4, 6)).astype(np.float32)
    x = dy.inputTensor(a, batched=True)
    assert x.dim() == ((3, 4), 6)
    np.testing.assert_array_equal(x.npvalue(), a)
    # element 2 of the batch is the last axis' slice 2
    np.testing.assert_array_equal(dy.pick_batch_elem(x, 2).npvalue(), a[:, :, 2])


def test_column_major_matrix_product(rng):
    A = rng.standard_normal((3, 4)).astype(np.float32)
    v = rng.standard_normal(4).astype(np.float32)
    np.testing.assert_allclose((dy.inputTensor(A) * dy.inputTensor(v)).npvalue(), A @ v, rtol=1e-5)


def test_arrays_out_are_float64_as_dynet_s():
    pc = dy.ParameterCollection()
    W, E = pc.add_parameters((2, 3)), pc.add_lookup_parameters((4, 2))
    x = dy.inputTensor(np.ones((2, 2), np.float32))
    loss = dy.sum_elems(W * dy.inputVector([1, 2, 3]))
    loss.backward()
    for a in (x.npvalue(), x.value(), dy.inputTensor(np.ones((2, 3)), batched=True).npvalue(), W.as_array(),
              W.grad_as_array(), E.as_array(), E.row_as_array(1), x.tensor_value().as_numpy()):
        assert a.dtype == np.float64


def test_value_kinds():
    # DyNet's rule counts the batch out: a list below two dimensions (a batch's values one after
    # another, column-major), the value itself when there is one, an array from two dimensions on.
    assert isinstance(dy.scalarInput(2.5).value(), float)
    assert dy.inputVector([1, 2, 3]).value() == [1, 2, 3]
    assert dy.inputTensor(np.ones((2, 2))).value().shape == (2, 2)
    losses = dy.inputTensor(np.array([0.5, 1.5, 2.0]), batched=True)
    assert losses.dim() == ((1,), 3) and losses.value() == [0.5, 1.5, 2.0] and sum(losses.value()) == 4.0
    assert dy.inputTensor(np.array([[1, 2, 3], [4, 5, 6]]), batched=True).value() == [1, 4, 2, 5, 3, 6]
    one_by_one = dy.inputTensor(np.full((1, 1), 7.0))
    assert one_by_one.dim() == ((1, 1), 1) and one_by_one.value().shape == (1, 1)
    assert dy.inputTensor(np.ones((2, 2, 3)), batched=True).value().shape == (2, 2, 3)
    assert dy.esum([dy.scalarInput(1), dy.scalarInput(2)]).scalar_value() == 3


def test_sparse_input():
    x = dy.sparse_inputTensor([1, 4], [2.0, 3.0], (2, 3), defval=-1)
    flat = np.full(6, -1, np.float32)
    flat[[1, 4]] = [2, 3]
    expected = flat.reshape((2, 3), order="F")
    np.testing.assert_array_equal(x.npvalue(), expected)


def test_stale_expression_raises_runtime_error():
    e = dy.inputVector([1, 2])
    dy.renew_cg()
    with pytest.raises(RuntimeError, match="stale"):
        e.npvalue()
    with pytest.raises(RuntimeError, match="stale"):
        dy.tanh(e)
    with pytest.raises(RuntimeError):
        e.dim()


def test_checkpoint_and_revert():
    a = dy.inputVector([1, 2])
    dy.cg_checkpoint()
    b = dy.tanh(a)
    dy.cg_revert()
    assert a.vec_value() == [1, 2]
    with pytest.raises(RuntimeError):
        b.npvalue()
    # With no checkpoint left a revert does nothing, as DyNet's.
    c = dy.tanh(a)
    dy.cg_revert()
    assert c.vec_value() == pytest.approx(np.tanh([1, 2]).tolist())


def test_the_graph_object_is_the_module_s_own():
    with pytest.raises(RuntimeError, match="renew_cg"):
        dy.ComputationGraph()
    assert dy.cg() is dy.cg()
    assert dy.get_device_info("CPU").type == "CPU"


def test_bad_shapes_and_arguments_are_python_errors():
    with pytest.raises(ValueError, match="operator\\*"):
        dy.inputVector([1, 2]) * dy.inputVector([1, 2, 3])
    with pytest.raises(ValueError):
        dy.pick(dy.inputVector([1, 2]), 5)
    with pytest.raises(TypeError):
        dy.tanh("not an expression")
    with pytest.raises(TypeError):
        dy.esum(dy.inputVector([1]))
    for not_an_array in (None, (1.0, 2.0), 3.0, "1 2"):
        with pytest.raises(TypeError, match="inputTensor"):
            dy.inputTensor(not_an_array)
    with pytest.raises(OverflowError):
        dy.pick(dy.inputVector([1, 2]), -1)
    for float_index in (
            lambda: dy.lookup(dy.ParameterCollection().add_lookup_parameters((3, 2)), 1.7),
            lambda: dy.pick(dy.inputVector([1, 2]), 1.5),
            lambda: dy.select_rows(dy.inputVector([1, 2]), [0.5]),
            lambda: dy.zeros((2.5,)),
            lambda: dy.inputVector([1, 2])[0.5],
            lambda: dy.pick(dy.inputVector([1, 2]), "1")):
        with pytest.raises(TypeError, match="integer"):
            float_index()
    # what DyNet's module reads without loss still reads: numpy integers, floats that hold integers
    assert dy.pick(dy.inputVector([1, 2]), np.int64(1)).value() == 2
    assert dy.pick(dy.inputVector([1, 2]), 1.0).value() == 2
    assert dy.select_rows(dy.inputVector([1, 2]), [np.float64(1)]).value() == 2
    with pytest.raises(ValueError, match="gradient_mode"):
        dy.round(dy.inputVector([1.5]), "sideways")


def test_indexing_picks_and_slices():
    x = dy.inputTensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert x[1].vec_value() == [4, 5, 6, 7]
    np.testing.assert_array_equal(x[1:3].npvalue(), np.arange(12).reshape(3, 4)[1:3])
    assert x[2, 3].scalar_value() == 11
    with pytest.raises(IndexError):
        x[3]


def test_indexing_with_steps_and_the_batch_axis(rng):
    # DyNet's rules: any positive step, and the entry after the last dimension slices the batch
    a = rng.standard_normal((4, 5, 6)).astype(np.float32)
    x = dy.inputTensor(a)
    for index in [(slice(None), slice(None), slice(None, None, 3)), (slice(3, None), slice(1, 3), slice(1, None)),
                  (slice(None, None, 2), 1, slice(1, 6, 2)), (slice(None, None, 3),), (2, slice(None, None, 2))]:
        np.testing.assert_array_equal(x[index].npvalue(), a[index])
    xb = dy.inputTensor(a, batched=True)
    assert xb[:, :, :2].dim() == ((4, 5), 2)
    np.testing.assert_array_equal(xb[:1, :2, 1:6:2].npvalue(), a[:1, :2, 1:6:2])
    np.testing.assert_array_equal(xb[1, ::2, 3:].npvalue(), a[1, ::2, 3:])
    # gradients flow back through a strided selection into the right positions
    p = dy.ParameterCollection().add_parameters((4, 5), init=0.0)
    dy.sum_elems(p[::2, 1::3]).backward()
    expected = np.zeros((4, 5), np.float32)
    expected[::2, 1::3] = 1
    np.testing.assert_array_equal(p.grad_as_array(), expected)
    for bad in [(slice(None, None, -1),), (slice(3, 1),), (0, 0, 0, 0), (slice(None), slice(None), 0)]:
        with pytest.raises((IndexError, ValueError)):
            xb[bad]


def test_input_tensor_batches_as_dynet_does(rng):
    # a 1-D array with batched=True is a batch of scalars
    assert dy.inputTensor(np.arange(5.0), batched=True).dim() == ((1,), 5)
    # a list of arrays is a batch of them, the list's order the batch's
    arrays = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(4)]
    x = dy.inputTensor(arrays)
    assert x.dim() == ((2, 3), 4)
    for k, a in enumerate(arrays):
        np.testing.assert_array_equal(dy.pick_batch_elem(x, k).npvalue(), a)
    # a list of floats (or of lists) is one array
    assert dy.inputTensor([[1.0, 2.0], [3.0, 4.0]]).dim() == ((2, 2), 1)


def test_graph_by_index():
    x = dy.inputVector([1, 2, 3])
    s = dy.sum_elems(x)
    g = dy.cg()
    assert g.forward_scalar(s.vindex) == 6
    assert g.inc_forward_vec(x.vindex) == [1, 2, 3]
    with pytest.raises(IndexError):
        g.forward_scalar(10 ** 6)


def test_forward_values_npvalues():
    a, b = dy.scalarInput(1), dy.scalarInput(2)
    dy.forward([a, b])
    assert dy.values([a, b]) == [1, 2]
    assert [v.tolist() for v in dy.npvalues([a, b])] == [[1], [2]]


def test_tensor_value_argmax():
    t = dy.inputVector([1, 5, 3]).tensor_value()
    assert t.argmax().as_numpy().tolist() == [1]
    assert str(t.argmax()) == "<Dynet Tensor:int>" and str(t) == "<Dynet Tensor:float>"
    np.testing.assert_array_equal(t.as_numpy(), [1, 5, 3])
    with pytest.raises(TypeError):
        t.argmax().argmax()


def test_tensor_topk():
    # Two batch elements of a 3x2 matrix: columns (1,5,5) (7,0,2) | (0,0,-1) (3,9,4).
    x = dy.inputTensor(np.array([[[1, 0], [7, 3]], [[5, 0], [0, 9]], [[5, -1], [2, 4]]], np.float32), batched=True)
    t = x.tensor_value()
    values, ids = t.topk(0, 2)
    np.testing.assert_array_equal(ids.as_numpy(), np.array([[[1, 0], [0, 1]], [[2, 1], [2, 2]]]))
    np.testing.assert_array_equal(values.as_numpy(), np.array([[[5, 0], [7, 9]], [[5, 0], [2, 4]]]))
    values, ids = t.topk(1)
    np.testing.assert_array_equal(ids.as_numpy(), np.array([[[1, 1]], [[0, 1]], [[0, 1]]]))
    np.testing.assert_array_equal(values.as_numpy(), np.array([[[7, 3]], [[5, 9]], [[5, 4]]]))
    v = dy.inputVector([2, 8, 4]).tensor_value()
    assert v.topk(0, 3)[0].as_numpy().tolist() == [8, 4, 2]
    assert v.topk(1)[0].as_numpy().tolist() == [2, 8, 4]
    with pytest.raises(ValueError):
        v.topk(0, 4)


def test_reusable_graph_inputs_lookups_and_picks_set_in_place():
    # DyNet's tutorial (xor): one graph, its inputs set for every example, the loss recalculated
    pc = dy.ParameterCollection()
    W, E = pc.add_parameters((2, 3)), pc.add_lookup_parameters((4, 3))

    def build(xs, target, r, p, c):
        x, y, row = dy.inputVector(xs), dy.scalarInput(target), dy.lookup(E, r)
        h = dy.tanh(W * (x + row))
        picked, hinge = dy.pick(h, p), dy.hinge(h, c)
        return (x, y, row, picked, hinge), dy.squared_distance(picked, y) + hinge

    def run(loss, recalculate):
        value = loss.value(recalculate=recalculate)
        W.scale_gradient(0.0)
        E.scale_gradient(0.0)
        loss.backward()
        return value, W.grad_as_array().copy(), E.grad_as_array().copy()

    for example in [([1, 2, 3], 1.0, 2, 1, 1), ([0, -1, 0.5], -1.0, 3, 0, 0)]:
        dy.renew_cg()
        want = run(build(*example)[1], False)
        dy.renew_cg()
        (x, y, row, picked, hinge), loss = build([0, 0, 0], 0.0, 0, 0, 0)
        run(loss, False)
        x.set(example[0])
        y.set(example[1])
        row.set(example[2])
        picked.set_index(example[3])
        hinge.set_index(example[4])
        got = run(loss, True)
        assert got[0] == pytest.approx(want[0], rel=1e-6)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
        np.testing.assert_allclose(got[2], want[2], rtol=1e-6)


def test_batched_and_tensor_inputs_set_and_their_misuse():
    pc = dy.ParameterCollection()
    E = pc.add_lookup_parameters((4, 2))
    rows = dy.lookup_batch(E, [0, 1])
    rows.set([3, 2])
    np.testing.assert_array_equal(rows.npvalue(recalculate=True), np.stack([E.row_as_array(3), E.row_as_array(2)], -1))
    t = dy.inputTensor(np.zeros((2, 2)), reusable_expr=True)
    t.set(np.arange(4.0).reshape(2, 2))
    np.testing.assert_array_equal(t.npvalue(recalculate=True), np.arange(4.0).reshape(2, 2))
    picks = dy.pick_batch(dy.inputTensor(np.arange(6.0).reshape(3, 2), batched=True), [0, 0])
    picks.set_index([2, 1])
    assert picks.npvalue(recalculate=True).ravel().tolist() == [4.0, 3.0]
    with pytest.raises(ValueError, match="reusable"):
        dy.inputTensor(np.zeros(2)).set([1, 2])
    with pytest.raises(ValueError, match="set_input_values"):
        dy.vecInput(3).set([1, 2])
    with pytest.raises(ValueError, match="set_lookup_indices"):
        rows.set([0, 4])
    with pytest.raises(ValueError, match="set_pick_indices"):
        picks.set_index([0, 3])
    np.testing.assert_array_equal(rows.npvalue(recalculate=True)[:, 0], E.row_as_array(3))  # unchanged
    stale = dy.scalarInput(1)
    dy.renew_cg()
    with pytest.raises(RuntimeError):
        stale.set(2.0)


def test_float_lists_may_be_any_iterable_as_dynet_s_vector_float_arguments():
    assert dy.inputVector(float(i) for i in range(3)).value() == [0, 1, 2]
    assert dy.inputVector({4.0}).value() == 4.0
    np.testing.assert_array_equal(dy.inputMatrix((float(i) for i in range(4)), (2, 2)).npvalue(), [[0, 2], [1, 3]])
    v = dy.vecInput(2)
    v.set(x for x in (5.0, 6.0))
    assert v.value() == [5, 6]
    E = dy.ParameterCollection().add_lookup_parameters((3, 2))
    E.init_row(1, iter([7.0, 8.0]))
    assert E.row_as_array(1).tolist() == [7, 8]


@pytest.mark.parametrize("number", [np.float32(2), np.float64(2), np.int32(2), np.int64(2), 2, 2.0])
def test_numbers_of_any_kind_on_either_side_of_an_operator(number):
    x = dy.inputVector([1.0, 4.0])
    for result, expected in ((x + number, [3, 6]), (number + x, [3, 6]), (x - number, [-1, 2]), (number - x, [1, -2]),
                             (x * number, [2, 8]), (number * x, [2, 8]), (x / number, [0.5, 2]),
                             (number / x, [2, 0.5]), (x ** number, [1, 16])):
        assert isinstance(result, dy.Expression)
        np.testing.assert_allclose(result.npvalue(), expected)


def test_an_expression_prints_its_index_and_its_graph_s_version():
    dy.renew_cg()
    dy.renew_cg()
    x = dy.inputVector([1.0])
    y = x + 1
    assert str(y) == repr(y) == "expression %d/%d" % (y.vindex, dy.cg_version())
    dy.renew_cg()
    assert str(y) == "expression %d (stale)" % y.vindex
