"""Lab 2, interaction grouping (``grouping.py``: ``group_interactions`` and its helper region).

The patches anchor on lines that the rule "a call id is unique on the whole path" leaves as they are, and the
correct implementations refuse a call id declared twice anywhere on the path (naming it and both entries):
stricter than a per-interaction check, which no test of this lab distinguishes."""

from __future__ import annotations

from workbook.authoring.bank import Correct, Mistake

RESULT_ID = '            call_id = entry["message"]["toolCallId"]\n'
CALLS = "        for call in tool_calls(entry):\n"

MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        "paired_by_position",
        "tool results paired with calls by position (the n-th result answers the n-th call), not by id",
        (
            (
                RESULT_ID,
                "            ordered = list(calls)  # the n-th result answers the n-th call\n"
                "            call_id = ordered[len(results)] if len(results) < len(ordered) else "
                'entry["message"]["toolCallId"]\n',
            ),
        ),
    ),
    Mistake(
        "paired_by_tool_name",
        "results matched to calls by tool name, not by call id",
        (
            (CALLS, '        for call in [dict(block, id=block["name"]) for block in tool_calls(entry)]:\n'),
            (RESULT_ID, '            call_id = entry["message"]["toolName"]\n'),
        ),
    ),
    Mistake(
        "result_must_follow_call",
        "a result that comes before its call is refused (results assumed to follow their calls)",
        (
            (
                RESULT_ID,
                RESULT_ID + "            if call_id not in calls:\n"
                "                raise InteractionError(f\"entry {entry['id']!r}: result for call id "
                '{call_id!r} before its call")\n',
            ),
        ),
    ),
    Mistake(
        "dangling_call_accepted",
        "a tool call without a result is accepted (a dangling call goes unnoticed)",
        (
            (
                "    for call_id, call_entry in calls.items():\n"
                "        if call_id not in results:\n"
                "            raise InteractionError(\n"
                '                f"call id {call_id!r} (entry {call_entry!r}): no tool result before the interaction '
                'closes"\n'
                "            )\n",
                "",
            ),
        ),
    ),
    Mistake(
        "calls_collapsed_by_id",
        "a message's tool calls are collected by id, so a call id it declares twice "
        "collapses into one instead of being refused",
        ((CALLS, '        for call in {block["id"]: block for block in tool_calls(entry)}.values():\n'),),
    ),
    Mistake(
        "second_result_overwrites",
        "a second result for the same call overwrites the first instead of being refused",
        (
            (
                "            if call_id in results:\n"
                "                raise InteractionError(\n"
                "                    f\"call id {call_id!r}: second result {entry['id']!r} (the first was "
                '{results[call_id]!r})"\n'
                "                )\n",
                "",
            ),
        ),
    ),
    Mistake(
        "paired_across_interactions",
        "calls and results paired across the whole path, not inside each "
        "interaction (a call separated from its result goes unnoticed)",
        (
            (
                "    for group in groups:\n        _check_pairs(group",
                "    for group in [[entry for group in groups for entry in group]]:\n        _check_pairs(group",
            ),
        ),
    ),
    Mistake(
        "shallow_copies",
        "entries copied shallowly: each message and its tool arguments are shared with the path",
        (("copy.deepcopy(entry)", "copy.copy(entry)"),),
    ),
    Mistake(
        "leading_messages_dropped",
        "messages before the first user message are dropped instead of refused (the error swallowed)",
        (
            (
                "            raise InteractionError(f\"entry {entry['id']!r}: the first message must be a user "
                'message")\n',
                "            continue\n",
            ),
        ),
    ),
    Mistake(
        "metadata_skipped",
        "non-message entries are skipped silently instead of refused",
        (
            (
                '    for entry in entries:\n        if role(entry) == "user":\n',
                '    for entry in entries:\n        if entry["type"] != "message":\n            continue\n'
                '        if role(entry) == "user":\n',
            ),
        ),
    ),
)

OPEN_INTERACTION = (
    """\
interactions: list[Interaction] = []
seen: dict[str, str] = {}  # every call id on the path so far -> the entry that declares it
declared: dict[str, str] = {}
answered: dict[str, str] = {}
for entry in entries:
    speaker = role(entry)
    if speaker == "user":
        if interactions:
            _settle(declared, answered)
        interactions.append([])
        declared, answered = {}, {}
    elif not interactions:
        raise InteractionError(f"entry {entry['id']!r} comes before any user message; an interaction starts with one")
    interactions[-1].append(copy.deepcopy(entry))
    for call in tool_calls(entry):
        if call["id"] in seen:
            raise InteractionError(f"entry {entry['id']!r} declares tool call {call['id']!r} again "
                                   f"(entry {seen[call['id']]!r} declared it first)")
        seen[call["id"]] = declared[call["id"]] = entry["id"]
    if speaker == "toolResult":
        call_id = entry["message"]["toolCallId"]
        if call_id in answered:
            raise InteractionError(f"entry {entry['id']!r} is a second result for tool call {call_id!r}")
        answered[call_id] = entry["id"]
if interactions:
    _settle(declared, answered)
return interactions
""",
    '''\
def _settle(declared: dict[str, str], answered: dict[str, str]) -> None:
    """At the close of an interaction: each result answers a call of it, each call has a result."""
    for call_id, result_id in answered.items():
        if call_id not in declared:
            raise InteractionError(f"entry {result_id!r} answers tool call {call_id!r}, unknown in its interaction")
    for call_id, entry_id in declared.items():
        if call_id not in answered:
            raise InteractionError(f"tool call {call_id!r} of entry {entry_id!r} never got its result")
''',
)

SLICES = (
    """\
for entry in entries:
    role(entry)  # refuses a non-message entry, naming it
starts = [index for index, entry in enumerate(entries) if entry["message"]["role"] == "user"]
if entries and (not starts or starts[0] != 0):
    raise InteractionError(f"entry {entries[0]['id']!r} opens the path but is not a user message")
declarers: dict[str, list[str]] = {}
for entry in entries:
    for call in tool_calls(entry):
        declarers.setdefault(call["id"], []).append(entry["id"])
for call_id, owners in declarers.items():
    if len(owners) > 1:
        raise InteractionError(f"tool call id {call_id!r} is declared {len(owners)} times on the path, "
                               f"by entries {', '.join(map(repr, owners))}")
bounds = zip(starts, starts[1:] + [len(entries)])
interactions = [copy.deepcopy(entries[start:stop]) for start, stop in bounds]
for interaction in interactions:
    _verify_tool_pairs(interaction)
return interactions
""",
    '''\
from collections import Counter


def _verify_tool_pairs(interaction: Interaction) -> None:
    """Count the results per call id: each call of the interaction answered exactly once, by a result of it."""
    declared = {call["id"] for entry in interaction for call in tool_calls(entry)}
    answers = [entry for entry in interaction if entry["message"]["role"] == "toolResult"]
    answered = Counter(entry["message"]["toolCallId"] for entry in answers)
    for entry in answers:
        call_id = entry["message"]["toolCallId"]
        if answered[call_id] > 1:
            raise InteractionError(f"tool call {call_id!r} has more than one result "
                                   f"(entry {entry['id']!r} among them)")
        if call_id not in declared:
            raise InteractionError(f"result {entry['id']!r} names tool call {call_id!r}, "
                                   "which its interaction never made")
    missing = sorted(declared - answered.keys())
    if missing:
        raise InteractionError(f"tool call {missing[0]!r} has no result in its interaction")
''',
)

ID_SETS = (
    """\
interactions: list[Interaction] = []
for entry in entries:
    kind = role(entry)
    if kind != "user" and not interactions:
        raise InteractionError(f"no user message before entry {entry['id']!r}")
    interactions += [[]] if kind == "user" else []
    interactions[-1] += [copy.deepcopy(entry)]
taken: dict[str, str] = {}
for interaction in interactions:
    _match_by_id(interaction, taken)
return interactions
""",
    '''\
def _match_by_id(interaction: Interaction, taken: dict[str, str]) -> None:
    """The call ids declared and the call ids answered must be the same set, no id answered twice, and no call id
    declared twice on the path (``taken``: each earlier call id and its entry; this interaction's are added)."""
    made = []
    for entry in interaction:
        for call in tool_calls(entry):
            if call["id"] in taken:
                raise InteractionError(f"tool call {call['id']!r} of entry {entry['id']!r} was already declared "
                                       f"by entry {taken[call['id']]!r}")
            taken[call["id"]] = entry["id"]
            made.append(call["id"])
    results = [entry for entry in interaction if role(entry) == "toolResult"]
    answered = [entry["message"]["toolCallId"] for entry in results]
    repeated = sorted({call_id for call_id in answered if answered.count(call_id) > 1})
    if repeated:
        raise InteractionError(f"tool call {repeated[0]!r} is answered more than once in one interaction")
    stray = [entry for entry in results if entry["message"]["toolCallId"] not in made]
    if stray:
        raise InteractionError(f"entry {stray[0]['id']!r}: no call {stray[0]['message']['toolCallId']!r} "
                               "in its interaction")
    unanswered = sorted(set(made) - set(answered))
    if unanswered:
        raise InteractionError(f"tool call {unanswered[0]!r} is never answered in its interaction")
''',
)

CORRECT: tuple[Correct, ...] = (
    Correct(
        "grouping_open_interaction",
        "one pass with the open interaction's calls and results, settled as it closes",
        OPEN_INTERACTION,
    ),
    Correct("grouping_slices", "user positions first, slices between them, then counters per call id", SLICES),
    Correct("grouping_id_sets", "interactions built first, then declared and answered ids compared as sets", ID_SETS),
)
