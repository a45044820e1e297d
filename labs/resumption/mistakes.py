"""Lab 5, repeated resumption (``resumption.py``, ``resume_point``): the bank's mistakes and correct versions."""

from __future__ import annotations

from workbook.authoring.bank import Correct, Mistake

LATEST = '    index = max(i for i, entry in enumerate(active_path) if entry["type"] == "compaction")\n'
KEPT = "    kept = active_path[before.index(first_kept) :]\n"
RESULT = '    return ResumePoint(compaction["id"], summary_message(compaction["summary"]), message_entries(kept))\n'

MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        "oldest_compaction",
        "resumes from the oldest compaction on the path, not the latest",
        ((LATEST, LATEST.replace("max(", "min(")),),
    ),
    Mistake(
        "compaction_assumed_last",
        "the compaction is assumed to be the path's last entry: messages after it break the resume",
        ((LATEST, "    index = len(active_path) - 1\n"),),
    ),
    Mistake(
        "summary_in_summary",
        "an earlier compaction inside the kept suffix is resumed as a summary message "
        "too (a summary nested in a summary)",
        (
            (
                RESULT,
                '    kept = [{"type": "message", "id": entry["id"], "parentId": entry["parentId"],\n'
                '             "timestamp": entry["timestamp"], "message": summary_message(entry["summary"])}\n'
                '            if entry["type"] == "compaction" and entry is not compaction else entry\n'
                "            for entry in kept]\n" + RESULT,
            ),
        ),
    ),
    Mistake(
        "first_kept_of_first_compaction",
        "the kept suffix follows the first compaction's firstKeptEntryId while the summary is the latest's",
        (
            (
                '    first_kept = compaction["firstKeptEntryId"]\n',
                '    first_kept = next(entry for entry in active_path if entry["type"] == "compaction")'
                '["firstKeptEntryId"]\n',
            ),
        ),
    ),
    Mistake(
        "first_kept_unused",
        "the first kept entry is checked but not used: every message before the compaction stays after the summary",
        ((KEPT, "    kept = active_path\n"),),
    ),
    Mistake(
        "kept_one_too_late",
        "the kept suffix starts one entry after the first kept entry (off by one)",
        ((KEPT, "    kept = active_path[before.index(first_kept) + 1:]\n"),),
    ),
    Mistake(
        "later_messages_dropped",
        "the messages after the compaction are dropped: the context ends at it",
        ((KEPT, "    kept = active_path[before.index(first_kept):index]\n"),),
    ),
    Mistake(
        "first_kept_role_unchecked",
        "a first kept entry that is not a user message is not refused (grouping fails later, with another error)",
        (
            (
                '    if kept[0]["type"] != "message" or kept[0]["message"]["role"] != "user":\n'
                "        raise CompactionError(\n"
                "            f\"compaction {compaction['id']!r}: first kept entry {first_kept!r} does not start an "
                'interaction"\n'
                "        )\n",
                "",
            ),
        ),
    ),
    Mistake(
        "unusable_compaction_ignored",
        "a compaction whose first kept entry is not on the path is ignored instead of refused (the error swallowed)",
        (
            (
                "        raise CompactionError(\n"
                "            f\"compaction {compaction['id']!r}: first kept entry {first_kept!r} is not before it on "
                'the active path"\n'
                "        )\n",
                "        return ResumePoint(None, None, message_entries(active_path))\n",
            ),
        ),
    ),
    Mistake(
        "summary_cached_per_compaction",
        "the summary message is cached per compaction id and handed out again: a caller who changes a returned "
        "context changes the next one",
        (
            (
                RESULT,
                '    cache = resume_point.__dict__.setdefault("summaries", {})\n'
                '    if compaction["id"] not in cache:\n'
                '        cache[compaction["id"]] = summary_message(compaction["summary"])\n'
                '    return ResumePoint(compaction["id"], cache[compaction["id"]], message_entries(kept))\n',
            ),
        ),
    ),
    Mistake(
        "compaction_popped_from_input",
        "the compaction is popped off the caller's path (the input changed)",
        (("    compaction = active_path[index]\n", "    compaction = active_path.pop(index)\n"),),
    ),
)

REVERSE_SCAN = """\
for position in range(len(active_path) - 1, -1, -1):
    if active_path[position]["type"] == "compaction":
        break
latest = active_path[position]
wanted = latest["firstKeptEntryId"]
cut = next((i for i in range(position) if active_path[i]["id"] == wanted), None)
if cut is None:
    raise CompactionError(f"{wanted!r}, the first kept entry of compaction {latest['id']!r}, is not on the path "
                          "before it")
first = active_path[cut]
if first["type"] != "message" or first["message"]["role"] != "user":
    raise CompactionError(f"compaction {latest['id']!r} keeps from {wanted!r}, which is not a user message "
                          "starting an interaction")
return ResumePoint(latest["id"], summary_message(latest["summary"]), message_entries(active_path[cut:]))
"""

POSITIONS = """\
positions = {entry["id"]: place for place, entry in enumerate(active_path)}
latest = [entry for entry in active_path if entry["type"] == "compaction"][-1]
first_kept = latest["firstKeptEntryId"]
place = positions.get(first_kept)
if place is None or place >= positions[latest["id"]]:
    raise CompactionError(f"compaction {latest['id']!r} names first kept entry {first_kept!r}, "
                          "which is not on the path before it")
opener = active_path[place]
if opener["type"] != "message" or opener["message"]["role"] != "user":
    raise CompactionError(f"compaction {latest['id']!r}: {first_kept!r} is not a user message, so no interaction "
                          "starts there")
rest = [copy.deepcopy(entry) for entry in active_path[place:] if entry["type"] == "message"]
return ResumePoint(compaction_id=latest["id"], summary_message=summary_message(latest["summary"]), entries=rest)
"""

WALK_BACK = """\
latest = None
collected: list[Entry] = []
for entry in reversed(active_path):
    if latest is None:
        if entry["type"] == "compaction":
            latest = entry
        else:
            collected.append(entry)  # after the latest compaction
        continue
    collected.append(entry)
    if entry["id"] == latest["firstKeptEntryId"]:
        break
else:
    raise CompactionError(f"first kept entry {latest['firstKeptEntryId']!r} of compaction {latest['id']!r} "
                          "is not on the active path before it")
first = collected[-1]
if first["type"] != "message" or first["message"]["role"] != "user":
    raise CompactionError(f"compaction {latest['id']!r}: {first['id']!r} cannot be kept from, it does not open "
                          "an interaction")
collected.reverse()
return ResumePoint(latest["id"], summary_message(latest["summary"]), message_entries(collected))
"""

CORRECT: tuple[Correct, ...] = (
    Correct(
        "resumption_reverse_scan",
        "an index loop backwards to the latest compaction, then a search for the cut",
        (REVERSE_SCAN,),
    ),
    Correct("resumption_positions", "a map from id to position; the kept suffix copied by hand", (POSITIONS,)),
    Correct(
        "resumption_walk_back",
        "one walk backwards from the path's end, collecting until the first kept entry",
        (WALK_BACK,),
    ),
)
