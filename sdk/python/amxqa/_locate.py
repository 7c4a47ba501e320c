"""Where the package finds libamxqa.so and the default model.

Nothing here records a path at install time: an installed prefix can be moved.

libamxqa.so, first that loads:
  1. $AMXQA_LIBRARY (used alone when set: an explicit choice is not second-guessed),
  2. beside this package (amxqa/libamxqa.so: what `pip install sdk/python` builds and bundles),
  3. the install prefix's lib dir, when the package is installed as
     <prefix>/lib/.../{dist,site}-packages/amxqa (cmake --install),
  4. the build folder of the checkout this package sits in (<repo>/build/lib),
  5. the system's library path (ctypes.util.find_library), then /usr/local/lib.

The default model: $AMXQA_MODEL, then amxqa/models/default.amxqa (what `pip install
sdk/python` bundles), then <prefix>/share/amxqa/default.amxqa (installed), then
<repo>/sdk/models/default.amxqa (a checkout).
"""
import ctypes.util
import os
import pathlib
import sysconfig

_PACKAGE = pathlib.Path(__file__).resolve().parent
_LIBRARY = "libamxqa.so"


def _install_prefix():
    """<prefix> when installed as <prefix>/lib*/.../*-packages/amxqa, else None."""
    if _PACKAGE.parent.name not in ("dist-packages", "site-packages"):
        return None
    for ancestor in _PACKAGE.parents:
        if ancestor.name.startswith("lib"):  # lib/python3/dist-packages, lib64/python3.11/site-packages
            return ancestor.parent
    return None


def _checkout():
    """The repository root when this package is sdk/python/amxqa in a checkout."""
    repo = _PACKAGE.parents[2] if len(_PACKAGE.parents) > 2 else None
    return repo if repo and (repo / "include" / "amxqa.h").is_file() else None


def library_candidates():
    env = os.environ.get("AMXQA_LIBRARY")
    if env:
        yield env
        return
    yield str(_PACKAGE / _LIBRARY)
    prefix = _install_prefix()
    if prefix is not None:
        multiarch = sysconfig.get_config_var("MULTIARCH") or ""
        for libdir in ("lib", "lib64", "lib/" + multiarch if multiarch else None):
            if libdir:
                yield str(prefix / libdir / _LIBRARY)
    repo = _checkout()
    if repo is not None:
        yield str(repo / "build" / "lib" / _LIBRARY)
    found = ctypes.util.find_library("amxqa")
    if found:
        yield found
    yield "/usr/local/lib/" + _LIBRARY


def default_model():
    """The default model's path (see the module docstring); None when there is none."""
    env = os.environ.get("AMXQA_MODEL")
    if env:
        return env
    candidates = [_PACKAGE / "models" / "default.amxqa"]
    prefix = _install_prefix()
    if prefix is not None:
        candidates.append(prefix / "share" / "amxqa" / "default.amxqa")
    repo = _checkout()
    if repo is not None:
        candidates.append(repo / "sdk" / "models" / "default.amxqa")
    for path in candidates:
        if path.is_file():
            return str(path)
    return None
