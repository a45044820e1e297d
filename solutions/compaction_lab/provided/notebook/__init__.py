"""What the notebooks' cells call, in one import: the test cells' ``check``, the worked examples' ``expect``,
the demo cells' ``demo``, the status light and the explorers and views of each lab.

A setup cell imports what its notebook uses from here (``from compaction_lab.provided.notebook import check,
demo, show_status``); each name is defined in the module of this folder that says what it is, and that module is
imported when a name of it is first asked for (``workbook check`` runs ``checklist`` without loading widgets).
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES = {
    "cells": ("check", "expect"),
    "explorers": ("budget_explorer", "compaction_explorer", "grouping_explorer", "resumption_explorer"),
    "status": ("demo", "show_progress", "show_status"),
    "views": ("context_view", "entries_table", "groups_table", "ledger_table", "rounds_table", "source_of"),
}
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names}
__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_MODULE_OF[name]}"), name)
