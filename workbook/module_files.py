"""Loading a Python file that is not on the import path (the lab manifest, a lab's mistake bank) as a module."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path


def load_module(name: str, path: Path) -> types.ModuleType:
    """``path`` executed as module ``name``, registered in ``sys.modules`` first (a dataclass looks its module up
    while its class is built). Raises ``ImportError`` naming ``path`` when it cannot be loaded as Python."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path}: not a Python file that can be loaded as {name}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]  # no half-built module left behind for the next import
        raise
    return module
