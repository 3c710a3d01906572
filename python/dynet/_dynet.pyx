# distutils: language = c++
# cython: language_level=3, embedsignature=True
"""DyNet's Python module (`import dynet as dy`) over dybatch's C++ library.

A thin layer: every op, builder and trainer is the library's; this file converts arguments
(numbers, lists, numpy arrays) and results, keeps the one global graph DyNet's Python API has, and
keeps the objects that C++ handles need alive. C++ exceptions arrive as Python ones (`except +`)."""
cimport cython
from cython.operator cimport dereference as deref
from cpython.number cimport PyNumber_Index
from cpython.ref cimport PyObject
from libc.string cimport memcpy
from libc.stdint cimport uint64_t
from libcpp cimport bool
from libcpp.memory cimport unique_ptr, shared_ptr
from libcpp.string cimport string
from libcpp.vector cimport vector

from dynet._dynet_cpp cimport *

import atexit
import errno
import os
import pickle
import sys
import warnings

import numpy as np

cdef extern from "<dybatch.h>" namespace "dynet":
    cdef enum GradientMode:
        zero_gradient
        straight_through_gradient
    CExpression make_expression "dynet::Expression"(CComputationGraph* g, unsigned index)
    CExpression c_parameter "dynet::parameter"(CComputationGraph& g, const CParameter& p) except +
    CExpression c_parameter_lookup "dynet::parameter"(CComputationGraph& g, const CLookupParameter& p) except +
    CExpression c_const_parameter "dynet::const_parameter"(CComputationGraph& g, const CParameter& p) except +
    CExpression c_const_parameter_lookup "dynet::const_parameter"(CComputationGraph& g, const CLookupParameter& p) except +
    CExpression c_lookup "dynet::lookup"(CComputationGraph& g, const CLookupParameter& p, unsigned index) except +
    void c_set_input_values "dynet::set_input_values"(const CExpression& x, const vector[float]& values) except +
    void c_set_lookup_indices "dynet::set_lookup_indices"(const CExpression& x, const vector[unsigned]& v) except +
    void c_set_pick_indices "dynet::set_pick_indices"(const CExpression& x, const vector[unsigned]& v) except +
    void c_set_hinge_indices "dynet::set_hinge_indices"(const CExpression& x, const vector[unsigned]& v) except +
    CExpression c_const_lookup "dynet::const_lookup"(CComputationGraph& g, const CLookupParameter& p, unsigned index) except +
    CExpression c_lookup_batch "dynet::lookup"(CComputationGraph& g, const CLookupParameter& p,
                                               const vector[unsigned]& indices) except +
    CExpression c_const_lookup_batch "dynet::const_lookup"(CComputationGraph& g, const CLookupParameter& p,
                                                           const vector[unsigned]& indices) except +
    CExpression c_add "dynet::operator+"(const CExpression& a, const CExpression& b) except +
    CExpression c_sub "dynet::operator-"(const CExpression& a, const CExpression& b) except +
    CExpression c_mul "dynet::operator*"(const CExpression& a, const CExpression& b) except +
    CExpression c_neg "dynet::operator-"(const CExpression& a) except +
    CExpression c_add_scalar "dynet::operator+"(const CExpression& a, float c) except +
    CExpression c_rsub_scalar "dynet::operator-"(float c, const CExpression& a) except +
    CExpression c_mul_scalar "dynet::operator*"(const CExpression& a, float c) except +
    CExpression c_div_scalar "dynet::operator/"(const CExpression& a, float c) except +
    CExpression c_cdiv "dynet::cdiv"(const CExpression& a, const CExpression& b) except +
    CExpression c_max "dynet::max"(const CExpression& a, const CExpression& b) except +
    CExpression c_constant "dynet::constant"(CComputationGraph& g, const CDim& d, float value) except +
    CExpression c_pick "dynet::pick"(const CExpression& x, unsigned v, unsigned d) except +
    CExpression c_pick_range "dynet::pick_range"(const CExpression& x, unsigned s, unsigned e, unsigned d) except +
    CExpression c_strided_select "dynet::strided_select"(const CExpression& x, const vector[int]& strides,
                                                         const vector[int]& range_from, const vector[int]& range_to) except +
    CExpression c_log_softmax "dynet::log_softmax"(const CExpression& x) except +
    CExpression c_log_softmax_restricted "dynet::log_softmax"(const CExpression& x, const vector[unsigned]& r) except +

cdef extern from "glue.h" namespace "dynet_python":
    void reset_random_seed_c "dynet_python::reset_random_seed"(unsigned seed)


# ---------------------------------------------------------------------------------------------
# Initialization

cdef bint _initialized = False
cdef CComputationGraph* _cg = NULL
cdef unsigned _cg_version = 0


class DynetParams(object):
    """The settings `init_from_params` starts the library with (DyNet's DynetParams)."""

    def __init__(self):
        self.mem = ""
        self.random_seed = 0
        self.autobatch = 0
        self.profiling = 0
        self.weight_decay = 0.0
        self.shared_parameters = 0
        self.requested_gpus = 0
        self.gpu_mask = None
        self.cpu_mode = False

    def from_config(self, conf):
        """Takes the settings of a dynet_config.get() dictionary."""
        self.set_mem(conf.get("mem", "512"))
        self.set_random_seed(conf.get("seed", conf.get("random_seed", 0)))
        self.set_autobatch(conf.get("autobatch", 0))
        self.set_profiling(conf.get("profiling", 0))
        self.set_weight_decay(conf.get("weight_decay", 0))
        self.set_shared_parameters(conf.get("shared_params", conf.get("shared_parameters", 0)))
        self.set_requested_gpus(conf.get("requested_gpus", 0))
        if conf.get("gpu_mask"):
            self.set_gpu_mask(conf["gpu_mask"])
        # Not DyNet's: the test suite's run on the CPU device that closes its memory to the host
        # (dynet_core/device/guarded_device.h), where the binding's host access to device memory
        # crashes as it would misread on a GPU.
        self._guard_device_memory = True if conf.get("_guard_device_memory") else False

    def from_args(self, shared_parameters=None):
        """Reads the --dynet-* flags of sys.argv, which stay there, as DyNet's from_args leaves them
        (programs that parse their own arguments declare the flags, and some read --dynet-seed)."""
        # DyNet's switch for its GPU module, read by `import dynet`, is no flag of the library's.
        cdef vector[string] args = [a.encode() for a in sys.argv if a not in ("--dynet-gpu", "--dynet_gpu")]
        cdef vector[char*] ptrs
        cdef int i
        for i in range(args.size()):
            ptrs.push_back(&args[i][0])
        cdef int argc = ptrs.size()
        ptrs.push_back(NULL)  # argv[argc], as C's main receives it (the library writes it when it removes flags)
        cdef char** argv = ptrs.data()
        cdef CDynetParams p = extract_dynet_params(argc, argv, True if shared_parameters else False)
        self.mem = p.mem_descriptor.decode()
        self.random_seed = p.random_seed
        self.autobatch = p.autobatch
        self.profiling = p.profiling
        self.weight_decay = p.weight_decay
        self.shared_parameters = int(p.shared_parameters)
        self._vertex = p.vertex
        self._threads = p.threads
        self._debug_memory = p.debug_memory
        self._gpu_ids = list(p.gpu_ids)  # --dynet-devices / --dynet-gpus

    def init(self):
        init_from_params(self)

    def set_mem(self, mem): self.mem = str(mem)
    def set_random_seed(self, random_seed): self.random_seed = int(random_seed)
    def set_autobatch(self, autobatch): self.autobatch = int(autobatch)
    def set_profiling(self, profiling): self.profiling = int(profiling)
    def set_weight_decay(self, weight_decay): self.weight_decay = float(weight_decay)
    def set_shared_parameters(self, shared_parameters): self.shared_parameters = int(shared_parameters)
    def set_requested_gpus(self, requested_gpus): self.requested_gpus = int(requested_gpus)
    def set_gpu_mask(self, gpu_mask):
        if any(on not in (0, 1) for on in gpu_mask):
            raise ValueError("gpu_mask should only contain 0 and 1s")  # DyNet's message
        self.gpu_mask = list(gpu_mask)
    def set_cpu_mode(self): self.cpu_mode = True


def init(shared_parameters=None):
    """Starts the library from sys.argv's --dynet-* flags (which stay in it)."""
    params = DynetParams()
    params.from_args(shared_parameters)
    init_from_params(params)


def init_from_params(params):
    global _initialized, _cg
    if _initialized:
        warnings.warn("dynet is already initialized; the new settings are ignored", RuntimeWarning, stacklevel=2)
        return
    cdef CDynetParams p
    p.gpu_ids = _requested_gpu_ids(params)
    p.mem_descriptor = str(params.mem).encode()
    p.random_seed = params.random_seed
    p.autobatch = params.autobatch
    p.profiling = params.profiling
    p.weight_decay = params.weight_decay
    p.vertex = getattr(params, "_vertex", 1)
    p.threads = getattr(params, "_threads", 1)
    p.debug_memory = getattr(params, "_debug_memory", False)
    p.guard_device_memory = getattr(params, "_guard_device_memory", False)
    p.shared_parameters = True if params.shared_parameters else False
    initialize(p)
    _cg = new CComputationGraph()
    _initialized = True
    atexit.register(_close_last_graph)


def _close_last_graph():
    """At exit the global graph ends, as a C++ program's graph does when it is destroyed, so that
    --dynet-profiling counts the last graph too (the report is printed after Python's exit)."""
    if _cg != NULL:
        _cg.clear()


def _requested_gpu_ids(params):
    """The GPUs params ask for, as DyNet reads them: the --dynet-devices / --dynet-gpus flags, else
    gpu_mask (a flag per GPU id), else requested_gpus (ids 0 to n-1); none in cpu_mode. The library
    runs a process on one device and says so for more than one GPU."""
    if params.cpu_mode:
        return []
    ids = list(getattr(params, "_gpu_ids", []))
    if ids:
        return ids
    if params.gpu_mask:
        return [i for i, on in enumerate(params.gpu_mask) if on]
    return list(range(params.requested_gpus))


def reset_random_seed(seed):
    reset_random_seed_c(seed)


cdef inline CComputationGraph* _graph() except NULL:
    if _cg == NULL:
        raise RuntimeError("dynet is not initialized: import dynet (or call dynet.init()) first")
    return _cg


# ---------------------------------------------------------------------------------------------
# Argument conversion

cdef inline object _index(object x):
    """x as an int where DyNet takes an index or a size. A float that holds an integer passes, as
    in DyNet's module; one with a fraction raises TypeError where DyNet's would truncate it; a
    negative value raises OverflowError where it becomes unsigned."""
    if type(x) is int:
        return x
    if isinstance(x, float):
        if not x.is_integer():
            raise TypeError("an integer index or size is expected, not %r (DyNet's module would truncate it)" % x)
        return int(x)
    return PyNumber_Index(x)


cdef vector[unsigned] _uv(object xs) except *:
    """One index or size, or a sequence of them, as unsigneds (each through _index)."""
    cdef vector[unsigned] v
    if isinstance(xs, (int, np.integer, float)):
        v.push_back(_index(xs))
        return v
    for x in xs:
        v.push_back(_index(x))
    return v


cdef CDim _dim(object d, unsigned batch=1) except *:
    """A Dim from an int or a sequence of ints (DyNet's Python dims), with a batch size."""
    return CDim(_uv(d), batch)


cdef tuple _dim_tuple(const CDim& d):
    return tuple([d.d[i] for i in range(d.nd)]) if d.nd else (1,)


cdef vector[int] _iv(object xs) except *:
    cdef vector[int] v
    for x in xs:
        v.push_back(_index(x))
    return v


cdef GradientMode _gradient_mode(object mode) except *:
    if mode == "zero_gradient" or mode is False or mode == 0:
        return zero_gradient
    if mode == "straight_through_gradient" or mode is True or mode == 1:
        return straight_through_gradient
    raise ValueError("gradient_mode must be 'zero_gradient' or 'straight_through_gradient', not %r" % (mode,))


cdef const CExpression* _ex(object x) except NULL:
    """x as an Expression of the current graph: an Expression, Parameters or LookupParameters."""
    if type(x) is Expression:
        return &(<Expression>x).c
    if isinstance(x, Parameters):
        return (<Parameters>x)._expr(True)
    if isinstance(x, LookupParameters):
        return (<LookupParameters>x)._expr(True)
    if isinstance(x, Expression):
        return &(<Expression>x).c
    raise TypeError("an Expression, Parameters or LookupParameters was expected, not %s" % type(x).__name__)


cdef vector[CExpression] _scratch


class _EmptyListError(ValueError, AssertionError):
    """An empty list given to an op of a list of expressions: DyNet's functions assert that it is not
    (AssertionError), and it is a bad argument (ValueError); either catches it."""


cdef vector[CExpression]* _exs_scratch(object xs, object function) except NULL:
    """The list of expressions xs in one vector reused by every op call (no allocation once it has
    grown): ops read their arguments before they return, and never call back into Python. With
    `function` (a name), an empty list raises _EmptyListError naming it, as DyNet asserts."""
    cdef Py_ssize_t i, n
    _scratch.clear()
    if type(xs) is list:
        n = len(<list>xs)
        for i in range(n):
            _scratch.push_back(_ex((<list>xs)[i])[0])
    elif isinstance(xs, (Expression, Parameters, LookupParameters)):
        raise TypeError("a list of expressions was expected, not one %s" % type(xs).__name__)
    else:
        for x in xs:
            _scratch.push_back(_ex(x)[0])
    if _scratch.empty() and function is not None:
        raise _EmptyListError("%s: the list of expressions is empty" % function)
    return &_scratch


cdef vector[CExpression] _exs(object xs) except *:
    cdef vector[CExpression] v
    if isinstance(xs, (Expression, Parameters, LookupParameters)):
        raise TypeError("a list of expressions was expected, not one %s" % type(xs).__name__)
    for x in xs:
        v.push_back(_ex(x)[0])
    return v


# The numbers an operator takes on either side of an expression: numpy's scalars too.
cdef tuple _NUMBERS = (int, float, np.integer, np.floating)


@cython.freelist(256)
cdef class Expression:
    """A node of the global graph. Cheap: the library's handle (graph, index, epoch); using one of
    an older graph (before renew_cg, or cut by cg_revert) raises RuntimeError."""
    cdef CExpression c

    def dim(self):
        """((dims...), batch size)."""
        cdef CDim d = self.c.dim()
        return (_dim_tuple(d), d.bd)

    def __repr__(self):
        # DyNet's: the node's index and the version of its graph (cg_version()), which a stale
        # expression's graph is no longer.
        if self.c.is_stale():
            return "expression %u (stale)" % self.c.i
        return "expression %u/%u" % (self.c.i, _cg_version)

    @property
    def vindex(self):
        return self.c.i

    def forward(self, recalculate=False):
        _forward(self.c, recalculate)

    def scalar_value(self, recalculate=False):
        cdef CTensor t = _forward(self.c, recalculate)
        cdef vector[float] v = as_vector(t)
        if v.size() != 1:
            raise ValueError("scalar_value: the expression holds %d values (dim %s), not one" % (v.size(), self.dim()))
        return v[0]

    def vec_value(self, recalculate=False):
        return as_vector(_forward(self.c, recalculate))

    def npvalue(self, recalculate=False):
        return _to_numpy(_forward(self.c, recalculate))

    def tensor_value(self, recalculate=False):
        cdef Tensor t = Tensor.__new__(Tensor)
        t.c = _forward(self.c, recalculate)
        t.values = as_vector(t.c)
        return t

    def value(self, recalculate=False):
        # DyNet's rule, which counts the batch out: an array from two dimensions on, else the
        # values as a list (a batch's one after another), or the one value itself.
        cdef CTensor t = _forward(self.c, recalculate)
        if t.d.nd >= 2:
            return _to_numpy(t)
        cdef list values = as_vector(t)
        return values[0] if len(values) == 1 else values

    def gradient(self):
        return _to_numpy(self.c.gradient())

    def backward(self, full=False):
        _graph().backward(self.c, full)

    def __getitem__(self, index):
        return _getitem(self, index)

    def __add__(x, y):
        if isinstance(y, _NUMBERS):
            return _wrap(c_add_scalar(_ex(x)[0], y))
        if isinstance(x, _NUMBERS):
            return _wrap(c_add_scalar(_ex(y)[0], x))
        return _wrap(c_add(_ex(x)[0], _ex(y)[0]))

    def __sub__(x, y):
        if isinstance(y, _NUMBERS):
            return _wrap(c_add_scalar(_ex(x)[0], -y))
        if isinstance(x, _NUMBERS):
            return _wrap(c_rsub_scalar(x, _ex(y)[0]))
        return _wrap(c_sub(_ex(x)[0], _ex(y)[0]))

    def __mul__(x, y):
        if isinstance(y, _NUMBERS):
            return _wrap(c_mul_scalar(_ex(x)[0], y))
        if isinstance(x, _NUMBERS):
            return _wrap(c_mul_scalar(_ex(y)[0], x))
        return _wrap(c_mul(_ex(x)[0], _ex(y)[0]))

    def __truediv__(x, y):
        if isinstance(y, _NUMBERS):
            return _wrap(c_div_scalar(_ex(x)[0], y))
        if isinstance(x, _NUMBERS):
            d = (<Expression>y).c.dim()
            return _wrap(c_cdiv(c_constant(_graph()[0], d, x), _ex(y)[0]))
        return _wrap(c_cdiv(_ex(x)[0], _ex(y)[0]))

    def __div__(x, y):
        return Expression.__truediv__(x, y)

    def __pow__(x, y, z):
        """x ** y elementwise, either a number (DyNet's module has the operator after 2.1)."""
        if z is not None:
            raise TypeError("pow() with a modulus is not defined for expressions")
        if isinstance(y, _NUMBERS):
            return _wrap(op_pow(_ex(x)[0], op_input(_graph()[0], <float>y)))
        if isinstance(x, _NUMBERS):
            return _wrap(op_pow(op_input(_graph()[0], <float>x), _ex(y)[0]))
        return _wrap(op_pow(_ex(x)[0], _ex(y)[0]))

    def __neg__(self):
        return _wrap(c_neg(self.c))


cdef inline Expression _wrap(const CExpression& c):
    cdef Expression r = Expression.__new__(Expression)
    r.c = c
    return r


cdef inline Expression _wrap_into(Expression r, const CExpression& c):
    """c as r, a new expression of one of the settable classes below."""
    r.c = c
    return r


# DyNet's reusable graphs: the expressions of inputs, lookups, picks and hinges change their data
# in place (set, set_index), and the next forward (value(recalculate=True)) recomputes the graph.
# The library writes the new data over the node's own copy and checks it as the node's constructor
# did. Classes without a field of their own share Expression's freelist.

cdef class _inputExpression(Expression):
    """scalarInput's expression."""
    def set(self, s):
        c_set_input_values(_ex(self)[0], [float(s)])


cdef class _vecInputExpression(Expression):
    """The expression of vecInput, inputVector, matInput and inputMatrix."""
    def set(self, data):
        """New values, as many as the input holds, in column-major order."""
        c_set_input_values(_ex(self)[0], _column_major(data))


cdef class _tensorInputExpression(Expression):
    """inputTensor's expression: set() changes it when it was made with reusable_expr=True."""
    cdef bint reusable

    def set(self, data):
        if not self.reusable:
            raise ValueError("set() can only be called on a reusable _tensorInputExpression "
                             "(inputTensor(..., reusable_expr=True))")
        c_set_input_values(_ex(self)[0], _column_major(data))


cdef class _lookupExpression(Expression):
    """The expression of lookup and lookup_batch: set(i) takes a row, or one per batch element."""
    def set(self, i):
        c_set_lookup_indices(_ex(self)[0], _uv(i))


cdef class _pickerExpression(Expression):
    """The expression of pick and pick_batch: set_index(i) takes an index, or one per batch element."""
    def set_index(self, i):
        c_set_pick_indices(_ex(self)[0], _uv(i))


cdef class _hingeExpression(Expression):
    """The expression of hinge and hinge_batch: set_index(i) takes a class, or one per batch element."""
    def set_index(self, i):
        c_set_hinge_indices(_ex(self)[0], _uv(i))


# DyNet's names for the batched forms.
_lookupBatchExpression = _lookupExpression
_pickerBatchExpression = _pickerExpression
_hingeBatchExpression = _hingeExpression


cdef CTensor _forward(const CExpression& e, bint recalculate) except *:
    if recalculate:
        return _graph().forward(e)
    return _graph().incremental_forward(e)


cdef object _to_numpy(const CTensor& t):
    """t's values, column-major, shaped as its dims with the batch as a last axis when > 1; float64,
    as DyNet's module gives them (it builds the array from a list of Python floats)."""
    cdef vector[float] v = as_vector(t)
    arr = np.empty(v.size(), dtype=np.float32)
    cdef float[::1] view = arr
    if v.size():
        memcpy(&view[0], v.data(), v.size() * sizeof(float))
    shape = list(_dim_tuple(t.d))
    if t.d.bd > 1:
        shape.append(t.d.bd)
    return arr.astype(np.float64).reshape(shape, order="F")


cdef object _getitem(object x, object index):
    """DyNet's indexing: an int picks, a slice takes a range, a tuple does either per dimension; the
    entry after the last dimension is the batch axis. Slices of step 1 within an element are
    pick_range; other steps, or a slice of the batch, one strided_select."""
    if not isinstance(index, tuple):
        index = (index,)
    shape, batch = (<Expression>_wrap(_ex(x)[0])).dim()
    shape = list(shape)
    if len(index) > len(shape) + 1:
        raise IndexError("Expression indexing: %d indices for an expression of %d dimensions and a batch axis"
                         % (len(index), len(shape)))
    strides, starts, stops, picks = [], [], [], []
    for d, item in enumerate(index):
        size = batch if d == len(shape) else shape[d]
        if isinstance(item, slice):
            start, stop, step = item.indices(size)
            if step <= 0:
                raise IndexError("Expression indexing: steps must be positive, got %d" % step)
            if stop <= start:
                raise ValueError("Expression indexing: the slice %s of dimension %d (size %d) is empty" % (item, d, size))
        else:
            start = _index(item)
            if start < 0:
                start += size
            if start < 0 or start >= size:
                raise IndexError("Expression index %d is out of range for dimension %d of size %d" % (int(item), d, size))
            if d == len(shape):
                raise IndexError("Expression indexing: an int cannot index the batch axis; use pick_batch_elem")
            stop, step = start + 1, 1
            picks.append(d)
        strides.append(step)
        starts.append(start)
        stops.append(stop)
    cdef CExpression result = _ex(x)[0]
    strided = len(index) > len(shape) or any(s != 1 for s in strides)
    if strided:  # an int keeps one position here, which its pick below removes
        result = c_strided_select(result, strides, starts, stops)
    else:
        for d in range(len(index)):
            if d not in picks and (starts[d], stops[d]) != (0, shape[d]):
                result = c_pick_range(result, starts[d], stops[d], d)
    for d in reversed(picks):
        result = c_pick(result, 0 if strided else starts[d], d)
    return _wrap(result)


# ---------------------------------------------------------------------------------------------
# The global graph

def cg_version():
    return _cg_version


def renew_cg(immediate_compute=False, check_validity=False, autobatching=None):
    """Starts the global graph anew: every older Expression becomes stale."""
    global _cg_version
    cdef CComputationGraph* g = _graph()
    g.clear()
    g.set_immediate_compute(immediate_compute)
    g.set_check_validity(check_validity)
    if autobatching is not None:
        g.set_autobatch(int(autobatching))
    _cg_version += 1
    return _cg_object


def print_text_graphviz():
    _graph().print_graphviz()


def dump_cg(filename="", show_values=True, show_gradients=True, nan_check_only=False):
    if isinstance(filename, str):
        filename = filename.encode("utf-8")
    _graph().dump(filename, show_values, show_gradients, nan_check_only)


def cg_checkpoint():
    _graph().checkpoint()


def cg_revert():
    _graph().revert()


def cg():
    _graph()
    return _cg_object


class ComputationGraph(object):
    """The global graph (dy.cg()); methods take node indices (Expression.vindex)."""

    def __init__(self, _module_token=None):
        if _module_token is not _CG_TOKEN:
            raise RuntimeError("Do not instantiate ComputationGraph directly. Use dynet.renew_cg()")

    def renew(self, immediate_compute=False, check_validity=False, autobatching=None):
        return renew_cg(immediate_compute, check_validity, autobatching)

    def version(self):
        return _cg_version

    def forward_scalar(self, index):
        return _node(index).scalar_value(True)

    def inc_forward_scalar(self, index):
        return _node(index).scalar_value()

    def forward_vec(self, index):
        return _node(index).vec_value(True)

    def inc_forward_vec(self, index):
        return _node(index).vec_value()

    def forward(self, index):
        _node(index).forward(True)

    def inc_forward(self, index):
        _node(index).forward()

    def backward(self, index, full=False):
        _node(index).backward(full)

    def print_graphviz(self):
        print_text_graphviz()

    def dump(self, filename, show_values, show_gradients, nan_check_only):
        dump_cg(filename, show_values, show_gradients, nan_check_only)

    def checkpoint(self):
        cg_checkpoint()

    def revert(self):
        cg_revert()

    def inputMatrixLiteral(self, v, d, batch_size=1, device=""):
        return inputTensor(np.asarray(v, dtype=np.float32).reshape(tuple(d) + ((batch_size,) if batch_size > 1 else ()),
                                                                   order="F"), batch_size > 1, device)

    def inputSparseTensor(self, idxs, v, dim, batch_size=1, defval=0, device=""):
        _device(device)
        return _sparse(idxs, v, _dim(dim, batch_size), defval)


_CG_TOKEN = object()
_cg_object = ComputationGraph(_CG_TOKEN)


cdef Expression _node(index):
    cdef CComputationGraph* g = _graph()
    if index < 0 or index >= g.size():
        raise IndexError("node %d is not in the graph (it has %u nodes)" % (index, g.size()))
    return _wrap(make_expression(g, index))


# ---------------------------------------------------------------------------------------------
# Inputs

def inputTensor(arr, batched=False, device="", reusable_expr=False):
    """An input from a numpy array (or nested lists of floats) read column-major; with batched, the
    last axis is the batch. A list of arrays is a batch of them, stacked on a last axis."""
    _device(device)
    if isinstance(arr, list) and arr and all(isinstance(x, np.ndarray) for x in arr):
        arr = np.stack(arr, axis=-1)  # DyNet's rule: a list of arrays is a batch of them
        batched = True
    if not isinstance(arr, (np.ndarray, list)):
        raise TypeError("inputTensor: a numpy.ndarray or a list of floats was expected, not %s" % type(arr).__name__)
    a = np.asarray(arr, dtype=np.float32)
    shape = a.shape
    if a.ndim == 0:
        shape = (1,)
    cdef unsigned batch = 1
    if batched:
        batch = shape[-1]
        shape = shape[:-1] or (1,)
    flat = np.ascontiguousarray(a.ravel(order="F"))
    cdef const float[::1] view = flat
    cdef CDim d = _dim(shape, batch)
    if <size_t>view.shape[0] != d.size():
        raise ValueError("inputTensor: %d values for shape %s" % (view.shape[0], a.shape))
    cdef _tensorInputExpression r = _tensorInputExpression.__new__(_tensorInputExpression)
    r.reusable = True if reusable_expr else False
    return _wrap_into(r, input_tensor(_graph()[0], d, &view[0]))


cdef Expression _settable_input(object arr, str device):
    return _wrap_into(_vecInputExpression.__new__(_vecInputExpression), _ex(inputTensor(arr, device=device))[0])


def inputVector(v, device=""):
    return _settable_input(_floats(v).reshape(-1), device)


def vecInput(dim, device=""):
    return _settable_input(np.zeros(dim, dtype=np.float32), device)


def matInput(d1, d2):
    return _settable_input(np.zeros((d1, d2), dtype=np.float32), "")


def inputMatrix(v, d):
    return _settable_input(_floats(v).reshape(tuple(d), order="F"), "")


class inputTensorTranspose(Expression):
    """DyNet's input of flat values read column-major into `dim` (default: one vector of them) and
    `batch_size` batch elements: a 1-d view of a column-major array, without numpy's reordering."""

    def __new__(cls, val, dim=None, batch_size=1, device=""):
        v = _floats(val)
        if v.ndim != 1:
            raise TypeError("inputTensorTranspose: a flat vector of floats was expected, not an array of shape %s"
                            % (v.shape,))
        dim = (v.shape[0],) if dim is None else tuple(dim)
        total = int(np.prod(dim, dtype=np.int64)) * batch_size
        if total != v.shape[0]:
            raise ValueError("dimensions/batch size multiply to", total, ", which does not match size of given array",
                             v.shape[0])
        return inputTensor(v.reshape(dim + (batch_size,), order="F"), batched=True, device=device)


cdef Expression _sparse(idxs, values, CDim d, float defval):
    return _wrap(input_sparse(_graph()[0], d, _uv(idxs), values, defval))


def sparse_inputTensor(idxs, values, shape, batched=False, defval=0, device=""):
    """A sparse input: `values` at the column-major flat (or per-axis, a tuple of index lists)
    positions `idxs`; `defval` elsewhere. With batched, the last axis of shape is the batch."""
    _device(device)
    shape = tuple(shape)
    cdef unsigned batch = 1
    if batched:
        batch = shape[-1]
        shape = shape[:-1]
    if isinstance(idxs, tuple) or (len(idxs) and not np.isscalar(idxs[0])):
        full = tuple(shape) + ((batch,) if batched else ())
        idxs = np.ravel_multi_index(tuple(np.asarray(i) for i in idxs), full, order="F")
    return _sparse([_index(i) for i in idxs], [float(v) for v in values], _dim(shape, batch), defval)


def parameter(*args):
    """The arguments themselves, as DyNet 2.1's (a tuple of them for several): Parameters and
    LookupParameters act as expressions of whichever graph uses them, so this call, which DyNet
    2.1 deprecates, adds nothing. A DeprecationWarning says so (DyNet's prints a note)."""
    _require_parameters("parameter", args)
    warnings.warn("dy.parameter(...) is deprecated (DyNet 2.1): parameters act as expressions by themselves",
                  DeprecationWarning, stacklevel=2)
    return args[0] if len(args) == 1 else args


def const_parameter(*args):
    """Each argument as an expression of the global graph that backward leaves alone."""
    _require_parameters("const_parameter", args)
    out = [_wrap((<Parameters>p)._expr(False)[0]) if isinstance(p, Parameters)
           else _wrap((<LookupParameters>p)._expr(False)[0]) for p in args]
    return out[0] if len(out) == 1 else out


cdef _require_parameters(str who, tuple args):
    for p in args:
        if not isinstance(p, (Parameters, LookupParameters)):
            raise TypeError("%s: Parameters or LookupParameters expected, not %s" % (who, type(p).__name__))


def lookup(LookupParameters p not None, index=0, update=True):
    if update:
        return _wrap_into(_lookupExpression.__new__(_lookupExpression), c_lookup(_graph()[0], p.p, _index(index)))
    return _wrap_into(_lookupExpression.__new__(_lookupExpression), c_const_lookup(_graph()[0], p.p, _index(index)))


def lookup_batch(LookupParameters p not None, indices, update=True):
    if update:
        return _wrap_into(_lookupExpression.__new__(_lookupExpression), c_lookup_batch(_graph()[0], p.p, _uv(indices)))
    return _wrap_into(_lookupExpression.__new__(_lookupExpression), c_const_lookup_batch(_graph()[0], p.p, _uv(indices)))


def emax(xs):
    """Elementwise maximum of the list, as pairwise maxima (the library has no n-ary max)."""
    cdef vector[CExpression] v = _exs(xs)
    if v.empty():
        raise _EmptyListError("emax: the list of expressions is empty")
    cdef CExpression m = v[0]
    for i in range(1, v.size()):
        m = c_max(m, v[i])
    return _wrap(m)


def log_softmax(x, restrict=None):
    if restrict is None:
        return _wrap(c_log_softmax(_ex(x)[0]))
    return _wrap(c_log_softmax_restricted(_ex(x)[0], _uv(restrict)))


def to_device(e, device_str):
    """e on the device named device_str: the library runs a process on one device, so e is there
    already when that device exists (ValueError otherwise)."""
    _device(device_str)
    return _wrap(_ex(e)[0])


# ---------------------------------------------------------------------------------------------
# Calls of several arguments
#
# Cython 0.29 (Debian's) passes a def function of several arguments a tuple of them
# (METH_VARARGS), and graph construction makes several such calls a node. An op of several
# arguments is bound instead as a function of CPython's METH_FASTCALL convention, which reads them
# from the caller's stack: 9-14 ns less a call. Positional calls run there; a call with keywords
# goes to the op's def, which binds them as Python does and raises its TypeError when they do not fit.

cdef extern from "Python.h":
    ctypedef PyObject* (*PyCFunction)(PyObject*, PyObject*)
    ctypedef struct PyMethodDef:
        const char* ml_name
        PyCFunction ml_meth
        int ml_flags
        const char* ml_doc
    object PyCFunction_NewEx(PyMethodDef* ml, object self, object module)
    object PyObject_Vectorcall(object callable, PyObject** args, size_t nargsf, PyObject* kwnames)
    int METH_FASTCALL
    int METH_KEYWORDS

ctypedef object (*_FastCall)(object, PyObject**, Py_ssize_t, PyObject*)


cdef object _fast_function(PyMethodDef* slot, const char* name, _FastCall call, const char* signature):
    """The function `name`, which runs `call` (METH_FASTCALL); `slot` is its definition, which must
    live as long as the module, and `signature` the text signature inspect reads from its doc."""
    slot.ml_name = name
    slot.ml_meth = <PyCFunction><void*>call
    slot.ml_flags = METH_FASTCALL | METH_KEYWORDS
    slot.ml_doc = signature
    return PyCFunction_NewEx(slot, None, __name__)


include "ops.pxi"


def forward(exps, recalculate=False):
    """Computes the expressions; the last one first, so that one pass computes all."""
    for e in exps:
        _ex(e)
    if len(exps):
        _forward(_ex(max(exps, key=lambda e: _ex(e).i))[0], recalculate)


def npvalues(exps, recalculate=False):
    forward(exps, recalculate)
    return [e.npvalue() for e in exps]


def values(exps, recalculate=False):
    forward(exps, recalculate)
    return [e.value() for e in exps]


# ---------------------------------------------------------------------------------------------
# Value holders (DyNet's, for values a program changes between graphs)

class _Value(object):
    def __init__(self, val=None):
        self.set(val)

    def set(self, val):
        self._val = self._convert(val)

    def get(self):
        return self._val


class UnsignedValue(_Value):
    _convert = staticmethod(lambda v: 0 if v is None else int(v))


class FloatValue(_Value):
    _convert = staticmethod(lambda v: 0.0 if v is None else float(v))


class _VectorValue(_Value):
    def set(self, newval):
        self._val = [self._item(v) for v in (newval or [])]

    def size(self):
        return len(self._val)


class UnsignedVectorValue(_VectorValue):
    _item = staticmethod(int)


class FloatVectorValue(_VectorValue):
    _item = staticmethod(float)


# ---------------------------------------------------------------------------------------------
# Tensors

cdef class Tensor:
    """A value read out of the graph (Expression.tensor_value()), or the indices argmax,
    categorical_sample_log_prob and topk give, as DyNet's Tensor wraps either."""
    cdef CTensor c
    cdef vector[float] values
    cdef object indices  # a numpy array of int64 for an index Tensor, else None

    cdef CTensor _own(self) except *:
        if self.indices is not None:
            raise TypeError("an index Tensor (from argmax, categorical_sample_log_prob or topk) has no values to "
                            "search; call as_numpy()")
        cdef CTensor t = self.c
        t.v = self.values.data()
        t.device = NULL  # the values are the host copy this Tensor keeps
        return t

    def __str__(self):
        return "<Dynet Tensor:%s>" % ("int" if self.indices is not None else "float")

    def as_numpy(self):
        if self.indices is not None:
            return self.indices.copy()
        return _to_numpy(self._own())

    def argmax(self, dim=0, num=1):
        return _index_tensor(CTensorTools.argmax(self._own(), dim, num))

    def categorical_sample_log_prob(self, dim=0, num=1):
        return _index_tensor(CTensorTools.categorical_sample_log_prob(self._own(), dim, num))

    def topk(self, dim=0, num=1):
        """(values, indices): the num largest values along dim, largest first, and their indices."""
        cdef pair[CTensor, CIndexTensor] found = CTensorTools.topk(self._own(), dim, num)
        cdef Tensor top = Tensor.__new__(Tensor)
        top.values = as_vector(found.first)  # a host copy, read while found.second owns the values
        top.c = found.first
        return top, _index_tensor(found.second)


cdef Tensor _index_tensor(const CIndexTensor& t):
    cdef Tensor wrapped = Tensor.__new__(Tensor)
    wrapped.c.d = t.d
    wrapped.indices = _index_array(t)
    return wrapped


cdef object _index_array(const CIndexTensor& t):
    shape = list(_dim_tuple(t.d))
    if t.d.bd > 1:
        shape.append(t.d.bd)
    return np.asarray(index_values(t), dtype=np.int64).reshape(shape, order="F")


# ---------------------------------------------------------------------------------------------
# Devices

cdef CDevice* _device(object name) except NULL:
    """The device of that name ("CPU", "GPU:0"; "" or None: the default one). The library runs a
    process on one device (--dynet-devices, dynet_config.set_gpu()); a name of any other device
    raises ValueError with the library's message."""
    if name is None or name == "":
        return get_device_manager().get(0)
    if not isinstance(name, str):
        raise TypeError("a device is named by a string such as 'CPU' or 'GPU:0', not %s" % type(name).__name__)
    return get_device_manager().get_global_device(name.encode())


def available_devices():
    cdef CDeviceManager* manager = get_device_manager()
    return [manager.get(i).name.decode() for i in range(manager.num_devices())]


class DeviceInfo(object):
    def __init__(self, name, id, dtype):
        self.name = name
        self.id = id
        self.type = dtype  # DyNet's name for it
        self.dtype = dtype


def get_device_info(name):
    cdef CDevice* d = _device(name)
    full = d.name.decode()
    kind = "GPU" if full.startswith("GPU") else "CPU"
    return DeviceInfo(full, int(full[4:]) if kind == "GPU" else 0, kind)


include "model.pxi"
include "builders.pxi"
