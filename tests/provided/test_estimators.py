"""Token estimators: ``upper_bound`` is never below a real tokenizer's count, whatever the script; ``chars4`` is Pi's.

The real counts are recorded in ``fixtures/token-samples.json`` by ``benchmarks/bench_estimators.py --record``
(four tokenizers shipped in the litellm wheel), so these tests need no tokenizer.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from compaction_lab.provided.estimators import ESTIMATORS, IMAGE_TOKENS_BOUND, chars3, chars4, upper_bound

SAMPLES = json.loads(
    (Path(__file__).resolve().parents[1] / "support" / "fixtures" / "token-samples.json").read_text(encoding="utf-8")
)["samples"]
BY_KIND = {sample["kind"]: sample for sample in SAMPLES}


def largest(kind: str) -> int:
    return max(BY_KIND[kind]["tokens"].values())


def test_every_sample_has_its_four_recorded_counts():
    assert len(SAMPLES) == 25
    assert all(set(sample["tokens"]) == {"cl100k", "o200k", "claude-legacy", "deepseek-v3"} for sample in SAMPLES)


@pytest.mark.parametrize("kind", list(BY_KIND))
def test_upper_bound_is_never_below_a_real_tokenizer(kind):
    assert upper_bound(BY_KIND[kind]["text"]) >= largest(kind)


@pytest.mark.parametrize(("kind", "tokens"), [("Chinese", 131), ("emoji", 92), ("hex ids", 194), ("Thai", 285)])
def test_pis_heuristic_undercounts_other_scripts_ids_and_emoji(kind, tokens):
    assert largest(kind) == tokens
    assert chars4(BY_KIND[kind]["text"]) < tokens / 2


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 1),  # every text costs 1
        (" the", 2),  # a word after a space: ceil(4 / 4)
        ("hello world", 7),  # "hello" ceil(2 * 5 / 3) = 4, " world" ceil(6 / 4) = 2
        ("123456", 3),  # two runs of three digits
        ("a, b", 4),  # "a" 1, "," 1, " b" 1
        ("中文", 7),  # 3 UTF-8 bytes each
        ("😀", 5),  # 4 UTF-8 bytes
        ("\t\t\t\n", 3),  # one whitespace run of 4: ceil(4 / 3)
    ],
)
def test_upper_bound_prices_pieces_as_documented(text, tokens):
    assert upper_bound(text) == tokens


def test_upper_bound_prices_every_part_of_a_message_and_changes_nothing():
    message = {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "中文"},
            {"type": "text", "text": " the"},
            {"type": "toolCall", "id": "call-1", "name": "read", "arguments": {"path": "a"}},
            {"type": "image", "data": "aGk=", "mimeType": "image/png"},
        ],
    }
    before = copy.deepcopy(message)
    # thinking 7, text 2, name "read" 1 + 3, arguments '{"path":"a"}' 1 + 7 marks + "path" 3 + "a" 1
    assert upper_bound(message) == 7 + 2 + 4 + 12 + IMAGE_TOKENS_BOUND
    assert message == before
    assert upper_bound({"role": "user", "content": "中文"}) == 7


def test_chars4_is_unchanged_and_every_estimator_is_registered():
    message = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "x" * 9},
            {"type": "toolCall", "id": "c", "name": "ab", "arguments": {}},
            {"type": "image", "data": "", "mimeType": "image/png"},
        ],
    }
    assert chars4(message) == 1204  # (9 + 2 + len("{}") + 4800) / 4, rounded up
    assert chars3(message) == 1605  # the same 4813 characters at 3 per token, rounded up
    assert list(ESTIMATORS) == ["upper_bound", "chars4", "chars3", "example"]
