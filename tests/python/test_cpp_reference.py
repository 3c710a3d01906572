"""What `import dynet` computes equals what the same program computes in C++ (cpp_reference.cc,
whose path CPP_REFERENCE gives): every trainer's steps, and values and gradients of random graphs."""
import os
import subprocess

import numpy as np
import pytest

import dynet as dy

BINARY = os.environ.get("CPP_REFERENCE", "")
pytestmark = pytest.mark.skipif(not os.path.exists(BINARY), reason="CPP_REFERENCE names no built cpp_reference")

TRAINERS = ["SimpleSGDTrainer", "CyclicalSGDTrainer", "MomentumSGDTrainer", "AdagradTrainer", "AdadeltaTrainer",
            "RMSPropTrainer", "AdamTrainer", "AmsgradTrainer"]


def cpp(*args):
    out = subprocess.run([BINARY, *args], capture_output=True, text=True, check=True).stdout
    return {line.split()[0]: np.array([float(v) for v in line.split()[1:]]) for line in out.splitlines()}


@pytest.mark.parametrize("name", TRAINERS)
def test_trainer_steps_equal_cpp(name):
    m = dy.ParameterCollection()
    w = m.add_parameters(3, init=np.array([1, -2, 3], np.float32))
    e = m.add_lookup_parameters((4, 2), init=np.array([[.1, .2], [.3, .4], [.5, .6], [.7, .8]], np.float32))
    # The C++ defaults: DyNet's module has others for these two, as it does.
    cpp_settings = {"RMSPropTrainer": dict(learning_rate=0.1, eps=1e-20, rho=0.95),
                    "CyclicalSGDTrainer": dict(gamma=0.0)}
    t = getattr(dy, name)(m, **cpp_settings.get(name, {}))
    for _ in range(3):
        dy.renew_cg()
        loss = dy.squared_norm(w) + dy.sum_elems(dy.cmult(e[1], e[3]))
        loss.forward()
        loss.backward()
        t.update()
    ref = cpp("trainer", name)
    np.testing.assert_array_equal(w.as_array(), ref["w"].astype(np.float32))
    np.testing.assert_array_equal(e.as_array().ravel(), ref["e"].astype(np.float32))


OPS = ["W", "b", "tanh", "logistic", "square", "cmult", "softmax", "rectify"]


@pytest.mark.parametrize("seed", range(8))
def test_random_graph_values_and_gradients_equal_cpp(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 6))
    ops = list(rng.choice(OPS, size=int(rng.integers(3, 9))))
    x = rng.uniform(-1, 1, n).astype(np.float32)
    W = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b = rng.uniform(-1, 1, n).astype(np.float32)
    m = dy.ParameterCollection()
    Wp, bp = m.add_parameters((n, n), init=W), m.add_parameters(n, init=b)
    xe = dy.inputTensor(x)
    h = xe
    for op in ops:
        h = {"W": lambda: Wp * h, "b": lambda: h + bp, "cmult": lambda: dy.cmult(h, xe)}.get(op, lambda: getattr(dy, op)(h))()
    loss = dy.sum_elems(h)
    value = loss.scalar_value()
    loss.backward(full=True)

    def csv(a):
        return ",".join("%.9g" % v for v in np.asarray(a).ravel(order="F"))

    ref = cpp("graph", ",".join(ops), csv(x), csv(W), csv(b))
    assert np.float32(value) == np.float32(ref["loss"][0])
    np.testing.assert_array_equal(Wp.grad_as_array().ravel(order="F"), ref["dW"].astype(np.float32))
    np.testing.assert_array_equal(bp.grad_as_array(), ref["db"].astype(np.float32))
    np.testing.assert_array_equal(xe.gradient(), ref["dx"].astype(np.float32))
