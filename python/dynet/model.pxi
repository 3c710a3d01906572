# Initializers, parameters, collections, saving and loading, trainers: included by _dynet.pyx.

# ---------------------------------------------------------------------------------------------
# Initializers

class PyInitializer(object):
    """An initializer: the library's ParameterInit of `kind` with its settings."""

    def __init__(self, kind="glorot", a=1.0, b=0.0, values=None, path=""):
        self.kind, self.a, self.b, self.values, self.path = kind, a, b, values, path


class NormalInitializer(PyInitializer):
    def __init__(self, mean=0, var=1):
        PyInitializer.__init__(self, "normal", mean, var)


class UniformInitializer(PyInitializer):
    def __init__(self, scale):
        PyInitializer.__init__(self, "uniform", scale)


class ConstInitializer(PyInitializer):
    def __init__(self, c):
        PyInitializer.__init__(self, "const", c)


class IdentityInitializer(PyInitializer):
    def __init__(self):
        PyInitializer.__init__(self, "identity")


class GlorotInitializer(PyInitializer):
    def __init__(self, is_lookup=False, gain=1.0):
        PyInitializer.__init__(self, "glorot", gain, 1.0 if is_lookup else 0.0)


class SaxeInitializer(PyInitializer):
    def __init__(self, scale=1.0):
        PyInitializer.__init__(self, "saxe", scale)


class FromFileInitializer(PyInitializer):
    def __init__(self, fname):
        PyInitializer.__init__(self, "from_file", path=fname)


class NumpyInitializer(PyInitializer):
    """The array's values, read column-major (a lookup table's: one row per first index)."""

    def __init__(self, array):
        PyInitializer.__init__(self, "from_vector", values=np.asarray(array, dtype=np.float32))


cdef tuple _without_trailing_ones(tuple shape):
    while len(shape) > 1 and shape[-1] == 1:
        shape = shape[:-1]
    return shape


cdef _check_array_shape(str who, init, tuple shape):
    """An array `init` must have the shape of `dim` (trailing 1s aside: (3,) for (3, 1)): its values
    would otherwise fill another shape in column-major order, scrambled."""
    if isinstance(init, np.ndarray) and \
            _without_trailing_ones(tuple(init.shape)) != _without_trailing_ones(tuple(int(d) for d in shape)):
        raise ValueError("%s: init is an array of shape %s, dim is %s" % (who, tuple(init.shape), shape))


cdef object _initializer(init, tuple shape, float scale, float mean, float std):
    """DyNet's `init` argument as an initializer: None (Glorot), an initializer, a number (a
    constant), a numpy array, or a name: "normal" (mean, std), "uniform" (scale), "glorot", "he",
    "identity", "saxe", "const" (scale). As DyNet 2.1's module makes them, for parameters and lookup
    tables alike: Glorot over the whole shape (a table's too, where DyNet's C++ default spreads each
    row), and "he" of variance 1 / (2 shape[-1])."""
    if init is None:
        return GlorotInitializer()
    if isinstance(init, PyInitializer):
        return init
    if isinstance(init, (int, float, np.number)):
        return ConstInitializer(float(init))
    if isinstance(init, np.ndarray):
        return NumpyInitializer(init)
    if isinstance(init, str):
        if init == "normal":
            return NormalInitializer(mean, std * std)
        if init == "uniform":
            return UniformInitializer(scale)
        if init == "glorot":
            return GlorotInitializer()
        if init == "he":
            return NormalInitializer(0.0, 1.0 / (2 * shape[-1]))
        if init == "identity":
            return IdentityInitializer()
        if init == "saxe":
            return SaxeInitializer(scale)
        if init == "const":
            return ConstInitializer(scale)
        raise ValueError("unknown initializer name %r (normal, uniform, glorot, he, identity, saxe, const)" % (init,))
    raise TypeError("init must be an initializer, a number, a numpy array or a name, not %s" % type(init).__name__)


cdef object _floats(object values):
    """values as a float32 array: an array, a number or any iterable of numbers (a generator, a
    set), as DyNet's vector[float] arguments take them."""
    if not isinstance(values, (np.ndarray, list, tuple)) and hasattr(values, "__iter__"):
        values = list(values)
    return np.asarray(values, dtype=np.float32)


cdef vector[float] _column_major(object arr) except *:
    flat = np.ascontiguousarray(_floats(arr).ravel(order="F"))
    cdef const float[::1] view = flat
    cdef vector[float] v
    if view.shape[0]:
        v.assign(&view[0], &view[0] + view.shape[0])
    return v


cdef vector[float] _lookup_layout(object arr) except *:
    """A lookup table's values from an array of shape (rows, *row_shape): row after row."""
    a = np.asarray(arr, dtype=np.float32)
    return _column_major(np.moveaxis(a, 0, -1) if a.ndim > 1 else a)


cdef CParameterInit* _make_init(init) except NULL:
    values = _column_major(init.values) if init.values is not None and init.kind == "from_vector" else []
    return make_initializer(init.kind.encode(), init.a, init.b, values, str(init.path).encode())


# ---------------------------------------------------------------------------------------------
# Parameters

cdef class Parameters(Expression):
    """A parameter; as an argument of an op it is parameter(cg, p) of the current graph (one node
    per graph). Its storage lives as long as this object, whatever happens to its collection."""
    cdef CParameter p
    cdef CExpression const_c

    cdef const CExpression* _expr(self, bint update) except NULL:
        cdef CComputationGraph* g = _graph()
        if update:
            if self.c.is_stale():
                self.c = c_parameter(g[0], self.p)
            return &self.c
        if self.const_c.is_stale():
            self.const_c = c_const_parameter(g[0], self.p)
        return &self.const_c

    def expr(self, update=False):
        return _wrap(self._expr(update)[0])

    def _iexpr(self):
        return _wrap(self._expr(True)[0])

    def save(self, fname, key="", append=False):
        _save_one(fname, key, append, self)

    def populate(self, fname, key=""):
        cdef string k = key.encode()
        cdef unique_ptr[CFileLoader] loader = unique_ptr[CFileLoader](new_loader(fname.encode()))
        loader.get().populate(self.p, k)

    def write_to_textfile(self, fname, key="", append=False):
        self.save(fname, key, append)

    def populate_from_textfile(self, fname, key=""):
        self.populate(fname, key)

    def shape(self):
        return _dim_tuple(self.p.dim())

    def as_array(self):
        return _to_numpy(self.p.get_storage().values) * self.p.current_weight_decay()

    def grad_as_array(self):
        return _to_numpy(self.p.get_storage().g)

    def clip_inplace(self, left, right):
        self.p.clip_inplace(left, right)

    def set_value(self, arr):
        a = np.asarray(arr, dtype=np.float32)
        if a.shape != self.shape():  # DyNet's check: an array of the same size but another shape would scramble
            raise ValueError("set_value: an array of shape %s for a parameter of shape %s" % (a.shape, self.shape()))
        self.p.set_value(_column_major(a))

    def zero(self):
        self.p.zero()

    def scale(self, s):
        self.p.scale(s)

    def scale_gradient(self, s):
        self.p.scale_gradient(s)

    def is_updated(self):
        return self.p.is_updated()

    def set_updated(self, b):
        self.p.set_updated(b)

    def name(self):
        return self.p.get_fullname().decode()

    def dim(self):
        return (self.shape(), 1)

    def __getitem__(self, index):
        return _getitem(self, index)

    def __str__(self):
        return "Parameter %s" % self.name()

    def __repr__(self):
        return "Parameters %s %s" % (self.name(), self.shape())

    def scalar_value(self, recalculate=False): return self._iexpr().scalar_value(recalculate)
    def vec_value(self, recalculate=False): return self._iexpr().vec_value(recalculate)
    def npvalue(self, recalculate=False): return self._iexpr().npvalue(recalculate)
    def tensor_value(self, recalculate=False): return self._iexpr().tensor_value(recalculate)
    def value(self, recalculate=False): return self._iexpr().value(recalculate)
    def gradient(self): return self._iexpr().gradient()
    def forward(self, recalculate=False): return self._iexpr().forward(recalculate)
    def backward(self, full=False): return self._iexpr().backward(full)


cdef Parameters _wrap_parameter(const CParameter& p):
    cdef Parameters r = Parameters.__new__(Parameters)
    r.p = p
    return r


cdef class LookupParameters(Expression):
    """A lookup table (rows of one shape); as an argument of an op, the whole table as a parameter."""
    cdef CLookupParameter p
    cdef CExpression const_c

    cdef const CExpression* _expr(self, bint update) except NULL:
        cdef CComputationGraph* g = _graph()
        if update:
            if self.c.is_stale():
                self.c = c_parameter_lookup(g[0], self.p)
            return &self.c
        if self.const_c.is_stale():
            self.const_c = c_const_parameter_lookup(g[0], self.p)
        return &self.const_c

    def expr(self):
        """The table itself, as DyNet 2.1's: it acts as an expression of whichever graph uses it."""
        return self

    def _iexpr(self):
        return _wrap(self._expr(True)[0])

    def save(self, fname, key="", append=False):
        _save_one(fname, key, append, self)

    def populate(self, fname, key=""):
        cdef string k = key.encode()
        cdef unique_ptr[CFileLoader] loader = unique_ptr[CFileLoader](new_loader(fname.encode()))
        loader.get().populate(self.p, k)

    def write_to_textfile(self, fname, key="", append=False):
        self.save(fname, key, append)

    def populate_from_textfile(self, fname, key=""):
        self.populate(fname, key)

    def init_from_array(self, arr):
        """Rows 0 to len(arr) - 1 from arr (one row an entry), as DyNet's: fewer rows than the table
        leave the rest as they are (pretrained vectors for the first words)."""
        a = np.asarray(arr, dtype=np.float32)
        shape = self.shape()
        if a.ndim != len(shape) or a.shape[0] > shape[0] or a.shape[1:] != shape[1:]:
            raise ValueError("init_from_array: an array of shape %s for a table of shape %s (at most %d rows of %s)"
                             % (a.shape, shape, shape[0], shape[1:]))
        if a.shape[0] == 0:
            return
        cdef CTensor head = self.p.get_storage().all_values  # its first len(a) rows (rows last)
        head.d = _dim(tuple(shape[1:]) + (a.shape[0],))
        copy_from_host(head, _lookup_layout(a).data(), a.size)

    def shape(self):
        return (self.p.size(),) + _dim_tuple(self.p.dim())

    def __len__(self):
        return self.p.size()

    def __getitem__(self, i):
        return lookup(self, i)

    def batch(self, i):
        return lookup_batch(self, i)

    def init_row(self, i, row):
        self.p.initialize(_index(i), _column_major(row))

    def _table(self, bint grads):
        s = self.p.get_storage()
        a = _to_numpy(s.all_grads if grads else s.all_values)
        return np.moveaxis(a.reshape(_dim_tuple(self.p.dim()) + (self.p.size(),), order="F"), -1, 0)

    def _row(self, row, bint grads):
        if row < 0 or row >= self.p.size():
            raise IndexError("row %d of a table of %u rows" % (row, self.p.size()))
        return self._table(grads)[row]

    def row_as_array(self, row):
        return self._row(row, False) * self.p.current_weight_decay()

    def rows_as_array(self, rows):
        return np.stack([self.row_as_array(r) for r in rows])  # the lookup dimension first, as DyNet

    def as_array(self):
        return self._table(False) * self.p.current_weight_decay()

    def grad_as_array(self):
        return self._table(True)

    def row_grad_as_array(self, row):
        return self._row(row, True)

    def rows_grad_as_array(self, rows):
        return np.stack([self.row_grad_as_array(r) for r in rows])

    def scale(self, s):
        self.p.scale(s)

    def scale_gradient(self, s):
        self.p.scale_gradient(s)

    def zero(self):
        self.p.zero()

    def is_updated(self):
        return self.p.is_updated()

    def set_updated(self, b):
        self.p.set_updated(b)

    def name(self):
        return self.p.get_fullname().decode()

    def dim(self):
        # DyNet's is its expression's: the table with the rows last, as parameter(E) and npvalue()
        # have it, where shape() puts them first.
        rows, *row_shape = self.shape()
        return (tuple(row_shape) + (rows,), 1)

    def __str__(self):
        return "LookupParameter %s" % self.name()

    def __repr__(self):
        return "LookupParameters %s %s" % (self.name(), self.shape())

    def scalar_value(self, recalculate=False):
        raise Exception("scalar_value not applicable for LookupParameters.")
    def vec_value(self, recalculate=False): return self._iexpr().vec_value(recalculate)
    def npvalue(self, recalculate=False): return self._iexpr().npvalue(recalculate)
    def tensor_value(self, recalculate=False): return self._iexpr().tensor_value(recalculate)
    def value(self, recalculate=False): return self._iexpr().value(recalculate)
    def gradient(self): return self._iexpr().gradient()
    def forward(self, recalculate=False): return self._iexpr().forward(recalculate)
    def backward(self, full=False): return self._iexpr().backward(full)


cdef LookupParameters _wrap_lookup(const CLookupParameter& p):
    cdef LookupParameters r = LookupParameters.__new__(LookupParameters)
    r.p = p
    return r


cdef class ParameterCollection:
    """A model: a named tree of parameters (DyNet's ParameterCollection, also called Model)."""
    cdef CParameterCollection c

    cdef public object parent

    def __init__(self, parent=None):
        # DyNet's keeps the argument and makes a root of its own: a subcollection comes from
        # parent.add_subcollection().
        self.parent = parent

    def save(self, fname, name="", append=False):
        cdef string k = name.encode()
        cdef unique_ptr[CFileSaver] saver = unique_ptr[CFileSaver](new_saver(fname.encode(), append))
        saver.get().save(self.c, k)

    def populate(self, fname, key=""):
        cdef string k = key.encode()
        cdef unique_ptr[CFileLoader] loader = unique_ptr[CFileLoader](new_loader(fname.encode()))
        loader.get().populate(self.c, k)

    def load_param(self, fname, key):
        cdef unique_ptr[CFileLoader] loader = unique_ptr[CFileLoader](new_loader(fname.encode()))
        return _wrap_parameter(loader.get().load_param(self.c, key.encode()))

    def load_lookup_param(self, fname, key):
        cdef unique_ptr[CFileLoader] loader = unique_ptr[CFileLoader](new_loader(fname.encode()))
        return _wrap_lookup(loader.get().load_lookup_param(self.c, key.encode()))

    def write_to_textfile(self, fname, key="", append=False):
        self.save(fname, key, append)

    def populate_from_textfile(self, fname, key=""):
        self.populate(fname, key)

    def parameters_list(self):
        cdef CParameter p
        cdef vector[shared_ptr[CParameterStorage]] all = self.c.parameters_list()
        out = []
        for s in all:
            p.p = s
            out.append(_wrap_parameter(p))
        return out

    def lookup_parameters_list(self):
        cdef CLookupParameter p
        cdef vector[shared_ptr[CLookupParameterStorage]] all = self.c.lookup_parameters_list()
        out = []
        for s in all:
            p.p = s
            out.append(_wrap_lookup(p))
        return out

    def parameters_from_numpy(self, array, name="", device=""):
        a = np.asarray(array, dtype=np.float32)
        return self.add_parameters(a.shape, NumpyInitializer(a), name, device)

    def lookup_parameters_from_numpy(self, array, name="", device=""):
        a = np.asarray(array, dtype=np.float32)
        p = self.add_lookup_parameters(a.shape, ConstInitializer(0.0), name, device)
        p.init_from_array(a)
        return p

    def add_parameters(self, dim, init=None, name="", device="", scale=1.0, mean=0.0, std=1.0):
        _device(device)
        shape = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
        _check_array_shape("add_parameters", init, shape)
        i = _initializer(init, shape, scale, mean, std)
        cdef unique_ptr[CParameterInit] ci
        ci.reset(_make_init(i))
        return _wrap_parameter(self.c.add_parameters(CDim.of_parameter(_uv(shape)), deref(ci.get()), name.encode(), NULL))

    def add_lookup_parameters(self, dim, init=None, name="", device="", scale=1.0, mean=0.0, std=1.0):
        _device(device)
        shape = (dim, 1) if isinstance(dim, (int, np.integer)) else tuple(dim)  # DyNet's: n rows of one value
        if len(shape) < 2:
            raise ValueError("add_lookup_parameters: dim is (rows, *row_shape), got %s" % (dim,))
        _check_array_shape("add_lookup_parameters", init, shape)
        i = _initializer(init, shape, scale, mean, std)
        if i.kind == "from_vector":
            p = self.add_lookup_parameters(shape, ConstInitializer(0.0), name, device)
            p.init_from_array(i.values.reshape(shape))
            return p
        cdef unique_ptr[CParameterInit] ci
        ci.reset(_make_init(i))
        return _wrap_lookup(self.c.add_lookup_parameters(_index(shape[0]), CDim.of_parameter(_uv(shape[1:])),
                                                         deref(ci.get()), name.encode(), NULL))

    def add_subcollection(self, name=None):
        cdef ParameterCollection r = ParameterCollection.__new__(ParameterCollection)
        r.c = self.c.add_subcollection((name or "").encode())
        return r

    def get_weight_decay(self):
        return self.c.weight_decay_lambda()

    def set_weight_decay(self, lam):
        self.c.set_weight_decay_lambda(lam)

    def set_weight_decay_lambda(self, lam):
        self.c.set_weight_decay_lambda(lam)

    def name(self):
        return self.c.get_fullname().decode()

    def parameter_count(self):
        return self.c.parameter_count()


Model = ParameterCollection




cdef ParameterCollection _wrap_collection(const CParameterCollection& c):
    cdef ParameterCollection r = ParameterCollection.__new__(ParameterCollection)
    r.c = c
    return r


cdef _save_one(fname, key, append, p):
    cdef unique_ptr[CFileSaver] saver = unique_ptr[CFileSaver](new_saver(fname.encode(), append))
    _save_with(saver.get(), p, key.encode())


cdef _save_with(CFileSaver* saver, obj, string key):
    """Saves parameters, lookup parameters or a collection under `key` ("": their own name)."""
    if isinstance(obj, Parameters):
        saver.save((<Parameters>obj).p, key)
    elif isinstance(obj, LookupParameters):
        saver.save((<LookupParameters>obj).p, key)
    else:
        saver.save((<ParameterCollection>obj).c, key)


# ---------------------------------------------------------------------------------------------
# dy.save / dy.load, in DyNet's layout: basename.meta is a sequence of pickles, one per object
# (("Parameters", name), ("LookupParameters", name), or (class, spec, name of its collection)), and
# basename.data holds each object's parameters under their own names. Files DyNet wrote load here:
# the loaders read DyNet's text format, and classes DyNet's module pickled as _dynet.X are ours.

def save(basename, objects):
    """Saves parameters, lookup parameters, builders and any object with `spec` and
    `param_collection()` (DyNet's protocol), to be recreated in order by load()."""
    records = []
    for obj in objects:
        if isinstance(obj, Parameters):
            records.append((("Parameters", obj.name()), obj))
        elif isinstance(obj, LookupParameters):
            records.append((("LookupParameters", obj.name()), obj))
        elif isinstance(obj, ParameterCollection):
            raise TypeError("save: a ParameterCollection has no spec to recreate it from; save it with "
                            "model.save(fname) and load it with model.populate(fname)")
        elif hasattr(obj, "param_collection") and hasattr(obj, "spec"):
            collection = obj.param_collection()
            # A user object's spec is pickled as it is, as DyNet's; a builder's as a plain tuple.
            spec = tuple(obj.spec) if isinstance(obj.spec, _Spec) else obj.spec
            records.append(((type(obj), spec, collection.name()), collection))
        else:
            raise TypeError("save: %s has no spec and param_collection() to save" % type(obj).__name__)
    cdef unique_ptr[CFileSaver] saver
    tmp = basename + ".meta.tmp"
    # The .meta file is opened first, by Python as DyNet's is: a folder that does not exist or
    # cannot be written raises FileNotFoundError or PermissionError before anything is written.
    with open(tmp, "wb") as f:
        try:
            saver.reset(new_saver((basename + ".data").encode(), False))
            for _, obj in records:
                _save_with(saver.get(), obj, b"")
            saver.reset()
            for meta, _ in records:
                pickle.dump(meta, f)
        except BaseException:
            os.remove(tmp)
            raise
    os.replace(tmp, basename + ".meta")


def load(basename, params):
    return list(load_generator(basename, params))


class _MetaUnpickler(pickle.Unpickler):
    """Reads classes that DyNet's module (_dynet) pickled as this module's."""

    def find_class(self, module, name):
        if module in ("_dynet", "dynet"):
            module = __name__
        return super().find_class(module, name)


def load_generator(basename, ParameterCollection params not None):
    """Recreates the objects save() wrote, in `params`, one at a time."""
    if not os.path.exists(basename + ".meta"):
        # DyNet's opens it with Python's open(): FileNotFoundError, an OSError as programs catch it.
        raise FileNotFoundError(errno.ENOENT, "load: no such file (dy.save writes basename.meta and basename.data)",
                                basename + ".meta")
    cdef unique_ptr[CFileLoader] loader = unique_ptr[CFileLoader](new_loader((basename + ".data").encode()))
    cdef string key
    with open(basename + ".meta", "rb") as f:
        while True:
            # Each record is a pickle of its own (save() dumps them one by one, as DyNet's does), so
            # each is read with a fresh memo: one unpickler over all of them would resolve a
            # record's references into the memo of the records before it.
            try:
                record = _MetaUnpickler(f).load()
            except EOFError:
                return
            if not isinstance(record, tuple) or len(record) not in (2, 3):
                raise RuntimeError("load: '%s.meta' holds %r where dy.save writes (kind, name) or "
                                   "(class, spec, name)" % (basename, record))
            key = record[-1].encode()
            if record[0] == "Parameters":
                yield _wrap_parameter(loader.get().load_param(params.c, key))
            elif record[0] == "LookupParameters":
                yield _wrap_lookup(loader.get().load_lookup_param(params.c, key))
            else:
                obj = record[0].from_spec(record[1], params)
                loader.get().populate((<ParameterCollection?>obj.param_collection()).c, key)
                yield obj


# ---------------------------------------------------------------------------------------------
# Trainers

cdef class Trainer:
    """The library's trainer of a collection (which it keeps alive)."""
    cdef unique_ptr[CTrainer] c
    cdef object model

    def _make(self, kind, ParameterCollection m not None, *args):
        self.model = m
        self.c.reset(make_trainer(kind.encode(), m.c, [float(a) for a in args]))

    cdef CTrainer* _t(self) except NULL:
        if not self.c:
            raise RuntimeError("a Trainer base object has no update rule; make a SimpleSGDTrainer, AdamTrainer, ...")
        return self.c.get()

    def update(self):
        self._t().update()

    def update_subset(self, updated_params, updated_lookups):
        self._t().update(_uv(updated_params), _uv(updated_lookups))

    def update_epoch(self, r=1.0):
        self._t().update_epoch(r)

    def restart(self, learning_rate=None):
        if learning_rate is None:
            self._t().restart()
        else:
            self._t().restart(learning_rate)

    def status(self):
        self._t().status()

    def set_sparse_updates(self, su):
        self._t().sparse_updates_enabled = su

    @property
    def flush_denormals(self):
        """The C++ Trainer::flush_denormals (not in DyNet's module): on the CPU, update() flushes
        denormal floats to zero, True by default; False keeps IEEE's gradual underflow."""
        return self._t().flush_denormals

    @flush_denormals.setter
    def flush_denormals(self, flush):
        self._t().flush_denormals = flush

    def set_clip_threshold(self, thr):
        if thr <= 0:
            self._t().clipping_enabled = False
            self._t().clip_threshold = 0.0
        else:
            self._t().clipping_enabled = True
            self._t().clip_threshold = thr

    def get_clip_threshold(self):
        return self._t().clip_threshold

    @property
    def learning_rate(self):
        return self._t().learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        self.set_learning_rate(value)

    def set_learning_rate(self, value):
        if not (0 <= value < float("inf")):
            raise ValueError("learning_rate must be finite and >= 0, got %r" % (value,))
        self._t().learning_rate = value

    def whoami(self):
        return type(self).__name__


include "trainers.pxi"
