"""Token estimators for real sessions, and the registry the ``workbook inspect`` command chooses from.

An estimator prices a system prompt (``str``) or a message (``dict``, as ``build_context`` passes
it) in tokens. None of them is a tokenizer. Estimators never change their argument and always
return an int >= 0.

- ``upper_bound`` (the default for real sessions): never below what a real tokenizer counts, for
  every script and symbol a session may hold, so a window it calls ``complete`` is not over-full.
- ``chars4``: Pi's heuristic, ``ceil(chars / 4)``, the one the Pi coding agent uses to decide where
  to cut, so a real session can be priced the way its own agent priced it. It undercounts most
  text but English: a fifth of Chinese, a third of emoji, under half of hex ids (figures below).
- ``chars3``: the chapter 12 text's, ``ceil(chars / 3)``, higher than ``chars4`` but still below a
  real tokenizer for most text but English (lab 3's "Going further" uses it as the text does).
- ``example``: the running example's toy.

Figures from ``python benchmarks/bench_estimators.py``: the samples of
``tests/support/fixtures/token-samples.json`` measured with four real tokenizers whose files ship inside
the ``litellm`` wheel (OpenAI's ``cl100k_base`` and ``o200k_base``, Anthropic's legacy Claude
tokenizer, DeepSeek V3's); each figure is the estimate over the largest of the four counts.

=====================  ===========  ======  =========
kind of text           upper_bound  chars4  ascii/3+1
=====================  ===========  ======  =========
English                1.63         1.21    1.63
code (Python)          2.10         0.90    1.20
JSON (tool arguments)  2.09         0.69    0.92
Chinese                2.64         0.22    0.88
Hindi                  2.44         0.24    0.81
Thai                   1.61         0.14    0.54
emoji                  1.66         0.33    0.65
rare CJK (4 bytes)     1.02         0.07    0.25
hex ids                1.11         0.42    0.56
base64                 1.23         0.36    0.48
digits                 1.00         0.51    0.68
control characters     1.01         0.25    0.33
=====================  ===========  ======  =========

(25 kinds in all; ``upper_bound`` is never below 1.00.) ``ascii/3+1`` is the simplest rule that
prices scripts at all (ASCII characters / 3, other code points 1 token each): it still undercounts
Chinese for ``cl100k_base``, emoji, ids and digits, hence the pieces ``upper_bound`` cuts. Over the
3,201 priced texts of the two real Pi sessions in ``../shared``, ``upper_bound`` is never below the
largest count (1.14 times it at least, 2.06 times in total); ``ascii/3+1`` undercounts 557 of them
and ``chars4`` 1,652 (0.80 times the largest total). The price of the bound is that margin: a window
``upper_bound`` fills holds about half as many real tokens of English and code.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from .example import estimate_example_tokens

CHARS_PER_TOKEN = 4
CHAPTER_12_CHARS_PER_TOKEN = 3
IMAGE_CHARS = 4800
"""What one image block counts as in ``chars4``, in characters (1200 tokens), as in Pi's estimator."""

IMAGE_TOKENS_BOUND = 1600
"""What one image block costs in ``upper_bound``: providers scale an image down to about 1.15
megapixels, which Anthropic prices at about 1,600 tokens and OpenAI (high detail) at 1,445 at most."""

TEXT_TOKENS = 1
"""Every text (a prompt, a text or thinking block, a tool name, a call's arguments) costs 1 token more:
a tokenizer may start a text with a token of its own, and a very short text rounds up."""

_PIECES = re.compile(
    r"(?P<word> [A-Z]?[a-z]+| [A-Z]+(?![a-z]))"  # a word after a space, with it: " the", " Session", " JSON"
    r"|(?P<letters>[A-Z]?[a-z]+|[A-Z]+(?![a-z]))"  # letters after anything else: "parse", "Qz", "f"
    r"|(?P<digits>[0-9]{1,3})"  # tokenizers keep at most three digits together
    r"|(?P<space>[ \t\n]+)"
    r"|(?P<other>.)",  # one punctuation mark, control character or non-ASCII code point
    re.DOTALL,
)


def chars4(item: str | dict[str, Any]) -> int:
    """Pi's heuristic: price a system prompt or a message at ``ceil(chars / 4)`` tokens.

    Characters counted: a string's own length; a message's string content, or its ``text`` and
    ``thinking`` block texts, each tool call's name plus its arguments as compact JSON, and 4800
    per image block. Ids, roles, flags and provider fields are not priced. Characters are Unicode
    code points (Pi counts UTF-16 units, which differ only outside the Basic Multilingual Plane).
    An estimate for English and code only: it undercounts other scripts, emoji, ids and digits.
    """
    texts, images = priced_parts(item)
    return math.ceil((sum(map(len, texts)) + IMAGE_CHARS * images) / CHARS_PER_TOKEN)


def chars3(item: str | dict[str, Any]) -> int:
    """Price a system prompt or a message at ``ceil(chars / 3)`` tokens, as the chapter 12 text does: the
    characters ``chars4`` counts (an image block 4800), at 3 per token."""
    texts, images = priced_parts(item)
    return math.ceil((sum(map(len, texts)) + IMAGE_CHARS * images) / CHAPTER_12_CHARS_PER_TOKEN)


def upper_bound(item: str | dict[str, Any]) -> int:
    """Price a system prompt or a message at no less than a real tokenizer counts (see the module's figures).

    The texts are those ``chars4`` counts (each tool call's name and its arguments as compact JSON
    are two texts); each costs ``TEXT_TOKENS`` plus its pieces, cut the way tokenizers pre-split text:

    - a word after a space, the space included: ``ceil(length / 4)`` (" the" 1, " compaction" 3);
    - letters after anything else: ``ceil(2 * length / 3)`` ("parse" 4), as identifiers, hex and
      base64 are cut into short tokens;
    - one to three digits: 1; a run of spaces, tabs and newlines: ``ceil(length / 3)``;
    - any other ASCII character (punctuation, control): 1;
    - a code point outside ASCII: its UTF-8 length, 2 to 4 (a byte-level tokenizer never needs
      more than one token per byte, whatever the script, emoji included).

    Each image block costs ``IMAGE_TOKENS_BOUND``. The result is an int >= 1 for a text, 0 for a
    message with no priced content.
    """
    texts, images = priced_parts(item)
    return sum(_text_bound(text) for text in texts) + IMAGE_TOKENS_BOUND * images


def _text_bound(text: str) -> int:
    tokens = TEXT_TOKENS
    for piece in _PIECES.finditer(text):
        kind, length = piece.lastgroup, len(piece.group())
        if kind == "word":
            tokens += math.ceil(length / 4)
        elif kind == "letters":
            tokens += math.ceil(2 * length / 3)
        elif kind == "space":
            tokens += math.ceil(length / 3)
        elif kind == "digits" or piece.group().isascii():
            tokens += 1
        else:
            tokens += len(piece.group().encode("utf-8", "surrogatepass"))
    return tokens


def priced_parts(item: str | dict[str, Any]) -> tuple[list[str], int]:
    """The texts an estimator prices in a prompt or message, and its number of image blocks."""
    if isinstance(item, str):
        return [item], 0
    content = item.get("content", "")
    if isinstance(content, str):
        return [content], 0
    texts: list[str] = []
    images = 0
    for block in content:
        kind = block.get("type")
        if kind == "text":
            texts.append(block["text"])
        elif kind == "thinking":
            texts.append(block["thinking"])
        elif kind == "toolCall":
            texts.append(block["name"])
            texts.append(json.dumps(block.get("arguments", {}), ensure_ascii=False, separators=(",", ":")))
        elif kind == "image":
            images += 1
    return texts, images


ESTIMATORS: dict[str, Callable[[Any], int]] = {
    "upper_bound": upper_bound,
    "chars4": chars4,
    "chars3": chars3,
    "example": estimate_example_tokens,
}
"""The estimators by name: ``upper_bound`` for real sessions (the default), ``chars4`` (Pi's heuristic,
to price a session as Pi did), ``chars3`` (the chapter 12 text's), ``example`` for the running example."""
