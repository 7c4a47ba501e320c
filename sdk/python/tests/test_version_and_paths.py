"""amxqa.__version__, and where an installed package finds libamxqa and the model."""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

import amxqa

from _support import MODEL, requires_model

PACKAGE = pathlib.Path(amxqa.__file__).resolve().parent


class VersionTest(unittest.TestCase):
    def test_package_version_is_the_library_release(self):
        self.assertRegex(amxqa.__version__, r"^\d+\.\d+\.\d+$")
        # 0.x: the ABI may change between minor versions, so they must agree.
        self.assertEqual(amxqa.__version__.split(".")[:2], amxqa.version().split(".")[:2])


@requires_model
class InstalledLayoutTest(unittest.TestCase):
    """A prefix laid out as cmake --install does, in a temporary folder."""

    def test_finds_library_and_model_under_its_prefix(self):
        with tempfile.TemporaryDirectory() as prefix:
            prefix = pathlib.Path(prefix)
            pkg = prefix / "lib" / "python3" / "dist-packages" / "amxqa"
            shutil.copytree(PACKAGE, pkg, ignore=shutil.ignore_patterns("__pycache__"))
            shutil.copy(amxqa.library_path(), prefix / "lib" / "libamxqa.so")
            (prefix / "share" / "amxqa").mkdir(parents=True)
            shutil.copy(MODEL, prefix / "share" / "amxqa" / "default.amxqa")
            env = {k: v for k, v in os.environ.items() if k not in ("AMXQA_LIBRARY", "AMXQA_MODEL")}
            env["PYTHONPATH"] = str(pkg.parent)
            out = subprocess.run(
                [sys.executable, "-c", "import amxqa; print(amxqa.library_path()); print(amxqa.default_model());"
                 "print(amxqa.Model(amxqa.default_model()).info['recipe'])"],
                cwd=prefix, env=env, capture_output=True, text=True, check=True).stdout.splitlines()
            self.assertEqual(out, [str(prefix / "lib" / "libamxqa.so"),
                                   str(prefix / "share" / "amxqa" / "default.amxqa"), "random-tiny"])

    def test_environment_wins(self):
        env = dict(os.environ, AMXQA_MODEL="/elsewhere/m.amxqa")
        out = subprocess.run([sys.executable, "-c", "import amxqa; print(amxqa.default_model())"], env=env,
                             capture_output=True, text=True, check=True).stdout.strip()
        self.assertEqual(out, "/elsewhere/m.amxqa")


if __name__ == "__main__":
    unittest.main()
