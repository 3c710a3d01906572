"""How `import dynet` starts the library: from dynet_config.set() before it, else from sys.argv's
--dynet-* flags, which it removes. Each case runs in a fresh interpreter."""
import os
import subprocess
import sys

import pytest


def run(code, *args):
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


DRAW = "import dynet as dy; print(dy.random_normal(3).vec_value())"


def test_flags_are_read_and_removed_from_argv():
    out = run("import sys; import dynet as dy; print(sys.argv[1:]); print(dy.random_normal(3).vec_value())",
              "--dynet-seed", "7", "--keep", "me")
    argv, draw = out.splitlines()
    assert argv == "['--keep', 'me']"
    assert draw == run(DRAW, "--dynet-seed", "7")
    assert draw != run(DRAW, "--dynet-seed", "8")


def test_dynet_config_set_before_import():
    code = "import dynet_config; dynet_config.set(random_seed=%d, autobatch=1); " + DRAW
    assert run(code % 7) == run(DRAW, "--dynet-seed", "7")
    assert run(code % 7) != run(code % 9)
    autobatch = run("import dynet_config; dynet_config.set(autobatch=2); import dynet as dy; "
                    "print(dy.cg().version() >= 0)")
    assert autobatch == "True"


def test_gpu_request_is_refused_clearly():
    out = subprocess.run([sys.executable, "-c", "import dynet_config; dynet_config.set_gpu(); import dynet"],
                         capture_output=True, text=True)
    assert out.returncode != 0 and "NotImplementedError" in out.stderr


def test_bad_flag_is_a_python_error():
    out = subprocess.run([sys.executable, "-c", "import dynet", "--dynet-autobatch", "9"], capture_output=True,
                         text=True)
    assert out.returncode != 0 and "Error" in out.stderr and "Segmentation" not in out.stderr
