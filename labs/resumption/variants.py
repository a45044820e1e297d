"""Lab 5's generated variants: every grade cell of ``05_repeated_resumption.ipynb`` on paths drawn per grading run.

``variants(rng)`` draws, from the judge's seeded ``random.Random``, at least five cases per cell: paths with one,
two or three compactions (metadata and tool rounds between them), resumed and built at other windows, resumed
twice with the caller's changes between, and latest compactions whose first kept entry is after them, off the
path or not a user message (refused, naming both ids) beside a broken earlier compaction (history: accepted).
The judge decides each by the reference's outcome, computed in its own process; none of it reaches a student's
package.
"""

from __future__ import annotations

import random

from compaction_lab.provided.checking.case import Case
from compaction_lab.provided.checking.wire import options
from workbook.grading.drawn import Drawn, Ids, cost, draw_compacted

RESUME, BUILD = "resumption.resume_point", "budget.build_context"
AGAIN = "provided.checking.drivers.resume_again_after_changes"
EACH = 5
"""Variants drawn per grade cell."""
HINT = "Inputs drawn afresh for each grading run, of the kind this cell is about."


def _case(grade_id: str, index: int, function: str, args: tuple, **extra) -> Case:
    return Case(
        f"generated_{index}", grade_id, f"{function.split('.')[-1]}(a path drawn for this grading run)", function,
        args, hint=HINT, hidden=True, **extra,
    )  # fmt: skip


def _window(rng: random.Random, drawn: Drawn) -> dict:
    return options(rng.randint(0, 20 + sum(cost(group) for group in drawn.interactions)))


def _compactions(drawn: Drawn) -> list[dict]:
    return [entry for entry in drawn.entries if entry["type"] == "compaction"]


def resume_from_compaction(rng: random.Random, index: int) -> Case:
    """One compaction: resumed, or built at any window."""
    drawn = draw_compacted(rng, 1)
    if index % 2:
        return _case(
            "lab5_resume_from_compaction", index, RESUME, (drawn.entries,),
            parts=("compaction_id", "summary_message", "entries"),
        )  # fmt: skip
    return _case(
        "lab5_resume_from_compaction", index, BUILD, (drawn.entries, _window(rng, drawn)),
        parts=("messages", "kept_entry_ids", "compaction_id", "reason", "tokens.messages"),
    )  # fmt: skip


def repeat_and_isolation(rng: random.Random, index: int) -> Case:
    """Resumed twice with the caller's changes between, or resumed entries that must be copies."""
    drawn = draw_compacted(rng, rng.randint(1, 3))
    if index % 2:
        return _case("lab5_repeat_and_isolation", index, AGAIN, (drawn.entries,))
    return _case("lab5_repeat_and_isolation", index, RESUME, (drawn.entries,), parts=("entries",), copies=True)


def second_compaction(rng: random.Random, index: int) -> Case:
    """Two compactions, built at any window."""
    drawn = draw_compacted(rng, 2)
    return _case(
        "lab5_second_compaction", index, BUILD, (drawn.entries, _window(rng, drawn)),
        parts=("messages", "kept_entry_ids", "compaction_id", "reason"),
    )  # fmt: skip


def summary_paid_first(rng: random.Random, index: int) -> Case:
    """The summary's cost at tight windows, down to nothing left for messages."""
    drawn = draw_compacted(rng, rng.randint(1, 2))
    window = options(rng.randint(0, 12 + cost(drawn.interactions[-1])))
    return _case(
        "lab5_summary_paid_first", index, BUILD, (drawn.entries, window),
        parts=("reason", "tokens.messages", "messages.0", "kept_entry_ids"),
    )  # fmt: skip


def three_compactions(rng: random.Random, index: int) -> Case:
    """Three compactions: resumed, or built at any window."""
    drawn = draw_compacted(rng, 3)
    if index % 2:
        return _case("lab5_three_compactions", index, RESUME, (drawn.entries,), parts=("compaction_id", "entries"))
    return _case(
        "lab5_three_compactions", index, BUILD, (drawn.entries, _window(rng, drawn)),
        parts=("messages", "kept_entry_ids"),
    )  # fmt: skip


def bad_first_kept(rng: random.Random, index: int) -> Case:
    """The latest compaction keeping from an entry after it, off the path or not a user message (refused), or an
    earlier compaction broken that way (accepted: only the latest counts)."""
    drawn = draw_compacted(rng, rng.randint(1, 3) if index % 4 else 2)
    compactions = _compactions(drawn)
    latest = compactions[-1]
    at = drawn.entries.index(latest)
    kind = index % 4
    if kind == 0:
        compactions[0]["firstKeptEntryId"] = Ids(rng)("gone-")
        return _case("lab5_bad_first_kept", index, RESUME, (drawn.entries,), parts=("compaction_id",))
    before = [entry for entry in drawn.entries[:at] if entry["type"] == "message"]
    not_user = [entry["id"] for entry in before if entry["message"]["role"] != "user"]
    later = [entry["id"] for entry in drawn.entries[at + 1 :]]
    choices = (
        [Ids(rng)("gone-")] + ([rng.choice(not_user)] if not_user else []) + ([rng.choice(later)] if later else [])
    )
    first_kept = choices[min(kind - 1, len(choices) - 1)] if kind < 3 else rng.choice(choices)
    latest["firstKeptEntryId"] = first_kept
    return _case(
        "lab5_bad_first_kept", index, RESUME, (drawn.entries,), raises="CompactionError",
        naming=(latest["id"], first_kept),
    )  # fmt: skip


CELLS = {
    "lab5_resume_from_compaction": resume_from_compaction,
    "lab5_repeat_and_isolation": repeat_and_isolation,
    "lab5_second_compaction": second_compaction,
    "lab5_summary_paid_first": summary_paid_first,
    "lab5_three_compactions": three_compactions,
    "lab5_bad_first_kept": bad_first_kept,
}


def variants(rng: random.Random) -> tuple[Case, ...]:
    """``EACH`` generated cases per grade cell of lab 5, drawn from ``rng``."""
    return tuple(draw(rng, index) for draw in CELLS.values() for index in range(EACH))
