#!/bin/sh
# The README's pip install, checked: into a venv that sees Debian's packages (Debian's pip installs
# nowhere else, PEP 668), offline (--no-index, --no-build-isolation), reusing this build's library
# and extension (DYBATCH_BUILD_DIR). Then, from outside the source tree and without PYTHONPATH,
# `import dynet` must find the venv's copy, and examples/python/xor.py must learn (it exits non-zero
# otherwise). The package's files are copied first, so that pip's build folders land in `work`
# rather than in the source tree.
# usage: pip_install_check.sh PYTHON SOURCE_DIR BUILD_DIR WORK_DIR
set -eu
python=$1 source=$2 build=$3 work=$4
rm -rf "$work"
mkdir -p "$work/python"
cp "$source/python/setup.py" "$source/python/dynet_config.py" "$work/python/"
cp -r "$source/python/dynet" "$work/python/dynet"
"$python" -m venv --system-site-packages "$work/env"
DYBATCH_BUILD_DIR="$build" "$work/env/bin/pip" install -q --no-index --no-build-isolation "$work/python"
cd "$work"
unset PYTHONPATH
"$work/env/bin/python" - "$work/env" <<'PY'
import os, sys
import dynet, dynet_config
venv = os.path.realpath(sys.argv[1])
for module in (dynet, dynet_config):
    where = os.path.realpath(module.__file__)
    if not where.startswith(venv + os.sep):
        sys.exit("%s was imported from %s, not from the venv %s" % (module.__name__, where, venv))
print("dynet imported from", os.path.dirname(os.path.realpath(dynet.__file__)))
PY
"$work/env/bin/python" "$source/examples/python/xor.py" --dynet-seed 1
