"""Lab 2's hidden cases: ``group_interactions`` on broken tool facts (a call id repeated on the path, a
second result, a missing result, a result paired with a call of an earlier interaction), on paths that do
not open with a user message or hold other entries, and the deep copies it returns."""

from __future__ import annotations

import copy

from compaction_lab.provided.checking.case import Case
from compaction_lab.provided.example import example_entries
from compaction_lab.provided.scenarios import compaction_object, message_entry

GROUP = "grouping.group_interactions"
FACTS = "lab2_broken_tool_facts"
OPENING = "lab2_leading_assistant_and_non_messages"
COPIES = "lab2_deep_copies"
MODEL_CHANGE = {
    "type": "model_change",
    "id": "m1",
    "parentId": "a1",
    "timestamp": 3,
    "provider": "anthropic",
    "modelId": "model-b",
}


def calling(entry_id: str, parent_id: str, timestamp: int, call_id: str) -> dict:
    """An assistant message entry that calls read(path=stores.py) as ``call_id``."""
    entry = message_entry(entry_id, parent_id, timestamp, "assistant", "Reading it.")
    entry["message"]["content"].append(
        {"type": "toolCall", "id": call_id, "name": "read", "arguments": {"path": "stores.py"}}
    )
    entry["message"]["stopReason"] = "toolUse"
    return entry


def answering(entry_id: str, parent_id: str, timestamp: int, call_id: str) -> dict:
    """A tool result entry answering ``call_id``."""
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent_id,
        "timestamp": timestamp,
        "message": {
            "role": "toolResult",
            "toolCallId": call_id,
            "toolName": "read",
            "content": [{"type": "text", "text": "class JsonlSessionStore: ..."}],
            "isError": False,
        },
    }


def user(entry_id: str, parent_id: str | None, timestamp: int) -> dict:
    """A user message entry."""
    return message_entry(entry_id, parent_id, timestamp, "user", "Read the store again.")


def repeated_in_next_interaction() -> list:
    """u1, a1 (calls call_0), r1, u2, a2 (calls call_0 again), r2."""
    return [
        user("u1", None, 1),
        calling("a1", "u1", 2, "call_0"),
        answering("r1", "a1", 3, "call_0"),
        user("u2", "r1", 4),
        calling("a2", "u2", 5, "call_0"),
        answering("r2", "a2", 6, "call_0"),
    ]


def repeated_two_interactions_later() -> list:
    """The example, then u4, a4 calling read-1 (already declared by calls), r4 answering it."""
    return example_entries() + [
        user("u4", "a3", 10),
        calling("a4", "u4", 11, "read-1"),
        answering("r4", "a4", 12, "read-1"),
    ]


def declared_twice_in_calls() -> list:
    """The example with calls declaring read-1 twice (test-1 renamed) and r-test left out."""
    path = [entry for entry in example_entries() if entry["id"] != "r-test"]
    path[5]["message"]["content"][2]["id"] = "read-1"
    return path


def second_result() -> list:
    """The example with r-test-2, a copy of r-test, just before a3."""
    path = example_entries()
    again = copy.deepcopy(path[6])
    again["id"] = "r-test-2"
    path.insert(8, again)
    return path


def answered_in_next_interaction() -> list:
    """u1, a1 calling c1, then u2 and r1 answering c1."""
    return [user("u1", None, 1), calling("a1", "u1", 2, "c1"), user("u2", "a1", 3), answering("r1", "u2", 4, "c1")]


def answered_two_interactions_later() -> list:
    """u1, a1 calling c1, u2, a2, then u3 and r1 answering c1."""
    return [
        user("u1", None, 1),
        calling("a1", "u1", 2, "c1"),
        user("u2", "a1", 3),
        message_entry("a2", "u2", 4, "assistant", "Still reading."),
        user("u3", "a2", 5),
        answering("r1", "u3", 6, "c1"),
    ]


def r_read_after_next_user() -> list:
    """The example with r-read moved after a3 and a new user message u4."""
    u1, a1, u2, a2, u3, calls, r_test, r_read, a3 = example_entries()
    return [u1, a1, u2, a2, u3, calls, r_test, a3, user("u4", "a3", 10), r_read]


def calls_sharing_a_prefix() -> list:
    """u1, a1 calling c1 and c10, then r10 (answering c10) before r1 (answering c1)."""
    caller = calling("a1", "u1", 2, "c1")
    caller["message"]["content"].append(
        {"type": "toolCall", "id": "c10", "name": "read", "arguments": {"path": "budget.py"}}
    )
    return [user("u1", None, 1), caller, answering("r10", "a1", 3, "c10"), answering("r1", "r10", 4, "c1")]


def result_entry_named_unknown_1() -> list:
    """The example with r-test's entry id (not its toolCallId) renamed to unknown-1."""
    path = example_entries()
    path[6]["id"] = "unknown-1"
    path[7]["parentId"] = "unknown-1"
    return path


def _refused(name: str, grade_id: str, described: str, path: list, naming: tuple, hint: str) -> Case:
    return Case(
        name,
        grade_id,
        f"group_interactions({described})",
        GROUP,
        (path,),
        raises="InteractionError",
        naming=naming,
        hint=hint,
        hidden=True,
    )


REPEATED_HINT = "A tool-call id is unique on the whole path; the error names the id and both entries declaring it."
EARLIER_HINT = (
    "A result pairs only with a call of its own interaction; a call left open when its interaction closes is an error."
)
NOT_A_MESSAGE_HINT = "Only message entries are grouped; any other entry is refused by its id."

CASES: tuple[Case, ...] = (
    # Each cell of refusals also has a path to accept: a function that refuses everything earns nothing.
    Case(
        "calls_sharing_a_prefix",
        FACTS,
        "group_interactions(u1, a1 calling c1 and c10, r10, r1)",
        GROUP,
        (calls_sharing_a_prefix(),),
        hidden=True,
        hint="Results pair with calls by the whole toolCallId, in any order; c1 and c10 are different calls.",
    ),
    Case(
        "result_entry_named_unknown_1",
        "lab2_unknown_call_rejected",
        "group_interactions(example with r-test's entry id unknown-1)",
        GROUP,
        (result_entry_named_unknown_1(),),
        hidden=True,
        hint="A result is matched by its toolCallId, never by its entry id.",
    ),
    _refused(
        "read_1_declared_twice",
        FACTS,
        "example with read-1 declared twice and one result for it",
        declared_twice_in_calls(),
        ("read-1", "calls"),
        REPEATED_HINT,
    ),
    _refused(
        "call_id_repeated_in_next_interaction",
        FACTS,
        "u1, a1 calling call_0, r1, u2, a2 calling call_0, r2",
        repeated_in_next_interaction(),
        ("call_0", "a1", "a2"),
        REPEATED_HINT,
    ),
    _refused(
        "call_id_repeated_two_interactions_later",
        FACTS,
        "example + u4, a4 calling read-1, r4",
        repeated_two_interactions_later(),
        ("read-1", "calls", "a4"),
        REPEATED_HINT,
    ),
    _refused(
        "second_result",
        FACTS,
        "example with a second result for test-1",
        second_result(),
        (("test-1", "r-test-2"),),
        "A call has exactly one result; a second one is refused by its id.",
    ),
    _refused(
        "missing_result",
        FACTS,
        "example without r-read",
        [entry for entry in example_entries() if entry["id"] != "r-read"],
        (("read-1", "calls"),),
        "Every call has its result before its interaction closes.",
    ),
    _refused(
        "path_ends_before_result",
        FACTS,
        "path ending before r-read",
        example_entries()[:7],
        (("read-1", "calls"),),
        "The end of the path closes the last interaction: its calls need results too.",
    ),
    _refused(
        "answered_in_next_interaction",
        FACTS,
        "u1, a1 calling c1, u2, r1 answering c1",
        answered_in_next_interaction(),
        (("c1", "a1", "r1"),),
        EARLIER_HINT,
    ),
    _refused(
        "answered_two_interactions_later",
        FACTS,
        "u1, a1 calling c1, u2, a2, u3, r1 answering c1",
        answered_two_interactions_later(),
        (("c1", "a1", "r1"),),
        EARLIER_HINT,
    ),
    _refused(
        "r_read_after_next_user",
        FACTS,
        "example with r-read after a3 and a new u4",
        r_read_after_next_user(),
        (("read-1", "calls", "r-read"),),
        EARLIER_HINT,
    ),
    Case(
        "empty_path",
        OPENING,
        "group_interactions([])",
        GROUP,
        ([],),
        hidden=True,
        hint="An empty path has no interactions.",
    ),
    _refused(
        "leading_assistant",
        OPENING,
        "example without u1",
        example_entries()[1:],
        ("a1",),
        "A path opens with a user message; the error names the entry at fault.",
    ),
    _refused(
        "compaction_entry",
        OPENING,
        "example + compact-1",
        example_entries() + [compaction_object("compact-1", "a3", "u2")],
        ("compact-1",),
        NOT_A_MESSAGE_HINT,
    ),
    _refused(
        "model_change_entry",
        OPENING,
        "u1, a1, a model_change entry",
        example_entries()[:2] + [MODEL_CHANGE],
        ("m1",),
        NOT_A_MESSAGE_HINT,
    ),
    Case(
        "interactions_are_copies",
        COPIES,
        "group_interactions(example_entries())",
        GROUP,
        (example_entries(),),
        copies=True,
        hidden=True,
        hint="The interactions hold deep copies: none of them is an object of the input.",
    ),
)
