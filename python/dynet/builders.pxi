# Recurrent builders, their states, BiRNNBuilder and the softmax builders: included by _dynet.pyx.


class _Spec(tuple):
    """A builder's spec: DyNet's builders give it as a property (`b.spec`), its API list as a
    method (`b.spec()`); this tuple serves both."""

    def __call__(self):
        return tuple(self)


cdef class _RNNBuilder:
    """A recurrent builder of the library. It is bound to the global graph when a state is first
    asked of it in that graph (initial_state); states of an older graph raise RuntimeError."""
    cdef unique_ptr[CRNNBuilder] c
    # Or a layer's builder of the library's BiRNNBuilder `owner` (2 * layer, + 1 backward), looked
    # up there at each use: the owner may be constructed anew.
    cdef object owner
    cdef unsigned layer_builder
    cdef object model
    cdef object spec_
    cdef unsigned version
    cdef bint bound
    cdef RNNState init_state_  # its sequence's start in the graph where it was made

    def _make(self, kind, tuple spec, ParameterCollection model not None, bint flag=False, float forget_bias=1.0):
        self.c.reset(make_rnn_builder(kind.encode(), spec[0], spec[1], spec[2], model.c, flag, forget_bias))
        self.model = model
        self.spec_ = _Spec(spec)

    cdef CRNNBuilder* _b(self) except NULL:
        if self.owner is not None:
            return _birnn_layer_builder(self.owner, self.layer_builder)
        if not self.c:
            raise RuntimeError("this builder was never constructed")
        return self.c.get()

    cdef _bind(self, bint update):
        if not self.bound or self.version != _cg_version:
            self._b().new_graph(_graph()[0], update)
            self.version = _cg_version
            self.bound = True

    def initial_state(self, vecs=None, update=True):
        """The state before the first input, made once a graph as DyNet's: later calls in the graph
        give it again, so states made from it stay valid. With `vecs` (DyNet's layout: for LSTMs the
        cells of every layer, then their outputs), the state after it that holds them (set_s)."""
        if self.init_state_ is None or self.init_state_.version != _cg_version:
            self._bind(update)
            self._b().start_new_sequence(vector[CExpression]())
            self.init_state_ = _state(self, -1, None, None)
        if vecs is not None:
            return self.init_state_.set_s(vecs)
        return self.init_state_

    def initial_state_from_raw_vectors(self, vecs=None, update=True):
        return self.initial_state(None if vecs is None else [inputTensor(v) for v in vecs], update)

    def set_dropout(self, f):
        self._b().set_dropout(<float>f)  # CoupledLSTMBuilder drops its gates' cells too, as DyNet's

    def disable_dropout(self):
        self._b().disable_dropout()

    def set_dropouts(self, d, d_r):
        self._b().set_dropout(d, d_r)

    def set_dropout_masks(self, batch_size=1):
        self._bind(True)
        self._b().set_dropout_masks(batch_size)

    def param_collection(self):
        return _wrap_collection(self._b().get_parameter_collection())

    @property
    def spec(self):
        return self.spec_

    @classmethod
    def from_spec(cls, spec, model):
        return cls(*(tuple(spec[:3]) + (model,) + tuple(spec[3:])))

    def get_parameters(self):
        """The parameters per layer as DyNet's builder lists them (its `params`)."""
        return [[_wrap_parameter(p) for p in layer] for layer in self._b().params]

    def get_parameter_expressions(self):
        """The expressions of get_parameters() that the builder's steps read in the current graph
        (DyNet's param_vars); ValueError before initial_state() in this graph."""
        cdef vector[vector[CExpression]] layers
        if self.bound and self.version == _cg_version:
            layers = self._b().parameter_expressions()
        if layers.empty() or layers[0].empty() or layers[0][0].is_stale():
            raise ValueError("Attempt to use a stale expression, renew CG and/or call initial_state before accessing "
                             "%s internal parameters expression" % type(self).__name__)
        return [[_wrap(e) for e in layer] for layer in layers]

    def whoami(self):
        return type(self).__name__


cdef class RNNState:
    """A position of a builder's sequence in the current graph (DyNet's RNNState)."""
    cdef _RNNBuilder builder
    cdef int index
    cdef unsigned version
    cdef object prev_
    cdef object out

    cdef CRNNBuilder* _b(self) except NULL:
        if self.version != _cg_version or self.builder.version != _cg_version:
            raise RuntimeError("this RNNState belongs to an older graph: renew_cg() was called after it was made; "
                               "ask the builder for a new initial_state()")
        return self.builder._b()

    def add_input(self, x):
        cdef CRNNBuilder* b = self._b()
        cdef CExpression h = b.add_input(self.index, _ex(x)[0])
        return _state(self.builder, b.state(), self, _wrap(h))

    def add_inputs(self, xs):
        states = []
        cur = self
        for x in xs:
            cur = cur.add_input(x)
            states.append(cur)
        return states

    def transduce(self, xs):
        cdef CRNNBuilder* b = self._b()
        cdef int index = self.index
        out = []
        for x in xs:
            out.append(_wrap(b.add_input(index, _ex(x)[0])))
            index = b.state()
        return out

    def set_h(self, es=None):
        cdef CRNNBuilder* b = self._b()
        cdef CExpression h = b.set_h(self.index, _exs(es or []))
        return _state(self.builder, b.state(), self, _wrap(h))

    def set_s(self, es=None):
        cdef CRNNBuilder* b = self._b()
        cdef CExpression h = b.set_s(self.index, _exs(es or []))
        return _state(self.builder, b.state(), self, _wrap(h))

    def output(self):
        self._b()
        return self.out

    def h(self):
        """The state's outputs, a tuple (one per layer), as DyNet's."""
        return tuple([_wrap(e) for e in self._b().get_h(self.index)])

    def s(self):
        """The state's memory cells and outputs, a tuple, as DyNet's."""
        return tuple([_wrap(e) for e in self._b().get_s(self.index)])

    def prev(self):
        return self.prev_

    def b(self):
        return self.builder


cdef RNNState _state(_RNNBuilder builder, int index, prev, out):
    cdef RNNState s = RNNState.__new__(RNNState)
    s.builder = builder
    s.index = index
    s.version = _cg_version
    s.prev_ = prev
    s.out = out
    return s


class SimpleRNNBuilder(_RNNBuilder):
    def __init__(self, layers, input_dim, hidden_dim, model):
        self._make("SimpleRNNBuilder", (layers, input_dim, hidden_dim), model)


class GRUBuilder(_RNNBuilder):
    def __init__(self, layers, input_dim, hidden_dim, model):
        self._make("GRUBuilder", (layers, input_dim, hidden_dim), model)


class CoupledLSTMBuilder(_RNNBuilder):
    def __init__(self, layers, input_dim, hidden_dim, model):
        self._make("CoupledLSTMBuilder", (layers, input_dim, hidden_dim), model)


class VanillaLSTMBuilder(_RNNBuilder):
    def __init__(self, layers, input_dim, hidden_dim, model, ln_lstm=False, forget_bias=1.0):
        self._make("VanillaLSTMBuilder", (layers, input_dim, hidden_dim, ln_lstm, forget_bias), model, ln_lstm,
                   forget_bias)


LSTMBuilder = VanillaLSTMBuilder


class CompactVanillaLSTMBuilder(_RNNBuilder):
    def __init__(self, layers, input_dim, hidden_dim, model):
        self._make("CompactVanillaLSTMBuilder", (layers, input_dim, hidden_dim), model)

    def set_weightnoise(self, std):
        (<CCompactVanillaLSTMBuilder*>(<_RNNBuilder>self)._b()).set_weightnoise(std)


class FastLSTMBuilder(_RNNBuilder):
    def __init__(self, layers, input_dim, hidden_dim, model):
        self._make("FastLSTMBuilder", (layers, input_dim, hidden_dim), model)


class SparseLSTMBuilder(_RNNBuilder):
    def __init__(self, layers, input_dim, hidden_dim, model, ln_lstm=False, forget_bias=1.0):
        self._make("SparseLSTMBuilder", (layers, input_dim, hidden_dim, ln_lstm, forget_bias), model, ln_lstm,
                   forget_bias)

    def set_sparsity(self, sparsity):
        """Prunes the fraction `sparsity` of the smallest weights of each W_x and W_h (0 to 1)."""
        (<CSparseLSTMBuilder*>(<_RNNBuilder>self)._b()).set_sparsity(sparsity)


class StackedRNNState(object):
    """States of several builders stacked: each one's output is the next one's input."""

    def __init__(self, states, prev=None):
        self.states = list(states)
        self._prev = prev

    def add_input(self, x):
        next_states = []
        for s in self.states:
            next_states.append(s.add_input(x))
            x = next_states[-1].output()
        return StackedRNNState(next_states, self)

    def output(self):
        return self.states[-1].output()

    def prev(self):
        return self._prev

    def h(self):
        return [s.h() for s in self.states]

    def s(self):
        return [s.s() for s in self.states]

    def add_inputs(self, xs):
        states = []
        cur = self
        for x in xs:
            cur = cur.add_input(x)
            states.append(cur)
        return states


class _OutputOnly(object):
    """A position of the library's BiRNNBuilder: its output only."""

    def __init__(self, out):
        self._out = out

    def output(self):
        return self._out


cdef _RNNBuilder _layer_builder(cls, owner, unsigned index, tuple spec):
    """A builder object of class cls over the builder `index` of the BiRNNBuilder owner."""
    cdef _RNNBuilder b = cls.__new__(cls)
    b.owner = owner
    b.layer_builder = index
    b.spec_ = _Spec(spec)
    return b


cdef class BiRNNBuilder:
    """Layers of a forward and a backward builder (made by rnn_builder_factory, each of
    hidden_dim / 2), each layer reading the concatenated outputs of the one below. With one of
    this module's builder classes as the factory it is the library's BiRNNBuilder (one call per
    transduce); with another factory, or builder_layers, the layers are composed here."""
    cdef unique_ptr[CBiRNNBuilder] c
    cdef public object spec
    cdef public object builder_layers
    cdef public object model  # DyNet's: the "birnn" subcollection holding the builders' parameters
    cdef unsigned version
    cdef bint bound

    def __init__(self, num_layers, input_dim, hidden_dim, model, rnn_builder_factory, builder_layers=None):
        self.spec = _Spec((num_layers, input_dim, hidden_dim, rnn_builder_factory, builder_layers))
        if builder_layers is not None:
            self.model = model.add_subcollection("birnn")  # as DyNet's, though the given layers hold theirs
            self.builder_layers = list(builder_layers)
            return
        if num_layers < 1 or hidden_dim % 2:
            raise ValueError("BiRNNBuilder: num_layers must be at least 1 and hidden_dim even; got %d, %d"
                             % (num_layers, hidden_dim))
        if isinstance(rnn_builder_factory, type) and issubclass(rnn_builder_factory, _RNNBuilder) \
                and rnn_builder_factory.__module__ == __name__:
            self.c.reset(make_birnn(rnn_builder_factory.__name__.encode(), num_layers, input_dim, hidden_dim,
                                    (<ParameterCollection?>model).c))
            self.model = _wrap_collection(self.c.get().get_parameter_collection())
            # DyNet's (forward, backward) builder of each layer, here the ones the library's runs.
            self.builder_layers = []
            for layer in range(num_layers):
                spec = (1, input_dim if layer == 0 else hidden_dim, hidden_dim // 2)
                self.builder_layers.append((_layer_builder(rnn_builder_factory, self, 2 * layer, spec),
                                            _layer_builder(rnn_builder_factory, self, 2 * layer + 1, spec)))
            return
        self.model = model.add_subcollection("birnn")
        self.builder_layers = []
        for layer in range(num_layers):
            in_dim = input_dim if layer == 0 else hidden_dim
            self.builder_layers.append((rnn_builder_factory(1, in_dim, hidden_dim // 2, self.model),
                                        rnn_builder_factory(1, in_dim, hidden_dim // 2, self.model)))

    cdef CBiRNNBuilder* _bound(self) except NULL:
        if not self.bound or self.version != _cg_version:
            self.c.get().new_graph(_graph()[0], True)
            self.version = _cg_version
            self.bound = True
        return self.c.get()

    @classmethod
    def from_spec(cls, spec, model):
        # DyNet's spec ends with builder_layers; files this module saved before it did not.
        return cls(spec[0], spec[1], spec[2], model, spec[3], spec[4] if len(spec) > 4 else None)

    def param_collection(self):
        return self.model

    def whoami(self):
        return "BiRNNBuilder"

    def set_dropout(self, p):
        for f, b in self.builder_layers:
            f.set_dropout(p)
            b.set_dropout(p)

    def disable_dropout(self):
        for f, b in self.builder_layers:
            f.disable_dropout()
            b.disable_dropout()

    def add_inputs(self, es):
        """For each input, the pair (forward state, backward state) of the top layer (with the
        library's BiRNNBuilder, states that give their output() only)."""
        cdef vector[pair[CExpression, CExpression]] pairs
        if self.c:
            pairs = self._bound().add_inputs(_exs(es))
            return [(_OutputOnly(_wrap(p.first)), _OutputOnly(_wrap(p.second))) for p in pairs]
        es = list(es)
        for f, b in self.builder_layers[:-1]:
            es = _bidirectional(f, b, es)
        f, b = self.builder_layers[-1]
        fs = f.initial_state().add_inputs(es)
        bs = b.initial_state().add_inputs(reversed(es))
        return list(zip(fs, reversed(bs)))

    def transduce(self, es):
        cdef vector[CExpression] out
        if self.c:
            out = self._bound().transduce(_exs(es))
            return [_wrap(e) for e in out]
        es = list(es)
        for f, b in self.builder_layers:
            es = _bidirectional(f, b, es)
        return es


cdef CRNNBuilder* _birnn_layer_builder(BiRNNBuilder owner, unsigned index) except NULL:
    if not owner.c or index // 2 >= owner.c.get().layers():
        raise RuntimeError("this layer's BiRNNBuilder no longer has it (it was constructed anew)")
    if index % 2:
        return &owner.c.get().backward_builder(index // 2)
    return &owner.c.get().forward_builder(index // 2)


cdef list _bidirectional(f, b, list es):
    fs = f.initial_state().transduce(es)
    bs = b.initial_state().transduce(reversed(es))
    return [concatenate([x, y]) for x, y in zip(fs, reversed(bs))]


cdef class SoftmaxBuilder:
    """An output layer of the library (StandardSoftmaxBuilder, ...), bound to the global graph on use."""
    cdef unique_ptr[CSoftmaxBuilder] c
    cdef object model
    cdef object spec_
    cdef unsigned version
    cdef bint bound
    cdef bint bound_update

    cdef CSoftmaxBuilder* _bind(self, bint update) except NULL:
        if not self.c:
            raise RuntimeError("this softmax builder was never constructed")
        if not self.bound or self.version != _cg_version or self.bound_update != update:
            self.c.get().new_graph(_graph()[0], update)
            self.version = _cg_version
            self.bound = True
            self.bound_update = update
        return self.c.get()

    def neg_log_softmax(self, x, c, update=True):
        return _wrap(self._bind(update).neg_log_softmax(_ex(x)[0], <unsigned>_index(c)))

    def neg_log_softmax_batch(self, x, c, update=True):
        return _wrap(self._bind(update).neg_log_softmax(_ex(x)[0], _uv(c)))

    def sample(self, x):
        return self._bind(True).sample(_ex(x)[0])

    def full_log_distribution(self, x, update=True):
        return _wrap(self._bind(update).full_log_distribution(_ex(x)[0]))

    def full_logits(self, x, update=True):
        return _wrap(self._bind(update).full_logits(_ex(x)[0]))

    def param_collection(self):
        return _wrap_collection(self.c.get().get_parameter_collection())

    @property
    def spec(self):
        return self.spec_

    @classmethod
    def from_spec(cls, spec, model):
        return cls(spec[0], spec[1], model, *spec[2:])


class StandardSoftmaxBuilder(SoftmaxBuilder):
    def __init__(self, rep_dim, num_labels, model, bias=True):
        (<SoftmaxBuilder>self).c.reset(make_standard_softmax(rep_dim, num_labels, (<ParameterCollection?>model).c, bias))
        (<SoftmaxBuilder>self).model = model
        (<SoftmaxBuilder>self).spec_ = _Spec((rep_dim, num_labels, bias))


class ClassFactoredSoftmaxBuilder(SoftmaxBuilder):
    """The library's class-factored softmax. word_dict maps words to ids 0..n-1; the words of the
    cluster file it lacks are added to it (ids n, n+1, ...), as the library adds them to its dictionary."""

    def __init__(self, rep_dim, cluster_file, word_dict, model, bias=True):
        words = sorted(word_dict, key=word_dict.get)
        if [word_dict[w] for w in words] != list(range(len(words))):
            raise ValueError("ClassFactoredSoftmaxBuilder: word_dict's ids must be 0..%d" % (len(words) - 1))
        cdef CClassFactored* b = make_class_factored(rep_dim, str(cluster_file).encode(), [w.encode() for w in words],
                                                     (<ParameterCollection?>model).c, bias)
        (<SoftmaxBuilder>self).c.reset(b)
        (<SoftmaxBuilder>self).model = model
        (<SoftmaxBuilder>self).spec_ = _Spec((rep_dim, cluster_file, dict(word_dict), bias))
        for i, w in enumerate(b.words()):
            word_dict.setdefault(w.decode(), i)

    @classmethod
    def from_spec(cls, spec, model):
        return cls(spec[0], spec[1], dict(spec[2]), model, spec[3])

    def class_log_distribution(self, x, update=True):
        return _wrap((<CClassFactored*>_softmax(self, update)).class_log_distribution(_ex(x)[0]))

    def class_logits(self, x, update=True):
        return _wrap((<CClassFactored*>_softmax(self, update)).class_logits(_ex(x)[0]))

    def subclass_log_distribution(self, x, classid, update=True):
        return _wrap((<CClassFactored*>_softmax(self, update)).subclass_log_distribution(_ex(x)[0], classid))

    def subclass_logits(self, x, classid, update=True):
        return _wrap((<CClassFactored*>_softmax(self, update)).subclass_logits(_ex(x)[0], classid))


cdef CSoftmaxBuilder* _softmax(b, bint update) except NULL:
    return (<SoftmaxBuilder?>b)._bind(update)
