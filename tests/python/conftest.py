"""The suite imports the package built in <build>/python (tests/CMakeLists.txt sets PYTHONPATH)."""
import numpy as np
import pytest

import dynet as dy


@pytest.fixture(autouse=True)
def fresh_graph():
    dy.renew_cg()
    yield


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
