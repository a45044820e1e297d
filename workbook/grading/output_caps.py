"""Caps on what a student's code displays while its notebook is graded, applied as each output arrives.

A kernel can display any amount (12 outputs of 30 MB each reached 3 GB in the grader and 7 GB in feedback). The
grading kernel's client (``workbook.grading.kernel.SandboxExecute``) passes every output through one
``OutputBudget`` per notebook before it keeps it: an output is at most ``OUTPUT_CHARS`` characters, a cell's
outputs together at most ``CELL_CHARS``, the notebook's at most ``NOTEBOOK_CHARS``. An output over its cap is cut
(a text kept to the cap, any other MIME type dropped) and ends with the one line of ``cut_note``; once a cell or
the notebook has reached its cap, one note says so and every later output there is dropped. Characters are
counted over an output's texts (stream text, every MIME value, an error's name, value and traceback), so a saved
notebook, and the feedback page made from it, stays within a few times ``NOTEBOOK_CHARS`` bytes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from nbformat import NotebookNode
from nbformat.v4 import new_output

OUTPUT_CHARS = 100_000
"""Characters one output keeps."""
CELL_CHARS = 400_000
"""Characters a cell's outputs keep together."""
NOTEBOOK_CHARS = 2_000_000
"""Characters a notebook's outputs keep together."""


def cut_note(where: str, limit: int) -> str:
    """The line that ends what was kept of ``where`` ("this output", "this cell", "this notebook") at ``limit``."""
    return f"\n[output cut: {where} displayed more than {limit:,} characters; the rest is not kept]\n"


def output_chars(output: NotebookNode | dict) -> int:
    """The characters of ``output``'s texts: a stream's text, every MIME value of its data (JSON values by
    their JSON text), an error's name, value and traceback lines."""
    kind = output.get("output_type")
    if kind == "stream":
        return _chars(output.get("text", ""))
    if kind == "error":
        return sum(_chars(output.get(key, "")) for key in ("ename", "evalue", "traceback"))
    return sum(_chars(value) for value in output.get("data", {}).values())


def _chars(value: object) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return sum(map(len, value))
    return len(json.dumps(value, default=str))


def cut_output(output: NotebookNode, limit: int, note: str) -> NotebookNode:
    """``output`` kept to ``limit`` characters and ``note`` appended: a stream's text cut, an error's traceback
    and value cut, of display data only ``text/plain`` kept (cut); a ``text/plain`` of ``note`` when nothing
    else is left."""
    kind = output.get("output_type")
    if kind == "stream":
        output.text = _text(output.get("text", ""))[:limit] + note
        return output
    if kind == "error":
        output.evalue = _text(output.get("evalue", ""))[:limit]
        kept, left = [], limit - len(output.evalue)
        for line in output.get("traceback", []):
            if left <= 0:
                break
            kept.append(_text(line)[:left])
            left -= len(kept[-1])
        output.traceback = [*kept, note]
        return output
    text = _text(output.get("data", {}).get("text/plain", ""))
    output.data = {"text/plain": text[:limit] + note}
    output.metadata = {}
    return output


def _text(value: object) -> str:
    if isinstance(value, list):
        return "".join(str(item) for item in value)
    return value if isinstance(value, str) else str(value)


def note_output(note: str) -> NotebookNode:
    """A stream output of ``note`` alone (what stands for the outputs dropped past a cell's or notebook's cap)."""
    return new_output("stream", name="stdout", text=note.lstrip("\n"))


@dataclass
class OutputBudget:
    """The characters one notebook's outputs have used, by cell and in all (see the module). ``admit`` decides
    each new output; ``admit_update`` each replacement of a displayed output's data (``update_display``)."""

    output_chars: int = OUTPUT_CHARS
    cell_chars: int = CELL_CHARS
    notebook_chars: int = NOTEBOOK_CHARS
    used: int = 0
    by_cell: dict[int, int] = field(default_factory=dict)
    full: set[int] = field(default_factory=set)
    notebook_full: bool = False

    def __post_init__(self) -> None:
        if not 0 < self.output_chars <= self.cell_chars <= self.notebook_chars:
            raise ValueError(
                f"output caps must be 0 < per output <= per cell <= per notebook, not {self.output_chars:,}, "
                f"{self.cell_chars:,}, {self.notebook_chars:,}"
            )

    def admit(self, output: NotebookNode, cell: int) -> NotebookNode | None:
        """What to keep of ``output``, new in cell number ``cell``: the output itself, cut (``cut_output``), a
        note that the cell's or the notebook's cap was reached (the first output past it), or None (dropped)."""
        if self.notebook_full or cell in self.full:
            return None
        size = output_chars(output)
        cell_used = self.by_cell.get(cell, 0)
        room_cell, room_notebook = self.cell_chars - cell_used, self.notebook_chars - self.used
        limit, note = self.output_chars, cut_note("this output", self.output_chars)
        if room_notebook < min(size, limit):
            limit, note = room_notebook, cut_note("this notebook", self.notebook_chars)
            self.notebook_full = True
        elif room_cell < min(size, limit):
            limit, note = room_cell, cut_note("this cell", self.cell_chars)
            self.full.add(cell)
        if size > limit:
            output = cut_output(output, max(limit, 0), note) if limit > 0 else note_output(note)
            size = max(limit, 0)
        self.by_cell[cell] = cell_used + size
        self.used += size
        return output

    def admit_update(self, data: dict) -> dict:
        """The data an ``update_display_data`` may put in place of a displayed output's: ``data`` itself, or a
        ``text/plain`` note when it is larger than one output's cap or the notebook's cap is reached (its size
        counts against the notebook, as a new output would)."""
        size = sum(_chars(value) for value in data.values())
        if size > self.output_chars:
            return {"text/plain": cut_note("this output", self.output_chars).lstrip("\n")}
        if self.notebook_full or self.used + size > self.notebook_chars:
            self.notebook_full = True
            return {"text/plain": cut_note("this notebook", self.notebook_chars).lstrip("\n")}
        self.used += size
        return data
