"""A feedback page's fixed words in its notebook's edition (issue 27); the judge's results are shown as recorded."""

from __future__ import annotations

import re

from workbook.course.layout import LANGUAGES
from workbook.pipeline.feedback import case_lines, set_extra_credit_apart
from workbook.pipeline.feedback_words import FEEDBACK_WORDS, feedback_word

HIDDEN = [
    {
        "key": f"lab3_complete_and_zero_budget/{name}",
        "grade_id": "lab3_complete_and_zero_budget",
        "hidden": True,
        "status": status,
        "call": "",
        "message": "",
        "hint": "With nothing left, the newest is kept whole.",
    }
    for name, status in (("window_0", "passed"), ("window_1", "failed"))
]
VISIBLE = {
    "key": "lab3_trim_boundary/window_31",
    "grade_id": "lab3_trim_boundary",
    "hidden": False,
    "status": "passed",
    "call": "build_context(example_entries(), example_options(max_tokens=31))",
    "message": "",
    "hint": "",
}


def test_every_word_in_every_language_with_the_same_values() -> None:
    for word_id, texts in FEEDBACK_WORDS.items():
        assert tuple(texts) == tuple(LANGUAGES), word_id
        assert len({frozenset(re.findall(r"\{(\w+)\}", text)) for text in texts.values()}) == 1, word_id


def test_the_hidden_summary_in_each_edition_shows_the_same_results() -> None:
    cases = [VISIBLE, *HIDDEN]
    call = "✓ window_31: build_context(example_entries(), example_options(max_tokens=31))"
    hint = "  - With nothing left, the newest is kept whole."
    assert case_lines(cases, "zh").splitlines() == [call, "✗ 隐藏测试：2 个并未全部通过；它们检查的内容：", hint]
    assert case_lines(cases, "vi").splitlines() == [
        call,
        "✗ bài kiểm tra ẩn: không phải cả 2 đều đạt; chúng kiểm tra:",
        hint,
    ]
    assert case_lines(cases, "fr") == case_lines(cases) == case_lines(cases, "en")  # unknown: English
    assert case_lines(cases).splitlines()[1] == "✗ hidden tests: not all 2 passed; what they check:"
    assert case_lines([{**HIDDEN[0]}], "zh") == "✓ 隐藏测试：通过\n"
    real = [{**HIDDEN[1], "hint": "Only the latest summary is shown, exactly once."}]  # a hint of the project's
    assert case_lines(real, "zh").splitlines() == [
        "✗ 隐藏测试：未通过；它检查的内容：",
        "  - 只显示最新的摘要，且恰好一次。",
    ]


def test_extra_credit_set_apart_says_so_in_the_edition() -> None:
    from nbformat.v4 import new_code_cell, new_output

    cell = new_code_cell("check('lab3_extra_cache_replay')")
    cell.metadata.nbgrader = {"grade": True, "points": 0, "score": 1, "grade_id": "lab3_extra_cache_replay"}
    cell.outputs = [new_output("stream", name="stdout", text="✓ replay_chat\n")]
    assert set_extra_credit_apart(cell, "vi") == 1.0
    assert cell.outputs[0].text == "điểm cộng: +1\n✓ replay_chat\n" and cell.metadata.nbgrader["score"] == 0
    assert feedback_word("score_extra", "zh", score="8/10 +1", extra="1") == (
        "**得分：8/10 +1**（+1：额外加分，在本 notebook 的分数之外）"
    )
