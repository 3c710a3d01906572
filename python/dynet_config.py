"""Settings for `import dynet`, given before it (DyNet's dynet_config module):

    import dynet_config
    dynet_config.set(mem=1024, random_seed=1, autobatch=1)
    import dynet as dy

Without a call to set(), `import dynet` reads the --dynet-* flags of sys.argv instead."""

_settings = {}


def set(mem="512", random_seed=0, autobatch=0, profiling=0, weight_decay=0, shared_parameters=0,
        requested_gpus=0, gpu_mask=None):
    """Records the settings `import dynet` starts the library with."""
    _settings.update(mem=str(mem), seed=int(random_seed), autobatch=int(autobatch), profiling=int(profiling),
                     weight_decay=float(weight_decay), shared_params=int(shared_parameters),
                     requested_gpus=int(requested_gpus), gpu_mask=gpu_mask)


def set_gpu(flag=True):
    """Asks for one GPU, GPU:0: `import dynet` then runs the library on it (or raises its error)."""
    if not _settings:
        set()
    _settings["requested_gpus"] = 1 if flag else 0


def gpu():
    return bool(_settings.get("requested_gpus"))


def get():
    """The recorded settings, or None when set() was never called."""
    return dict(_settings) if _settings else None
