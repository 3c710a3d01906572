"""Every name of DyNet 2.1's Python API (api_surface.txt) exists in the module, and dynet_config
offers DyNet's functions."""
import os

import pytest

import dynet as dy
import dynet_config

# Python 2's division hook: Python 3 never calls it (a / b is __truediv__, which Expression has).
PYTHON2_ONLY = {"Expression.__div__"}
NAMES = [l.strip() for l in open(os.path.join(os.path.dirname(__file__), "api_surface.txt"))
         if l.strip() and not l.startswith("#") and l.strip() not in PYTHON2_ONLY]


@pytest.mark.parametrize("name", NAMES)
def test_name_exists(name):
    obj = dy
    for part in name.split("."):
        assert hasattr(obj, part), name
        obj = getattr(obj, part)


def test_value_holders():
    v = dy.FloatVectorValue([1, 2])
    assert v.get() == [1.0, 2.0] and v.size() == 2
    u = dy.UnsignedValue()
    u.set(3)
    assert u.get() == 3


def test_dynet_config_functions():
    for f in ("set", "set_gpu", "gpu", "get"):
        assert callable(getattr(dynet_config, f))
