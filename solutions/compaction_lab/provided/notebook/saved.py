"""Your lab modules as saved: does each file compile, and is it the code this process runs?

A notebook's kernel imports ``compaction_lab/budget.py`` once; the setup cell's autoreload reloads it
when you save. When a saved file does not compile, autoreload keeps the old code and says so only in a
traceback, so checks would pass on code that is no longer in the file. ``sync`` catches that: it
compiles each saved file and compares every function and method the file defines with the code the
loaded module runs. A file that does not compile is a problem (``"compaction_lab/budget.py does not
compile: line 12: invalid syntax"``); a file that compiles but differs from the loaded code is reloaded
(as autoreload does, so names the notebook imported see the new code too), and a reload that fails is a
problem naming the error.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

PACKAGE_DIR = Path(__file__).resolve().parents[2]
"""The ``compaction_lab`` folder: your five lab modules sit here."""

_OLD_OBJECTS: dict[Any, list[Any]] = {}
"""Earlier versions of reloaded objects (weak references), kept so every version gets the new code."""


def module_file(module: str) -> Path:
    """The saved file of lab module ``module`` (``"budget"`` -> ``compaction_lab/budget.py``)."""
    return PACKAGE_DIR / f"{module}.py"


def shown(path: str | Path) -> str:
    """How a file is named to you: ``compaction_lab/budget.py`` for a file of the package, else its name."""
    path = Path(path)
    try:
        return path.resolve().relative_to(PACKAGE_DIR.parent).as_posix()
    except ValueError:
        return path.name


def syntax_problem(error: SyntaxError) -> str:
    """``compaction_lab/budget.py does not compile: line 12: invalid syntax``, then the line and a caret."""
    where = shown(error.filename) if error.filename else "your code"
    text = f"{where} does not compile: line {error.lineno}: {error.msg}"
    if error.text and error.text.strip():
        line = error.text.rstrip("\n")
        caret = " " * max(0, (error.offset or 1) - 1 - (len(line) - len(line.lstrip()))) + "^"
        text += f"\n    {line.strip()}\n    {caret}"
    return text


def load_problem(error: BaseException) -> str:
    """One sentence for an error raised while a lab module was imported: ``syntax_problem`` for a
    ``SyntaxError``, else the file and line inside the package where it was raised, its type and message."""
    if isinstance(error, SyntaxError):
        return syntax_problem(error)
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if Path(frame.filename).resolve().is_relative_to(PACKAGE_DIR)
    ]
    where = f"{shown(frames[-1].filename)} could not be imported: line {frames[-1].lineno}: " if frames else ""
    return f"{where}{type(error).__name__}: {error}"


def compile_problem(module: str) -> str | None:
    """``syntax_problem`` of lab module ``module``'s saved file, or None when it compiles."""
    try:
        _compiled(module)
    except SyntaxError as error:
        return syntax_problem(error)
    return None


def _compiled(module: str) -> CodeType:
    path = module_file(module)
    return compile(path.read_bytes(), str(path), "exec", dont_inherit=True)


def stale(module: ModuleType, compiled: CodeType) -> list[str]:
    """The functions and methods ``compiled`` (a saved file) defines whose code differs from what the
    loaded ``module`` runs (``"build_context"``, ``"Context.method"``); missing ones count as different."""
    return _differences(vars(module), compiled, "")


def _differences(namespace: dict[str, Any], code: CodeType, prefix: str) -> list[str]:
    found = []
    for name, body in _definitions(code).items():
        loaded = namespace.get(name)
        if isinstance(loaded, type):
            found += _differences(dict(vars(loaded)), body, f"{prefix}{name}.")
        elif not _runs(loaded, body):
            found.append(f"{prefix}{name}")
    return found


def _definitions(code: CodeType) -> dict[str, CodeType]:
    """The code of each function or class body ``code`` defines, by name (the last definition wins)."""
    return {
        const.co_name: const
        for const in code.co_consts
        if isinstance(const, CodeType) and not const.co_name.startswith("<")
    }


def _runs(loaded: Any, code: CodeType) -> bool:
    """Whether the loaded object (a function, method, property, ...) runs ``code``."""
    if isinstance(loaded, property):
        candidates = [loaded.fget, loaded.fset, loaded.fdel]
    else:
        candidates = [getattr(loaded, "__func__", loaded)]
    return any(inspect.isfunction(item) and inspect.unwrap(item).__code__ == code for item in candidates)


@dataclass
class Sync:
    """What ``sync`` found: ``problems`` (one sentence each: a file that does not compile or could not be
    reloaded) and ``reloaded`` (files whose saved code the kernel was not running, now reloaded)."""

    problems: list[str] = field(default_factory=list)
    reloaded: list[str] = field(default_factory=list)


def sync(modules: list[str]) -> Sync:
    """Compile the saved files of lab modules ``modules`` (``["budget", "grouping"]``) and reload each
    loaded module whose code differs from its file."""
    result = Sync()
    for name in modules:
        try:
            compiled = _compiled(name)
        except SyntaxError as error:
            result.problems.append(syntax_problem(error))
            continue
        module = sys.modules.get(f"{PACKAGE_DIR.name}.{name}")
        if module is None or not stale(module, compiled):
            continue
        try:
            reload(module)
        except Exception as error:  # the file's own error, shown to you
            result.problems.append(load_problem(error))
        else:
            result.reloaded.append(shown(module_file(name)))
    return result


def reload(module: ModuleType) -> None:
    """Reload ``module`` as IPython's autoreload does (every earlier version of its functions and classes
    gets the new code, so names imported from it see the change); the module is left as it was if the
    reload raises. Its bytecode cache is removed first: Python trusts a cache whose recorded size and
    modification second match the file, which a quick second save can leave unchanged."""
    from IPython.extensions.autoreload import superreload

    if getattr(module, "__cached__", None):
        Path(module.__cached__).unlink(missing_ok=True)
    superreload(module, importlib.reload, _old_objects())


def _old_objects() -> dict[Any, list[Any]]:
    """autoreload's record of earlier versions when the extension runs in this kernel, else our own."""
    try:
        from IPython import get_ipython

        magics = get_ipython().magics_manager.registry["AutoreloadMagics"]
        return magics._reloader.old_objects
    except (AttributeError, KeyError, ImportError):
        return _OLD_OBJECTS
