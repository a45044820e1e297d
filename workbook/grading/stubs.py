"""Stubs: a lab's module whose lab functions are answered by another process (``compaction_lab._grader.relay``).

A stub is the lab's starter (public: every student has it) with the body of each lab function (a public
function whose starter raises ``LabNotImplementedError``) replaced by one ``forward`` call passing the same
arguments; its docstrings, signatures, classes, constants and the course's own helpers stay as they are. The
judge puts the stubs of the labs a graded lab uses in the runner's package (the oracle answers them with the
reference solutions) and the stub of the graded lab in the oracle's (the runner answers it with the
student's code), so no reference module's code reaches the student's sandbox.
"""

from __future__ import annotations

import ast
import dataclasses
import functools

from workbook.paths import STARTERS

RELAY = "_relay"
"""The name a stub imports ``provided.relay`` as (no lab function has a parameter of that name); the module,
not its ``forward``, as the relay may be importing the stub while it imports ``wire`` itself."""


@dataclasses.dataclass(frozen=True)
class Stub:
    """A stub of lab module ``module``: its text and the functions it forwards (``budget.build_context``, ...)."""

    module: str
    text: str
    forwarded: tuple[str, ...]


@functools.cache
def stub(module: str) -> Stub:
    """The stub of lab module ``module`` (``budget``), made from its starter."""
    source = (STARTERS / f"{module}.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    forwarded = []
    for node in reversed(tree.body):
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_") and _lab_function(node):
            function = f"{module}.{node.name}"
            kept = node.body[0].end_lineno if ast.get_docstring(node) is not None else node.body[0].lineno - 1
            indent = " " * node.body[0].col_offset
            lines[kept : node.end_lineno] = [f"{indent}return {RELAY}.forward({function!r}, {_arguments(node.args)})\n"]
            forwarded.append(function)
    future = next(
        (
            node.end_lineno or 0
            for node in tree.body
            if isinstance(node, ast.ImportFrom) and node.module == "__future__"
        ),
        0,
    )
    lines.insert(future, f"from ._grader import relay as {RELAY}\n")
    header = f"# The grader's stand-in for {module}.py: its lab functions are answered by another process.\n"
    return Stub(module, header + "".join(lines), tuple(reversed(forwarded)))


def _lab_function(node: ast.FunctionDef) -> bool:
    """True when the starter's ``node`` raises ``LabNotImplementedError`` (a lab region was there)."""
    return any(
        isinstance(item, ast.Raise)
        and isinstance(item.exc, ast.Call)
        and isinstance(item.exc.func, ast.Name)
        and item.exc.func.id == "LabNotImplementedError"
        for item in ast.walk(node)
    )


def _arguments(arguments: ast.arguments) -> str:
    """``(positional, ...), {"keyword": keyword, ...}`` passing a function's parameters on as they came."""
    positional = [item.arg for item in (*arguments.posonlyargs, *arguments.args)]
    positional += [f"*{arguments.vararg.arg}"] if arguments.vararg else []
    keywords = [f"{item.arg!r}: {item.arg}" for item in arguments.kwonlyargs]
    keywords += [f"**{arguments.kwarg.arg}"] if arguments.kwarg else []
    return f"({''.join(f'{name}, ' for name in positional)}), {{{', '.join(keywords)}}}"
