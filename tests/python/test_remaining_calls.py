"""Calls the functions and methods of DyNet's list that the other tests do not reach, so that every
one runs at least once (what they compute is checked elsewhere or is plain bookkeeping)."""
import numpy as np
import pytest

import dynet as dy


def test_graph_functions(capfd):
    x = dy.inputVector([1.0, 2.0])
    dy.print_text_graphviz()
    assert "digraph" in capfd.readouterr().err
    g = dy.cg()
    assert g.version() == dy.cg_version()
    g.checkpoint()
    g.inc_forward(dy.tanh(x).vindex)
    g.forward(x.vindex)
    assert g.forward_vec(x.vindex) == [1, 2]
    assert g.inc_forward_scalar(dy.sum_elems(x).vindex) == 3
    g.backward(dy.sum_elems(x).vindex, full=True)
    g.revert()
    g.print_graphviz()
    m = g.inputMatrixLiteral([1, 2, 3, 4], (2, 2))
    np.testing.assert_array_equal(m.npvalue(), [[1, 3], [2, 4]])
    s = g.inputSparseTensor([0], [5.0], (2,))
    assert s.vec_value() == [5, 0]
    assert g.renew() is g
    x = dy.inputVector([1.0, 2.0])
    y = dy.log(x - 1)
    dy.sum_elems(y).backward(full=True)
    dy.dump_cg()
    err = capfd.readouterr().err
    assert "v1 = " in err and "value: -inf 0" in err and "gradient: inf 1" in err
    g.dump("", True, False, True)
    err = capfd.readouterr().err
    assert "value: NaN or Inf" in err and "gradient" not in err and "v0 = " not in err
    with pytest.raises(RuntimeError):
        dy.dump_cg("/nonexistent-directory/graph.txt")
    # The process's one device: the CPU ("CPU (guarded)" in the suite's guarded run), or GPU:0.
    (device,) = dy.available_devices()
    info = dy.get_device_info(device)
    assert info.name == device and dy.get_device_info("").name == device
    assert (info.id, info.dtype) == ((0, "GPU") if device.startswith("GPU") else (0, "CPU"))
    with pytest.raises(ValueError, match="no device 'GPU:7'"):
        dy.get_device_info("GPU:7")
    with pytest.raises(TypeError):
        dy.get_device_info(0)


def test_inputs_and_leaves():
    assert dy.vecInput(3).dim() == ((3,), 1)
    assert dy.matInput(2, 3).dim() == ((2, 3), 1)
    np.testing.assert_array_equal(dy.inputMatrix([1, 2, 3, 4, 5, 6], (2, 3)).npvalue(),
                                  np.array([1, 2, 3, 4, 5, 6]).reshape((2, 3), order="F"))
    # DyNet's flat values read column-major: numpy's row-major memory of a comes in as a.T.
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(dy.inputTensorTranspose(a.ravel(), (3, 2)).npvalue(), a.T)
    assert dy.inputTensorTranspose(range(6)).dim() == ((6,), 1)
    batched = dy.inputTensorTranspose(np.arange(6.), (3,), batch_size=2)
    assert batched.dim() == ((3,), 2)
    np.testing.assert_array_equal(batched.npvalue(), np.arange(6.).reshape((3, 2), order="F"))
    with pytest.raises(ValueError):
        dy.inputTensorTranspose(np.arange(6.), (4,))
    with pytest.raises(TypeError):
        dy.inputTensorTranspose(a)
    pc = dy.ParameterCollection()
    W, E = pc.add_parameters(2), pc.add_lookup_parameters((3, 2))
    w, e = dy.const_parameter(W, E)
    assert w.dim() == ((2,), 1) and e.dim() == ((2, 3), 1)
    assert dy.lookup(E, 1, update=False).dim() == ((2,), 1)
    assert E.batch([0, 2]).dim() == ((2,), 2)
    assert dy.lookup_batch(E, [0, 1], update=False).dim() == ((2,), 2)
    device = dy.available_devices()[0]
    assert dy.to_device(dy.inputVector([1]), device).vec_value() == [1]
    # Every device argument names a device of the process, or raises naming it.
    for make in (lambda d: dy.to_device(dy.inputVector([1]), d), lambda d: dy.inputVector([1], device=d),
                 lambda d: dy.inputTensor(np.ones(2), device=d), lambda d: dy.vecInput(2, device=d),
                 lambda d: dy.scalarInput(1, device=d), lambda d: dy.one_hot(3, 1, device=d),
                 lambda d: dy.sparse_inputTensor([0], [1], (2,), device=d),
                 lambda d: dy.cg().inputMatrixLiteral([1, 2], (2,), device=d),
                 lambda d: dy.ParameterCollection().add_parameters(2, device=d),
                 lambda d: dy.ParameterCollection().add_lookup_parameters((2, 2), device=d)):
        make(device)
        with pytest.raises(ValueError, match="no device 'GPU:7'"):
            make("GPU:7")
    assert dy.random_bernoulli(3, 0.5).dim() == ((3,), 1)
    assert dy.random_uniform(3, -1, 1).dim() == ((3,), 1)
    assert dy.random_gumbel(3).dim() == ((3,), 1)
    assert dy.zeroes(2).vec_value() == [0, 0]


def test_expression_methods():
    x = dy.inputVector([1.0, 2.0])
    y = dy.inputVector([3.0, 4.0])
    assert (x - y).vec_value() == [-2, -2] and (1 - x).vec_value() == [0, -1] and (x - 1).vec_value() == [0, 1]
    assert (x / y).vec_value() == pytest.approx([1 / 3, 0.5]) and (x / 2).vec_value() == [0.5, 1]
    assert (2 / x).vec_value() == [2, 1] and (-x).vec_value() == [-1, -2] and (2 * x).vec_value() == [2, 4]
    assert (1 + x).vec_value() == [2, 3]
    # ** as in DyNet's module after 2.1 (programs written for it use the operator)
    assert (x ** 2).vec_value() == [1, 4] and (2 ** x).vec_value() == [2, 4] and (x ** y).vec_value() == [1, 16]
    with pytest.raises(TypeError):
        pow(x, 2, 3)
    assert x.value(recalculate=True) == [1, 2]
    t = dy.softmax(x).tensor_value()
    assert t.categorical_sample_log_prob().as_numpy().shape == (1,)
    values, ids = t.topk()
    assert ids.as_numpy().tolist() == [1] and values.as_numpy().tolist() == [t.as_numpy().max()]
    l = dy.sum_elems(x)
    l.forward()
    l.backward()
    assert repr(x).startswith("expression")


def test_parameter_methods(tmp_path):
    pc = dy.ParameterCollection()
    W = pc.add_parameters((2, 2), init=np.array([[1, -5], [5, 2]], np.float32), name="W")
    E = pc.add_lookup_parameters((3, 2), init=1.0, name="E")
    W.clip_inplace(-2, 2)
    assert W.as_array().max() == 2 and W.as_array().min() == -2
    W.scale(0.5)
    W.scale_gradient(0.5)
    assert W.is_updated()
    W.set_updated(False)
    assert not W.is_updated()
    W.set_updated(True)
    assert W.dim() == ((2, 2), 1) and W.name() == "/W"
    assert W[0].dim() == ((2,), 1) and W.scalar_value if True else None
    assert W.vec_value() == W.npvalue().ravel(order="F").tolist()
    assert W.tensor_value().as_numpy().shape == (2, 2) and W.value().shape == (2, 2)
    W.forward()
    dy.sum_elems(W).backward()
    assert W.gradient().shape == (2, 2)
    with pytest.raises(ValueError, match="backward"):
        W.backward()  # a matrix: backward needs one value per batch element
    W.zero()
    assert not W.as_array().any()
    f = str(tmp_path / "w")
    W.save(f, "/W")
    W.populate(f, "/W")
    W.write_to_textfile(f, "/W")
    W.populate_from_textfile(f, "/W")
    E.scale(2.0)
    E.scale_gradient(1.0)
    assert E.is_updated()
    E.set_updated(True)
    assert E.name() == "/E" and E.dim() == ((2, 3), 1)  # its expression's (DyNet's), rows last
    # As DyNet's: the lookup dimension first, a row of the array a row of the table.
    rows = E.rows_as_array([0, 2, 1])
    assert rows.shape == (3, 2) and (rows[1] == E.row_as_array(2)).all()
    dy.sum_elems(E[1]).backward()
    assert E.row_grad_as_array(1).tolist() == [1, 1] and E.rows_grad_as_array([1, 2]).tolist() == [[1, 1], [0, 0]]
    assert E.grad_as_array().shape == (3, 2)
    assert E.vec_value() and E.npvalue().shape == (2, 3) and E.value().shape == (2, 3)
    assert E.tensor_value().as_numpy().shape == (2, 3)
    E.forward()
    with pytest.raises(ValueError, match="backward"):
        E.backward()  # a table: backward needs one value per batch element
    dy.sum_elems(E).backward()
    assert E.gradient().shape == (2, 3)
    with pytest.raises(Exception):
        E.scalar_value()
    e = str(tmp_path / "e")
    E.save(e, "/E")
    E.populate(e, "/E")
    E.write_to_textfile(e, "/E")
    E.populate_from_textfile(e, "/E")
    E.zero()
    assert not E.as_array().any()
    m = str(tmp_path / "m")
    pc.write_to_textfile(m)
    pc.populate_from_textfile(m)
    assert pc.load_lookup_param(m, "/E").shape() == (3, 2)
    assert [p.name() for p in pc.lookup_parameters_list()][0] == "/E"
    pc.set_weight_decay(0.0)
    assert len(list(dy.load_generator(*_saved(tmp_path, W)))) == 1


def _saved(tmp_path, W):
    base = str(tmp_path / "objs")
    dy.save(base, [W])
    return base, dy.ParameterCollection()


def test_builder_and_trainer_methods(capfd):
    pc = dy.ParameterCollection()
    for cls in (dy.SimpleRNNBuilder, dy.VanillaLSTMBuilder, dy.CompactVanillaLSTMBuilder):
        b = cls(1, 2, 3, pc)
        b.set_dropouts(0.1, 0.1)
        b.set_dropout_masks(1)
        b.set_dropout(0.0)
        b.disable_dropout()
        assert b.whoami() == cls.__name__
        assert cls.from_spec(b.spec(), dy.ParameterCollection()).spec() == b.spec()
        assert b.get_parameter_expressions()[0][0].dim()[1] == 1
        s = b.initial_state_from_raw_vectors([np.zeros(3)] * (2 if cls is not dy.SimpleRNNBuilder else 1))
        s2 = s.add_input(dy.inputVector([1, 2]))
        assert s2.set_h([dy.inputVector([0, 0, 0])]).output().dim() == ((3,), 1)
        assert len(s2.s()) >= 1 and s2.set_s(s2.s()).output().dim() == ((3,), 1)
    dy.CompactVanillaLSTMBuilder(1, 2, 3, pc).set_weightnoise(0.1)
    for cls in (dy.GRUBuilder, dy.CoupledLSTMBuilder, dy.FastLSTMBuilder):
        b = cls(1, 2, 3, pc)
        assert b.whoami() == cls.__name__ and b.get_parameters()
    sp = dy.SparseLSTMBuilder(1, 2, 3, pc, ln_lstm=True)
    sp.set_sparsity(0.25)
    sp.set_dropouts(0.1, 0.1)
    sp.set_dropout_masks(1)
    assert sp.whoami() == "SparseLSTMBuilder" and len(sp.get_parameter_expressions()[0]) == 3  # W_x, W_h, b
    assert dy.SparseLSTMBuilder.from_spec(sp.spec(), dy.ParameterCollection()).spec() == sp.spec()
    bi = dy.BiRNNBuilder(1, 2, 4, pc, dy.VanillaLSTMBuilder)
    bi.set_dropout(0.1)
    bi.disable_dropout()
    assert bi.whoami() == "BiRNNBuilder" and bi.param_collection().parameter_count() > 0
    assert dy.BiRNNBuilder.from_spec(bi.spec, dy.ParameterCollection()).transduce([dy.inputVector([1, 2])])
    st = dy.StackedRNNState([dy.SimpleRNNBuilder(1, 2, 2, pc).initial_state()])
    assert len(st.add_inputs([dy.inputVector([1, 2])])) == 1 and st.add_input(dy.inputVector([1, 2])).prev() is st
    assert st.h() and st.s()
    sm = dy.StandardSoftmaxBuilder(2, 3, pc)
    assert sm.neg_log_softmax_batch(dy.inputTensor([[1, 2], [3, 4]], batched=True), [0, 1]).dim() == ((1,), 2)
    assert sm.full_logits(dy.inputVector([1, 2])).dim() == ((3,), 1)
    assert sm.param_collection().parameter_count() == 9
    assert dy.StandardSoftmaxBuilder.from_spec(sm.spec(), dy.ParameterCollection())
    t = dy.SimpleSGDTrainer(pc)
    t.update_epoch()
    t.restart()
    t.restart(0.05)
    t.set_sparse_updates(False)
    assert t.flush_denormals is True
    t.flush_denormals = False
    assert t.flush_denormals is False
    t.status()
    assert "lr=" in capfd.readouterr().err
    t.set_clip_threshold(0)
    c = dy.CyclicalSGDTrainer(pc)
    c.update()
    assert dy.Trainer is type(t).__mro__[1]


def test_dynet_params_and_seed():
    p = dy.DynetParams()
    for setter, value in (("set_mem", 512), ("set_random_seed", 1), ("set_autobatch", 1), ("set_profiling", 0),
                          ("set_weight_decay", 0.0), ("set_shared_parameters", 0), ("set_requested_gpus", 0),
                          ("set_gpu_mask", [0])):
        getattr(p, setter)(value)
    p.set_cpu_mode()
    p.from_config({"mem": "256", "seed": 3})
    assert p.random_seed == 3
    with pytest.warns(RuntimeWarning):
        p.set_gpu_mask([])
        p.set_requested_gpus(0)
        p.init()
    with pytest.warns(RuntimeWarning):
        dy.init()
    dy.reset_random_seed(5)
    a = dy.random_normal(3).vec_value()
    dy.reset_random_seed(5)
    assert dy.random_normal(3).vec_value() == a
