"""Lab 4, compaction creation (``compaction.py``, ``create_compaction_entry``, and the going-further functions
whose cases give extra credit): mistakes and correct versions. A correct version has a body for every lab 4
region: ``create_compaction_entry``'s, then ``GOING_FURTHER``'s (written apart from the reference too)."""

from __future__ import annotations

from workbook.authoring.bank import Correct, Mistake

PARENT = '"parentId": active_path[-1]["id"]'
STARTS = '    starts = [interaction[0]["id"] for interaction in interactions]\n'

MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        "parent_at_the_cut",
        "the compaction is hung where the cut is (the first kept entry's parent), not at the end of the path",
        (
            (
                PARENT,
                '"parentId": next(entry["parentId"] for entry in active_path if entry["id"] == first_kept_entry_id)',
            ),
        ),
    ),
    Mistake(
        "parent_one_back",
        "the parent is the last entry's parent (one entry too far back), not the last entry",
        ((PARENT, '"parentId": active_path[-1]["parentId"]'),),
    ),
    Mistake(
        "kept_from_inside_interaction",
        "any message may be the first kept entry, so the kept suffix can start "
        "inside an interaction, between a call and its result",
        ((STARTS, '    starts = [entry["id"] for interaction in interactions for entry in interaction]\n'),),
    ),
    Mistake(
        "kept_from_before_latest_compaction",
        "after a compaction, any interaction of the whole path may be kept from, not only those of the current context",
        (
            (
                "    interactions = group_interactions(resume_point(active_path).entries)\n",
                "    interactions = group_interactions([entry for entry in active_path "
                'if entry["type"] == "message"])\n',
            ),
        ),
    ),
    Mistake(
        "duplicate_id_accepted",
        "an id already on the path is accepted for the new compaction",
        (
            (
                '    if any(entry["id"] == id for entry in active_path):\n'
                '        raise CompactionError(f"compaction {id!r}: id already on the active path")\n',
                "",
            ),
        ),
    ),
    Mistake(
        "built_without_parser",
        "the entry is built without the parser: the caller's summary is shared and tokensBefore goes unchecked",
        (("    return parse_session_entry(\n        {\n", "    return dict(\n        {\n"),),
    ),
    Mistake(
        "appended_to_callers_path",
        "the new entry is appended to the caller's path (the input changed: the caller appends it)",
        (
            ("    return parse_session_entry(\n        {\n", "    entry = parse_session_entry(\n        {\n"),
            (
                '            "tokensBefore": tokens_before,\n        }\n    )\n',
                '            "tokensBefore": tokens_before,\n        }\n    )\n'
                "    active_path.append(entry)\n    return entry\n",
            ),
        ),
    ),
    Mistake(
        "bad_first_kept_replaced",
        "a first kept entry that starts no interaction is quietly replaced by the "
        "newest interaction's start (the error swallowed)",
        (
            (
                "    if first_kept_entry_id not in starts:\n",
                "    if first_kept_entry_id not in starts and starts:\n"
                "        first_kept_entry_id = starts[-1]  # keep the newest interaction instead\n"
                "    if first_kept_entry_id not in starts:\n",
            ),
        ),
    ),
    Mistake(
        "cut_between_call_and_result",
        "going further: every message is a tool round of its own, so a cut may fall between a tool call and its result",
        (("for group in _rounds_of(interaction)]\n", "for group in [[entry] for entry in interaction]]\n"),),
    ),
    Mistake(
        "summary_budget_not_reserved",
        "going further: the boundary is chosen as if the summary were free (its budget is not reserved in the target)",
        (
            (
                "        if start > 0 and fixed_tokens + summary_max_tokens + kept <= target_tokens:\n",
                "        if start > 0 and fixed_tokens + kept <= target_tokens:\n",
            ),
        ),
    ),
    Mistake(
        "store_written_before_verification",
        "going further: the compaction is appended as soon as the reply "
        "parses, before its budget, its kept facts, the new context and the cancellation are checked",
        (
            (
                "    entry = _entry_from_reply(path, options, reply, first_kept, before, leaf_id)\n",
                "    entry = _entry_from_reply(path, options, reply, first_kept, before, leaf_id)\n"
                "    appended = store.append({**entry, CHECKSUM_KEY: entry_checksum(entry)})\n",
            ),
            ("    appended = store.append(sealed)\n", ""),
        ),
    ),
    Mistake(
        "trigger_only_above",
        "going further: compaction triggers only above the trigger, not when the input reaches it",
        (
            (
                "    return estimated_input >= compaction_trigger(window, reserved_output, ratio)\n",
                "    return estimated_input > compaction_trigger(window, reserved_output, ratio)\n",
            ),
        ),
    ),
    Mistake(
        "previous_facts_not_verified",
        "going further: a summary that drops the previous summary's goal, constraints or changed files is appended",
        (('    _check_kept_facts(previous, entry["summary"], leaf_id)\n', ""),),
    ),
    Mistake(
        "cancel_ignored_before_append",
        "going further: the cancellation token is not looked at again just before appending",
        (('    _stop_if_cancelled(cancel, leaf_id, "before appending")\n', ""),),
    ),
)

IDS_FIRST = """\
path_ids = [entry["id"] for entry in active_path]
if not path_ids:
    raise CompactionError(f"cannot create compaction {id!r} on an empty active path")
if id in path_ids:
    raise CompactionError(f"cannot create compaction {id!r}: an entry with that id is on the path already")
allowed = [group[0]["id"] for group in group_interactions(resume_point(active_path).entries)][1:]
if first_kept_entry_id not in allowed:
    raise CompactionError(f"compaction {id!r} cannot keep from {first_kept_entry_id!r}: the current context's "
                          f"interactions start at {', '.join(allowed) or 'no entry'}")
entry = {"type": "compaction", "id": id, "parentId": path_ids[-1], "timestamp": timestamp, "summary": summary,
         "firstKeptEntryId": first_kept_entry_id, "tokensBefore": tokens_before}
return parse_session_entry(entry)
"""

USER_MESSAGES = """\
if len(active_path) == 0:
    raise CompactionError(f"{id!r}: a compaction needs a non-empty active path")
for entry in active_path:
    if entry["id"] == id:
        raise CompactionError(f"{id!r} is taken: entry {entry['id']!r} is on the active path")
context_entries = resume_point(active_path).entries
group_interactions(context_entries)  # a broken path is refused before anything is kept from it
openers = {entry["id"] for entry in context_entries if entry["message"]["role"] == "user"}
if context_entries and first_kept_entry_id == context_entries[0]["id"]:
    raise CompactionError(f"compaction {id!r} would keep everything from {first_kept_entry_id!r}: nothing to compact")
if first_kept_entry_id not in openers:
    raise CompactionError(f"{first_kept_entry_id!r} is not a user message of the current context, "
                          f"so compaction {id!r} cannot keep from it")
parent = active_path[len(active_path) - 1]
return parse_session_entry(dict(type="compaction", id=id, parentId=parent["id"], timestamp=timestamp, summary=summary,
                                firstKeptEntryId=first_kept_entry_id, tokensBefore=tokens_before))
"""

FOR_ELSE = """\
if not active_path:
    raise CompactionError(f"nothing to compact: the active path is empty (compaction {id!r})")
last = active_path[-1]
if id in {entry["id"] for entry in active_path}:
    raise CompactionError(f"the id {id!r} is already used on the active path")
for index, interaction in enumerate(group_interactions(resume_point(active_path).entries)):
    if interaction[0]["id"] == first_kept_entry_id and index == 0:
        raise CompactionError(f"{first_kept_entry_id!r} starts the current context: compaction {id!r} would "
                              "compact nothing")
    if interaction[0]["id"] == first_kept_entry_id:
        break
else:
    raise CompactionError(f"{first_kept_entry_id!r} is not the first message of an interaction of the current "
                          f"context, so compaction {id!r} cannot keep from it")
fields = {"id": id, "parentId": last["id"], "timestamp": timestamp, "summary": summary,
          "firstKeptEntryId": first_kept_entry_id, "tokensBefore": tokens_before}
return parse_session_entry({"type": "compaction", **fields})
"""

TRIGGER = """\
for name, value in (("window", window), ("reserved_output", reserved_output)):
    check_tokens(value, name)
if window - reserved_output < 0:
    raise BudgetError(f"reserved_output: {reserved_output!r} tokens do not fit in a window of {window!r}")
if type(ratio) not in (int, float) or not 0 < ratio <= 1:
    raise BudgetError(f"ratio must be in (0, 1], got {ratio!r}")
return int(math.floor((window - reserved_output) * ratio))
"""

SHOULD = """\
check_tokens(estimated_input, "estimated_input")
trigger = compaction_trigger(window, reserved_output, ratio)
return not estimated_input < trigger
"""

ROUNDS = """\
rounds = []
for interaction in group_interactions(entries):
    first, last = {}, {}
    for index, entry in enumerate(interaction):
        ids = [call["id"] for call in tool_calls(entry)]
        if role(entry) == "toolResult":
            ids.append(entry["message"]["toolCallId"])
        for call_id in ids:
            first.setdefault(call_id, index)
            last[call_id] = index
    cuts = [index for index in range(1, len(interaction))
            if not any(first[call_id] < index <= last[call_id] for call_id in first)]
    for low, high in zip([0, *cuts], [*cuts, len(interaction)]):
        rounds.append(copy.deepcopy(interaction[low:high]))
return rounds
"""

BOUNDARY = """\
check_tokens(target_tokens, "target_tokens")
check_tokens(summary_max_tokens, "summary_max_tokens")
check_tokens(fixed_tokens, "fixed_tokens")
if isinstance(retain_recent_messages, bool) or not isinstance(retain_recent_messages, int) \\
        or retain_recent_messages < 0:
    raise BudgetError(f"retain_recent_messages must be a whole number >= 0, got {retain_recent_messages!r}")
rounds = group_tool_rounds(resume_point(active_path).entries)
prices = []
for group in rounds:
    price = 0
    for entry in group:
        price += check_tokens(estimate_tokens(copy.deepcopy(entry["message"])), f"estimate of entry {entry['id']!r}")
    prices.append(price)
found, suffix, count = None, 0, 0
for index in range(len(rounds) - 1, 0, -1):  # newest first; the oldest round is never a cut
    suffix, count = suffix + prices[index], count + len(rounds[index])
    if count < retain_recent_messages:
        continue
    if fixed_tokens + summary_max_tokens + suffix > target_tokens:
        break
    found = rounds[index][0]["id"]
return found
"""

COMPACT = """\
def fail(code, why):
    return CompactionError(f"{code}: compacting at {leaf_id!r}: {why}", code=code)

def check_cancel(moment):
    if cancel is not None and cancel.cancelled:
        raise fail("cancelled", f"cancelled {moment}")

budget = options.budget
check_options(budget)
path = path_to(store.entries(), leaf_id)
resumed = resume_point(path)
system = measure(budget, budget.system_prompt, "the system prompt")
before = system
if resumed.summary_message:
    before += measure(budget, resumed.summary_message, "the latest summary")
for entry in resumed.entries:
    before += measure(budget, entry["message"], f"entry {entry['id']!r}")
trigger = compaction_trigger(budget.max_tokens, budget.reserved_output, options.ratio)
if not should_compact(before, budget.max_tokens, budget.reserved_output, options.ratio):
    return CompactionResult("unchanged", None, before, before)
cut = select_compaction_boundary(path, target_tokens=trigger, summary_max_tokens=options.summary_max_tokens,
                                 retain_recent_messages=options.retain_recent_messages,
                                 estimate_tokens=budget.estimate_tokens, fixed_tokens=system)
ids = [entry["id"] for entry in resumed.entries]
first_kept = None
if cut is not None:
    last_allowed = len(ids) - options.retain_recent_messages
    for index in range(ids.index(cut), last_allowed + 1):
        if index < len(ids) and resumed.entries[index]["message"]["role"] == "user":
            first_kept = ids[index]
            break
if first_kept is None:
    raise fail("boundary_unavailable", f"nothing can be cut while keeping {options.retain_recent_messages} messages")
check_cancel("before the summarizer was called")
compactions = [entry for entry in path if entry["type"] == "compaction"]
previous = compactions[-1]["summary"] if compactions else None
request = SummaryRequest(tuple(copy.deepcopy(resumed.entries[: ids.index(first_kept)])), copy.deepcopy(previous),
                         first_kept, options.summary_max_tokens)
try:
    reply = summarizer(request)
    if inspect.isawaitable(reply):
        reply = await_cancellable(reply, cancel or CancellationToken())
except CompactionError as error:
    if error.code == "cancelled":
        raise fail("cancelled", "while the summarizer ran") from error
    raise fail("summarizer_failed", f"the summarizer failed: {error}") from error
except Exception as error:
    raise fail("summarizer_failed", f"the summarizer failed: {error!r}") from error
check_cancel("when the summarizer returned")
try:
    entry = create_compaction_entry(path, id=options.new_id(), timestamp=options.clock(), summary=reply,
                                    first_kept_entry_id=first_kept, tokens_before=before)
except CompactionError:
    raise
except ValueError as error:
    raise fail("summarizer_failed", f"its reply is no summary: {error}") from error
summary = entry["summary"]
if measure(budget, summary_message(summary), "the new summary") > options.summary_max_tokens:
    raise fail("summarizer_failed", f"the summary is over its budget of {options.summary_max_tokens} tokens")
if previous is not None:
    lost = [] if previous["goal"] in summary["goal"] else [previous["goal"]]
    lost += [item for name in ("constraints", "changedFiles") for item in previous[name] if item not in summary[name]]
    if lost:
        raise fail("summary_lost_facts", f"the new summary drops {lost!r}")
context = build_context([*path, entry], budget)
if context.reason != "complete":
    raise fail("over_budget", f"even compacted, the context is {context.reason}")
check_cancel("before appending")
stored = store.append(dict(entry, **{CHECKSUM_KEY: entry_checksum(entry)}))
return CompactionResult("compacted", stored, before, context.tokens.system + context.tokens.messages)
"""

GOING_FURTHER = (TRIGGER, SHOULD, ROUNDS, BOUNDARY, COMPACT, "")
"""Bodies of the going-further regions (``compaction_trigger`` ... ``compact``, then the reference's helpers,
which this version does without), written apart from the reference."""

CORRECT: tuple[Correct, ...] = (
    Correct(
        "compaction_ids_first", "the path's ids listed once, then every check against them", (IDS_FIRST, *GOING_FURTHER)
    ),
    Correct(
        "compaction_user_messages",
        "first kept checked against the user messages of the resume point",
        (USER_MESSAGES, *GOING_FURTHER),
    ),
    Correct(
        "compaction_for_else",
        "a for/else search through the interactions of the current context",
        (FOR_ELSE, *GOING_FURTHER),
    ),
)
