"""Lab 1's generated variants: every grade cell of ``01_record_parsing.ipynb`` on entries drawn per grading run.

``variants(rng)`` draws, from the judge's seeded ``random.Random``, at least five cases per cell: compaction
entries of other ids, texts, summaries, timestamps and token counts (keys in any order), drawn session paths with
one or more compactions appended to either store, and for each refusal the same fault placed elsewhere (another
bad ``tokensBefore``, another extra, legacy or missing key, another field of the wrong type, another entry
appended twice, another limit of the guarded parser, in another key) beside near-misses that must be accepted
(values at the edge of what is allowed, keys reordered, an id that only looks like another, a value exactly at a
limit). Every input holds a compaction entry, so nothing here passes on the provided parser alone. The judge
decides each by the reference's outcome, computed in its own process; none of it reaches a student's package.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from compaction_lab.provided.checking.case import Case
from compaction_lab.provided.scenarios import compaction_object, custom_entry, nested_lists
from compaction_lab.records import SUMMARY_FIELDS
from workbook.grading.drawn import WORDS, Ids, draw_compacted, summary, text

PARSE = "records.parse_session_entry"
MEMORY, JSONL = "provided.checking.drivers.in_memory_store", "provided.checking.drivers.jsonl_reopen"
EACH = 5
"""Variants drawn per grade cell."""
HINT = "Inputs drawn afresh for each grading run, of the kind this cell is about."
TOP_KEYS = ("parentId", "timestamp", "firstKeptEntryId", "tokensBefore")
"""The compaction's keys a fault may remove: without ``type`` or ``id`` the entry has no name to give, and
without ``summary`` too few other paths are left to tell an error naming everything (the hidden cases have it)."""


def _case(grade_id: str, index: int, function: str, args: tuple, kwargs: dict | None = None, **extra: Any) -> Case:
    return Case(
        f"generated_{index}", grade_id, f"{function.split('.')[-1]}(an entry drawn for this grading run)", function,
        args, kwargs or {}, hint=HINT, hidden=True, **extra,
    )  # fmt: skip


def _refused(grade_id: str, index: int, entry: dict, field: str | tuple[str, ...], **kwargs: Any) -> Case:
    return _case(grade_id, index, PARSE, (entry,), kwargs, raises="SessionEntryError", naming=(entry["id"], field))


def compaction(rng: random.Random, ids: Ids | None = None) -> dict[str, Any]:
    """A drawn, valid compaction entry as stored: its keys (and its summary's) sometimes in another order."""
    ids = ids or Ids(rng)
    entry = compaction_object(
        ids("compact-"),
        ids("a"),
        ids("u"),
        summary=summary(rng),
        timestamp=rng.choice((rng.randint(0, 10**6), rng.randint(0, 10**6) + 0.5)),
        tokens_before=rng.choice((rng.randint(0, 5000), rng.randint(0, 5000) / 4)),
    )
    if rng.random() < 0.5:
        keys = list(entry)
        rng.shuffle(keys)
        entry = {key: entry[key] for key in keys}
    return entry


def compaction_record(rng: random.Random, index: int) -> Case:
    """A drawn compaction entry, parsed into a copy."""
    return _case("lab1_compaction_record", index, PARSE, (compaction(rng),), copies=True)


def _stored_path(rng: random.Random) -> list[dict[str, Any]]:
    """A drawn compacted path, sometimes ending with one more compaction (so the last entry read back is one)."""
    drawn = draw_compacted(rng, rng.randint(1, 2))
    if rng.random() < 0.5:
        last = compaction(rng)
        last["parentId"], last["firstKeptEntryId"] = drawn.entries[-1]["id"], drawn.interactions[-1][0]["id"]
        drawn.entries.append(last)
    return drawn.entries


def in_memory_store(rng: random.Random, index: int) -> Case:
    """A drawn path appended to the memory store; an entry (a compaction or another) appended again further on,
    refused naming it; or a near-miss: one more compaction whose id extends another's."""
    path = _stored_path(rng)
    kind = index % 3
    if kind == 0:
        return _case("lab1_in_memory_store", index, MEMORY, (path,))
    compactions = [entry for entry in path if entry["type"] == "compaction"]
    if kind == 1:
        again = copy.deepcopy(rng.choice(compactions if rng.random() < 0.5 else path))
        path.insert(rng.randint(path.index(again) + 1, len(path)), again)
        return _case("lab1_in_memory_store", index, MEMORY, (path,), raises="SessionStoreError", naming=(again["id"],))
    near = copy.deepcopy(rng.choice(compactions))
    near["id"], near["parentId"] = f"{near['id']}{rng.randint(0, 9)}", path[-1]["id"]
    return _case("lab1_in_memory_store", index, MEMORY, (path + [near],))


def jsonl_reopen(rng: random.Random, index: int) -> Case:
    """A drawn compacted path, written, closed and read again."""
    return _case("lab1_jsonl_reopen", index, JSONL, (_stored_path(rng),))


BAD_TOKENS = (True, False, {"$float": "nan"}, {"$float": "inf"}, {"$float": "-inf"}, None, [], {})


def bad_tokens_before(rng: random.Random, index: int) -> Case:
    """A bad ``tokensBefore`` (a bool, NaN, infinite, negative, a string, None), or one to keep as given."""
    entry = compaction(rng)
    if index % 2:
        entry["tokensBefore"] = rng.choice((0, 0.0, rng.randint(1, 10**7), rng.randint(1, 10**6) + rng.random()))
        return _case("lab1_bad_tokens_before", index, PARSE, (entry,), parts=("tokensBefore",))
    entry["tokensBefore"] = rng.choice((*BAD_TOKENS, -rng.randint(1, 500), -rng.random(), str(rng.randint(0, 99))))
    return _refused("lab1_bad_tokens_before", index, entry, "tokensBefore")


def _near_key(rng: random.Random) -> str:
    return rng.choice(("note", "notes", "files", "firstKeptEntryIndex", "summaryText", f"{rng.choice(WORDS)}Id"))


def legacy_and_extra_keys(rng: random.Random, index: int) -> Case:
    """An extra, legacy or missing key at the top or in the summary (refused by name), or a near-miss: the
    keys in another order, a summary list item that reads like a key."""
    entry = compaction(rng)
    kind = index % 5
    grade_id = "lab1_legacy_and_extra_keys"
    if kind == 0:
        key = rng.choice([name for name in (_near_key(rng), "firstKeptEntryIndex") if name not in entry])
        entry[key] = rng.choice((2, text(rng), [], None))
        return _refused(grade_id, index, entry, key)
    if kind == 1:
        key = _near_key(rng)
        entry["summary"][key] = [text(rng)]
        return _refused(grade_id, index, entry, f"summary.{key}")
    if kind == 2:
        if rng.random() < 0.5:
            key = rng.choice(TOP_KEYS)
            del entry[key]
            return _refused(grade_id, index, entry, key)
        field = rng.choice(SUMMARY_FIELDS)
        del entry["summary"][field]
        return _refused(grade_id, index, entry, f"summary.{field}")
    if kind == 3:
        if rng.random() < 0.5:
            entry["summary"]["files"] = entry["summary"].pop("changedFiles")
            return _refused(grade_id, index, entry, ("summary.files", "summary.changedFiles"))
        entry["firstKeptEntryIndex"] = rng.randint(0, 9)
        del entry["firstKeptEntryId"]
        return _refused(grade_id, index, entry, ("firstKeptEntryIndex", "firstKeptEntryId"))
    entry["summary"] = dict(reversed(entry["summary"].items()))
    entry["summary"]["changedFiles"].append("files")
    return _case(grade_id, index, PARSE, (dict(reversed(entry.items())),), parts=("summary", "firstKeptEntryId"))


def bad_field_types(rng: random.Random, index: int) -> Case:
    """A field of the wrong type or value somewhere (refused naming its path), or values at the edge of what
    is allowed (accepted). (A summary that is not an object leaves too few other paths to tell an error naming
    everything from one naming the summary: the hidden cases have it.)"""
    entry = compaction(rng)
    grade_id = "lab1_bad_field_types"
    if index % 3 == 2:
        entry["timestamp"] = rng.choice((0, 0.0))
        for field in rng.sample(SUMMARY_FIELDS[1:], rng.randint(1, 6)):
            entry["summary"][field] = []
        return _case(grade_id, index, PARSE, (entry,), parts=("timestamp", "summary"))
    where = rng.choice(("goal", "list", "item", "parentId", "firstKeptEntryId", "timestamp"))
    if where == "goal":
        entry["summary"]["goal"] = rng.choice(("", rng.randint(0, 9), None, [text(rng)]))
        return _refused(grade_id, index, entry, "summary.goal")
    field = rng.choice(SUMMARY_FIELDS[1:])
    if where == "list":
        entry["summary"][field] = rng.choice((text(rng), None, {"item": text(rng)}))
        return _refused(grade_id, index, entry, f"summary.{field}")
    if where == "item":
        items = entry["summary"][field]
        items.insert(rng.randint(0, len(items)), rng.choice((rng.randint(0, 9), None, [text(rng)], True)))
        return _refused(grade_id, index, entry, f"summary.{field}")
    bad = {
        "parentId": (None, "", rng.randint(0, 9)),
        "firstKeptEntryId": ("", rng.randint(0, 9), None),
        "timestamp": (-rng.randint(1, 99), {"$float": "nan"}, {"$float": "inf"}, str(rng.randint(0, 99)), True),
    }[where]
    entry[where] = rng.choice(bad)
    return _refused(grade_id, index, entry, where)


SIBLINGS = 3
"""Keys of ``data`` beside the one at fault, so an error naming everything names them too."""


def probe(rng: random.Random, value: Any, ids: Ids | None = None) -> tuple[dict[str, Any], str]:
    """A ``custom`` entry whose ``data`` holds ``value`` under a drawn key beside ``SIBLINGS`` small ones; and
    the path of ``value`` (``data.<key>``)."""
    ids = ids or Ids(rng)
    keys = rng.sample([word for word in WORDS if word != "data"], SIBLINGS + 1)
    data: dict[str, Any] = {key: rng.choice((text(rng), rng.randint(0, 99), [text(rng)])) for key in keys[1:]}
    data[keys[0]] = value
    order = list(data)
    rng.shuffle(order)
    entry = custom_entry(ids("probe-"), {key: data[key] for key in order}, ids("a"), rng.randint(0, 10**6))
    return entry, f"data.{keys[0]}"


def nested_objects(levels: int) -> dict[str, Any]:
    """``levels`` objects, each the value of key ``a`` of the one around it."""
    value: dict[str, Any] = {}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


def guarded_input(rng: random.Random, index: int) -> Case:
    """The guarded parser on a drawn compaction (accepted), on lists or objects nested just within the limit
    (accepted) or just past it (refused naming the entry and the path)."""
    grade_id = "lab1_extra_guarded_input"
    if index % 3 == 0:
        return _case(grade_id, index, PARSE, (compaction(rng),), {"guarded": True}, copies=True)
    # data is level 2 and the value under it level 3: 30 levels there reach level 32, the deepest allowed
    levels = rng.choice((29, 30)) if index % 3 == 1 else rng.choice((31, 32, rng.randint(33, 40)))
    entry, path = probe(rng, rng.choice((nested_lists, nested_objects))(levels))
    if levels <= 30:
        return _case(grade_id, index, PARSE, (entry,), {"guarded": True}, copies=True)
    return _refused(grade_id, index, entry, path, guarded=True)


def _at_limit(rng: random.Random, over: bool) -> Any:
    """A value exactly at one of the guard's limits (or one past it), drawn."""
    extra = int(over)
    kind = rng.choice(("items", "string", "key", "objects"))
    if kind == "items":
        return [rng.randint(0, 9)] * (16_384 + extra)
    if kind == "string":
        # a few emoji are enough to tell code points from UTF-16 units, and keep the report small
        emoji = rng.randint(1, 64)
        return "😀" * emoji + "a" * (65_536 - emoji + extra)
    if kind == "key":
        return {"k" * (65_536 + extra): 1}
    return nested_objects(30 + extra)


def guarded_limits(rng: random.Random, index: int) -> Case:
    """Each limit on both sides in a drawn key: items, code points (emoji counted once), a key's length, nested
    objects; a tuple; a drawn compaction. (An object's keys and a whole entry's units, hundreds of kilobytes to a
    megabyte each side, are the hidden cases'.)"""
    grade_id = "lab1_extra_guarded_limits"
    kind = index % 5
    if kind == 4:
        return _case(grade_id, index, PARSE, (compaction(rng),), {"guarded": True}, parts=("id", "summary"))
    if kind == 3:
        entry, path = probe(rng, {"$tuple": [rng.randint(0, 9)]})
    else:
        entry, path = probe(rng, _at_limit(rng, over=kind == 1))
    if kind in (0, 2):
        return _case(grade_id, index, PARSE, (entry,), {"guarded": True}, parts=("id",))
    return _refused(grade_id, index, entry, path, guarded=True)


CELLS = {
    "lab1_compaction_record": compaction_record,
    "lab1_in_memory_store": in_memory_store,
    "lab1_jsonl_reopen": jsonl_reopen,
    "lab1_bad_tokens_before": bad_tokens_before,
    "lab1_legacy_and_extra_keys": legacy_and_extra_keys,
    "lab1_bad_field_types": bad_field_types,
    "lab1_extra_guarded_input": guarded_input,
    "lab1_extra_guarded_limits": guarded_limits,
}


def variants(rng: random.Random) -> tuple[Case, ...]:
    """``EACH`` generated cases per grade cell of lab 1 (extra credit included), drawn from ``rng``."""
    return tuple(draw(rng, index) for draw in CELLS.values() for index in range(EACH))
