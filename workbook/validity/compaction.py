"""Lab 4, compaction creation (``compaction.py``, ``create_compaction_entry``): mistakes and correct versions."""

from __future__ import annotations

from . import Correct, Mistake

PARENT = '"parentId": active_path[-1]["id"]'
STARTS = '    starts = [interaction[0]["id"] for interaction in interactions]\n'

MISTAKES: tuple[Mistake, ...] = (
    Mistake("parent_at_the_cut", "the compaction is hung where the cut is (the first kept entry's parent), not at "
            "the end of the path",
            ((PARENT, '"parentId": next(entry["parentId"] for entry in active_path '
                      'if entry["id"] == first_kept_entry_id)'),)),
    Mistake("parent_one_back", "the parent is the last entry's parent (one entry too far back), not the last entry",
            ((PARENT, '"parentId": active_path[-1]["parentId"]'),)),
    Mistake("kept_from_inside_interaction", "any message may be the first kept entry, so the kept suffix can start "
            "inside an interaction, between a call and its result",
            ((STARTS, '    starts = [entry["id"] for interaction in interactions for entry in interaction]\n'),)),
    Mistake("kept_from_before_latest_compaction", "after a compaction, any interaction of the whole path may be kept "
            "from, not only those of the current context",
            (("    interactions = group_interactions(resume_point(active_path).entries)\n",
              "    interactions = group_interactions([entry for entry in active_path "
              'if entry["type"] == "message"])\n'),)),
    Mistake("duplicate_id_accepted", "an id already on the path is accepted for the new compaction",
            (('    if any(entry["id"] == id for entry in active_path):\n'
              '        raise CompactionError(f"compaction {id!r}: id already on the active path")\n', ""),)),
    Mistake("built_without_parser", "the entry is built without the parser: the caller's summary is shared and "
            "tokensBefore goes unchecked",
            (("    return parse_session_entry({\n", "    return dict({\n"),)),
    Mistake("appended_to_callers_path", "the new entry is appended to the caller's path (the input changed: the "
            "caller appends it)",
            (("    return parse_session_entry({\n", "    entry = parse_session_entry({\n"),
             ("    })\n", "    })\n    active_path.append(entry)\n    return entry\n"))),
    Mistake("bad_first_kept_replaced", "a first kept entry that starts no interaction is quietly replaced by the "
            "newest interaction's start (the error swallowed)",
            (("    if first_kept_entry_id not in starts:\n",
              "    if first_kept_entry_id not in starts and starts:\n"
              "        first_kept_entry_id = starts[-1]  # keep the newest interaction instead\n"
              "    if first_kept_entry_id not in starts:\n"),)),
)

IDS_FIRST = '''\
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
'''

USER_MESSAGES = '''\
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
'''

FOR_ELSE = '''\
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
'''

CORRECT: tuple[Correct, ...] = (
    Correct("compaction_ids_first", "the path's ids listed once, then every check against them", (IDS_FIRST,)),
    Correct("compaction_user_messages", "first kept checked against the user messages of the resume point",
            (USER_MESSAGES,)),
    Correct("compaction_for_else", "a for/else search through the interactions of the current context", (FOR_ELSE,)),
)
