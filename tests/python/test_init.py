"""How `import dynet` starts the library: from dynet_config.set() before it, else from sys.argv's
--dynet-* flags, which stay there as DyNet leaves them. Each case runs in a fresh interpreter."""
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


def test_flags_are_read_and_left_in_argv():
    # As DyNet's from_args: programs that parse their own arguments see --dynet-seed too.
    out = run("import sys; import dynet as dy; print(sys.argv[1:]); print(dy.random_normal(3).vec_value())",
              "--dynet-seed", "7", "--keep", "me")
    argv, draw = out.splitlines()
    assert argv == "['--dynet-seed', '7', '--keep', 'me']"
    assert draw == run(DRAW, "--dynet-seed", "7")
    assert draw != run(DRAW, "--dynet-seed", "8")


def test_dynet_s_other_spellings_and_switches():
    # underscores, as DyNet reads --dynet_seed; --dynet-viz is taken out with a warning
    out = run("import sys, warnings; warnings.simplefilter('ignore'); import dynet as dy; print(sys.argv[1:]); "
              "print(dy.random_normal(3).vec_value()); dy.print_graphviz(); print(dy.__version__)",
              "--dynet_seed", "7", "--dynet-viz", "--keep")
    argv, draw, viz, version = out.splitlines()
    assert argv == "['--dynet_seed', '7', '--keep']" and draw == run(DRAW, "--dynet-seed", "7")
    assert "--dynet-viz" in viz and version == "2.1"
    # --dynet-gpu asks for GPU:0, as --dynet-gpus 1 does
    gpu = subprocess.run([sys.executable, "-c", DEVICES, "--dynet-gpu"], capture_output=True, text=True)
    ref = subprocess.run([sys.executable, "-c", DEVICES, "--dynet-gpus", "1"], capture_output=True, text=True)
    assert gpu.returncode == ref.returncode and gpu.stdout == ref.stdout
    assert gpu.stderr.strip().splitlines()[-1:] == ref.stderr.strip().splitlines()[-1:]


def test_dynet_config_set_before_import():
    code = "import dynet_config; dynet_config.set(random_seed=%d, autobatch=1); " + DRAW
    assert run(code % 7) == run(DRAW, "--dynet-seed", "7")
    assert run(code % 7) != run(code % 9)
    autobatch = run("import dynet_config; dynet_config.set(autobatch=2); import dynet as dy; "
                    "print(dy.cg().version() >= 0)")
    assert autobatch == "True"


def python_error(code, *args):
    """The last line of stderr of a program that must fail with a Python exception."""
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    assert out.returncode == 1 and "Segmentation" not in out.stderr, out.stderr
    return out.stderr.strip().splitlines()[-1]


DEVICES = "import dynet as dy; print(dy.available_devices())"


@pytest.mark.parametrize("ask", ["import dynet_config; dynet_config.set_gpu(); ",
                                 "import dynet_config; dynet_config.set(requested_gpus=1); ",
                                 "import dynet_config; dynet_config.set(gpu_mask=[1]); "])
def test_a_gpu_asked_for_is_the_library_s_device(ask):
    """GPU:0 where the build has CUDA and the machine a GPU; elsewhere the library's error."""
    out = subprocess.run([sys.executable, "-c", ask + DEVICES], capture_output=True, text=True)
    if out.returncode == 0:
        assert out.stdout.strip() == "['GPU:0']"
    else:
        last = out.stderr.strip().splitlines()[-1]
        assert out.returncode == 1 and "GPU:0" in last and last.split(":")[0] in ("RuntimeError", "ValueError")


def test_gpu_choices_reach_the_library():
    assert run(DEVICES, "--dynet-devices", "CPU") == "['CPU']"
    # More than one GPU: the library runs a process on one device and says so.
    for ask in ("import dynet_config; dynet_config.set(requested_gpus=2); import dynet",
                "import dynet_config; dynet_config.set(gpu_mask=[1, 1]); import dynet"):
        error = python_error(ask)
        assert error.startswith("ValueError") and "one GPU at a time" in error
    assert "one GPU at a time" in python_error("import dynet", "--dynet-gpus", "2")
    # The ids DynetParams ask for, as DyNet reads them; cpu_mode keeps the CPU whatever else asks.
    import dynet as dy
    p = dy.DynetParams()
    assert dy._dynet._requested_gpu_ids(p) == []
    p.set_requested_gpus(2)
    assert dy._dynet._requested_gpu_ids(p) == [0, 1]
    p.set_gpu_mask([0, 1, 0, 1])
    assert dy._dynet._requested_gpu_ids(p) == [1, 3]
    p.set_cpu_mode()
    assert dy._dynet._requested_gpu_ids(p) == []


def test_bad_flag_is_a_python_error():
    out = subprocess.run([sys.executable, "-c", "import dynet", "--dynet-autobatch", "9"], capture_output=True,
                         text=True)
    assert out.returncode != 0 and "Error" in out.stderr and "Segmentation" not in out.stderr


def test_profiling_counts_the_program_s_last_graph():
    # The global graph ends at exit, as a C++ program's graph does when destroyed: a program of one
    # graph and no renew_cg gets its step and the table.
    code = ("import dynet as dy; m = dy.ParameterCollection(); W = m.add_parameters((3, 3)); "
            "l = dy.sum_elems(dy.tanh(W * dy.inputVector([1, 2, 3]))); l.value(); l.backward()")
    out = subprocess.run([sys.executable, "-c", code, "--dynet-profiling", "1"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "dybatch profile: 1 training steps" in out.stderr
