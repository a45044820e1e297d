"""Lab 1, record parsing (``records.py``, ``parse_compaction_entry``): the bank's mistakes and correct versions."""

from __future__ import annotations

from workbook.authoring.bank import Correct, Mistake

TOKENS_LINE = '        "tokensBefore": _number(obj, "tokensBefore", where),\n'
STEP_3 = "    # Step 3: build the new entry from the checked values only.\n"


def own_tokens_check(condition: str) -> tuple[tuple[str, str], ...]:
    """Patches replacing the tokensBefore check by a hand-written one that refuses ``condition``."""
    check = (
        '    tokens_before = obj["tokensBefore"]\n'
        f"    if {condition}:\n"
        '        raise SessionEntryError(f"{where}: tokensBefore: expected a number >= 0, '
        'got {tokens_before!r}")\n'
    )
    return (STEP_3, check + STEP_3), (TOKENS_LINE, '        "tokensBefore": tokens_before,\n')


MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        "legacy_keys_ignored",
        "extra and legacy keys (firstKeptEntryIndex) are ignored instead of refused: only missing keys are checked",
        (
            (
                "    _check_keys(obj, COMPACTION_KEYS, where)\n",
                "    for key in sorted(COMPACTION_KEYS - obj.keys()):\n"
                '        raise SessionEntryError(f"{where}: {key}: missing")\n',
            ),
        ),
    ),
    Mistake(
        "summary_keys_unchecked",
        "the summary's extra or legacy keys (files) pass unnoticed: only the seven fields are read",
        (('    _check_keys(summary, frozenset(SUMMARY_FIELDS), where, "summary.")\n', ""),),
    ),
    Mistake(
        "tokens_before_nan_accepted",
        "NaN and infinity pass as tokensBefore: only the type and the sign are checked",
        own_tokens_check(
            "isinstance(tokens_before, bool) or not isinstance(tokens_before, (int, float)) or tokens_before < 0"
        ),
    ),
    Mistake(
        "tokens_before_bool_accepted",
        "bools taken as numbers: tokensBefore True passes (a bool is an int in Python)",
        own_tokens_check(
            "not isinstance(tokens_before, (int, float)) or not math.isfinite(tokens_before) or tokens_before < 0"
        ),
    ),
    Mistake(
        "tokens_before_truncated",
        "tokensBefore is cut to a whole number instead of kept as given",
        ((TOKENS_LINE, '        "tokensBefore": int(_number(obj, "tokensBefore", where)),\n'),),
    ),
    Mistake(
        "summary_shared",
        "the checked summary is the caller's own object in the result, not a copy",
        (('        "summary": new_summary,\n', '        "summary": summary,\n'),),
    ),
    Mistake(
        "summary_items_unchecked",
        "the six summary lists are copied without checking they are lists of strings",
        (
            (
                '        new_summary[field] = _string_list(summary, field, where, "summary.")\n',
                "        new_summary[field] = list(summary[field])\n",
            ),
        ),
    ),
    Mistake(
        "compaction_as_root",
        "a compaction whose parentId is null is accepted as a root entry",
        (("root_allowed=False", "root_allowed=True"),),
    ),
    Mistake(
        "errors_without_entry_id",
        "error messages name the field but not the entry id",
        (
            (
                "    where = _name(obj)\n    _check_keys(obj, COMPACTION_KEYS, where)\n",
                '    where = "compaction entry"\n    _check_keys(obj, COMPACTION_KEYS, where)\n',
            ),
        ),
    ),
    Mistake(
        "summary_popped_from_input",
        "the input is changed: the summary is popped off the caller's dict",
        (('    summary = obj["summary"]\n', '    summary = obj.pop("summary")\n'),),
    ),
    # Going further (extra credit): guard_entry
    Mistake(
        "guard_depth_off_by_one",
        "the guard counts levels from 0: an entry nested exactly 32 deep is refused",
        (("            if len(stack) > MAX_NESTING:\n", "            if len(stack) >= MAX_NESTING:\n"),),
    ),
    Mistake(
        "guard_counts_utf16_units",
        "the string limit counts UTF-16 units, as JavaScript's length does: "
        "an emoji counts 2 and 65,536 code points of emoji are refused",
        (
            (
                "            if len(value) > MAX_STRING:\n",
                '            if len(value.encode("utf-16-le")) // 2 > MAX_STRING:\n',
            ),
        ),
    ),
    Mistake(
        "guard_accepts_subclasses",
        "plain types checked with isinstance: a dict subclass (a caller's mapping "
        "that may run code) passes as an object",
        (("        if kind is dict or kind is list:\n", "        if isinstance(value, (dict, list)):\n"),),
    ),
)

INLINE_CHECKS = """\
entry_id = obj.get("id")
label = f"compaction {entry_id!r}" if isinstance(entry_id, str) and entry_id else "compaction (no id)"


def fail(path, problem):
    raise SessionEntryError(f"{label}, field {path}: {problem}")


def number(path, value):
    if type(value) not in (int, float) or value != value or value in (math.inf, -math.inf) or value < 0:
        fail(path, f"{value!r} is not a finite, non-negative number")
    return value


def text(path, value):
    if type(value) is not str or value == "":
        fail(path, f"{value!r} is not a non-empty string")
    return value


expected = {"type", "id", "parentId", "timestamp", "summary", "firstKeptEntryId", "tokensBefore"}
for key in sorted(expected - set(obj)):
    fail(key, "is required")
for key in sorted(set(obj) - expected, key=str):
    fail(key, "is not a field of a compaction entry (legacy or unknown)")
summary = obj["summary"]
if type(summary) is not dict:
    fail("summary", "must be an object with the seven summary fields")
for key in sorted(set(SUMMARY_FIELDS) - set(summary)):
    fail(f"summary.{key}", "is required")
for key in sorted(set(summary) - set(SUMMARY_FIELDS), key=str):
    fail(f"summary.{key}", "is not a summary field (legacy or unknown)")
copied = {"goal": text("summary.goal", summary["goal"])}
for key in SUMMARY_FIELDS[1:]:
    items = summary[key]
    if type(items) is not list:
        fail(f"summary.{key}", "must be a list of strings")
    for position, item in enumerate(items):
        if type(item) is not str:
            fail(f"summary.{key}[{position}]", f"{item!r} is not a string")
    copied[key] = [item for item in items]
return {"type": "compaction", "id": text("id", obj["id"]), "parentId": text("parentId", obj["parentId"]),
        "timestamp": number("timestamp", obj["timestamp"]), "summary": copied,
        "firstKeptEntryId": text("firstKeptEntryId", obj["firstKeptEntryId"]),
        "tokensBefore": number("tokensBefore", obj["tokensBefore"])}
"""

FIELD_READERS = """\
shown = obj.get("id") if isinstance(obj.get("id"), str) and obj.get("id") else "<no id>"


def problem(path, why):
    return SessionEntryError(f"{path} of compaction entry {shown!r}: {why}")


def finite(path, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise problem(path, f"needs a finite number of at least 0, found {value!r}")
    return value


def identifier(path, value):
    if not isinstance(value, str) or not value:
        raise problem(path, f"needs a non-empty string, found {value!r}")
    return value


def strings(path, value):
    if not isinstance(value, list):
        raise problem(path, f"needs a list of strings, found {value!r}")
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise problem(f"{path}[{index}]", f"needs a string, found {item!r}")
    return [*value]


def fields(value, readers, prefix):
    if not isinstance(value, dict):
        raise problem(prefix.rstrip("."), "needs an object")
    for key in sorted(value.keys() - readers.keys(), key=str):
        raise problem(f"{prefix}{key}", "is a legacy or unknown field")
    for key in sorted(readers.keys() - value.keys()):
        raise problem(f"{prefix}{key}", "is missing")
    return {key: reader(f"{prefix}{key}", value[key]) for key, reader in readers.items()}


summary_readers = {"goal": identifier} | dict.fromkeys(SUMMARY_FIELDS[1:], strings)
return fields(obj, {
    "type": lambda path, value: value, "id": identifier, "parentId": identifier, "timestamp": finite,
    "summary": lambda path, value: fields(value, summary_readers, "summary."),
    "firstKeptEntryId": identifier, "tokensBefore": finite,
}, "")
"""

ALL_PROBLEMS = """\
problems: list[str] = []
entry_id = obj.get("id")


def need(ok, path, what):
    if not ok:
        problems.append(f"{path} must be {what}")
    return ok


def is_count(value):
    return type(value) in (int, float) and math.isfinite(value) and value >= 0


def is_name(value):
    return type(value) is str and len(value) > 0


for key in sorted(set(obj) | COMPACTION_KEYS, key=str):
    need(key in obj, key, "present")
    need(key in COMPACTION_KEYS, key, "absent (not a compaction field; legacy names are not accepted)")
for key in ("id", "parentId", "firstKeptEntryId"):
    need(is_name(obj.get(key)), key, "a non-empty string")
for key in ("timestamp", "tokensBefore"):
    need(is_count(obj.get(key)), key, "a finite number >= 0")
summary = obj.get("summary")
if need(type(summary) is dict, "summary", "an object of the seven summary fields"):
    for key in sorted(set(summary) | set(SUMMARY_FIELDS), key=str):
        need(key in summary, f"summary.{key}", "present")
        need(key in SUMMARY_FIELDS, f"summary.{key}", "absent (not a summary field)")
    need(is_name(summary.get("goal")), "summary.goal", "a non-empty string")
    for key in SUMMARY_FIELDS[1:]:
        items = summary.get(key)
        if key in summary and need(type(items) is list, f"summary.{key}", "a list of strings"):
            for index, item in enumerate(items):
                need(type(item) is str, f"summary.{key}[{index}]", "a string")
if problems:
    raise SessionEntryError(f"compaction entry {entry_id!r} is refused: " + "; ".join(problems))
return {"type": obj["type"], "id": entry_id, "parentId": obj["parentId"], "timestamp": obj["timestamp"],
        "summary": {key: summary[key] if key == "goal" else list(summary[key]) for key in SUMMARY_FIELDS},
        "firstKeptEntryId": obj["firstKeptEntryId"], "tokensBefore": obj["tokensBefore"]}
"""

GUARD_PENDING = """\
def refuse(path, problem):
    raise SessionEntryError(f"{where}, field {path or '(the entry)'}: {problem}")


total = 0
# What is still to visit, last out first: ("value", path, value, level) or ("key", path of its object, key).
pending = [("value", "", obj, 1)]
while pending:
    task = pending.pop()
    if task[0] == "key":
        _, owner, key = task
        if type(key) is not str:
            refuse(owner, f"key {type(key).__name__} is not a string")
        if len(key) > MAX_STRING:
            refuse(f"{owner}.{key[:80]}" if owner else key[:80], f"key too long ({len(key)} code points)")
        total += len(key)
        continue
    _, path, value, level = task
    total += 1
    if type(value) in (dict, list):
        if level > MAX_NESTING:
            refuse(path, f"level {level} is deeper than {MAX_NESTING}")
        if len(value) > MAX_ITEMS:
            refuse(path, f"holds {len(value)} items (at most {MAX_ITEMS})")
        if type(value) is list:
            members = [("value", f"{path}[{index}]", item, level + 1) for index, item in enumerate(value)]
            pending.extend(reversed(members))
        else:
            for key in reversed(list(value)):
                name = key[:80] if type(key) is str else ""
                pending.append(("value", f"{path}.{name}" if path else name, value[key], level + 1))
                pending.append(("key", path, key))
    elif type(value) is str:
        if len(value) > MAX_STRING:
            refuse(path, f"string of {len(value)} code points (at most {MAX_STRING})")
        total += len(value)
    elif type(value) not in (int, float, bool, type(None)):
        refuse(path, f"{type(value).__name__} is not JSON data")
    if total > MAX_UNITS:
        refuse(path, f"the entry passes {MAX_UNITS} units")
"""

GUARD_FRAMES = '''\
units = 0


def over(path, why):
    return SessionEntryError(f"{why} at {path or '(the entry)'} of {where}")


def visit(path, value, depth):
    """Count ``value``; return a frame to walk when it is a container."""
    nonlocal units
    units += 1
    frame = None
    if type(value) is dict or type(value) is list:
        if depth > MAX_NESTING:
            raise over(path, f"nesting depth {depth} over {MAX_NESTING}")
        if len(value) > MAX_ITEMS:
            raise over(path, f"{len(value)} items over {MAX_ITEMS}")
        frame = [path, value, list(value) if type(value) is dict else None, 0]
    elif type(value) is str:
        if len(value) > MAX_STRING:
            raise over(path, f"string of {len(value)} code points over {MAX_STRING}")
        units += len(value)
    elif not (value is None or type(value) in (bool, int, float)):
        raise over(path, f"non-plain {type(value).__name__}")
    if units > MAX_UNITS:
        raise over(path, f"entry size over {MAX_UNITS} units")
    return frame


frames = [visit("", obj, 1)]
while frames:
    frame = frames[-1]
    if frame is None or frame[3] == len(frame[1]):
        frames.pop()
        continue
    path, container, keys, index = frame
    frame[3] += 1
    if keys is None:
        child = visit(f"{path}[{index}]", container[index], len(frames) + 1)
    else:
        key = keys[index]
        if not isinstance(key, str):
            raise over(path, "an object key that is not a string")
        named = f"{path}.{key[:80]}" if path else key[:80]
        if len(key) > MAX_STRING:
            raise over(named, f"key of {len(key)} code points over {MAX_STRING}")
        units += len(key)
        child = visit(named, container[key], len(frames) + 1)
    if child is not None:
        frames.append(child)
'''

CORRECT: tuple[Correct, ...] = (
    Correct(
        "records_inline_checks",
        "no helpers: local closures, checks in order, the first problem raised; the "
        "guard keeps a stack of what is still to visit, keys as tasks of their own",
        (INLINE_CHECKS, GUARD_PENDING, ""),
    ),
    Correct(
        "records_field_readers",
        "a table of field readers applied to the entry and to its summary; the guard "
        "walks frames of (container, keys, next index)",
        (FIELD_READERS, GUARD_FRAMES, ""),
    ),
    Correct(
        "records_all_problems",
        "every problem collected, then one error naming them all; the guard keeps a stack of what is still to visit",
        (ALL_PROBLEMS, GUARD_PENDING, ""),
    ),
)
