"""DyNet's Python API over dybatch (`import dynet as dy`). Importing it starts the library: from
dynet_config.set(...) when that was called before, otherwise from the --dynet-* flags of sys.argv,
which stay there, as in DyNet. As DyNet's module, it takes --dynet-viz out of sys.argv, and reads
--dynet-gpu (GPU:0) where it stays."""
import sys
import warnings

import dynet_config as _config

from dynet import _dynet
from dynet._dynet import *  # noqa: F401,F403
from dynet._dynet import _cg_object, _RNNBuilder  # noqa: F401

__version__ = "2.1"


def print_graphviz(**kwargs):
    """DyNet's stand-in for its visualisation module (dynet_viz), which this package does not have."""
    print("Run with --dynet-viz to get the visualization behavior.")


def _take_switch(name):
    if name not in sys.argv:
        return False
    sys.argv.remove(name)
    return True


def _start():
    if _take_switch("--dynet-viz"):
        warnings.warn("--dynet-viz: DyNet's visualisation module (dynet_viz) is not part of this package; "
                      "the program runs without it, and print_graphviz() draws nothing", RuntimeWarning)
    gpu = "--dynet-gpu" in sys.argv or "--dynet_gpu" in sys.argv  # DyNet's switch for its GPU module: GPU:0
    params = _dynet.DynetParams()
    conf = _config.get()
    if conf is not None:
        params.from_config(conf)
    else:
        params.from_args()
    if gpu and not _dynet._requested_gpu_ids(params):
        params.set_requested_gpus(1)
    _dynet.init_from_params(params)


_start()
