"""`pip install sdk/python` and `pip wheel sdk/python`: build libamxqa with CMake and ship it.

The package is pure Python (ctypes), but a wheel of it alone would not answer anything:
build_py here also configures the checkout this folder sits in (../..), builds only the
shared library target (amxqa_shared) with -j2, and copies into the package
  amxqa/libamxqa.so            the library (_locate.py looks beside the package first)
  amxqa/models/default.amxqa   the default model, its MODEL_CARD.md and calibration.json
so `amxqa.Model(amxqa.default_model())` answers with no environment variables. The wheel
is tagged for this platform (it holds a native library). Needs cmake, a C++17 compiler
and the build dependencies of sdk/setup-deps.sh; no network (Debian's python3-setuptools
and python3-wheel with --no-build-isolation). $AMXQA_SOURCE_DIR names another checkout,
$AMXQA_BUILD_JOBS the build's parallelism (default 2).
"""
import os
import pathlib
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = pathlib.Path(__file__).resolve().parent
# What the wheel carries from sdk/models (the default model and what documents it).
MODEL_FILES = ("default.amxqa", "MODEL_CARD.md", "calibration.json")


def source_root():
    root = pathlib.Path(os.environ.get("AMXQA_SOURCE_DIR") or HERE.parent.parent).resolve()
    if not (root / "include" / "amxqa.h").is_file() or not (root / "CMakeLists.txt").is_file():
        raise RuntimeError("amxqa: %s is not a libamxqa checkout (pip must build sdk/python in place, "
                           "inside the checkout; or set AMXQA_SOURCE_DIR)" % root)
    return root


class BuildPyWithLibrary(build_py):
    """build_py, then libamxqa.so and the default model into the built package."""

    def run(self):
        super().run()
        root = source_root()
        build_temp = pathlib.Path(self.get_finalized_command("build").build_temp).resolve()
        cmake_dir = build_temp / "libamxqa"
        # Only the runtime: no CLI, tests, bench, samples or trainer (and none of their dependencies).
        self.spawn(["cmake", "-S", str(root), "-B", str(cmake_dir), "-DCMAKE_BUILD_TYPE=Release",
                    "-DAMXQA_BUILD_CLI=OFF", "-DAMXQA_BUILD_TESTS=OFF", "-DAMXQA_BUILD_BENCH=OFF",
                    "-DAMXQA_BUILD_SAMPLES=OFF", "-DAMXQA_BUILD_TRAINER=OFF"])
        self.spawn(["cmake", "--build", str(cmake_dir), "--target", "amxqa_shared",
                    "-j", os.environ.get("AMXQA_BUILD_JOBS", "2")])
        package = pathlib.Path(self.build_lib) / "amxqa"
        # The real file, not the SONAME symlink chain: a wheel stores no symlinks.
        shutil.copyfile(os.path.realpath(cmake_dir / "lib" / "libamxqa.so"), package / "libamxqa.so")
        models = package / "models"
        models.mkdir(exist_ok=True)
        for name in MODEL_FILES:
            shutil.copyfile(root / "sdk" / "models" / name, models / name)


class NativeDistribution(Distribution):
    """A distribution with a native library: the wheel gets this platform's tag."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildPyWithLibrary}, distclass=NativeDistribution)
