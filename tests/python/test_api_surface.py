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


SIGNATURES = [l.strip() for l in open(os.path.join(os.path.dirname(__file__), "api_signatures.txt"))
              if l.strip() and not l.startswith("#")]


def test_functions_take_dynet_s_parameters():
    """Where Python can read a function's signature (every op of several arguments, the Python
    functions), its parameters are DyNet's, by name and order, and DyNet's defaults are its defaults;
    it may default a parameter DyNet requires. A keyword call written for DyNet then works."""
    import ast
    import inspect
    import re
    checked, wrong = 0, []
    for line in SIGNATURES:
        name, params = re.match(r"([\w.]+)\((.*)\)$", line).groups()
        f = getattr(dynet_config if name.startswith("dynet_config.") else dy, name.split(".")[-1])
        try:
            ours = inspect.signature(f).parameters
        except (TypeError, ValueError):  # a Cython def of one argument, as DyNet's: no keywords
            continue
        theirs = ast.parse("def f(%s): pass" % params).body[0].args
        names = [a.arg for a in theirs.args] + ([theirs.vararg.arg] if theirs.vararg else [])
        defaults = dict(zip([a.arg for a in theirs.args][len(theirs.args) - len(theirs.defaults):],
                            [ast.literal_eval(d) for d in theirs.defaults]))
        checked += 1
        if list(ours) != names or any(ours[n].default != d for n, d in defaults.items()):
            wrong.append("%s: DyNet's (%s), this module's %s" % (name, params, inspect.signature(f)))
    assert checked > 80 and not wrong, "\n".join(wrong)
