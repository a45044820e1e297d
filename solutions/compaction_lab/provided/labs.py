"""The five labs of the course, in order: one manifest every other tool reads.

Each lab names its notebook, the module a student edits and the function that module
exports. The starter generator, the not-implemented errors, the progress light and the
``workbook check`` command all take their names from here, so a lab is renamed in one place.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Lab:
    """One lab: its number (1 to 5), title, module, main function, notebook file name, and the labs whose
    functions its module or its cases call (``uses``): when a lab is graded, those run as the reference
    solutions and every other lab as its starter, so a lab is graded on its own code only."""

    number: int
    title: str
    module: str
    function: str
    notebook: str
    uses: tuple[int, ...] = ()

    @property
    def marker(self) -> str:
        """The pytest marker and ``-k`` word that select this lab's tests, e.g. ``lab3``."""
        return f"lab{self.number}"

    @property
    def modules(self) -> tuple[str, ...]:
        """This lab's module, then the modules of the labs it uses: the files its checks run."""
        return (self.module, *(lab(number).module for number in self.uses))


LABS: tuple[Lab, ...] = (
    Lab(1, "record parsing", "records", "parse_compaction_entry", "01_record_parsing.ipynb"),
    Lab(2, "interaction grouping", "grouping", "group_interactions", "02_interaction_grouping.ipynb"),
    Lab(3, "budget projection", "budget", "build_context", "03_budget_projection.ipynb", uses=(2, 5)),
    Lab(
        4,
        "compaction creation",
        "compaction",
        "create_compaction_entry",
        "04_compaction_creation.ipynb",
        uses=(1, 2, 3, 5),
    ),
    Lab(5, "repeated resumption", "resumption", "resume_point", "05_repeated_resumption.ipynb", uses=(2, 3)),
)


def lab(number: int) -> Lab:
    """Return lab ``number`` (1 to 5); raise ``KeyError`` naming the number otherwise."""
    for candidate in LABS:
        if candidate.number == number:
            return candidate
    raise KeyError(f"there is no lab {number!r}; the labs are 1 to {len(LABS)}")
