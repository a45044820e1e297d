"""Lab 1's hidden cases: ``parse_session_entry`` on compact-1 with a bad ``tokensBefore``, legacy, extra or
missing keys, and fields of the wrong type; every refusal names the entry id and the dotted field path. Going
further (extra credit): the guarded parser at each limit, on both sides."""

from __future__ import annotations

import re
from typing import Any

from compaction_lab.provided.checking.case import Case
from compaction_lab.provided.scenarios import compaction_object, custom_entry, message_entry
from compaction_lab.records import SUMMARY_FIELDS

PARSE = "records.parse_session_entry"
NAN, INF = {"$float": "nan"}, {"$float": "inf"}


def compact_1(**fields: Any) -> dict[str, Any]:
    """compact-1 as stored (parent a3, first kept u2), with top-level ``fields`` set (wire values)."""
    return {**compaction_object("compact-1", "a3", "u2"), **fields}


def with_summary(**fields: Any) -> dict[str, Any]:
    """compact-1 with summary ``fields`` set."""
    entry = compact_1()
    entry["summary"].update(fields)
    return entry


def without(key: str) -> dict[str, Any]:
    """compact-1 without its top-level ``key``."""
    entry = compact_1()
    del entry[key]
    return entry


def without_summary_field(field: str) -> dict[str, Any]:
    """compact-1 without ``field`` in its summary."""
    entry = compact_1()
    del entry["summary"][field]
    return entry


def legacy_files() -> dict[str, Any]:
    """compact-1 written by an older writer: ``summary.files`` instead of ``summary.changedFiles``."""
    entry = compact_1()
    entry["summary"]["files"] = entry["summary"].pop("changedFiles")
    return entry


def legacy_index() -> dict[str, Any]:
    """compact-1 written by an older writer: ``firstKeptEntryIndex`` instead of ``firstKeptEntryId``."""
    entry = compact_1(firstKeptEntryIndex=2)
    del entry["firstKeptEntryId"]
    return entry


def snake(name: str) -> str:
    """A field name as a case name: ``firstKeptEntryId`` -> ``first_kept_entry_id``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _refused(
    name: str, grade_id: str, described: str, entry: dict[str, Any], field: str | tuple[str, ...], hint: str
) -> Case:
    return Case(
        name,
        grade_id,
        f"parse_session_entry(compact-1 {described})",
        PARSE,
        (entry,),
        raises="SessionEntryError",
        naming=("compact-1", field),
        hint=hint,
        hidden=True,
    )


TOKENS = "lab1_bad_tokens_before"
TOKENS_HINT = "tokensBefore must be a finite number >= 0 (a bool is not a number); the error names the entry and field."
KEYS = "lab1_legacy_and_extra_keys"
KEYS_HINT = "The key sets of the entry and of its summary are exact; the error names the entry and the dotted path."
LEGACY_HINT = "A legacy key is refused, never renamed or dropped; the error names the entry and the key at fault."
TYPES = "lab1_bad_field_types"
TYPES_HINT = "Every field is checked for its type and value; the error names the entry and the dotted field path."


def at_the_edges() -> dict[str, Any]:
    """compact-1 with timestamp 0 and every summary list empty: the edge of what is allowed."""
    entry = compact_1(timestamp=0)
    entry["summary"].update({field: [] for field in SUMMARY_FIELDS[1:]})
    return entry


def keys_reordered() -> dict[str, Any]:
    """compact-1 with its keys, and its summary's, in reverse order (JSON objects have no order)."""
    entry = compact_1()
    entry["summary"] = dict(reversed(entry["summary"].items()))
    return dict(reversed(entry.items()))


CASES: tuple[Case, ...] = (
    # Each cell of refusals also has an entry to accept: a parser that refuses everything earns nothing.
    Case(
        "edge_values_accepted",
        TYPES,
        "parse_session_entry(compact-1 with timestamp 0 and empty summary lists)",
        PARSE,
        (at_the_edges(),),
        parts=("timestamp", "summary"),
        hidden=True,
        hint="Values at the edge of what is allowed (timestamp 0, empty lists) are accepted as given.",
    ),
    Case(
        "keys_in_another_order_accepted",
        KEYS,
        "parse_session_entry(compact-1 with its keys in reverse order)",
        PARSE,
        (keys_reordered(),),
        parts=("summary", "firstKeptEntryId"),
        hidden=True,
        hint="The key sets are compared as sets: the order of the keys does not matter.",
    ),
    *(
        Case(
            f"tokens_before_{label}_kept",
            TOKENS,
            f"parse_session_entry(compact-1 with tokensBefore={value})",
            PARSE,
            (compact_1(tokensBefore=value),),
            parts=("tokensBefore",),
            hidden=True,
            hint="tokensBefore is checked and kept as given, never recomputed or rounded.",
        )
        for label, value in (("zero", 0), ("fraction", 1234.5))
    ),
    *(
        _refused(
            f"tokens_before_{label}",
            TOKENS,
            f"with tokensBefore={shown}",
            compact_1(tokensBefore=value),
            "tokensBefore",
            TOKENS_HINT,
        )
        for label, shown, value in (
            ("true", "True", True),
            ("false", "False", False),
            ("nan", "nan", NAN),
            ("inf", "inf", INF),
            ("negative", "-1", -1),
            ("string", "'29'", "29"),
            ("none", "None", None),
        )
    ),
    _refused(
        "legacy_summary_files",
        KEYS,
        "with summary.files instead of summary.changedFiles",
        legacy_files(),
        ("summary.files", "summary.changedFiles"),
        LEGACY_HINT,
    ),
    _refused(
        "legacy_first_kept_entry_index",
        KEYS,
        "with firstKeptEntryIndex instead of firstKeptEntryId",
        legacy_index(),
        ("firstKeptEntryIndex", "firstKeptEntryId"),
        LEGACY_HINT,
    ),
    *(
        _refused(f"extra_{snake(key)}", KEYS, f"with an extra key {key}", compact_1(**{key: 2}), key, KEYS_HINT)
        for key in ("note", "firstKeptEntryIndex")
    ),
    _refused(
        "extra_summary_notes", KEYS, "with an extra summary.notes", with_summary(notes=[]), "summary.notes", KEYS_HINT
    ),
    *(
        _refused(f"missing_{snake(key)}", KEYS, f"without {key}", without(key), key, KEYS_HINT)
        for key in ("summary", "firstKeptEntryId", "tokensBefore", "timestamp")
    ),
    *(
        _refused(
            f"missing_summary_{snake(field)}",
            KEYS,
            f"without summary.{field}",
            without_summary_field(field),
            f"summary.{field}",
            KEYS_HINT,
        )
        for field in SUMMARY_FIELDS
    ),
    *(
        _refused(
            f"bad_summary_{field}",
            TYPES,
            f"with summary.{field}={value!r}",
            with_summary(**{field: value}),
            f"summary.{field}",
            TYPES_HINT,
        )
        for field, value in (("goal", ""), ("constraints", ["ok", 3]), ("next", "Run the tests."))
    ),
    *(
        _refused(f"bad_{label}", TYPES, f"with {key}={shown}", compact_1(**{key: value}), key, TYPES_HINT)
        for label, key, shown, value in (
            ("markdown_summary", "summary", "'## Goal\\nCheck recovery.'", "## Goal\nCheck recovery."),
            ("root_parent", "parentId", "None", None),
            ("empty_parent", "parentId", "''", ""),
            ("empty_first_kept", "firstKeptEntryId", "''", ""),
            ("number_first_kept", "firstKeptEntryId", "2", 2),
            ("negative_timestamp", "timestamp", "-1", -1),
            ("nan_timestamp", "timestamp", "nan", NAN),
        )
    ),
)


GUARD = "lab1_extra_guarded_limits"


def _guarded(name: str, described: str, entry: dict[str, Any], hint: str, naming: tuple = (), **extra: Any) -> Case:
    return Case(
        name,
        GUARD,
        f"parse_session_entry({described}, guarded=True)",
        PARSE,
        (entry,),
        {"guarded": True},
        raises="SessionEntryError" if naming else None,
        naming=naming,
        hint=hint,
        hidden=True,
        **extra,
    )


def nested_objects(levels: int) -> dict[str, Any]:
    """``levels`` objects, each the value of key ``a`` of the one around it."""
    value: dict[str, Any] = {}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


HALF_EMOJI = "😀" * 32_768 + "a" * 32_768
"""65,536 code points (131,072 UTF-16 units, 163,840 UTF-8 bytes): exactly at the string limit."""
ITEMS_HINT = "An object or array may hold 16,384 items, not one more; the error names the entry and the field."
STRING_HINT = "A string may hold 65,536 code points (not UTF-16 units or bytes); keys count too."
NESTING_HINT = "Objects count as levels just as arrays do: the entry is level 1, and level 33 is refused."
UNITS_HINT = "The whole entry is counted as the walk goes: 1 unit per value plus 1 per code point of every string."
PLAIN_HINT = "Only plain JSON types count, by exact type: a dict subclass is not plain; the error names the field."

CASES += (
    _guarded(
        "items_16384_accepted",
        "custom_entry with 16,384 numbers",
        custom_entry("big-1", [0] * 16_384),
        ITEMS_HINT,
        parts=("id",),
    ),
    _guarded(
        "items_16385_refused",
        "custom_entry with 16,385 numbers",
        custom_entry("big-1", [0] * 16_385),
        ITEMS_HINT,
        naming=("big-1", "data"),
    ),
    _guarded(
        "object_16385_keys_refused",
        "custom_entry with an object of 16,385 keys",
        custom_entry("big-1", {f"k{n}": n for n in range(16_385)}),
        ITEMS_HINT,
        naming=("big-1", "data"),
    ),
    _guarded(
        "string_65536_code_points_accepted",
        "a user message of 65,536 code points, half of them emoji",
        message_entry("u9", "a3", 10, "user", HALF_EMOJI),
        STRING_HINT,
        parts=("id",),
    ),
    _guarded(
        "string_65537_refused",
        "a user message of 65,537 characters",
        message_entry("u9", "a3", 10, "user", "a" * 65_537),
        STRING_HINT,
        naming=("u9", "message.content"),
    ),
    _guarded(
        "key_65537_refused",
        "custom_entry whose data has a key of 65,537 characters",
        custom_entry("big-1", {"k" * 65_537: 1}),
        STRING_HINT,
        naming=("big-1", "data"),
    ),
    _guarded(
        "objects_33_levels_refused",
        "custom_entry with objects nested 32 deep in data",
        custom_entry("deep-2", nested_objects(32)),
        NESTING_HINT,
        naming=("deep-2", "data.a"),
    ),
    _guarded(
        "objects_32_levels_accepted",
        "custom_entry with objects nested 31 deep in data",
        custom_entry("deep-2", nested_objects(31)),
        NESTING_HINT,
        parts=("id",),
    ),
    _guarded(
        "entry_over_a_million_units",
        "custom_entry with 16 strings of 65,000 characters",
        custom_entry("huge-1", ["x" * 65_000] * 16),
        UNITS_HINT,
        naming=("huge-1", "data"),
    ),
    _guarded(
        "entry_under_a_million_units",
        "custom_entry with 15 strings of 65,000 characters",
        custom_entry("huge-1", ["x" * 65_000] * 15),
        UNITS_HINT,
        parts=("id",),
    ),
    Case(
        "caller_mapping_refused",
        GUARD,
        "parse_session_entry(custom_entry, data a dict subclass, guarded=True)",
        "provided.checking.drivers.parse_guarded_with_caller_mapping",
        (custom_entry("odd-1", {"a": 1}), "data"),
        raises="SessionEntryError",
        naming=("odd-1", "data"),
        hint=PLAIN_HINT,
        hidden=True,
    ),
    _guarded(
        "tuple_refused",
        "custom_entry whose data holds a tuple",
        custom_entry("odd-1", {"a": {"$tuple": [1]}}),
        PLAIN_HINT,
        naming=("odd-1", "data.a"),
    ),
)
