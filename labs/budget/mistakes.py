"""Lab 3, budget projection (``budget.py``, ``build_context``): the bank's mistakes and correct versions."""

from __future__ import annotations

from workbook.authoring.bank import Correct, Mistake

AVAILABLE = "    available = max(0, options.max_tokens - system - options.reserved_output - options.safety_margin)\n"
GROUPS = "    groups = group_interactions(start.entries)\n"
COST = '        cost = sum(measure(options, entry["message"], f"entry {entry[\'id\']!r}") for entry in group)\n'
SYSTEM = '    system = measure(options, options.system_prompt, "the system prompt")\n'

MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        "budget_edge_inclusive",
        "an interaction that exactly fills the budget is dropped (>= instead of > at the budget edge)",
        (("        if used + cost > available:\n", "        if used + cost >= available:\n"),),
    ),
    Mistake(
        "summary_not_paid",
        "a compaction's summary message is sent but not paid from the message budget",
        (
            (
                '    used = sum(measure(options, message, f"the summary of {start.compaction_id}")'
                " for message in prefix)\n",
                "    used = 0\n",
            ),
        ),
    ),
    Mistake(
        "fixed_costs_forgotten",
        "the reserved output and the safety margin are not taken off the window",
        ((AVAILABLE, "    available = max(0, options.max_tokens - system)\n"),),
    ),
    Mistake(
        "available_goes_negative",
        "the tokens left for messages go below 0 when the fixed costs exceed the window",
        ((AVAILABLE, AVAILABLE.replace("max(0, ", "(")),),
    ),
    Mistake(
        "last_three_messages",
        "the chapter's shortcut: the last three messages, not whole interactions that fit",
        ((GROUPS, "    groups = [[entry] for entry in start.entries[-3:]]\n"),),
    ),
    Mistake(
        "whole_path_grouped",
        "the whole active path is grouped, not the resume point's message entries (metadata is not skipped)",
        ((GROUPS, "    groups = group_interactions(active_path)\n"),),
    ),
    Mistake(
        "skips_to_older_interactions",
        "an interaction that does not fit is skipped and older ones that fit are still kept (a greedy fill)",
        (
            ("            overflow = not kept", "            overflow = overflow or not kept"),
            ("            if overflow:\n", "            if not kept:\n"),
            ("            break\n", "            continue\n"),
        ),
    ),
    Mistake(
        "newest_dropped_when_too_big",
        "the newest interaction is dropped when it alone exceeds the budget, leaving no messages",
        (("            if overflow:\n                kept.append(group)\n                used += cost\n", ""),),
    ),
    Mistake(
        "oldest_first",
        "interactions are kept from the oldest forwards, not from the newest backwards",
        (("    for group in reversed(groups):\n", "    for group in groups:\n"),),
    ),
    Mistake(
        "message_estimates_unchecked",
        "message estimates are used as they come: a negative or infinite estimate is not refused",
        ((COST, '        cost = sum(options.estimate_tokens(copy.deepcopy(entry["message"])) for entry in group)\n'),),
    ),
    Mistake(
        "estimator_gets_the_messages",
        "the estimator prices the context's own messages, not copies: what it writes into them is sent",
        (
            (
                COST,
                '        cost = sum(check_tokens(options.estimate_tokens(entry["message"]), f"entry '
                "{entry['id']!r}\") for entry in group)\n",
            ),
        ),
    ),
    Mistake(
        "bool_estimates_counted",
        "bools taken as numbers: an estimate of True counts as 1 token",
        (
            (
                SYSTEM,
                "    system = options.estimate_tokens(options.system_prompt)\n"
                "    if not isinstance(system, (int, float)) or not math.isfinite(system) or system < 0:\n"
                '        raise BudgetError(f"the system prompt: bad estimate {system!r}")\n',
            ),
            (
                COST,
                '        costs = [options.estimate_tokens(copy.deepcopy(entry["message"])) for entry in group]\n'
                "        if any(not isinstance(c, (int, float)) or not math.isfinite(c) or c < 0 for c in costs):\n"
                "            raise BudgetError(f\"interaction {group[0]['id']!r}: bad estimate in {costs!r}\")\n"
                "        cost = sum(costs)\n",
            ),
        ),
    ),
    Mistake(
        "reason_from_tokens",
        "the reason is read from the tokens (it fits, so complete) instead of from what was left out",
        (
            (
                '        reason = "trimmed" if len(kept) < len(groups) else "complete"\n',
                '        reason = "complete" if used <= available else "trimmed"\n',
            ),
        ),
    ),
    Mistake(
        "total_without_fixed_costs",
        "the ledger's total leaves out the reserved output and the safety margin",
        (
            (
                "            total=system + used + options.reserved_output + options.safety_margin,\n",
                "            total=system + used,\n",
            ),
        ),
    ),
    # Going further (extra credit): estimate_units, the summary at the end of the system prompt, replay
    Mistake(
        "units_keys_unsorted",
        "estimate_units visits an object's keys in insertion order, not sorted: which "
        "part is refused first depends on the writer",
        (("for key in sorted(value)\n", "for key in value\n"),),
    ),
    Mistake(
        "units_count_utf16",
        "estimate_units counts UTF-16 units (JavaScript's length): an emoji costs 2",
        (("        return len(content)\n", '        return len(content.encode("utf-16-le")) // 2\n'),),
    ),
    Mistake(
        "summary_before_the_prompt",
        "the summary goes at the start of the system prompt, before the caller's instructions",
        (
            (
                '    prompt = f"{options.system_prompt}\\n\\n{text}" if options.system_prompt else text\n',
                '    prompt = f"{text}\\n\\n{options.system_prompt}" if options.system_prompt else text\n',
            ),
        ),
    ),
    Mistake(
        "headroom_of_the_window",
        "replay's headroom is taken as a share of the whole window, not of the message budget",
        (
            (
                "safety_margin=options.safety_margin + policy.headroom * available)",
                "safety_margin=options.safety_margin + policy.headroom * options.max_tokens)",
            ),
        ),
    ),
)

SUFFIX_SUMS = """\
system = measure(options, options.system_prompt, "the system prompt")
room = options.max_tokens - system - options.reserved_output - options.safety_margin
room = room if room > 0 else 0
head = [start.summary_message] if start.summary_message is not None else []
spent = sum(measure(options, message, f"the summary of compaction {start.compaction_id}") for message in head)
interactions = group_interactions(start.entries)
take = 0
too_big = False
while take < len(interactions):
    candidate = interactions[len(interactions) - 1 - take]
    price = sum(measure(options, entry["message"], f"message {entry['id']}") for entry in candidate)
    if spent + price > room:
        too_big = take == 0
        if not too_big:
            break
    spent += price
    take += 1
    if too_big:
        break
chosen = interactions[len(interactions) - take:]
if too_big:
    why = "single_group_overflow"
elif take < len(interactions):
    why = "trimmed"
else:
    why = "complete"
flat = [entry for interaction in chosen for entry in interaction]
ledger = TokenLedger(max_tokens=options.max_tokens, system=system, messages=spent,
                     reserved_output=options.reserved_output, safety_margin=options.safety_margin,
                     available_for_messages=room,
                     total=system + spent + options.reserved_output + options.safety_margin)
return Context(options.system_prompt, head + [entry["message"] for entry in flat], [entry["id"] for entry in flat],
               why, ledger, start.compaction_id)
"""

PRICED_FIRST = """\
def price(item, label):
    value = options.estimate_tokens(copy.deepcopy(item))
    if type(value) not in (int, float) or math.isnan(value) or math.isinf(value) or value < 0:
        raise BudgetError(f"{label}: the estimator returned {value!r}, not a finite number of tokens >= 0")
    return value


system = price(options.system_prompt, "system prompt")
for_messages = max(options.max_tokens - system - options.reserved_output - options.safety_margin, 0)
summary = [] if start.summary_message is None else [start.summary_message]
summary_cost = sum(price(message, f"summary of {start.compaction_id}") for message in summary)
interactions = group_interactions(start.entries)
kept = []
total_cost = summary_cost
overflow = False
for interaction in interactions[::-1]:
    cost = 0
    for entry in interaction:
        cost += price(entry["message"], f"entry {entry['id']!r}")
    fits = total_cost + cost <= for_messages
    if not fits and kept:
        break
    kept.insert(0, interaction)
    total_cost += cost
    if not fits:
        overflow = True
        break
entries = [entry for interaction in kept for entry in interaction]
if overflow:
    reason = "single_group_overflow"
elif len(kept) == len(interactions):
    reason = "complete"
else:
    reason = "trimmed"
return Context(
    system_prompt=options.system_prompt,
    messages=summary + [copy.deepcopy(entry["message"]) for entry in entries],
    kept_entry_ids=[entry["id"] for entry in entries],
    reason=reason,
    tokens=TokenLedger(max_tokens=options.max_tokens, system=system, messages=total_cost,
                       reserved_output=options.reserved_output, safety_margin=options.safety_margin,
                       available_for_messages=for_messages,
                       total=system + total_cost + options.reserved_output + options.safety_margin),
    compaction_id=start.compaction_id,
)
"""

RUNNING_TOTALS = """\
from itertools import accumulate, takewhile

system = measure(options, options.system_prompt, "the system prompt")
limit = max(0, options.max_tokens - system - options.reserved_output - options.safety_margin)
opening = [] if start.summary_message is None else [start.summary_message]
opening_cost = sum(measure(options, message, "the compaction summary") for message in opening)
interactions = group_interactions(start.entries)


def cost_of(interaction):
    return sum(measure(options, entry["message"], f"entry {entry['id']!r}") for entry in interaction)


running = accumulate(map(cost_of, reversed(interactions)), initial=opening_cost)
next(running)  # the summary alone
fitting = list(takewhile(lambda spent: spent <= limit, running))
count, used, reason = len(fitting), (fitting[-1] if fitting else opening_cost), "trimmed"
if count == len(interactions):
    reason = "complete"
elif count == 0:
    count, used, reason = 1, opening_cost + cost_of(interactions[-1]), "single_group_overflow"
kept = interactions[len(interactions) - count:]
ids = [entry["id"] for interaction in kept for entry in interaction]
messages = opening + [entry["message"] for interaction in kept for entry in interaction]
ledger = TokenLedger(options.max_tokens, system, used, options.reserved_output, options.safety_margin, limit,
                     system + used + options.reserved_output + options.safety_margin)
return Context(options.system_prompt, messages, ids, reason, ledger, start.compaction_id)
"""

PLACE_JOINED = """\
if start.summary_message is not None:
    joined = "\\n\\n".join(part for part in (options.system_prompt, start.summary_message["content"]) if part)
    moved = BudgetOptions(options.max_tokens, joined, options.reserved_output, options.safety_margin,
                          options.estimate_tokens)
    return moved, ResumePoint(start.compaction_id, None, start.entries)
return options, start
"""

PLACE_APPENDED = """\
summary = start.summary_message
if summary is None:
    return options, start
prompt = options.system_prompt + "\\n\\n" + summary["content"] if options.system_prompt else summary["content"]
return dataclasses.replace(options, system_prompt=prompt), ResumePoint(start.compaction_id, None, start.entries)
"""

UNITS_STACK = """\
def fail(path, problem):
    raise BudgetError(f"estimate_units: {path}: {problem}")


def text_of(obj, key, path):
    if not isinstance(obj.get(key), str):
        fail(f"{path}.{key}", "is not a string")
    return len(obj[key])


def json_value(root, path):
    total, stack = 0, [(path, root)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str):
            total += len(value)
        elif isinstance(value, bool) or value is None or isinstance(value, int):
            total += 1
        elif isinstance(value, float):
            if value != value or value in (math.inf, -math.inf):
                fail(where, "is not a finite JSON number")
            total += 1
        elif isinstance(value, list):
            total += 1
            stack.extend(reversed([(f"{where}[{index}]", item) for index, item in enumerate(value)]))
        elif isinstance(value, dict):
            if not all(isinstance(key, str) for key in value):
                fail(where, "has a key that is not a string")
            total += 1 + sum(len(key) for key in value)
            stack.extend(reversed([(f"{where}.{key}", value[key]) for key in sorted(value)]))
        else:
            fail(where, f"{type(value).__name__} is not JSON")
    return total


def block(part, path):
    kind = part.get("type") if isinstance(part, dict) else None
    if kind in ("text", "thinking"):
        return 1 + text_of(part, kind, path)
    if kind == "image":
        return 4800
    if kind != "toolCall":
        fail(f"{path}.type", f"unknown block type {kind!r}")
    if not isinstance(part.get("arguments"), dict):
        fail(f"{path}.arguments", "is not an object")
    return 1 + text_of(part, "id", path) + text_of(part, "name", path) + json_value(part["arguments"],
                                                                                    f"{path}.arguments")


def one(thing, path):
    if isinstance(thing, str):
        return 3 + len(thing)
    if not isinstance(thing, dict):
        fail(path, f"cannot price a {type(thing).__name__}")
    own = text_of(thing, "id", path) if "id" in thing else 0
    if "role" not in thing:
        return 3 + own + text_of(thing, "content", path)
    role = thing["role"]
    if role not in ("user", "assistant", "toolResult"):
        fail(f"{path}.role", f"unknown role {role!r}")
    content = thing.get("content")
    if isinstance(content, str):
        own += len(content)
    elif isinstance(content, list):
        own += sum(block(part, f"{path}.content[{index}]") for index, part in enumerate(content))
    else:
        fail(f"{path}.content", "is neither a string nor a list of blocks")
    if role == "toolResult":
        own += 1 + text_of(thing, "toolCallId", path) + text_of(thing, "toolName", path)
    return 4 + own


if isinstance(item, list):
    return sum(one(thing, f"[{index}]") for index, thing in enumerate(item))
return one(item, "item")
"""

UNITS_TABLES = """\
def bad(path, why):
    return BudgetError(f"cannot price {path}: {why}")


def chars(value, path):
    if type(value) is not str:
        raise bad(path, f"expected a string, got {value!r}")
    return len(value)


def json_units(value, path):
    if type(value) is dict:
        if [key for key in value if type(key) is not str]:
            raise bad(path, "an object key is not a string")
        return 1 + sum(len(key) + json_units(value[key], f"{path}.{key}") for key in sorted(value))
    if type(value) is list:
        return 1 + sum(json_units(item, f"{path}[{index}]") for index, item in enumerate(value))
    if type(value) is str:
        return len(value)
    if type(value) is float and not math.isfinite(value):
        raise bad(path, "not a finite number")
    if value is None or type(value) in (bool, int, float):
        return 1
    raise bad(path, f"{type(value).__name__} is not JSON")


def tool_call(part, path):
    if type(part.get("arguments")) is not dict:
        raise bad(f"{path}.arguments", "arguments must be an object")
    return (1 + chars(part.get("id"), f"{path}.id") + chars(part.get("name"), f"{path}.name")
            + json_units(part["arguments"], f"{path}.arguments"))


BLOCKS = {
    "text": lambda part, path: 1 + chars(part.get("text"), f"{path}.text"),
    "thinking": lambda part, path: 1 + chars(part.get("thinking"), f"{path}.thinking"),
    "image": lambda part, path: 4800,
    "toolCall": tool_call,
}
EXTRA = {
    "user": lambda thing, path: 0,
    "assistant": lambda thing, path: 0,
    "toolResult": lambda thing, path: (1 + chars(thing.get("toolCallId"), f"{path}.toolCallId")
                                       + chars(thing.get("toolName"), f"{path}.toolName")),
}


def content_units(content, path):
    if type(content) is str:
        return len(content)
    if type(content) is not list:
        raise bad(path, "expected a string or a list of blocks")
    units = 0
    for index, part in enumerate(content):
        kind = part.get("type") if type(part) is dict else None
        if kind not in BLOCKS:
            raise bad(f"{path}[{index}].type", f"unknown block type {kind!r}")
        units += BLOCKS[kind](part, f"{path}[{index}]")
    return units


def priced(thing, path):
    if type(thing) is str:
        return 3 + len(thing)
    if type(thing) is not dict:
        raise bad(path, f"a {type(thing).__name__} is neither a requirement nor a message")
    units = chars(thing["id"], f"{path}.id") if "id" in thing else 0
    if "role" not in thing:
        return 3 + units + chars(thing.get("content"), f"{path}.content")
    if thing["role"] not in EXTRA:
        raise bad(f"{path}.role", f"unknown role {thing['role']!r}")
    return 4 + units + content_units(thing.get("content"), f"{path}.content") + EXTRA[thing["role"]](thing, path)


parts = list(enumerate(item)) if type(item) is list else [(None, item)]
return sum(priced(thing, "item" if index is None else f"[{index}]") for index, thing in parts)
"""

REPLAY_SLICES = """\
starts = [index for index, entry in enumerate(active_path) if is_user_message(entry)]
request = None  # the last request sent: system prompt, then messages
floor = None  # the first entry of the last rebuild
spent = budget = 0.0
hits, reprocessed = 0, 0.0


def rebuild(upto, fresh_compaction):
    path = active_path[:upto + 1]
    if floor is not None and not fresh_compaction:
        path = path_from(path, floor)
    context = build_context(path, options, summary_at=policy.summary_at)
    room = context.tokens.available_for_messages
    if policy.headroom > 0 and context.reason != "complete":
        margin = options.safety_margin + policy.headroom * room
        context = build_context(path, dataclasses.replace(options, safety_margin=margin),
                                summary_at=policy.summary_at)
    return context, room


for turn, upto in enumerate(starts):
    since = active_path[starts[turn - 1] + 1 if turn else 0:upto + 1]
    fresh_compaction = any(entry["type"] == "compaction" for entry in since)
    if request is not None and not fresh_compaction:
        added = [entry for entry in since if entry["type"] == "message"]
        group_interactions([active_path[starts[turn - 1]], *added])
        extra = 0.0
        for entry in added:
            extra += measure(options, entry["message"], f"entry {entry['id']!r}")
        if spent + extra <= budget:
            request = request + [entry["message"] for entry in added]
            spent += extra
            hits += 1
            continue
    context, budget = rebuild(upto, fresh_compaction)
    new_request = [context.system_prompt] + context.messages
    if request is not None:
        if new_request[:len(request)] == request:
            hits += 1
        else:
            reprocessed += context.tokens.system + context.tokens.messages
    request, spent, floor = new_request, context.tokens.messages, context.kept_entry_ids[0]
return Replay(len(starts), hits, reprocessed)
"""

CORRECT: tuple[Correct, ...] = (
    Correct(
        "budget_counted_suffix",
        "counts how many interactions to take from the end with a while loop; units "
        "with an explicit stack; the summary joined to the prompt; replay with a rebuild helper",
        (SUFFIX_SUMS, PLACE_JOINED, UNITS_STACK, REPLAY_SLICES, ""),
    ),
    Correct(
        "budget_own_pricing",
        "its own copying, checking price function; interactions inserted at the front; "
        "units from tables of block and role weights",
        (PRICED_FIRST, PLACE_APPENDED, UNITS_TABLES, REPLAY_SLICES, ""),
    ),
    Correct(
        "budget_running_totals",
        "running totals (itertools) over the newest-first costs; the overflow case "
        "handled apart; units with an explicit stack",
        (RUNNING_TOTALS, PLACE_APPENDED, UNITS_STACK, REPLAY_SLICES, ""),
    ),
)
