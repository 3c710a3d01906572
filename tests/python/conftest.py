"""The suite imports the package built in <build>/python (tests/CMakeLists.txt sets PYTHONPATH).
DYBATCH_TEST_DEVICE chooses the device, as the C++ suite's first flag does: `guarded`, the CPU
device that closes its memory to the host, where the binding's host access to device memory
crashes as it would misread on a GPU; `gpu`, GPU:0 (bench/gpu/run-on-gpu)."""
import os

import numpy as np
import pytest

_device = os.environ.get("DYBATCH_TEST_DEVICE", "")
if _device:
    import dynet_config

    dynet_config.set()
    if _device == "gpu":
        dynet_config.set_gpu()
    elif _device == "guarded":
        dynet_config._settings["_guard_device_memory"] = True
    else:
        raise ValueError("DYBATCH_TEST_DEVICE=%s: expected guarded or gpu" % _device)

import dynet as dy  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_graph():
    dy.renew_cg()
    yield


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
