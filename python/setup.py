"""pip install ./python --no-build-isolation: builds the _dynet extension with the project's CMake
build (the library, then the extension, Release, in python/build-pip/) and installs the dynet and
dynet_config modules. Offline: it needs only Debian's setuptools, cmake, cython3, numpy and the
library's build dependencies (scripts/install-deps). DYBATCH_BUILD_DIR=<a configured build folder>
reuses that build instead (only its dynet_python target is built)."""
import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


class CMakeExtension(Extension):
    def __init__(self, name):
        Extension.__init__(self, name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
        build = os.environ.get("DYBATCH_BUILD_DIR")
        if build:
            build = os.path.abspath(os.path.join(ROOT, build))
        else:
            build = os.path.join(HERE, "build-pip")
            subprocess.check_call(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DDYBATCH_TESTS=OFF",
                                   "-DDYBATCH_BENCH=OFF", "-DDYBATCH_EXAMPLES=OFF", "-DDYBATCH_PYTHON=ON",
                                   "-DPython3_EXECUTABLE=" + sys.executable])
        subprocess.check_call(["cmake", "--build", build, "--target", "dynet_python", "-j", jobs])
        built = glob.glob(os.path.join(build, "python", "dynet", "_dynet*.so"))
        if not built:
            raise RuntimeError("the CMake build made no _dynet module (is cython3 installed? see scripts/install-deps)")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    name="dynet",
    version="0.1.0",
    description="DyNet's Python API over dybatch, a C++ toolkit for dynamic neural networks with automatic batching",
    license="Apache-2.0",
    packages=["dynet"],
    py_modules=["dynet_config"],
    ext_modules=[CMakeExtension("dynet._dynet")],
    cmdclass={"build_ext": CMakeBuild},
    install_requires=["numpy"],
    zip_safe=False,
)
