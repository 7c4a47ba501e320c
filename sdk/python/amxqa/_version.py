"""The package version: the libamxqa release this binding mirrors (include/amxqa.h
AMXQA_VERSION_*). One place, read by __init__.py and by pyproject.toml."""
__version__ = "0.2.0"
