"""Lab 4's generated variants: every grade cell of ``04_compaction_creation.ipynb`` on paths drawn per grading run.

``variants(rng)`` draws, from the judge's seeded ``random.Random``, at least five cases per cell: paths of other
sizes (tool rounds, metadata, one or two compactions) and new compactions of other ids, timestamps, summaries
and token counts, kept from another interaction's start; for each refusal the same fault placed elsewhere (the
first interaction's start, a message inside an interaction, an entry the latest compaction summarised, a
compaction's id, an id already on the path, a bad summary field or token count, a bad number of the trigger or
the boundary) beside near-misses that must be accepted (a later start, a path ending with a compaction or a
metadata entry). The going-further cells get other triggers, tool rounds whose spans overlap, boundaries at other
targets, and ``compact`` runs at other windows, summaries, summarizers and cancellations. The judge decides each
by the reference's outcome, computed in its own process; none of it reaches a student's package.
"""

from __future__ import annotations

import random
from typing import Any

from compaction_lab.provided.checking.case import Case
from compaction_lab.provided.checking.wire import options
from compaction_lab.provided.example import estimate_example_tokens
from compaction_lab.resumption import summary_message
from workbook.grading.drawn import Drawn, Ids, cost, draw_compacted, draw_path, model_change, summary, text

CREATE, APPEND = "compaction.create_compaction_entry", "provided.checking.drivers.append_compaction"
TRIGGER, SHOULD, ROUNDS = "compaction.compaction_trigger", "compaction.should_compact", "compaction.group_tool_rounds"
BOUNDARY, RUN = "provided.checking.drivers.compaction_boundary", "provided.checking.drivers.run_compact"
EACH = 5
"""Variants drawn per grade cell."""
HINT = "Inputs drawn afresh for each grading run, of the kind this cell is about."
NAN, INF = {"$float": "nan"}, {"$float": "inf"}


def _case(grade_id: str, index: int, function: str, args: tuple, kwargs: dict | None = None, **extra: Any) -> Case:
    return Case(
        f"generated_{index}", grade_id, f"{function.split('.')[-1]}(inputs drawn for this grading run)", function,
        args, kwargs or {}, hint=HINT, hidden=True, **extra,
    )  # fmt: skip


def _refused(
    grade_id: str, index: int, path: list, kwargs: dict, naming: tuple, raises: str = "CompactionError"
) -> Case:
    return _case(grade_id, index, CREATE, (path,), kwargs, raises=raises, naming=naming)


def starts(drawn: Drawn) -> list[str]:
    """The ids of the first messages of the interactions the current context is built from: after the latest
    compaction, from its first kept entry on."""
    firsts = [group[0]["id"] for group in drawn.interactions]
    kept = [entry["firstKeptEntryId"] for entry in drawn.entries if entry["type"] == "compaction"]
    return firsts[firsts.index(kept[-1]) :] if kept else firsts


def _current(rng: random.Random, compactions: int = 0) -> Drawn:
    """A drawn path (with ``compactions`` compactions) whose current context has two interactions or more."""
    while True:
        drawn = draw_compacted(rng, compactions) if compactions else draw_path(rng, (2, 6), metadata=0.2)
        if len(starts(drawn)) >= 2:
            return drawn


def new_entry(rng: random.Random, first_kept: str, **changes: Any) -> dict[str, Any]:
    """The keyword arguments of a drawn new compaction keeping from ``first_kept``, some of them changed."""
    return {
        "id": Ids(rng)("compact-new-"),
        "timestamp": rng.choice((rng.randint(0, 10**6), rng.randint(0, 10**6) + 0.25)),
        "summary": summary(rng),
        "first_kept_entry_id": first_kept,
        "tokens_before": rng.choice((rng.randint(0, 900), rng.randint(0, 900) / 8)),
        **changes,
    }


def parent_and_fields(rng: random.Random, index: int) -> Case:
    """A new compaction on a drawn path (compacted or not), made or appended to a store."""
    drawn = _current(rng, rng.choice((0, 0, 1, 2)))
    kwargs = new_entry(rng, rng.choice(starts(drawn)[1:]))
    return _case("lab4_parent_and_fields", index, APPEND if index % 2 else CREATE, (drawn.entries,), kwargs)


def copies_and_no_change(rng: random.Random, index: int) -> Case:
    """The new entry shares nothing with the drawn summary, and the path is unchanged."""
    drawn = _current(rng, rng.choice((0, 1)))
    return _case(
        "lab4_copies_and_no_change", index, CREATE, (drawn.entries,), new_entry(rng, rng.choice(starts(drawn)[1:])),
        copies=True,
    )  # fmt: skip


def _inside(drawn: Drawn, firsts: list[str]) -> list[str]:
    """The ids of the messages of the current context that start no interaction."""
    return [entry["id"] for group in drawn.interactions if group[0]["id"] in firsts for entry in group[1:]]


def first_kept_starts_interaction(rng: random.Random, index: int) -> Case:
    """A later interaction's start (accepted), or the first one's, a message inside one or a metadata entry
    (refused, naming it)."""
    drawn = _current(rng)
    firsts = starts(drawn)
    grade_id = "lab4_first_kept_starts_interaction"
    if index % 2:
        return _case(grade_id, index, CREATE, (drawn.entries,), new_entry(rng, rng.choice(firsts[1:])), parts=(
            "firstKeptEntryId", "parentId",
        ))  # fmt: skip
    metadata = [entry["id"] for entry in drawn.entries if entry["type"] != "message"]
    wrong = rng.choice([firsts[0], *_inside(drawn, firsts), *metadata])
    return _refused(grade_id, index, drawn.entries, new_entry(rng, wrong), (wrong,))


def invalid_inputs(rng: random.Random, index: int) -> Case:
    """An empty path, an id already on the path, an unknown first kept entry, a bad token count or summary
    field (each refused, naming what is at fault), or a token count to keep as given."""
    drawn = _current(rng, rng.choice((0, 1)))
    first_kept = rng.choice(starts(drawn)[1:])
    grade_id = "lab4_invalid_inputs"
    kind = index % 5
    if kind == 0:
        if rng.random() < 0.5:
            return _refused(grade_id, index, [], new_entry(rng, first_kept), ())
        taken = rng.choice(drawn.entries)["id"]
        return _refused(grade_id, index, drawn.entries, new_entry(rng, first_kept, id=taken), (taken,))
    if kind == 1:
        unknown = Ids(rng)(rng.choice(("u", "gone-", "a")))
        return _refused(grade_id, index, drawn.entries, new_entry(rng, unknown), (unknown,))
    if kind == 2:
        bad = rng.choice((True, False, NAN, INF, -rng.randint(1, 99), str(rng.randint(0, 99)), None))
        kwargs = new_entry(rng, first_kept, tokens_before=bad)
        return _refused(grade_id, index, drawn.entries, kwargs, ("tokensBefore",), "SessionEntryError")
    if kind == 3:
        kwargs = new_entry(rng, first_kept)
        field = rng.choice(list(kwargs["summary"]))
        fault = rng.choice(("missing", "legacy", "type"))
        if fault == "missing":
            del kwargs["summary"][field]
        elif fault == "legacy":
            field = rng.choice(("files", "notes", "firstKeptEntryIndex"))
            kwargs["summary"][field] = []
        else:
            kwargs["summary"][field] = rng.choice(("" if field == "goal" else text(rng), 3, None))
        return _refused(grade_id, index, drawn.entries, kwargs, (f"summary.{field}",), "SessionEntryError")
    tokens = rng.choice((0, rng.randint(1, 10**6), rng.randint(1, 10**5) + 0.5))
    kwargs = new_entry(rng, first_kept, tokens_before=tokens)
    return _case(grade_id, index, CREATE, (drawn.entries,), kwargs, parts=("tokensBefore",))


def after_a_compaction(rng: random.Random, index: int) -> Case:
    """After one or two compactions: a later start of the current context (accepted), or an entry the latest
    compaction summarised, where its context starts, a compaction or a message inside an interaction
    (refused, naming it)."""
    drawn = _current(rng, rng.randint(1, 2))
    firsts = starts(drawn)
    grade_id = "lab4_after_a_compaction"
    if index % 3 == 0:
        kwargs = new_entry(rng, rng.choice(firsts[1:]))
        return _case(grade_id, index, CREATE, (drawn.entries,), kwargs, parts=("parentId", "firstKeptEntryId"))
    before = drawn.entries[: drawn.entries.index(_by_id(drawn, firsts[0]))]
    summarised = [entry["id"] for entry in before if entry["type"] == "message"]
    compactions = [entry["id"] for entry in drawn.entries if entry["type"] == "compaction"]
    choices = [firsts[0], rng.choice(compactions), *_inside(drawn, firsts)[:2]]
    wrong = rng.choice(summarised) if summarised and index % 3 == 1 else rng.choice(choices)
    return _refused(grade_id, index, drawn.entries, new_entry(rng, wrong), (wrong,))


def _by_id(drawn: Drawn, entry_id: str) -> dict[str, Any]:
    return next(entry for entry in drawn.entries if entry["id"] == entry_id)


def parent_is_last_entry(rng: random.Random, index: int) -> Case:
    """The path ends with a compaction, a metadata entry or a message: that entry is the parent."""
    kind = index % 3
    if kind == 0:
        while True:
            drawn = draw_compacted(rng, rng.randint(1, 2))
            latest = max(at for at, entry in enumerate(drawn.entries) if entry["type"] == "compaction")
            kept = drawn.entries[latest]["firstKeptEntryId"]
            entries = drawn.entries[: latest + 1]
            firsts = [group[0]["id"] for group in drawn.interactions if group[0] in entries]
            firsts = firsts[firsts.index(kept) :]
            if len(firsts) >= 2:
                break
    else:
        drawn = _current(rng)
        entries, firsts = drawn.entries, starts(drawn)
        if kind == 1:
            entries = entries + [model_change(Ids(rng)("m-last-"), entries[-1]["id"], len(entries) + 1, rng)]
    return _case(
        "lab4_parent_is_last_entry", index, CREATE, (entries,), new_entry(rng, rng.choice(firsts[1:])),
        parts=("parentId", "timestamp"),
    )  # fmt: skip


def _trigger_numbers(rng: random.Random) -> dict[str, Any]:
    window = rng.choice((rng.randint(0, 4000), rng.randint(0, 400) + 0.5))
    return {
        "window": window,
        "reserved_output": rng.choice((0, rng.randint(0, int(window)))),
        "ratio": rng.choice((1, 0.5, 0.8, rng.randint(1, 99) / 100)),
    }


BAD_NUMBERS = {
    "estimated_input": (-1, True, NAN, INF, "12", None),
    "window": (INF, -1, True, NAN, "64"),
    "reserved_output": (-1, False, NAN, None),
    "ratio": (0, 1.5, True, NAN, -0.5, "0.8"),
}


def should_compact(rng: random.Random, index: int) -> Case:
    """The trigger of drawn numbers; an input exactly at it, or just below or above; or a bad number (refused
    naming it, every argument given by name)."""
    numbers = _trigger_numbers(rng)
    grade_id = "lab4_extra_should_compact"
    kind = index % 3
    if kind == 0:
        return _case(grade_id, index, TRIGGER, (numbers["window"], numbers["reserved_output"], numbers["ratio"]))
    trigger = int((numbers["window"] - numbers["reserved_output"]) * numbers["ratio"])
    if kind == 1:
        estimated = trigger if index == 1 else max(0, trigger + rng.choice((-1, 0, 1, rng.randint(2, 50))))
        return _case(grade_id, index, SHOULD, (), {"estimated_input": estimated, **numbers})
    field = rng.choice(list(BAD_NUMBERS))
    kwargs = {"estimated_input": trigger, **numbers, field: rng.choice(BAD_NUMBERS[field])}
    if field == "reserved_output" and rng.random() < 0.4:
        kwargs["reserved_output"] = numbers["window"] + rng.randint(1, 9)
    return _case(grade_id, index, SHOULD, (), kwargs, raises="BudgetError", naming=(field,))


def _tools(rng: random.Random) -> Drawn:
    while True:
        drawn = draw_path(rng, (1, 4), tools=0.8, metadata=0.0)
        if any(drawn.calls):
            return drawn


def tool_rounds(rng: random.Random, index: int) -> Case:
    """Tool rounds of a drawn path: results shuffled, one moved later so spans overlap or before its call, or a
    result for a call nobody declared (refused naming it)."""
    drawn = _tools(rng)
    grade_id = "lab4_extra_tool_rounds"
    place = rng.choice([at for at, calls in enumerate(drawn.calls) if calls])
    call_id, result_id, _ = rng.choice(drawn.calls[place])
    result = _by_id(drawn, result_id)
    kind = index % 4
    if kind == 0:
        return _case(grade_id, index, ROUNDS, (drawn.entries,), copies=True)
    if kind == 3:
        unknown = Ids(rng)("unknown-")
        result["message"]["toolCallId"] = unknown
        return _case(grade_id, index, ROUNDS, (drawn.entries,), raises="InteractionError", naming=(
            (unknown, result_id),
        ))  # fmt: skip
    group = drawn.interactions[place]
    drawn.entries.remove(result)
    at = drawn.entries.index(group[-1]) if kind == 1 else drawn.entries.index(group[0]) + 1
    drawn.entries.insert(at, result)
    return _case(grade_id, index, ROUNDS, (drawn.entries,))


BOUNDARY_FIELDS = ("target_tokens", "summary_max_tokens", "fixed_tokens", "retain_recent_messages")


def boundary(rng: random.Random, index: int) -> Case:
    """``select_compaction_boundary`` of a drawn path (compacted or not) at a drawn target, summary budget, fixed
    cost and number of recent messages; or a bad number or estimate (refused naming it)."""
    drawn = draw_compacted(rng, 1) if index % 3 == 2 else draw_path(rng, (1, 6), tools=0.7, metadata=0.2)
    total = sum(cost(group) for group in drawn.interactions)
    messages = sum(len(group) for group in drawn.interactions)
    kwargs: dict[str, Any] = {
        "target_tokens": rng.randint(0, total + 20),
        "summary_max_tokens": rng.randint(0, 12),
        "retain_recent_messages": rng.randint(0, messages),
        "fixed_tokens": rng.choice((0, rng.randint(0, 8))),
    }
    grade_id = "lab4_extra_boundary"
    if index % 5 == 4:
        if rng.random() < 0.3 and not any(entry["type"] == "compaction" for entry in drawn.entries):
            spec = {"name": "constant", "value": rng.choice((-1, NAN, True))}
            first = drawn.interactions[0][0]["id"]
            return _case(grade_id, index, BOUNDARY, (drawn.entries,), {**kwargs, "estimator_spec": spec},
                         raises="BudgetError", naming=(first,))  # fmt: skip
        field = rng.choice(BOUNDARY_FIELDS)
        kwargs[field] = rng.choice((-1, NAN, "3", True) if field != "retain_recent_messages" else (-1, True, 1.5))
        return _case(grade_id, index, BOUNDARY, (drawn.entries,), kwargs, raises="BudgetError", naming=(field,))
    if index % 5 == 3:
        kwargs["estimator_spec"] = {"name": "constant", "value": rng.randint(1, 6)}
    return _case(grade_id, index, BOUNDARY, (drawn.entries,), kwargs)


def small_summary(rng: random.Random, previous: dict[str, Any] | None = None) -> dict[str, Any]:
    """A short drawn summary; after ``previous``, one that keeps its goal, constraints and changed files."""
    made = {
        "goal": text(rng, 2, 6),
        "constraints": [text(rng, 1, 4) for _ in range(rng.randint(0, 1))],
        "completed": [text(rng, 1, 4) for _ in range(rng.randint(0, 1))],
        "decisions": [],
        "changedFiles": [f"{text(rng, 1, 1).rstrip('.').lower()}.py" for _ in range(rng.randint(0, 1))],
        "unresolved": [],
        "next": [text(rng, 1, 4) for _ in range(rng.randint(0, 1))],
    }
    if previous:
        made["goal"] = f"{previous['goal']} {made['goal']}"
        for name in ("constraints", "changedFiles"):
            made[name] = previous[name] + made[name]
    return made


def _run_path(rng: random.Random, compacted: bool) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """A drawn session for ``compact``, and its latest compaction's summary (with a constraint and a changed
    file) or None."""
    drawn = draw_compacted(rng, 1) if compacted else draw_path(rng, (3, 6), tools=0.6, metadata=0.2)
    entries = drawn.entries
    previous = None
    if compacted:
        latest = next(entry for entry in entries if entry["type"] == "compaction")
        latest["summary"] = previous = small_summary(rng)
        previous["constraints"] = previous["constraints"] or [text(rng, 1, 4)]
        previous["changedFiles"] = previous["changedFiles"] or ["stores.py"]
    return entries, previous


def _run(rng: random.Random, entries: list, reply: Any, fits: dict[str, Any], **changes: Any) -> tuple[tuple, dict]:
    """``run_compact``'s inputs for ``entries``: a drawn window that usually reaches the trigger, a summary
    budget that fits the summary ``fits``, ``reply`` as the summarizer's reply; some keyword arguments changed."""
    ratio = rng.choice((0.5, 0.8, 0.8, 1))
    reserved, margin = rng.randint(0, 8), rng.randint(0, 3)
    before = cost([entry for entry in entries if entry["type"] == "message"])
    trigger = rng.randint(max(1, before // 3), before + 3)
    kwargs = {
        "leaf_id": entries[-1]["id"],
        "id": Ids(rng)("compact-run-"),
        "timestamp": rng.randint(10**3, 10**6),
        "summary_max_tokens": estimate_example_tokens(summary_message(fits)) + rng.randint(0, 6),
        "retain_recent_messages": rng.randint(0, 3),
        "ratio": ratio,
        "reply": reply,
        "summarizer": rng.choice(("plain", "async")),
        **changes,
    }
    return (entries, options(reserved + int(trigger / ratio) + 1, "sys", reserved, margin)), kwargs


def compact(rng: random.Random, index: int) -> Case:
    """``compact`` of a drawn session (compacted or not) at a drawn window and summary: compacted, or unchanged
    below the trigger; a summarizer that changes its request."""
    entries, previous = _run_path(rng, compacted=index % 2 == 1)
    reply = small_summary(rng, previous)
    args, kwargs = _run(rng, entries, reply, reply, scribbles=rng.random() < 0.3)
    if index == 4:
        args = (entries, options(10**6, "sys", 8, 2))
    return _case("lab4_extra_compact", index, RUN, args, kwargs)


FAILED = ("outcome", "file_unchanged", "new_lines")
FAULTS = ("lost", "cancel", "reply", "budget", "raises")


def _not_a_summary(rng: random.Random, reply: dict[str, Any]) -> Any:
    """A reply ``create_compaction_entry`` refuses: a string, a legacy key, a field missing or of a wrong type."""
    field = rng.choice(list(reply))
    return rng.choice((
        text(rng),
        {**reply, "files": []},
        {key: value for key, value in reply.items() if key != field},
        {**reply, field: 3},
    ))  # fmt: skip


def compact_fails_cleanly(rng: random.Random, index: int) -> Case:
    """``compact`` failing in a drawn way (a reply that is no summary or over its budget, a summarizer that
    raises, a summary that lost a previous fact, a cancellation at a drawn moment): the store unchanged."""
    fault = FAULTS[index] if index < len(FAULTS) else rng.choice(FAULTS)
    entries, previous = _run_path(rng, compacted=fault == "lost" or rng.random() < 0.3)
    fits = small_summary(rng, previous)
    reply: Any = fits
    changes: dict[str, Any] = {}
    if fault == "reply":
        reply = _not_a_summary(rng, fits)
    elif fault == "raises":
        changes["error"] = text(rng, 2, 6)
    elif fault == "lost" and previous is not None:
        lost = rng.choice(("goal", "constraints", "changedFiles"))
        reply = {**fits, lost: text(rng, 2, 5) if lost == "goal" else fits[lost][1:]}
    elif fault == "cancel":
        changes["cancel"] = rng.choice(("before", "while_summarizing", "while_verifying"))
    args, kwargs = _run(rng, entries, reply, fits, **changes)
    if fault == "budget":
        kwargs["summary_max_tokens"] = max(0, estimate_example_tokens(summary_message(fits)) - rng.randint(1, 3))
    return _case("lab4_extra_compact_fails_cleanly", index, RUN, args, kwargs, parts=(*FAILED, "requests"))


CELLS = {
    "lab4_parent_and_fields": parent_and_fields,
    "lab4_copies_and_no_change": copies_and_no_change,
    "lab4_first_kept_starts_interaction": first_kept_starts_interaction,
    "lab4_invalid_inputs": invalid_inputs,
    "lab4_after_a_compaction": after_a_compaction,
    "lab4_parent_is_last_entry": parent_is_last_entry,
    "lab4_extra_should_compact": should_compact,
    "lab4_extra_tool_rounds": tool_rounds,
    "lab4_extra_boundary": boundary,
    "lab4_extra_compact": compact,
    "lab4_extra_compact_fails_cleanly": compact_fails_cleanly,
}


def variants(rng: random.Random) -> tuple[Case, ...]:
    """``EACH`` generated cases per grade cell of lab 4 (extra credit included), drawn from ``rng``."""
    return tuple(draw(rng, index) for draw in CELLS.values() for index in range(EACH))
