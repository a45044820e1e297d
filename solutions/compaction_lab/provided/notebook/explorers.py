"""Interactive explorers (ipywidgets) that run the student's own lab functions.

Each explorer returns a widget; put it last in a cell to show it. Every redraw calls the
lab function afresh (so an edited, auto-reloaded module is used) inside ``demo()``, so a
lab that is not written yet shows its red "not implemented" box instead of an error. While
a lab the explorer's lab uses is not done yet, the course's answers stand in for it
(``checking.alone.on_its_own``) at the settings the explorer opens with.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
from IPython.display import HTML, display

from ... import budget, compaction, grouping
from ...records import Entry
from ..checking.alone import on_its_own
from ..errors import CompactionError
from ..example import SYSTEM_PROMPT, estimate_example_tokens, example_entries, example_summary
from ..scenarios import compacted_path, example_options, long_session, resumed_path, twice_compacted_path
from ..stores import InMemorySessionStore, path_to
from ..summarizers import ScriptedSummarizer
from .status import demo
from .views import context_view, entries_table, error_box, groups_table, ledger_table, rounds_table


def _with_result(entries: list[Entry], entry_id: str, **changes: Any) -> list[Entry]:
    for entry in entries:
        if entry["id"] == entry_id:
            entry["message"].update(changes)
    return entries


def grouping_cases() -> dict[str, list[Entry]]:
    """Paths for the grouping explorer: the example and four variants, by a one-line description."""
    example = example_entries()
    reversed_results = example[:6] + [example[7], example[6], example[8]]
    return {
        "the running example": example,
        "results in the calls' order (r-read, then r-test)": reversed_results,
        "r-test answers unknown call id unknown-1": _with_result(example_entries(), "r-test", toolCallId="unknown-1"),
        "r-read is missing": [entry for entry in example_entries() if entry["id"] != "r-read"],
        "r-read answers test-1 (a second result)": _with_result(example_entries(), "r-read", toolCallId="test-1"),
    }


def grouping_explorer() -> widgets.Widget:
    """Lab 2: choose a path and see its interactions coloured, each call and result marked."""
    cases = grouping_cases()
    choice = widgets.Dropdown(options=list(cases), description="path", layout={"width": "40em"})

    def draw(name: str) -> None:
        with demo():
            display(HTML(groups_table(grouping.group_interactions(cases[name]))))

    return widgets.VBox([choice, widgets.interactive_output(draw, {"name": choice})])


SLIDER_LAYOUT = {"width": "48em"}
"""Wide enough that one token of the window is about 12 pixels of slider (0 to 50 tokens)."""
SLIDER_STYLE = {"description_width": "8em"}


def budget_view(max_tokens: int, reserved_output: int, safety_margin: int) -> str:
    """Lab 3's explorer drawing: the example's interactions marked kept, dropped or overflowing (kept whole
    although it does not fit) at the given window and fixed costs, then the token ledger."""
    entries = example_entries()
    context = budget.build_context(entries, example_options(max_tokens, reserved_output, safety_margin))
    kept = set(context.kept_entry_ids)
    fate = "overflowing (kept whole)" if context.reason == "single_group_overflow" else "kept"
    notes = {}
    for number, group in enumerate(grouping.group_interactions(entries), start=1):
        for entry in group:
            notes[entry["id"]] = f"interaction {number}: {fate if entry['id'] in kept else 'dropped'}"
    kept_colour = "#ffebe9" if context.reason == "single_group_overflow" else "#dafbe1"
    colours = {entry_id: kept_colour if entry_id in kept else "#eaeef2" for entry_id in notes}
    return (
        f"<p><b>reason:</b> {context.reason}</p>"
        + entries_table(entries, colours=colours, notes=notes)
        + ledger_table(context.tokens)
    )


BUDGET_OPENS_AT = {"max_tokens": 31, "reserved_output": 4, "safety_margin": 2}
"""The settings the budget explorer opens with: the example's budget."""


def budget_explorer() -> widgets.Widget:
    """Lab 3: sliders for the window and its fixed costs (``budget_view``)."""
    opens_at = BUDGET_OPENS_AT
    sliders = {
        "max_tokens": widgets.IntSlider(value=opens_at["max_tokens"], min=0, max=50, description="max_tokens"),
        "reserved_output": widgets.IntSlider(value=opens_at["reserved_output"], min=0, max=20, description="reserved"),
        "safety_margin": widgets.IntSlider(value=opens_at["safety_margin"], min=0, max=20, description="margin"),
    }
    for slider in sliders.values():
        slider.layout, slider.style = widgets.Layout(**SLIDER_LAYOUT), SLIDER_STYLE

    def draw(max_tokens: int, reserved_output: int, safety_margin: int) -> None:
        with demo(), on_its_own(3):
            display(HTML(budget_view(max_tokens, reserved_output, safety_margin)))

    return widgets.VBox([*sliders.values(), widgets.interactive_output(draw, sliders)])


def resumption_cases() -> dict[str, list[Entry]]:
    """Paths for the resumption explorer, by a one-line description."""
    return {
        "no compaction (the running example)": example_entries(),
        "compact-1 after a3, first kept u2": compacted_path(),
        "compact-1, then u4 and a4": resumed_path(),
        "compact-1, u4, a4, compact-2 (first kept u3), u5, a5": twice_compacted_path(),
    }


def _compaction_notes(path: list[Entry]) -> dict[str, str]:
    """Notes for the compactions of ``path``: the latest (used) one, its first kept entry, the ignored ones."""
    compactions = [entry for entry in path if entry["type"] == "compaction"]
    notes = {entry["id"]: "compaction (ignored: a later one counts)" for entry in compactions[:-1]}
    if compactions:
        latest = compactions[-1]
        notes[latest["id"]] = "compaction (the latest: its summary is sent first)"
        notes[latest["firstKeptEntryId"]] = f"first kept entry of {latest['id']}"
    return notes


def resumption_view(path: list[Entry], max_tokens: int) -> str:
    """Lab 5's explorer drawing: first what the model would see at ``max_tokens`` (so it is on screen next
    to the controls), then the session path with its compactions, first kept entry and sent entries marked."""
    try:
        context, problem = budget.build_context(path, example_options(max_tokens=max_tokens)), None
    except Exception as error:  # shown in red in place of the context
        context, problem = None, error
    kept = context.kept_entry_ids if context else []
    notes = _compaction_notes(path)
    for entry_id in kept:
        notes[entry_id] = ("sent; " + notes[entry_id]) if entry_id in notes else "sent"
    colours = {entry_id: "#dafbe1" for entry_id in kept}
    return (
        "<p><b>What the model would see</b></p>"
        + (context_view(context) if context else error_box(problem))
        + "<p><b>The session path</b> (append-only: nothing is ever removed)</p>"
        + entries_table(path, colours=colours, notes=notes)
    )


RESUMPTION_OPENS_AT = 43
"""The window (tokens) the resumption explorer opens with, for each of its paths."""


def resumption_explorer() -> widgets.Widget:
    """Lab 5: choose a path and a window (``resumption_view``)."""
    cases = resumption_cases()
    choice = widgets.Dropdown(
        options=list(cases), value="compact-1, then u4 and a4", description="path", layout={"width": "40em"}
    )
    max_tokens = widgets.IntSlider(
        value=RESUMPTION_OPENS_AT,
        min=0,
        max=80,
        description="max_tokens",
        layout=widgets.Layout(**SLIDER_LAYOUT),
        style=SLIDER_STYLE,
    )

    def draw(name: str, max_tokens: int) -> None:
        with on_its_own(5):
            display(HTML(resumption_view(cases[name], max_tokens)))

    return widgets.VBox(
        [choice, max_tokens, widgets.interactive_output(draw, {"name": choice, "max_tokens": max_tokens})]
    )


def compaction_view(
    window: int,
    ratio: float,
    reserved_output: int = 8,
    safety_margin: int = 2,
    summary_max_tokens: int = 12,
    retain_recent_messages: int = 2,
) -> str:
    """Lab 4's going-further drawing on ``long_session()``: the estimated input against the trigger, the tool
    rounds with the boundary and where ``compact`` keeps from, and the context before and after ``compact`` (a
    scripted summarizer replying the example summary)."""
    path = long_session()
    options = example_options(window, reserved_output, safety_margin)
    trigger = compaction.compaction_trigger(window, reserved_output, ratio)
    estimated = estimate_example_tokens(SYSTEM_PROMPT) + sum(
        estimate_example_tokens(entry["message"]) for entry in path
    )
    due = compaction.should_compact(estimated, window, reserved_output, ratio)
    cut = compaction.select_compaction_boundary(
        path,
        target_tokens=trigger,
        summary_max_tokens=summary_max_tokens,
        retain_recent_messages=retain_recent_messages,
        estimate_tokens=estimate_example_tokens,
        fixed_tokens=estimate_example_tokens(SYSTEM_PROMPT),
    )
    store = InMemorySessionStore()
    for entry in path:
        store.append(entry)
    settings = compaction.CompactionOptions(
        options, summary_max_tokens, retain_recent_messages, ratio, new_id=lambda: "compact-1", clock=lambda: 100
    )
    try:
        result, failure = compaction.compact(store, "a7", settings, ScriptedSummarizer(example_summary())), None
    except CompactionError as error:
        result, failure = None, error
    return (
        _trigger_line(estimated, window, reserved_output, ratio, trigger, due)
        + _cut_table(path, cut, result)
        + "<p><b>Before: what the model would see</b></p>"
        + context_view(budget.build_context(path, options))
        + "<p><b>After compact</b></p>"
        + _after(store, result, failure, options)
    )


COMPACTION_OPENS_AT = {"window": 64, "ratio": 0.8}
"""The settings the compaction explorer opens with."""


def compaction_explorer(
    reserved_output: int = 8, safety_margin: int = 2, summary_max_tokens: int = 12, retain_recent_messages: int = 2
) -> widgets.Widget:
    """Lab 4, going further: sliders for the window and the ratio on ``long_session()`` (``compaction_view``)."""
    window = widgets.IntSlider(value=COMPACTION_OPENS_AT["window"], min=30, max=100, description="window")
    ratio = widgets.FloatSlider(value=COMPACTION_OPENS_AT["ratio"], min=0.5, max=1.0, step=0.05, description="ratio")

    def draw(window: int, ratio: float) -> None:
        with demo(), on_its_own(4):
            display(
                HTML(
                    compaction_view(
                        window, ratio, reserved_output, safety_margin, summary_max_tokens, retain_recent_messages
                    )
                )
            )

    return widgets.VBox([window, ratio, widgets.interactive_output(draw, {"window": window, "ratio": ratio})])


def _trigger_line(estimated: float, window: int, reserved: int, ratio: float, trigger: int, due: bool) -> str:
    verdict = "reaches it: compaction triggers" if due else "is below it: nothing to do"
    return (
        f"<p><b>estimated input</b> {estimated} tokens; <b>trigger</b> floor(({window} - {reserved}) x "
        f"{ratio:.2f}) = {trigger} tokens; the input {verdict}.</p>"
    )


def _cut_table(path: list[Entry], cut: str | None, result: Any) -> str:
    kept_from = result.entry["firstKeptEntryId"] if result is not None and result.entry else None
    marks = {cut: "tool-round boundary"} if cut else {}
    if kept_from:
        marks[kept_from] = (marks.get(kept_from, "") + "; compact keeps from here").lstrip("; ")
    ids = [entry["id"] for entry in path]
    faded = ids[: ids.index(kept_from)] if kept_from else []
    head = f"<p><b>boundary</b> {cut or 'none fits'}; <b>compact keeps from</b> {kept_from or '-'}</p>"
    return head + rounds_table(
        grouping.group_interactions(path), compaction.group_tool_rounds(path), marks=marks, faded=faded
    )


def _after(store: InMemorySessionStore, result: Any, failure: Exception | None, options: budget.BudgetOptions) -> str:
    if failure is not None:
        return error_box(failure, f"compact failed: {failure.code}")
    if result.entry is None:
        return "<p>unchanged: below the trigger, the summarizer is not called.</p>"
    return context_view(budget.build_context(path_to(store.entries(), result.entry["id"]), options))
