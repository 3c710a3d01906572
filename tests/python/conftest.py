"""The suite imports the package built in <build>/python (tests/CMakeLists.txt sets PYTHONPATH).
With DYBATCH_GUARDED_DEVICE=1 it runs on the CPU device that closes its memory to the host, where
the binding's host access to device memory crashes as it would misread on a GPU."""
import os

import numpy as np
import pytest

if os.environ.get("DYBATCH_GUARDED_DEVICE") == "1":
    import dynet_config

    dynet_config.set()
    dynet_config._settings["_guard_device_memory"] = True

import dynet as dy  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_graph():
    dy.renew_cg()
    yield


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
