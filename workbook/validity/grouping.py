"""Lab 2, interaction grouping (``grouping.py``: ``group_interactions`` and its helper region)."""

from __future__ import annotations

from . import Correct, Mistake

RESULT_ID = '            call_id = entry["message"]["toolCallId"]\n'

MISTAKES: tuple[Mistake, ...] = (
    Mistake("paired_by_position", "tool results paired with calls by position (the n-th result answers the n-th "
            "call), not by id",
            ((RESULT_ID, '            ordered = list(calls)  # the n-th result answers the n-th call\n'
                         '            call_id = ordered[len(results)] if len(results) < len(ordered) else '
                         'entry["message"]["toolCallId"]\n'),)),
    Mistake("paired_by_tool_name", "results matched to calls by tool name, not by call id",
            (('            if call["id"] in calls:\n', '            if call["name"] in calls:\n'),
             ('            calls[call["id"]] = entry["id"]\n', '            calls[call["name"]] = entry["id"]\n'),
             (RESULT_ID, '            call_id = entry["message"]["toolName"]\n'))),
    Mistake("result_must_follow_call", "a result that comes before its call is refused (results assumed to follow "
            "their calls)",
            ((RESULT_ID, RESULT_ID + '            if call_id not in calls:\n'
                         '                raise InteractionError(f"entry {entry[\'id\']!r}: result for call id '
                         '{call_id!r} before its call")\n'),)),
    Mistake("dangling_call_accepted", "a tool call without a result is accepted (a dangling call goes unnoticed)",
            (("    for call_id, call_entry in calls.items():\n"
              "        if call_id not in results:\n"
              "            raise InteractionError(\n"
              '                f"call id {call_id!r} (entry {call_entry!r}): no tool result before the interaction '
              'closes"\n'
              "            )\n", ""),)),
    Mistake("duplicate_call_id_accepted", "a call id declared twice is accepted: the second declaration overwrites "
            "the first",
            (('            if call["id"] in calls:\n'
              "                raise InteractionError(\n"
              "                    f\"call id {call['id']!r}: declared twice, in entries {calls[call['id']]!r} and "
              "{entry['id']!r}\"\n"
              "                )\n", ""),)),
    Mistake("second_result_overwrites", "a second result for the same call overwrites the first instead of being "
            "refused",
            (("            if call_id in results:\n"
              "                raise InteractionError(\n"
              '                    f"call id {call_id!r}: second result {entry[\'id\']!r} (the first was '
              '{results[call_id]!r})"\n'
              "                )\n", ""),)),
    Mistake("paired_across_interactions", "calls and results paired across the whole path, not inside each "
            "interaction (a call separated from its result goes unnoticed)",
            (("    for group in groups:\n        _check_pairs(group)\n",
              "    _check_pairs([entry for group in groups for entry in group])\n"),)),
    Mistake("shallow_copies", "entries copied shallowly: each message and its tool arguments are shared with the "
            "path", (("copy.deepcopy(entry)", "copy.copy(entry)"),)),
    Mistake("leading_messages_dropped", "messages before the first user message are dropped instead of refused "
            "(the error swallowed)",
            (("            raise InteractionError(f\"entry {entry['id']!r}: the first message must be a user "
              'message")\n', "            continue\n"),)),
    Mistake("metadata_skipped", "non-message entries are skipped silently instead of refused",
            (('    for entry in entries:\n        if role(entry) == "user":\n',
              '    for entry in entries:\n        if entry["type"] != "message":\n            continue\n'
              '        if role(entry) == "user":\n'),)),
)

OPEN_INTERACTION = ('''\
interactions: list[Interaction] = []
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
        if call["id"] in declared:
            raise InteractionError(f"entry {entry['id']!r} declares tool call {call['id']!r} again")
        declared[call["id"]] = entry["id"]
    if speaker == "toolResult":
        call_id = entry["message"]["toolCallId"]
        if call_id in answered:
            raise InteractionError(f"entry {entry['id']!r} is a second result for tool call {call_id!r}")
        answered[call_id] = entry["id"]
if interactions:
    _settle(declared, answered)
return interactions
''', '''\
def _settle(declared: dict[str, str], answered: dict[str, str]) -> None:
    """At the close of an interaction: each result answers a call of it, each call has a result."""
    for call_id, result_id in answered.items():
        if call_id not in declared:
            raise InteractionError(f"entry {result_id!r} answers tool call {call_id!r}, unknown in its interaction")
    for call_id, entry_id in declared.items():
        if call_id not in answered:
            raise InteractionError(f"tool call {call_id!r} of entry {entry_id!r} never got its result")
''')

SLICES = ('''\
for entry in entries:
    role(entry)  # refuses a non-message entry, naming it
starts = [index for index, entry in enumerate(entries) if entry["message"]["role"] == "user"]
if entries and (not starts or starts[0] != 0):
    raise InteractionError(f"entry {entries[0]['id']!r} opens the path but is not a user message")
bounds = zip(starts, starts[1:] + [len(entries)])
interactions = [copy.deepcopy(entries[start:stop]) for start, stop in bounds]
for interaction in interactions:
    _verify_tool_pairs(interaction)
return interactions
''', '''\
from collections import Counter


def _verify_tool_pairs(interaction: Interaction) -> None:
    """Count declarations and results per call id: each id declared once and answered once."""
    declared = Counter(call["id"] for entry in interaction for call in tool_calls(entry))
    answers = [entry for entry in interaction if entry["message"]["role"] == "toolResult"]
    answered = Counter(entry["message"]["toolCallId"] for entry in answers)
    for call_id, count in declared.items():
        if count > 1:
            raise InteractionError(f"tool call id {call_id!r} is declared {count} times in one interaction")
    for entry in answers:
        call_id = entry["message"]["toolCallId"]
        if answered[call_id] > 1:
            raise InteractionError(f"tool call {call_id!r} has more than one result "
                                   f"(entry {entry['id']!r} among them)")
        if call_id not in declared:
            raise InteractionError(f"result {entry['id']!r} names tool call {call_id!r}, "
                                   "which its interaction never made")
    missing = [call_id for call_id in declared if call_id not in answered]
    if missing:
        raise InteractionError(f"tool call {missing[0]!r} has no result in its interaction")
''')

ID_SETS = ('''\
interactions: list[Interaction] = []
for entry in entries:
    kind = role(entry)
    if kind != "user" and not interactions:
        raise InteractionError(f"no user message before entry {entry['id']!r}")
    interactions += [[]] if kind == "user" else []
    interactions[-1] += [copy.deepcopy(entry)]
for interaction in interactions:
    _match_by_id(interaction)
return interactions
''', '''\
def _match_by_id(interaction: Interaction) -> None:
    """The call ids declared and the call ids answered must be the same set, with no id twice on either side."""
    made = [call["id"] for entry in interaction for call in tool_calls(entry)]
    results = [entry for entry in interaction if role(entry) == "toolResult"]
    answered = [entry["message"]["toolCallId"] for entry in results]
    for ids, what in ((made, "declared"), (answered, "answered")):
        repeated = sorted({call_id for call_id in ids if ids.count(call_id) > 1})
        if repeated:
            raise InteractionError(f"tool call {repeated[0]!r} is {what} more than once in one interaction")
    stray = [entry for entry in results if entry["message"]["toolCallId"] not in made]
    if stray:
        raise InteractionError(f"entry {stray[0]['id']!r}: no call {stray[0]['message']['toolCallId']!r} "
                               "in its interaction")
    unanswered = sorted(set(made) - set(answered))
    if unanswered:
        raise InteractionError(f"tool call {unanswered[0]!r} is never answered in its interaction")
''')

CORRECT: tuple[Correct, ...] = (
    Correct("grouping_open_interaction", "one pass with the open interaction's calls and results, settled as it "
            "closes", OPEN_INTERACTION),
    Correct("grouping_slices", "user positions first, slices between them, then counters per call id", SLICES),
    Correct("grouping_id_sets", "interactions built first, then declared and answered ids compared as sets", ID_SETS),
)
