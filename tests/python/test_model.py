"""Parameters, initializers, builders, trainers, saving and loading, and lifetimes."""
import gc
import pickle
import sys
import types

import numpy as np
import pytest

import dynet as dy


def test_initializers_by_object_number_array_and_name():
    pc = dy.ParameterCollection()
    assert np.all(pc.add_parameters((2, 3), init=0.5).as_array() == 0.5)
    assert np.all(pc.add_parameters(4, init=dy.ConstInitializer(2)).as_array() == 2)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(pc.add_parameters((2, 3), init=a).as_array(), a)
    np.testing.assert_array_equal(pc.parameters_from_numpy(a).as_array(), a)
    np.testing.assert_array_equal(pc.add_parameters((3, 3), init="identity").as_array(), np.eye(3))
    for name in ("he", "glorot", "normal", "uniform", "saxe"):
        p = pc.add_parameters((4, 4), init=name)
        assert p.as_array().std() > 0, name
    with pytest.raises(ValueError, match="unknown initializer"):
        pc.add_parameters(3, init="bogus")
    with pytest.raises(TypeError):
        pc.add_parameters(3, init=object())


def test_default_initializers_and_trainer_settings_are_dynet_s_python_ones():
    # DyNet 2.1's module: Glorot over a table's whole shape {d, N} (its C++ default spreads each
    # row), "he" of variance 1 / (2 dim[-1]), an int dim of a table is (n, 1), and RMSProp's and
    # cyclical SGD's defaults are not its C++ ones.
    pc = dy.ParameterCollection()
    E = pc.add_lookup_parameters((10000, 100))
    bound = np.sqrt(6.0 / (10000 + 100))
    assert np.abs(E.as_array()).max() <= bound and np.abs(E.as_array()).max() > 0.9 * bound
    G = pc.add_lookup_parameters((10000, 100), init="glorot")
    assert np.abs(G.as_array()).max() <= bound
    H = pc.add_parameters((300, 200), init="he")
    assert abs(H.as_array().std() - np.sqrt(1.0 / 400)) < 0.002
    assert pc.add_lookup_parameters(5).shape() == (5, 1)
    r = dy.RMSPropTrainer(pc)
    assert abs(r.learning_rate - 0.001) < 1e-9
    w = pc.add_parameters(1, init=1.0)
    dy.renew_cg()
    (w * 1.0).backward()
    r.update_subset([1], [])
    # rho 0.9, eps 1e-8: G = 0.1, step 0.001 / sqrt(0.1 + 1e-8)
    assert abs(w.as_array()[0] - (1.0 - 0.001 / np.sqrt(0.1 + 1e-8))) < 1e-6
    c = dy.CyclicalSGDTrainer(pc, step_size=2)
    for _ in range(3):
        dy.renew_cg()
        (w * 1.0).backward()
        c.update()
    # gamma 1: after the third update, the next update's rate, the triangle's top (DyNet sets it
    # after each update)
    assert abs(c.learning_rate - 0.1) < 1e-6


def test_lookup_tables_of_zero_width_rows_exist_but_are_no_expression(tmp_path):
    # UUParser's default --pos-emb-size 0 makes add_lookup_parameters((n, 0)) and never looks it up.
    pc = dy.ParameterCollection()
    E = pc.add_lookup_parameters((7, 0))
    assert E.shape() == (7, 0) and E.as_array().shape == (7, 0)
    with pytest.raises(ValueError, match="no values"):
        dy.lookup(E, 1)
    with pytest.raises(ValueError, match="no values"):
        E.npvalue()
    pc.save(str(tmp_path / "m"))
    loaded = dy.ParameterCollection()
    loaded.add_lookup_parameters((7, 0))
    loaded.populate(str(tmp_path / "m"))
    with pytest.raises(ValueError):
        pc.add_lookup_parameters((0, 5))


def test_lookup_parameters_layout_and_rows():
    pc = dy.ParameterCollection()
    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    E = pc.lookup_parameters_from_numpy(table)
    # shape() puts the rows first; dim(), as DyNet's, is the table's expression's, rows last.
    assert E.shape() == (4, 3) and len(E) == 4
    assert E.dim() == ((3, 4), 1) and E.npvalue().shape == (3, 4)
    np.testing.assert_array_equal(E.as_array(), table)
    np.testing.assert_array_equal(E.row_as_array(2), table[2])
    np.testing.assert_array_equal(E[2].npvalue(), table[2])
    np.testing.assert_array_equal(dy.lookup_batch(E, [1, 3]).npvalue(), table[[1, 3]].T)
    E.init_row(0, [9, 9, 9])
    assert E.row_as_array(0).tolist() == [9, 9, 9]
    with pytest.raises(ValueError):
        dy.lookup(E, 4).npvalue()
    with pytest.raises(ValueError):
        E.init_from_array(np.zeros((5, 3)))  # more rows than the table


def test_parameters_act_as_expressions():
    pc = dy.ParameterCollection()
    W = pc.add_parameters((2, 2), init=np.eye(2, dtype=np.float32))
    assert isinstance(W, dy.Expression)
    x = dy.inputVector([1, 2])
    assert (W * x).vec_value() == [1, 2]
    np.testing.assert_array_equal(W.npvalue(), np.eye(2))
    assert W.expr(True).vindex == W.expr(True).vindex  # one node per graph
    # DyNet 2.1's dy.parameter gives the parameters themselves (a tuple of several), which act as
    # expressions of every later graph too.
    with pytest.warns(DeprecationWarning):
        assert dy.parameter(W) is W
    with pytest.warns(DeprecationWarning):
        assert dy.parameter(W, W) == (W, W)
    dy.renew_cg()
    assert (W * dy.inputVector([1, 2])).vec_value() == [1, 2]
    with pytest.raises(TypeError):
        dy.parameter(x)
    E = pc.add_lookup_parameters((3, 2))
    assert E.expr() is E and str(E) == "LookupParameter %s" % E.name() and str(W) == "Parameter %s" % W.name()


def test_gradient_reaches_the_parameter():
    pc = dy.ParameterCollection()
    W = pc.add_parameters((1, 2), init=np.array([[1.0, 2.0]], np.float32))
    loss = dy.sum_elems(W * dy.inputVector([3, 4]))
    loss.backward()
    np.testing.assert_array_equal(W.grad_as_array(), [[3, 4]])


TRAINERS = [dy.SimpleSGDTrainer, dy.CyclicalSGDTrainer, dy.MomentumSGDTrainer, dy.AdagradTrainer,
            dy.AdadeltaTrainer, dy.RMSPropTrainer, dy.AdamTrainer, dy.AmsgradTrainer]


@pytest.mark.parametrize("cls", TRAINERS)
def test_every_trainer_decreases_a_quadratic(cls):
    pc = dy.ParameterCollection()
    w = pc.add_parameters(3, init=np.array([1.0, -2.0, 3.0], np.float32))
    t = cls(pc)
    assert t.whoami() == cls.__name__

    def loss():
        dy.renew_cg()
        return dy.squared_norm(w)

    before = loss().scalar_value()
    for _ in range(20):
        l = loss()
        l.forward()
        l.backward()
        t.update()
    assert loss().scalar_value() < before


def test_sgd_step_is_the_formula():
    pc = dy.ParameterCollection()
    w0 = np.array([1.0, -2.0], np.float32)
    w = pc.add_parameters(2, init=w0)
    t = dy.SimpleSGDTrainer(pc, learning_rate=0.25)
    dy.squared_norm(w).backward()
    t.update()
    np.testing.assert_allclose(w.as_array(), w0 - 0.25 * 2 * w0, rtol=1e-6)
    t.learning_rate = 0.5
    assert t.learning_rate == 0.5
    with pytest.raises(ValueError):
        t.set_learning_rate(-1)
    t.set_clip_threshold(2.0)
    assert t.get_clip_threshold() == 2.0
    u = pc.add_parameters(2, init=w0)
    t.set_clip_threshold(0)
    before = w.as_array()
    (dy.squared_norm(w) + dy.squared_norm(u)).backward()
    t.update_subset([1], [])
    np.testing.assert_array_equal(w.as_array(), before)
    np.testing.assert_allclose(u.as_array(), w0 - 0.5 * 2 * w0, rtol=1e-6)
    with pytest.raises(ValueError):
        t.update_subset([2], [])


def test_a_learning_rate_of_zero_freezes_training_as_in_dynet():
    # Warm-up schedules start at 0, and programs freeze a model with it; DyNet takes it.
    pc = dy.ParameterCollection()
    w0 = np.array([1.0, -2.0], np.float32)
    w = pc.add_parameters(2, init=w0)
    for t in (dy.SimpleSGDTrainer(pc, 0.0), dy.AdamTrainer(pc, 0.0)):
        dy.renew_cg()
        dy.squared_norm(w).backward()
        t.update()
        np.testing.assert_array_equal(w.as_array(), w0)
    t.learning_rate = 0.25
    t.learning_rate = 0.0
    for bad in (-0.1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="finite and >= 0"):
            t.learning_rate = bad


def test_parameters_of_size_zero_exist_but_are_no_expression(tmp_path):
    # bist-parser's default --hidden2 0 makes add_parameters((0, hidden)) and add_parameters(0),
    # and never uses them: DyNet allows it.
    pc = dy.ParameterCollection()
    z, b = pc.add_parameters((0, 100)), pc.add_parameters(0)
    w = pc.add_parameters((2, 3))
    assert z.shape() == (0, 100) and b.shape() == (0,)
    assert z.as_array().shape == (0, 100) and z.grad_as_array().shape == (0, 100)
    with pytest.raises(ValueError, match=r"has dim \{0,100\}, no values"):
        z.npvalue()
    with pytest.raises(ValueError, match="no values"):
        w * b
    dy.renew_cg()
    dy.sum_elems(w).backward()
    dy.AdamTrainer(pc).update()
    pc.save(str(tmp_path / "m"))
    loaded = dy.ParameterCollection()
    z2, b2, w2 = loaded.add_parameters((0, 100)), loaded.add_parameters(0), loaded.add_parameters((2, 3))
    loaded.populate(str(tmp_path / "m"))
    np.testing.assert_array_equal(w2.as_array(), w.as_array())
    assert z2.shape() == (0, 100)
    with pytest.raises(ValueError):
        loaded.add_lookup_parameters((0, 10))


@pytest.mark.parametrize("cls", [dy.SimpleRNNBuilder, dy.GRUBuilder, dy.VanillaLSTMBuilder, dy.CoupledLSTMBuilder,
                                 dy.CompactVanillaLSTMBuilder, dy.LSTMBuilder, dy.SparseLSTMBuilder])
def test_builders_and_states(cls):
    pc = dy.ParameterCollection()
    b = cls(2, 3, 4, pc)
    xs = [dy.inputVector([1, 2, 3]), dy.inputVector([0, 1, 0])]
    s0 = b.initial_state()
    s1 = s0.add_input(xs[0])
    s2 = s1.add_input(xs[1])
    assert s2.output().dim() == ((4,), 1)
    assert s2.prev() is s1 and s2.b() is b
    assert len(s2.h()) == 2
    outs = b.initial_state().transduce(xs)
    np.testing.assert_allclose(outs[-1].npvalue(), s2.output().npvalue(), rtol=1e-6)
    assert [s.output().vindex for s in s0.add_inputs(xs)][-1] >= 0
    loss = dy.sum_elems(s2.output())
    loss.backward()
    assert any(np.any(p.grad_as_array() != 0) for layer in b.get_parameters() for p in layer)
    assert b.param_collection().parameter_count() > 0
    with pytest.raises(ValueError):
        s0.add_input(dy.inputVector([1, 2]))  # wrong input size


def test_sparse_lstm_is_the_vanilla_lstm_over_its_pruned_weights(tmp_path):
    pc = dy.ParameterCollection()
    sparse = dy.SparseLSTMBuilder(2, 3, 4, pc, forget_bias=0.5)
    vanilla = dy.VanillaLSTMBuilder(2, 3, 4, pc, forget_bias=0.5)
    sparse.set_sparsity(0.5)
    for s_layer, v_layer in zip(sparse.get_parameters(), vanilla.get_parameters()):
        assert len(s_layer) == 3
        for k, (sp, vp) in enumerate(zip(s_layer, v_layer)):
            w = sp.as_array()
            if k < 2:  # W_x and W_h: half of each, the smallest in magnitude, pruned
                order = np.argsort(np.abs(w), axis=None, kind="stable")
                w = w.copy()
                w.flat[order[:w.size // 2]] = 0
            vp.set_value(w)
    xs = [dy.inputVector([1, -2, 3]), dy.inputVector([0.5, 1, 0])]
    got = sparse.initial_state().transduce(xs)[-1].npvalue()
    np.testing.assert_array_equal(got, vanilla.initial_state().transduce(xs)[-1].npvalue())
    with pytest.raises(ValueError, match="set_sparsity"):
        sparse.set_sparsity(1.5)
    base = str(tmp_path / "sparse")
    dy.save(base, [sparse])
    (loaded,) = dy.load(base, dy.ParameterCollection())
    assert isinstance(loaded, dy.SparseLSTMBuilder)
    np.testing.assert_array_equal(loaded.initial_state().transduce(xs)[-1].npvalue(), got)


def test_state_h_and_s_are_tuples_as_dynet_s():
    pc = dy.ParameterCollection()
    state = dy.VanillaLSTMBuilder(2, 2, 3, pc).initial_state().add_input(dy.inputVector([1, 2]))
    assert isinstance(state.h(), tuple) and len(state.h()) == 2
    assert isinstance(state.s(), tuple) and len(state.s()) == 4  # cells, then outputs


def test_cyclical_rate_is_set_after_each_update_as_dynet_s():
    pc = dy.ParameterCollection()
    w = pc.add_parameters(1, init=0.0)
    c = dy.CyclicalSGDTrainer(pc, learning_rate_min=0.1, learning_rate_max=0.5, step_size=4)

    def step():
        before = w.as_array()[0]
        dy.renew_cg()
        (w * 1.0).backward()
        c.update()
        return before - w.as_array()[0]

    assert step() == pytest.approx(0.1) and c.learning_rate == pytest.approx(0.1)
    assert step() == pytest.approx(0.1) and c.learning_rate == pytest.approx(0.2)
    c.learning_rate = 0.05  # the next update's
    assert step() == pytest.approx(0.05) and c.learning_rate == pytest.approx(0.3)
    c.restart()  # keeps the cycle
    assert c.learning_rate == pytest.approx(0.3) and step() == pytest.approx(0.3)
    c.restart(0.07)
    assert step() == pytest.approx(0.07)


def test_collection_arguments_as_dynet_s():
    assert dy.ParameterCollection(dy.ParameterCollection()).parameters_list() == []
    pc = dy.ParameterCollection()
    with pytest.raises(ValueError, match=r"shape \(2, 3\), dim is \(3, 2\)"):
        pc.add_parameters((3, 2), init=np.arange(6.0).reshape(2, 3))
    with pytest.raises(ValueError, match="add_lookup_parameters"):
        pc.add_lookup_parameters((3, 2), init=np.arange(6.0).reshape(2, 3))
    assert pc.add_lookup_parameters(3, init=np.arange(3.0)).as_array().ravel().tolist() == [0, 1, 2]
    params = dy.DynetParams()
    with pytest.raises(ValueError, match="0 and 1"):
        params.set_gpu_mask([2])


def test_initial_state_is_made_once_a_graph_as_dynet_s():
    # A second initial_state() in a graph gives the first one again: states of an earlier sentence
    # stay what they were, where restarting the sequence made them read the later one.
    pc = dy.ParameterCollection()
    b = dy.SimpleRNNBuilder(1, 1, 2, pc)
    s1 = b.initial_state().add_input(dy.inputVector([1.0]))
    first = s1.output().npvalue()
    assert b.initial_state() is b.initial_state()
    b.initial_state().add_input(dy.inputVector([-5.0]))
    np.testing.assert_array_equal(s1.h()[-1].npvalue(), first)
    continued = s1.add_input(dy.inputVector([0.0])).output().npvalue()
    dy.renew_cg()
    fresh = b.initial_state().add_input(dy.inputVector([1.0])).add_input(dy.inputVector([0.0]))
    np.testing.assert_allclose(continued, fresh.output().npvalue(), rtol=1e-6)


def test_initial_state_of_given_vectors_is_the_state_after_it():
    # DyNet's initial_state(vecs): initial_state().set_s(vecs), whose output is the last layer's h.
    pc = dy.ParameterCollection()
    b = dy.VanillaLSTMBuilder(1, 3, 4, pc)
    c0, h0 = dy.inputVector([0.1] * 4), dy.inputVector([0.2] * 4)
    s = b.initial_state([c0, h0])
    assert s.prev() is b.initial_state()
    np.testing.assert_allclose(s.output().npvalue(), [0.2] * 4)
    x = dy.inputVector([1, 2, 3])
    after = s.add_input(x).output().npvalue()
    dy.renew_cg()
    c0, h0, x = dy.inputVector([0.1] * 4), dy.inputVector([0.2] * 4), dy.inputVector([1, 2, 3])
    np.testing.assert_allclose(b.initial_state().set_s([c0, h0]).add_input(x).output().npvalue(), after, rtol=1e-6)


def test_init_from_array_may_fill_the_first_rows():
    pc = dy.ParameterCollection()
    E = pc.add_lookup_parameters((4, 3), init=0.0)
    E.init_from_array(np.ones((2, 3)))
    np.testing.assert_array_equal(E.as_array(), [[1, 1, 1], [1, 1, 1], [0, 0, 0], [0, 0, 0]])
    for bad in (np.ones((5, 3)), np.ones((2, 4)), np.ones(3)):
        with pytest.raises(ValueError, match="init_from_array"):
            E.init_from_array(bad)
    np.testing.assert_array_equal(E.as_array()[2:], 0)


def test_a_state_of_an_older_graph_raises():
    pc = dy.ParameterCollection()
    b = dy.VanillaLSTMBuilder(1, 2, 3, pc)
    s = b.initial_state()
    dy.renew_cg()
    with pytest.raises(RuntimeError, match="older graph"):
        s.add_input(dy.inputVector([1, 2]))


def test_parameter_expressions_are_the_builder_s_own_nodes():
    pc = dy.ParameterCollection()
    b = dy.VanillaLSTMBuilder(2, 2, 3, pc, ln_lstm=True)
    dy.renew_cg()
    with pytest.raises(ValueError, match="initial_state"):
        b.get_parameter_expressions()  # DyNet's rule: none before initial_state in this graph
    s = b.initial_state()
    before = dy.scalarInput(0).vindex
    exprs = b.get_parameter_expressions()
    assert dy.scalarInput(0).vindex == before + 1  # no parameter added to the graph again
    # DyNet's lists: W_x, W_h, b per layer (the layer-norm parameters are not among them)
    assert [len(layer) for layer in exprs] == [3, 3]
    for p_layer, e_layer in zip(b.get_parameters(), exprs):
        for p, e in zip(p_layer, e_layer):
            np.testing.assert_array_equal(e.npvalue(), p.as_array())
    # the builder's steps read those very nodes: a gradient through them is the parameter's
    loss = dy.sum_elems(s.add_input(dy.inputVector([1, 2])).output())
    loss.backward()
    np.testing.assert_array_equal(exprs[0][0].gradient(), b.get_parameters()[0][0].grad_as_array())
    dy.renew_cg()
    with pytest.raises(ValueError, match="stale"):
        b.get_parameter_expressions()


def test_stacked_and_bidirectional():
    pc = dy.ParameterCollection()
    xs = [dy.inputVector([1, 2]), dy.inputVector([3, 4]), dy.inputVector([5, 6])]
    bi = dy.BiRNNBuilder(2, 2, 6, pc, dy.VanillaLSTMBuilder)
    outs = bi.transduce(xs)
    assert len(outs) == 3 and outs[0].dim() == ((6,), 1)
    pairs = bi.add_inputs(xs)
    assert len(pairs) == 3
    a, c = dy.SimpleRNNBuilder(1, 2, 3, pc), dy.SimpleRNNBuilder(1, 3, 3, pc)
    st = dy.StackedRNNState([a.initial_state(), c.initial_state()])
    assert st.add_input(xs[0]).output().dim() == ((3,), 1)


def test_a_birnn_s_parameters_and_model_attribute_are_dynet_s():
    # DyNet's BiRNNBuilder.__init__: model = self.model = model.add_subcollection("birnn"), whatever
    # the factory, so a second one is /birnn_1/; the builders' parameters lie in it.
    pc = dy.ParameterCollection()
    library = dy.BiRNNBuilder(1, 2, 4, pc, dy.VanillaLSTMBuilder)
    composed = dy.BiRNNBuilder(1, 2, 4, pc, lambda *a: dy.VanillaLSTMBuilder(*a))
    given = dy.BiRNNBuilder(1, 2, 4, pc, None, builder_layers=composed.builder_layers)
    assert [b.model.name() for b in (library, composed, given)] == ["/birnn/", "/birnn_1/", "/birnn_2/"]
    assert library.param_collection().name() == "/birnn/"
    names = [p.name() for p in pc.parameters_list()]
    assert names[:3] == ["/birnn/vanilla-lstm-builder/_0", "/birnn/vanilla-lstm-builder/_1",
                         "/birnn/vanilla-lstm-builder/_2"]
    assert names[3] == "/birnn/vanilla-lstm-builder_1/_0" and names[6] == "/birnn_1/vanilla-lstm-builder/_0"
    assert [p.name() for p in library.model.parameters_list()] == names[:6]


def test_a_birnn_saved_as_dynet_s_module_saves_it_loads_into_the_library_s(tmp_path):
    # DyNet's dy.save empties the data file, then appends each object's collection; a BiRNNBuilder's
    # lies under /birnn/ and its .meta record holds the class, the spec and that name.
    pc = dy.ParameterCollection()
    composed = dy.BiRNNBuilder(1, 2, 4, pc, lambda *a: dy.VanillaLSTMBuilder(*a))
    base = str(tmp_path / "bi")
    open(base + ".data", "w").close()
    composed.param_collection().save(base + ".data", append=True)
    with open(base + ".meta", "wb") as fh:
        pickle.dump((dy.BiRNNBuilder, (1, 2, 4, dy.VanillaLSTMBuilder), "/birnn/"), fh)
    xs = [dy.inputVector([1, 2]), dy.inputVector([3, 4])]
    want = [o.npvalue() for o in composed.transduce(xs)]
    (loaded,) = dy.load(base, dy.ParameterCollection())
    dy.renew_cg()
    xs = [dy.inputVector([1, 2]), dy.inputVector([3, 4])]
    np.testing.assert_array_equal([o.npvalue() for o in loaded.transduce(xs)], want)


def test_softmax_builder():
    pc = dy.ParameterCollection()
    sm = dy.StandardSoftmaxBuilder(3, 5, pc)
    h = dy.inputVector([1, 2, 3])
    nll = sm.neg_log_softmax(h, 2)
    dist = sm.full_log_distribution(h).npvalue()
    assert nll.scalar_value() == pytest.approx(-dist[2], rel=1e-5)
    assert 0 <= sm.sample(h) < 5


def test_collection_save_populate_and_load_param(tmp_path):
    pc = dy.ParameterCollection()
    W = pc.add_parameters((2, 3), name="W")
    E = pc.add_lookup_parameters((4, 2), name="E")
    f = str(tmp_path / "model")
    pc.save(f)
    pc2 = dy.ParameterCollection()
    W2 = pc2.add_parameters((2, 3), name="W")
    E2 = pc2.add_lookup_parameters((4, 2), name="E")
    pc2.populate(f)
    np.testing.assert_array_equal(W2.as_array(), W.as_array())
    np.testing.assert_array_equal(E2.as_array(), E.as_array())
    W3 = dy.ParameterCollection().load_param(f, "/W")
    np.testing.assert_array_equal(W3.as_array(), W.as_array())
    with pytest.raises(RuntimeError):
        pc2.populate(str(tmp_path / "missing"))
    bad = dy.ParameterCollection()
    bad.add_parameters((3, 3), name="W")
    bad.add_lookup_parameters((4, 2), name="E")
    with pytest.raises(RuntimeError):
        bad.populate(f)


def test_dy_save_and_load_round_trip(tmp_path):
    pc = dy.ParameterCollection()
    W = pc.add_parameters((2, 3))
    E = pc.add_lookup_parameters((5, 2))
    lstm = dy.VanillaLSTMBuilder(1, 2, 3, pc)
    base = str(tmp_path / "objs")
    dy.save(base, [W, E, lstm])
    pc2 = dy.ParameterCollection()
    W2, E2, lstm2 = dy.load(base, pc2)
    np.testing.assert_array_equal(W2.as_array(), W.as_array())
    np.testing.assert_array_equal(E2.as_array(), E.as_array())
    assert isinstance(lstm2, dy.VanillaLSTMBuilder)
    x = dy.inputVector([1, 2])
    np.testing.assert_allclose(lstm2.initial_state().add_input(x).output().npvalue(),
                               lstm.initial_state().add_input(x).output().npvalue(), rtol=1e-6)
    with pytest.raises(FileNotFoundError):
        dy.load(str(tmp_path / "nothing"), pc2)


class _Stack(object):
    """A user object of dy.save's protocol: a spec, param_collection() and from_spec."""

    def __init__(self, pc, activations):
        self.pc = pc.add_subcollection("stack")
        self.spec = activations
        self.W = self.pc.add_parameters((2, 2))

    def param_collection(self):
        return self.pc

    @staticmethod
    def from_spec(spec, pc):
        return _Stack(pc, spec)


class _Scaled:
    """A user object of DyNet's saving protocol whose spec is a dict."""

    def __init__(self, model, spec):
        self.spec = spec
        self.pc = model.add_subcollection("scaled")
        self.w = self.pc.add_parameters(spec["n"])

    def param_collection(self):
        return self.pc

    @staticmethod
    def from_spec(spec, model):
        return _Scaled(model, spec)


def test_dy_save_pickles_a_user_spec_as_it_is_and_files_errors_are_os_errors(tmp_path):
    pc = dy.ParameterCollection()
    obj = _Scaled(pc, {"n": 3, "name": "x"})
    base = str(tmp_path / "m")
    dy.save(base, [obj])
    (loaded,) = dy.load(base, dy.ParameterCollection())
    assert loaded.spec == {"n": 3, "name": "x"}
    np.testing.assert_array_equal(loaded.w.as_array(), obj.w.as_array())
    # As DyNet's open() of basename.meta: an OSError, which programs catch to train from scratch.
    with pytest.raises(FileNotFoundError):
        dy.load(str(tmp_path / "none"), dy.ParameterCollection())
    with pytest.raises(FileNotFoundError):
        dy.save(str(tmp_path / "no_folder" / "m"), [obj])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.data", "m.meta"]


def test_dy_load_reads_each_record_as_a_pickle_of_its_own(tmp_path):
    # dy.save pickles the records one by one, each with a memo of its own: a spec repeating a
    # string refers back to it, and read through the memo of the records before, it read another.
    pc = dy.ParameterCollection()
    W = pc.add_parameters((3, 4), name="W")
    stack = _Stack(pc, ("relu", "relu"))
    birnn = dy.BiRNNBuilder(1, 4, 6, pc, dy.LSTMBuilder)
    base = str(tmp_path / "objs")
    dy.save(base, [W, stack, birnn])
    W2, stack2, birnn2 = dy.load(base, dy.ParameterCollection())
    assert stack2.spec == ("relu", "relu")
    np.testing.assert_array_equal(stack2.W.as_array(), stack.W.as_array())
    np.testing.assert_array_equal(W2.as_array(), W.as_array())
    assert isinstance(birnn2, dy.BiRNNBuilder)


def _dynet_record(kind, key, dims, values):
    """One record as DyNet 2.1's TextFileSaver writes it; values column-major."""
    line = "".join("%+.8e " % v for v in values) + "\n"
    return "#%s# %s {%s} %d ZERO_GRAD\n%s" % (kind, key, ",".join(map(str, dims)), len(line), line)


def test_dy_load_reads_the_files_dynet_wrote(tmp_path, monkeypatch):
    # DyNet's extension module is _dynet: its .meta pickles a builder's class as _dynet.<name>.
    dynet_module = types.ModuleType("_dynet")
    dynet_module.VanillaLSTMBuilder = type("VanillaLSTMBuilder", (), {"__module__": "_dynet"})
    monkeypatch.setitem(sys.modules, "_dynet", dynet_module)
    base = str(tmp_path / "from_dynet")
    with open(base + ".meta", "wb") as f:
        pickle.dump(("Parameters", "/W"), f)
        pickle.dump(("LookupParameters", "/E"), f)
        pickle.dump((dynet_module.VanillaLSTMBuilder, (1, 2, 3, False, 1.0), "/vanilla-lstm-builder/"), f)
    monkeypatch.delitem(sys.modules, "_dynet")
    rng = np.random.RandomState(5)
    w, e = rng.randn(2, 3), rng.randn(4, 2)
    lstm = [rng.randn(12, 2), rng.randn(12, 3), rng.randn(12)]
    with open(base + ".data", "w") as f:
        f.write(_dynet_record("Parameter", "/W", (2, 3), w.flatten(order="F")))
        f.write(_dynet_record("LookupParameter", "/E", (2, 4), e.flatten()))
        for k, a in enumerate(lstm):
            f.write(_dynet_record("Parameter", "/vanilla-lstm-builder/_%d" % k, a.shape, a.flatten(order="F")))
    W, E, builder = dy.load(base, dy.ParameterCollection())
    np.testing.assert_allclose(W.as_array(), w, rtol=1e-7)
    np.testing.assert_allclose(E.as_array(), e, rtol=1e-7)
    assert isinstance(builder, dy.VanillaLSTMBuilder) and builder.spec == (1, 2, 3, False, 1.0)
    for p, a in zip(builder.get_parameters()[0], lstm):
        np.testing.assert_allclose(p.as_array(), a, rtol=1e-7)


def test_dy_save_writes_dynet_s_layout(tmp_path):
    pc = dy.ParameterCollection()
    W = pc.add_parameters((2, 3), name="W")
    gru = dy.GRUBuilder(1, 2, 3, pc)
    base = str(tmp_path / "objs")
    dy.save(base, [W, gru])
    with open(base + ".meta", "rb") as f:
        assert pickle.load(f) == ("Parameters", "/W")
        assert pickle.load(f) == (dy.GRUBuilder, (1, 2, 3), "/gru-builder/")
        with pytest.raises(EOFError):
            pickle.load(f)


def test_parameters_outlive_their_collection():
    pc = dy.ParameterCollection()
    W = pc.add_parameters((2, 2), init=np.eye(2, dtype=np.float32))
    E = pc.add_lookup_parameters((3, 2), init=1.0)
    t = dy.SimpleSGDTrainer(pc)
    del pc
    gc.collect()
    np.testing.assert_array_equal(W.as_array(), np.eye(2))
    assert (W * dy.inputVector([1, 2])).vec_value() == [1, 2]
    assert E[1].vec_value() == [1, 1]
    dy.sum_elems(W * dy.inputVector([1, 2])).backward()
    t.update()  # the trainer keeps the collection alive
    del t
    gc.collect()
    assert W.as_array().shape == (2, 2)


def test_builders_outlive_their_collection_object():
    pc = dy.ParameterCollection()
    b = dy.VanillaLSTMBuilder(1, 2, 2, pc)
    del pc
    gc.collect()
    assert b.initial_state().add_input(dy.inputVector([1, 2])).output().dim() == ((2,), 1)


def test_subcollections_and_names():
    pc = dy.ParameterCollection()
    sub = pc.add_subcollection("enc")
    p = sub.add_parameters(3, name="W")
    assert p.name() == "/enc/W" and sub.name() == "/enc/"
    assert len(pc.parameters_list()) == 1 and pc.parameter_count() == 3
    pc.set_weight_decay_lambda(0.0)
    assert pc.get_weight_decay() == 0.0


def test_the_library_s_birnn_lists_the_builders_it_runs_in_builder_layers():
    # As DyNet's: a (forward, backward) pair of the factory's class a layer, each of hidden_dim / 2,
    # and they are the builders transduce runs.
    pc = dy.ParameterCollection()
    bi = dy.BiRNNBuilder(2, 3, 8, pc, dy.VanillaLSTMBuilder)
    assert len(bi.builder_layers) == 2
    for layer, (f, b) in enumerate(bi.builder_layers):
        assert type(f) is dy.VanillaLSTMBuilder and type(b) is dy.VanillaLSTMBuilder
        assert f.spec == (1, 3 if layer == 0 else 8, 4)
        assert [p.shape() for p in f.get_parameters()[0]] == [(16, 3 if layer == 0 else 8), (16, 4), (16,)]
    values = [[1, 2, 3], [-1, 0, 2], [0.5, 0.5, -1]]
    xs = [dy.inputVector(v) for v in values]
    want = [o.npvalue() for o in bi.transduce(xs)]
    es = xs
    for f, b in bi.builder_layers:
        fs = f.initial_state().transduce(es)
        bs = b.initial_state().transduce(list(reversed(es)))
        es = [dy.concatenate([x, y]) for x, y in zip(fs, reversed(bs))]
    np.testing.assert_allclose([e.npvalue() for e in es], want, rtol=1e-6)
    # Dropout set on a layer's builder is the one transduce runs with; the builders outlive
    # the BiRNN object that owns them.
    f0 = bi.builder_layers[0][0]
    f0.set_dropout(0.5)
    dy.renew_cg()
    assert not np.allclose(bi.transduce([dy.inputVector(v) for v in values])[0].npvalue(), want[0])
    f0.disable_dropout()
    dy.renew_cg()
    np.testing.assert_allclose(bi.transduce([dy.inputVector(v) for v in values])[0].npvalue(), want[0], rtol=1e-6)
    # Constructed anew with one layer: the second layer's builders are gone, and say so.
    f1 = bi.builder_layers[1][0]
    bi.__init__(1, 3, 8, pc, dy.VanillaLSTMBuilder)
    with pytest.raises(RuntimeError, match="constructed anew"):
        f1.initial_state()
    del bi
    gc.collect()
    dy.renew_cg()
    assert f0.initial_state().add_input(dy.inputVector([1, 2, 3])).output().dim() == ((4,), 1)


def test_birnn_composed_from_a_user_factory_and_saved(tmp_path):
    pc = dy.ParameterCollection()
    xs = [dy.inputVector([1, 2]), dy.inputVector([3, 4])]
    composed = dy.BiRNNBuilder(1, 2, 4, pc, lambda layers, i, h, m: dy.GRUBuilder(layers, i, h, m))
    assert [o.dim() for o in composed.transduce(xs)] == [((4,), 1)] * 2
    assert composed.add_inputs(xs)[0][0].h()  # composed layers give full states
    library = dy.BiRNNBuilder(1, 2, 4, pc, dy.VanillaLSTMBuilder)
    before = library.transduce(xs)[1].npvalue()
    dy.save(str(tmp_path / "bi"), [library])
    (loaded,) = dy.load(str(tmp_path / "bi"), dy.ParameterCollection())
    np.testing.assert_allclose(loaded.transduce(xs)[1].npvalue(), before, rtol=1e-6)


def test_class_factored_softmax(tmp_path):
    clusters = tmp_path / "clusters"
    clusters.write_text("c0 the\nc0 a\nc1 dog\nc1 cat\nc1 bird\nc2 ran\n")
    words = {"the": 0, "a": 1}
    pc = dy.ParameterCollection()
    sm = dy.ClassFactoredSoftmaxBuilder(4, str(clusters), words, pc)
    assert words["bird"] == 4 and len(words) == 6  # the file's new words join the dictionary
    h = dy.inputVector([0.1, -0.2, 0.3, 0.4])
    logp = sm.full_log_distribution(h).npvalue()
    assert np.exp(logp).sum() == pytest.approx(1.0, rel=1e-4)
    assert sm.neg_log_softmax(h, words["cat"]).scalar_value() == pytest.approx(-logp[words["cat"]], rel=1e-4)
    assert sm.class_log_distribution(h).dim() == ((3,), 1)
    assert sm.subclass_logits(h, 1).dim() == ((3,), 1)
    with pytest.raises(ValueError):
        sm.subclass_log_distribution(h, 7)
    with pytest.raises(RuntimeError):
        dy.ClassFactoredSoftmaxBuilder(4, str(tmp_path / "missing"), {}, pc)
    with pytest.raises(ValueError, match="ids"):
        dy.ClassFactoredSoftmaxBuilder(4, str(clusters), {"the": 3}, pc)
