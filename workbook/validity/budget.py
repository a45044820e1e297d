"""Lab 3, budget projection (``budget.py``, ``build_context``): the bank's mistakes and correct versions."""

from __future__ import annotations

from . import Correct, Mistake

AVAILABLE = "    available = max(0, options.max_tokens - system - options.reserved_output - options.safety_margin)\n"
GROUPS = "    groups = group_interactions(start.entries)\n"
COST = '        cost = sum(measure(options, entry["message"], f"entry {entry[\'id\']!r}") for entry in group)\n'
SYSTEM = '    system = measure(options, options.system_prompt, "the system prompt")\n'

MISTAKES: tuple[Mistake, ...] = (
    Mistake("budget_edge_inclusive", "an interaction that exactly fills the budget is dropped (>= instead of > at "
            "the budget edge)", (("        if used + cost > available:\n", "        if used + cost >= available:\n"),)),
    Mistake("summary_not_paid", "a compaction's summary message is sent but not paid from the message budget",
            (('    used = sum(measure(options, message, f"the summary of {start.compaction_id}")'
              ' for message in prefix)\n', "    used = 0\n"),)),
    Mistake("fixed_costs_forgotten", "the reserved output and the safety margin are not taken off the window",
            ((AVAILABLE, "    available = max(0, options.max_tokens - system)\n"),)),
    Mistake("available_goes_negative", "the tokens left for messages go below 0 when the fixed costs exceed the "
            "window", ((AVAILABLE, AVAILABLE.replace("max(0, ", "(")),)),
    Mistake("last_three_messages", "the chapter's shortcut: the last three messages, not whole interactions that fit",
            ((GROUPS, "    groups = [[entry] for entry in start.entries[-3:]]\n"),)),
    Mistake("whole_path_grouped", "the whole active path is grouped, not the resume point's message entries "
            "(metadata is not skipped)", ((GROUPS, "    groups = group_interactions(active_path)\n"),)),
    Mistake("skips_to_older_interactions", "an interaction that does not fit is skipped and older ones that fit "
            "are still kept (a greedy fill)",
            (("            overflow = not kept", "            overflow = overflow or not kept"),
             ("            if overflow:\n", "            if not kept:\n"),
             ("            break\n", "            continue\n"))),
    Mistake("newest_dropped_when_too_big", "the newest interaction is dropped when it alone exceeds the budget, "
            "leaving no messages",
            (("            if overflow:\n                kept.append(group)\n                used += cost\n", ""),)),
    Mistake("oldest_first", "interactions are kept from the oldest forwards, not from the newest backwards",
            (("    for group in reversed(groups):\n", "    for group in groups:\n"),)),
    Mistake("message_estimates_unchecked", "message estimates are used as they come: a negative or infinite "
            "estimate is not refused",
            ((COST, "        cost = sum(options.estimate_tokens(copy.deepcopy(entry[\"message\"])) "
                    "for entry in group)\n"),)),
    Mistake("estimator_gets_the_messages", "the estimator prices the context's own messages, not copies: what it "
            "writes into them is sent",
            ((COST, '        cost = sum(check_tokens(options.estimate_tokens(entry["message"]), f"entry '
                    '{entry[\'id\']!r}") for entry in group)\n'),)),
    Mistake("bool_estimates_counted", "bools taken as numbers: an estimate of True counts as 1 token",
            ((SYSTEM, "    system = options.estimate_tokens(options.system_prompt)\n"
                      "    if not isinstance(system, (int, float)) or not math.isfinite(system) or system < 0:\n"
                      '        raise BudgetError(f"the system prompt: bad estimate {system!r}")\n'),
             (COST, '        costs = [options.estimate_tokens(copy.deepcopy(entry["message"])) for entry in group]\n'
                    "        if any(not isinstance(c, (int, float)) or not math.isfinite(c) or c < 0 for c in costs):\n"
                    "            raise BudgetError(f\"interaction {group[0]['id']!r}: bad estimate in {costs!r}\")\n"
                    "        cost = sum(costs)\n"))),
    Mistake("reason_from_tokens", "the reason is read from the tokens (it fits, so complete) instead of from what "
            "was left out",
            (('        reason = "trimmed" if len(kept) < len(groups) else "complete"\n',
              '        reason = "complete" if used <= available else "trimmed"\n'),)),
    Mistake("total_without_fixed_costs", "the ledger's total leaves out the reserved output and the safety margin",
            (("            total=system + used + options.reserved_output + options.safety_margin,\n",
              "            total=system + used,\n"),)),
)

SUFFIX_SUMS = '''\
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
'''

PRICED_FIRST = '''\
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
'''

RUNNING_TOTALS = '''\
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
'''

CORRECT: tuple[Correct, ...] = (
    Correct("budget_counted_suffix", "counts how many interactions to take from the end with a while loop",
            (SUFFIX_SUMS,)),
    Correct("budget_own_pricing", "its own copying, checking price function; interactions inserted at the front",
            (PRICED_FIRST,)),
    Correct("budget_running_totals", "running totals (itertools) over the newest-first costs; the overflow case "
            "handled apart", (RUNNING_TOTALS,)),
)
