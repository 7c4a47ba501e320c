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

Nothing is written into the checkout: setuptools' build/ and amxqa.egg-info go to a
temporary folder removed when the build ends, and so does the CMake build of libamxqa
unless $AMXQA_BUILD_DIR names a folder to keep it in and reuse (`pip wheel` after `pip
install`). A kept folder configured from another checkout (one that was moved or copied)
has its CMake cache replaced, not reused: CMake refuses a cache of another source folder.
"""
import atexit
import os
import pathlib
import shutil
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = pathlib.Path(__file__).resolve().parent
# What the wheel carries from sdk/models (the default model and what documents it).
MODEL_FILES = ("default.amxqa", "MODEL_CARD.md", "calibration.json")
# This build's scratch folder, outside the checkout (see the top of this file).
SCRATCH = pathlib.Path(tempfile.mkdtemp(prefix="amxqa-pip-"))
atexit.register(shutil.rmtree, SCRATCH, True)


def source_root():
    root = pathlib.Path(os.environ.get("AMXQA_SOURCE_DIR") or HERE.parent.parent).resolve()
    if not (root / "include" / "amxqa.h").is_file() or not (root / "CMakeLists.txt").is_file():
        raise RuntimeError("amxqa: %s is not a libamxqa checkout (pip must build sdk/python in place, "
                           "inside the checkout; or set AMXQA_SOURCE_DIR)" % root)
    return root


def cmake_source(build_dir):
    """CMAKE_HOME_DIRECTORY of the folder's CMakeCache.txt, or None."""
    try:
        with open(build_dir / "CMakeCache.txt", encoding="utf-8", errors="replace") as cache:
            for line in cache:
                if line.startswith("CMAKE_HOME_DIRECTORY:INTERNAL="):
                    return pathlib.Path(line.split("=", 1)[1].strip()).resolve()
    except OSError:
        pass
    return None


def cmake_build_dir(root):
    """Where libamxqa is built: $AMXQA_BUILD_DIR (kept), else inside SCRATCH."""
    kept = os.environ.get("AMXQA_BUILD_DIR")
    if not kept:
        return SCRATCH / "libamxqa"
    build_dir = pathlib.Path(kept).resolve()
    source = cmake_source(build_dir)
    if source is not None and source != root:
        # Configured from another checkout: drop its cache (CMake's own advice), keep nothing of it.
        print("amxqa: %s was configured from %s, not %s: replacing its CMake cache" % (build_dir, source, root))
        (build_dir / "CMakeCache.txt").unlink()
        shutil.rmtree(build_dir / "CMakeFiles", ignore_errors=True)
    return build_dir


class BuildPyWithLibrary(build_py):
    """build_py, then libamxqa.so and the default model into the built package."""

    def run(self):
        super().run()
        root = source_root()
        cmake_dir = cmake_build_dir(root)
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


setup(cmdclass={"build_py": BuildPyWithLibrary}, distclass=NativeDistribution,
      options={"build": {"build_base": str(SCRATCH / "build")}, "egg_info": {"egg_base": str(SCRATCH)}})
