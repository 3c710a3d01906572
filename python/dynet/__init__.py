"""DyNet's Python API over dybatch (`import dynet as dy`). Importing it starts the library: from
dynet_config.set(...) when that was called before, otherwise from the --dynet-* flags of sys.argv,
which are removed from it."""
import dynet_config as _config

from dynet import _dynet
from dynet._dynet import *  # noqa: F401,F403
from dynet._dynet import _cg_object, _RNNBuilder  # noqa: F401


def _start():
    params = _dynet.DynetParams()
    conf = _config.get()
    if conf is not None:
        params.from_config(conf)
    else:
        params.from_args()
    _dynet.init_from_params(params)


_start()
