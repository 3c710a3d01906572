"""Writes ops.pxi and trainers.pxi, the bindings of every operator and trainer of DyNet's Python
module, from the tables below: for each op its Python signature (DyNet's names and defaults) and
the library call it makes, for each trainer its constructor's settings. A row is the whole binding
of an op or a trainer; _dynet.pyx includes the generated files.

    python3 gen_bindings.py OUT_DIR

In a call, E(x) is argument x as an Expression (an Expression, Parameters or LookupParameters),
ES(xs) a list of them (ES(xs, "name"): one that may not be empty, as DyNet asserts), U(v) an
unsigned int, F(v) a float, UV(v) a list of unsigned ints, G the global graph and D(dim, batch) a
Dim.
"""
import ast
import os
import re
import sys

# Elementwise and other one-argument ops whose Python and C++ names agree.
UNARY = """tanh logistic rectify selu softsign exp log log_sigmoid square cube sqrt abs sin cos erf
tan asin acos atan sinh cosh asinh acosh atanh lgamma nobackprop flip_gradient inverse logdet
squared_norm l2_norm sum_elems sum_batches mean_elems mean_batches std_elems std_batches sparsemax
transpose_default""".split()

# Two-expression ops: Python name, C++ name.
BINARY = [("cdiv", "cdiv"), ("cmult", "cmult"), ("colwise_add", "colwise_add"), ("trace_of_product", "trace_of_product"),
          ("dot_product", "dot_product"), ("circ_conv", "circ_conv"), ("circ_corr", "circ_corr"),
          ("squared_distance", "squared_distance"), ("l1_distance", "l1_distance"), ("binary_log_loss", "binary_log_loss"),
          ("filter1d_narrow", "filter1d_narrow"), ("pow", "pow"), ("bmin", "min"), ("bmax", "max"),
          ("weight_norm", "weight_norm"), ("contract3d_1d", "contract3d_1d"),
          ("constrained_softmax", "constrained_softmax")]

# Ops over a list of expressions: Python name, C++ name.
# DyNet's names of the two arguments where they are not x and y (keyword calls use them).
BINARY_PARAMETERS = {"circ_conv": ("u", "v"), "circ_corr": ("u", "v"), "weight_norm": ("w", "g")}
LISTS = [("esum", "sum"), ("logsumexp", "logsumexp"), ("average", "average"), ("concatenate_cols", "concatenate_cols"),
         ("concatenate_to_batch", "concatenate_to_batch"), ("affine_transform", "affine_transform")]

# Everything else: Python signature | C++ declaration (Cython syntax, E = const CExpression&) | call.
OTHER = """
elu(x, alpha=1.0) | elu(E, float) | elu(E(x), F(alpha))
silu(x, beta=1.0) | silu(E, float) | silu(E(x), F(beta))
round(x, gradient_mode="zero_gradient") | round(E, GradientMode) | round(E(x), _gradient_mode(gradient_mode))
ceil(x, gradient_mode="zero_gradient") | ceil(E, GradientMode) | ceil(E(x), _gradient_mode(gradient_mode))
floor(x, gradient_mode="zero_gradient") | floor(E, GradientMode) | floor(E(x), _gradient_mode(gradient_mode))
argmax(x, gradient_mode="zero_gradient") | argmax(E, GradientMode) | argmax(E(x), _gradient_mode(gradient_mode))
scale_gradient(x, lambd=1.0) | scale_gradient(E, float) | scale_gradient(E(x), F(lambd))
softmax(x, d=0) | softmax(E, unsigned) | softmax(E(x), U(d))
transpose(x, dims=[1, 0]) | transpose(E, const vector[unsigned]&) | transpose(E(x), UV(dims))
select_rows(x, rs) | select_rows(E, const vector[unsigned]&) | select_rows(E(x), UV(rs))
select_cols(x, cs) | select_cols(E, const vector[unsigned]&) | select_cols(E(x), UV(cs))
sum_dim(x, d, b=False, n=0) | sum_dim(E, const vector[unsigned]&, bool) | sum_dim(E(x), UV(d), b)
cumsum(x, d=0) | cumsum(E, unsigned) | cumsum(E(x), U(d))
mean_dim(x, d, b, n=0) | mean_dim(E, const vector[unsigned]&, bool, unsigned) | mean_dim(E(x), UV(d), b, U(n))
std_dim(x, d, b, n=0) | std_dim(E, const vector[unsigned]&, bool, unsigned) | std_dim(E(x), UV(d), b, U(n))
moment_elems(x, r) | moment_elems(E, unsigned) | moment_elems(E(x), U(r))
moment_dim(x, d, r, b, n=0) | moment_dim(E, const vector[unsigned]&, unsigned, bool, unsigned) | moment_dim(E(x), UV(d), U(r), b, U(n))
moment_batches(x, r) | moment_batches(E, unsigned) | moment_batches(E(x), U(r))
fold_rows(x, nrows=2) | fold_rows(E, unsigned) | fold_rows(E(x), U(nrows))
pairwise_rank_loss(x, y, m=1.0) | pairwise_rank_loss(E, E, float) | pairwise_rank_loss(E(x), E(y), F(m))
poisson_loss(log_lambda, x) | poisson_loss(E, unsigned) | poisson_loss(E(log_lambda), U(x))
huber_distance(x, y, c=1.345) | huber_distance(E, E, float) | huber_distance(E(x), E(y), F(c))
kmax_pooling(x, k, d=1) | kmax_pooling(E, unsigned, unsigned) | kmax_pooling(E(x), U(k), U(d))
pickneglogsoftmax(x, v) | pickneglogsoftmax(E, unsigned) | pickneglogsoftmax(E(x), U(v))
pickneglogsoftmax_batch(x, vs) | pickneglogsoftmax(E, const vector[unsigned]&) | pickneglogsoftmax(E(x), UV(vs))
hinge(x, v, m=1.0) | hinge(E, unsigned, float) | hinge(E(x), U(v), F(m))
hinge_batch(x, vs, m=1.0) | hinge(E, const vector[unsigned]&, float) | hinge(E(x), UV(vs), F(m))
hinge_dim(x, v, d=0, m=1.0) | hinge_dim(E, const vector[unsigned]&, unsigned, float) | hinge_dim(E(x), UV(v), U(d), F(m))
kmh_ngram(x, v) | kmh_ngram(E, unsigned) | kmh_ngram(E(x), U(v))
pick(e, index=0, dim=0) | pick(E, unsigned, unsigned) | pick(E(e), U(index), U(dim))
pick_batch(e, indices, dim=0) | pick(E, const vector[unsigned]&, unsigned) | pick(E(e), UV(indices), U(dim))
pick_range(x, s, e, d=0) | pick_range(E, unsigned, unsigned, unsigned) | pick_range(E(x), U(s), U(e), U(d))
pickrange(x, s, e) | pickrange(E, unsigned, unsigned) | pickrange(E(x), U(s), U(e))
pick_batch_elem(x, v) | pick_batch_elem(E, unsigned) | pick_batch_elem(E(x), U(v))
pick_batch_elems(x, vs) | pick_batch_elems(E, const vector[unsigned]&) | pick_batch_elems(E(x), UV(vs))
strided_select(x, strides, range_from, range_to) | strided_select(E, const vector[int]&, const vector[int]&, const vector[int]&) | strided_select(E(x), IV(strides), IV(range_from), IV(range_to))
noise(x, stddev) | noise(E, float) | noise(E(x), F(stddev))
dropout(x, p) | dropout(E, float) | dropout(E(x), F(p))
dropout_batch(x, p) | dropout_batch(E, float) | dropout_batch(E(x), F(p))
dropout_dim(x, d, p) | dropout_dim(E, unsigned, float) | dropout_dim(E(x), U(d), F(p))
block_dropout(x, p) | block_dropout(E, float) | block_dropout(E(x), F(p))
reshape(x, d, batch_size=1) | reshape(E, const CDim&) | reshape(E(x), D(d, batch_size))
max_dim(x, d=0) | max_dim(E, unsigned) | max_dim(E(x), U(d))
min_dim(x, d=0) | min_dim(E, unsigned) | min_dim(E(x), U(d))
logsumexp_dim(x, d=0) | logsumexp_dim(E, unsigned) | logsumexp_dim(E(x), U(d))
contract3d_1d_bias(x, y, b) | contract3d_1d(E, E, E) | contract3d_1d(E(x), E(y), E(b))
contract3d_1d_1d(x, y, z) | contract3d_1d_1d(E, E, E) | contract3d_1d_1d(E(x), E(y), E(z))
contract3d_1d_1d_bias(x, y, z, b) | contract3d_1d_1d(E, E, E, E) | contract3d_1d_1d(E(x), E(y), E(z), E(b))
concatenate(xs, d=0) | concatenate(ES, unsigned) | concatenate(ES(xs, "concatenate"), U(d))
layer_norm(x, g, b) | layer_norm(E, E, E) | layer_norm(E(x), E(g), E(b))
conv2d(x, f, stride, is_valid=True) | conv2d(E, E, const vector[unsigned]&, bool) | conv2d(E(x), E(f), UV(stride), is_valid)
conv2d_bias(x, f, b, stride, is_valid=True) | conv2d(E, E, E, const vector[unsigned]&, bool) | conv2d(E(x), E(f), E(b), UV(stride), is_valid)
maxpooling2d(x, ksize, stride, is_valid=True) | maxpooling2d(E, const vector[unsigned]&, const vector[unsigned]&, bool) | maxpooling2d(E(x), UV(ksize), UV(stride), is_valid)
vanilla_lstm_gates(x_t, h_tm1, Wx, Wh, b, weightnoise_std=0.0) | vanilla_lstm_gates(E, E, E, E, E, float) | vanilla_lstm_gates(E(x_t), E(h_tm1), E(Wx), E(Wh), E(b), F(weightnoise_std))
vanilla_lstm_gates_concat(x_t, h_tm1, Wx, Wh, b, weightnoise_std=0.0) | vanilla_lstm_gates_concat(ES, E, E, E, E, float) | vanilla_lstm_gates_concat(ES(x_t), E(h_tm1), E(Wx), E(Wh), E(b), F(weightnoise_std))
vanilla_lstm_gates_dropout(x_t, h_tm1, Wx, Wh, b, dropout_mask_x, dropout_mask_h, weightnoise_std=0.0) | vanilla_lstm_gates_dropout(E, E, E, E, E, E, E, float) | vanilla_lstm_gates_dropout(E(x_t), E(h_tm1), E(Wx), E(Wh), E(b), E(dropout_mask_x), E(dropout_mask_h), F(weightnoise_std))
vanilla_lstm_gates_dropout_concat(x_t, h_tm1, Wx, Wh, b, dropout_mask_x, dropout_mask_h, weightnoise_std=0.0) | vanilla_lstm_gates_dropout_concat(ES, E, E, E, E, E, E, float) | vanilla_lstm_gates_dropout_concat(ES(x_t), E(h_tm1), E(Wx), E(Wh), E(b), E(dropout_mask_x), E(dropout_mask_h), F(weightnoise_std))
vanilla_lstm_c(c_tm1, gates_t) | vanilla_lstm_c(E, E) | vanilla_lstm_c(E(c_tm1), E(gates_t))
vanilla_lstm_h(c_t, gates_t) | vanilla_lstm_h(E, E) | vanilla_lstm_h(E(c_t), E(gates_t))
zeros(dim, batch_size=1) | zeros(CComputationGraph&, const CDim&) | zeros(G, D(dim, batch_size))
zeroes(dim, batch_size=1) | zeroes(CComputationGraph&, const CDim&) | zeroes(G, D(dim, batch_size))
ones(dim, batch_size=1) | ones(CComputationGraph&, const CDim&) | ones(G, D(dim, batch_size))
constant(dim, val, batch_size=1) | constant(CComputationGraph&, const CDim&, float) | constant(G, D(dim, batch_size), F(val))
random_normal(dim, mean=0.0, stddev=1.0, batch_size=1) | random_normal(CComputationGraph&, const CDim&, float, float) | random_normal(G, D(dim, batch_size), F(mean), F(stddev))
random_bernoulli(dim, p, scale=1.0, batch_size=1) | random_bernoulli(CComputationGraph&, const CDim&, float, float) | random_bernoulli(G, D(dim, batch_size), F(p), F(scale))
random_uniform(dim, left, right, batch_size=1) | random_uniform(CComputationGraph&, const CDim&, float, float) | random_uniform(G, D(dim, batch_size), F(left), F(right))
random_gumbel(dim, mu=0.0, beta=1.0, batch_size=1) | random_gumbel(CComputationGraph&, const CDim&, float, float) | random_gumbel(G, D(dim, batch_size), F(mu), F(beta))
scalarInput(s, device="") | input(CComputationGraph&, float) | input(G, F(s))
one_hot(d, idx, device="") | one_hot(CComputationGraph&, unsigned, const vector[unsigned]&) | one_hot(G, U(d), UV(idx))
"""

# Ops whose expressions are of a settable class of _dynet.pyx (DyNet's reusable graphs).
SETTABLE = {"scalarInput": "_inputExpression", "pick": "_pickerExpression", "pick_batch": "_pickerExpression",
            "hinge": "_hingeExpression", "hinge_batch": "_hingeExpression"}

EXPAND = [(r"\bE\(([^()]*)\)", r"_ex(\1)[0]"), (r"\bES\(([^(),]*)\)", r"_exs_scratch(\1, None)[0]"),
          (r"\bES\(([^()]*)\)", r"_exs_scratch(\1)[0]"), (r"\bUV\(([^()]*)\)", r"_uv(\1)"),
          (r"\bIV\(([^()]*)\)", r"_iv(\1)"), (r"\bU\(([^()]*)\)", r"<unsigned>_index(\1)"), (r"\bF\(([^()]*)\)", r"<float>(\1)"),
          (r"\bD\(([^()]*)\)", r"_dim(\1)"), (r"\bG\b", r"_graph()[0]")]
DECL_TYPES = {"E": "const CExpression&", "ES": "const vector[CExpression]&"}


def rows():
    for name in UNARY:
        if name == "transpose_default":
            continue
        yield name, "x", "%s(E)" % name, "%s(E(x))" % name
    for py, cpp in BINARY:
        a, b = BINARY_PARAMETERS.get(py, ("x", "y"))
        yield py, "%s, %s" % (a, b), "%s(E, E)" % cpp, "%s(E(%s), E(%s))" % (cpp, a, b)
    for py, cpp in LISTS:
        yield py, "xs", "%s(ES)" % cpp, "%s(ES(xs, %r))" % (cpp, py)
    for line in OTHER.strip().splitlines():
        sig, decl, call = [part.strip() for part in line.split("|")]
        name, params = re.match(r"(\w+)\((.*)\)$", sig).groups()
        yield name, params, decl, call


def declaration(decl):
    """'pick(E, unsigned)' as a Cython extern declaration of an overload of dynet::pick."""
    cpp, params = re.match(r"(\w+)\((.*)\)$", decl).groups()
    types = [DECL_TYPES.get(t.strip(), t.strip()) for t in params.split(",")]
    return cpp, "(%s)" % ", ".join(types)


def expand(call):
    for pattern, repl in EXPAND:
        call = re.sub(pattern, repl, call)
    return call


# Trainers: class, then the constructor's settings after the model with their defaults, passed in
# order to its constructor. The defaults are those of DyNet 2.1's Python classes, which differ from
# its C++ ones (and the library's) for RMSPropTrainer (0.001, 1e-8, 0.9 against 0.1, 1e-20, 0.95)
# and CyclicalSGDTrainer (gamma 1, no decay, against 0).
TRAINERS = """
SimpleSGDTrainer(m, learning_rate=0.1)
CyclicalSGDTrainer(m, learning_rate_min=0.01, learning_rate_max=0.1, step_size=2000, gamma=1.0, edecay=0.0)
MomentumSGDTrainer(m, learning_rate=0.01, mom=0.9)
AdagradTrainer(m, learning_rate=0.1, eps=1e-20)
AdadeltaTrainer(m, eps=1e-6, rho=0.95)
RMSPropTrainer(m, learning_rate=0.001, eps=1e-8, rho=0.9)
AdamTrainer(m, alpha=0.001, beta_1=0.9, beta_2=0.999, eps=1e-8)
AmsgradTrainer(m, alpha=0.001, beta_1=0.9, beta_2=0.999, eps=1e-8)
"""


def trainers():
    out = ["# Generated by python/tools/gen_bindings.py from its TRAINERS table; do not edit."]
    for line in TRAINERS.strip().splitlines():
        name, params = re.match(r"(\w+)\((.*)\)$", line).groups()
        names = [p.split("=")[0].strip() for p in params.split(",")]
        out.append("class %s(Trainer):\n    def __init__(self, %s):\n        self._make(%r, %s)\n"
                   % (name, params, name, ", ".join(names)))
    return "\n\n".join(out) + "\n"


def parameters(params):
    """'x, s, e, d=0' as [('x', None), ..., ('d', '0')]: each name with its default's source."""
    f = ast.parse("def f(%s): pass" % params).body[0].args
    defaults = [None] * (len(f.args) - len(f.defaults)) + [ast.unparse(d) for d in f.defaults]
    return [(a.arg, d) for a, d in zip(f.args, defaults)]


def ops():
    """An op of one argument is a def (Cython makes it METH_O). An op of more is an inline body, a
    def that binds keywords and reports bad calls, and a METH_FASTCALL function (_fast_function in
    _dynet.pyx) that runs positional calls itself, passes the others to the def, and takes the
    op's name in the module."""
    decls, defs, fast = {}, [], []
    for name, params, decl, call in rows():
        cpp, types = declaration(decl)
        decls.setdefault(cpp, set()).add(types)
        cpp_call = re.match(r"(\w+)\(", call).group(1)
        body = expand(call).replace(cpp_call + "(", "op_" + cpp_call + "(", 1)
        # A `device` argument names the process's one device, where the graph is (checked only).
        check = "    _device(device)\n" if re.search(r"\bdevice\b", params) else ""
        if name in SETTABLE:
            body = "%s.__new__(%s), %s" % (SETTABLE[name], SETTABLE[name], body)
        wrap = "_wrap_into" if name in SETTABLE else "_wrap"
        args = parameters(params)
        if len(args) == 1 and args[0][1] is None:
            defs.append("def %s(%s):\n%s    return %s(%s)\n" % (name, params, check, wrap, body))
            continue
        names = ", ".join(n for n, _ in args)
        required = sum(1 for _, d in args if d is None)
        stack = ", ".join("<object>args[%d]" % i if d is None else "(<object>args[%d] if nargs > %d else %s)" % (i, i, d)
                          for i, (_, d) in enumerate(args))
        defs.append("cdef inline object _%s_op(%s):\n%s    return %s(%s)\n" % (name, names, check, wrap, body))
        defs.append("def %s(%s):\n    return _%s_op(%s)\n" % (name, params, name, names))
        defs.append("cdef object _%s_fast(object self, PyObject** args, Py_ssize_t nargs, PyObject* kwnames):\n"
                    "    if kwnames == NULL and %d <= nargs <= %d:\n        return _%s_op(%s)\n"
                    "    return PyObject_Vectorcall(_keyword_calls[%d], args, nargs, kwnames)\n"
                    % (name, required, len(args), name, stack, len(fast)))
        fast.append((name, params))
    lines = ["# Generated by python/tools/gen_bindings.py from its tables; do not edit.",
             'cdef extern from "<dybatch.h>" namespace "dynet":']
    for cpp in sorted(decls):
        for types in sorted(decls[cpp]):
            lines.append('    CExpression op_%s "dynet::%s"%s except +' % (cpp, cpp, types))
    binding = ["cdef PyMethodDef _fast_slots[%d]" % len(fast),
               "cdef list _keyword_calls = [%s]" % ", ".join(n for n, _ in fast)]
    for i, (name, params) in enumerate(fast):
        signature = ("%s(%s)\n--\n\n" % (name, params)).encode()
        binding.append("%s = _fast_function(&_fast_slots[%d], b%r, _%s_fast, %r)" % (name, i, name,
                                                                                      name, signature))
    return "\n".join(lines) + "\n\n\n" + "\n\n".join(defs) + "\n\n" + "\n".join(binding) + "\n"


def main(out_dir):
    for name, text in (("ops.pxi", ops()), ("trainers.pxi", trainers())):
        with open(os.path.join(out_dir, name), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main(sys.argv[1])
