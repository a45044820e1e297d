"""Token estimators for real sessions, and the registry the ``workbook inspect`` command chooses from.

An estimator prices a system prompt (``str``) or a message (``dict``, as ``build_context`` passes
it) in tokens. None of them is a tokenizer. ``chars4`` is the heuristic the Pi coding agent uses to
decide where to cut (``ceil(chars / 4)``, deliberately on the high side for English and code), so a
real session is priced the way its own agent priced it; ``chars3`` is the chapter 12 text's
(``ceil(chars / 3)``, higher still); ``example`` is the running example's toy.
Estimators never change their argument and always return an int >= 0.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from .example import estimate_example_tokens

CHARS_PER_TOKEN = 4
CHAPTER_12_CHARS_PER_TOKEN = 3
IMAGE_CHARS = 4800
"""What one image block counts as, in characters (1200 tokens), as in Pi's estimator."""


def chars4(item: str | dict[str, Any]) -> int:
    """Price a system prompt or a message at ``ceil(chars / 4)`` tokens.

    Characters counted: a string's own length; a message's string content, or its ``text`` and
    ``thinking`` block texts, each tool call's name plus its arguments as compact JSON, and 4800
    per image block. Ids, roles, flags and provider fields are not priced. Characters are Unicode
    code points (Pi counts UTF-16 units, which differ only outside the Basic Multilingual Plane).
    """
    return math.ceil(_chars(item) / CHARS_PER_TOKEN)


def chars3(item: str | dict[str, Any]) -> int:
    """Price a system prompt or a message at ``ceil(chars / 3)`` tokens, as the chapter 12 text does:
    the characters ``chars4`` counts, at 3 per token, deliberately high so the budget needs no margin."""
    return math.ceil(_chars(item) / CHAPTER_12_CHARS_PER_TOKEN)


def _chars(item: str | dict[str, Any]) -> int:
    if isinstance(item, str):
        return len(item)
    content = item.get("content", "")
    if isinstance(content, str):
        return len(content)
    return sum(_block_chars(block) for block in content)


def _block_chars(block: dict[str, Any]) -> int:
    kind = block.get("type")
    if kind == "text":
        return len(block["text"])
    if kind == "thinking":
        return len(block["thinking"])
    if kind == "toolCall":
        arguments = json.dumps(block.get("arguments", {}), ensure_ascii=False, separators=(",", ":"))
        return len(block["name"]) + len(arguments)
    if kind == "image":
        return IMAGE_CHARS
    return 0


ESTIMATORS: dict[str, Callable[[Any], int]] = {"chars4": chars4, "chars3": chars3, "example": estimate_example_tokens}
"""The estimators by name: ``chars4`` and ``chars3`` for real sessions, ``example`` for the running example."""
