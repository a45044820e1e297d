"""The fixed words a student reads from the course's code, in the workspace's language (en, zh or vi).

A workspace built in an edition (``workbook build --language zh``) holds ``provided/language.txt`` with its
language code; without it the language is English. ``WORKBOOK_LANGUAGE`` in the environment overrides it
(``workbook check --language`` sets it). ``say(id, **values)`` is message ``id`` in that language with the values
filled in; values, ids and Python's own errors are never translated. Only display text comes from here: what a
check decides never depends on the language.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

LANGUAGES = ("en", "zh", "vi")
LANGUAGE_FILE = Path(__file__).with_name("language.txt")
"""The workspace's language code, written by ``workbook build --language`` (absent in English)."""
ENVIRONMENT = "WORKBOOK_LANGUAGE"

MESSAGES: dict[str, dict[str, str]] = {
    "not_implemented": {
        "en": "Lab {lab} ({title}): {function}() is not implemented yet; see {notebook}",
        "zh": "实验 {lab}（{title}）：{function}() 尚未实现；请看 {notebook}",
        "vi": "Bài {lab} ({title}): {function}() chưa được viết; xem {notebook}",
    },
    "title_1": {"en": "record parsing", "zh": "记录解析", "vi": "phân tích bản ghi"},
    "title_2": {"en": "interaction grouping", "zh": "交互分组", "vi": "nhóm tương tác"},
    "title_3": {"en": "budget projection", "zh": "预算投影", "vi": "chiếu ngân sách"},
    "title_4": {"en": "compaction creation", "zh": "创建压缩", "vi": "tạo lần nén"},
    "title_5": {"en": "repeated resumption", "zh": "反复恢复", "vi": "tiếp tục lặp lại"},
    "lab_name": {
        "en": "Lab {lab} ({title}), {function}() in compaction_lab/{module}.py",
        "zh": "实验 {lab}（{title}），compaction_lab/{module}.py 中的 {function}()",
        "vi": "Bài {lab} ({title}), {function}() trong compaction_lab/{module}.py",
    },
    "fix_and_save": {
        "en": "Fix it and save the file, then run this cell again. Until then the kernel keeps the code it loaded "
        "before, and no check can pass.",
        "zh": "修正它并保存文件，然后再次运行此单元格。在此之前内核保留它先前加载的代码，任何检查都无法通过。",
        "vi": "Hãy sửa nó và lưu tệp, rồi chạy lại ô này. Cho đến lúc đó kernel giữ mã nó đã tải trước đây, và "
        "không kiểm tra nào có thể đạt.",
    },
    "write_function": {
        "en": "Write {function}() in compaction_lab/{module}.py, save the file, and run this cell again.",
        "zh": "在 compaction_lab/{module}.py 中编写 {function}()，保存文件，然后再次运行此单元格。",
        "vi": "Hãy viết {function}() trong compaction_lab/{module}.py, lưu tệp, rồi chạy lại ô này.",
    },
    "blocked_by": {"en": "blocked by lab {lab}", "zh": "被实验 {lab} 阻塞", "vi": "bị chặn bởi bài {lab}"},
    "meanwhile": {
        "en": "{message}. Meanwhile {alone}.",
        "zh": "{message}。同时，{alone}。",
        "vi": "{message}. Trong khi đó, {alone}.",
    },
    "graded_alone": {
        "en": "the grader runs lab {lab} with a reference lab {other}, so its points do not wait for yours",
        "zh": "评分程序用参考实验 {other} 运行实验 {lab}，所以它的分数不必等你的实验 {other}",
        "vi": "bộ chấm chạy bài {lab} với bài {other} mẫu, nên điểm của nó không phải chờ bài của bạn",
    },
    "answered_one": {
        "en": "lab {labs} is not done yet: lab {lab} is checked with the course's answers for lab {labs}'s calls on "
        "these inputs",
        "zh": "实验 {labs} 尚未完成：实验 {lab} 在这些输入上用课程对实验 {labs} 的调用给出的答案来检查",
        "vi": "bài {labs} chưa xong: bài {lab} được kiểm tra bằng câu trả lời của khoá học cho các lời gọi bài "
        "{labs} trên những đầu vào này",
    },
    "answered_many": {
        "en": "labs {labs} are not done yet: lab {lab} is checked with the course's answers for their calls on these "
        "inputs",
        "zh": "实验 {labs} 尚未完成：实验 {lab} 在这些输入上用课程对它们的调用给出的答案来检查",
        "vi": "các bài {labs} chưa xong: bài {lab} được kiểm tra bằng câu trả lời của khoá học cho các lời gọi "
        "chúng trên những đầu vào này",
    },
    "own_one": {
        "en": "lab {lab} is checked on your own lab {labs}",
        "zh": "实验 {lab} 用你自己的实验 {labs} 来检查",
        "vi": "bài {lab} được kiểm tra trên bài {labs} của chính bạn",
    },
    "own_many": {
        "en": "lab {lab} is checked on your own labs {labs}",
        "zh": "实验 {lab} 用你自己的实验 {labs} 来检查",
        "vi": "bài {lab} được kiểm tra trên các bài {labs} của chính bạn",
    },
    "unrecorded_call": {
        "en": "Lab {lab} ({title}): {function}() is not done yet, and the course's code never makes this call on "
        "these inputs, so it has no answer for it; finish lab {lab} to check it (see {notebook})",
        "zh": "实验 {lab}（{title}）：{function}() 尚未完成，而课程的代码在这些输入上从不做这次调用，所以没有它的答案；"
        "完成实验 {lab} 才能检查它（请看 {notebook}）",
        "vi": "Bài {lab} ({title}): {function}() chưa xong, và mã của khoá học không bao giờ gọi như vậy trên những "
        "đầu vào này, nên không có câu trả lời cho nó; hãy hoàn thành bài {lab} để kiểm tra nó (xem {notebook})",
    },
    "answer_mismatch": {
        "en": "lab {lab} is not done yet: the course's answer for its {function}() holds only when your {inner}() "
        "answers as the course's does, and on this input it does not",
        "zh": "实验 {lab} 尚未完成：课程对其 {function}() 的答案只在你的 {inner}() 与课程的答得一样时成立，"
        "而在这个输入上并不一样",
        "vi": "bài {lab} chưa xong: câu trả lời của khoá học cho {function}() của nó chỉ đúng khi {inner}() của bạn "
        "trả lời như của khoá học, và trên đầu vào này thì không",
    },
    "visible_pass": {
        "en": "{passed}/{total} visible checks pass",
        "zh": "{passed}/{total} 个可见检查通过",
        "vi": "{passed}/{total} kiểm tra công khai đạt",
    },
    "extra_pass": {
        "en": "extra credit: {passed}/{total} checks pass",
        "zh": "额外加分：{passed}/{total} 个检查通过",
        "vi": "điểm cộng: {passed}/{total} kiểm tra đạt",
    },
    "extra_not_started": {
        "en": "extra credit: not started",
        "zh": "额外加分：尚未开始",
        "vi": "điểm cộng: chưa bắt đầu",
    },
    "hidden_at_grading": {
        "en": "hidden tests run at grading",
        "zh": "隐藏测试在评分时运行",
        "vi": "bài kiểm tra ẩn chạy khi chấm",
    },
    "not_started": {
        "en": "not started ({function} raises LabNotImplementedError)",
        "zh": "尚未开始（{function} 抛出 LabNotImplementedError）",
        "vi": "chưa bắt đầu ({function} ném LabNotImplementedError)",
    },
    "reloaded": {
        "en": "Reloaded {name}: the kernel was running an older version of it.",
        "zh": "已重新加载 {name}：内核之前运行的是它的旧版本。",
        "vi": "Đã tải lại {name}: kernel đang chạy một phiên bản cũ của nó.",
    },
    "points": {
        "en": "Visible checks: {visible}. Hidden tests: {hidden}, run when your work is graded. Written answer: "
        "{written}, graded by hand.",
        "zh": "可见检查：{visible}。隐藏测试：{hidden}，在你的作业被评分时运行。书面回答：{written}，人工评分。",
        "vi": "Kiểm tra công khai: {visible}. Bài kiểm tra ẩn: {hidden}, chạy khi bài của bạn được chấm. Câu trả "
        "lời viết: {written}, chấm tay.",
    },
    "points_extra": {
        "en": " Extra credit: {extra}, outside the lab's points.",
        "zh": "额外加分：{extra}，在本实验的分数之外。",
        "vi": " Điểm cộng: {extra}, ngoài điểm của bài.",
    },
    "points_unknown": {
        "en": "Hidden tests run when your work is graded.",
        "zh": "隐藏测试在你的作业被评分时运行。",
        "vi": "Bài kiểm tra ẩn chạy khi bài của bạn được chấm.",
    },
    "points_cells": {
        "en": "{points} point{s} ({cells} cell{cs})",
        "zh": "{points} 分（{cells} 个单元格）",
        "vi": "{points} điểm ({cells} ô)",
    },
    "not_implemented_title": {"en": "Not implemented yet", "zh": "尚未实现", "vi": "Chưa được viết"},
    "hidden_cell": {
        "en": "{grade_id}: graded by hidden tests when your work is graded; the docstring above says what they check.",
        "zh": "{grade_id}：在你的作业被评分时由隐藏测试评分；上面的文档字符串说明它们检查什么。",
        "vi": "{grade_id}: được chấm bằng bài kiểm tra ẩn khi bài của bạn được chấm; docstring phía trên nói chúng "
        "kiểm tra gì.",
    },
    "checks_failed": {
        "en": "{grade_id}{points}: {failed} of {total} checks failed (the ✗ lines above)",
        "zh": "{grade_id}{points}：{total} 个检查中有 {failed} 个失败（见上方 ✗ 行）",
        "vi": "{grade_id}{points}: {failed} trong {total} kiểm tra thất bại (các dòng ✗ ở trên)",
    },
    "cell_points": {"en": " ({points} point{s})", "zh": "（{points} 分）", "vi": " ({points} điểm)"},
    "no_such_lab": {
        "en": "there is no lab {text}; the labs are 1 to {count}",
        "zh": "没有实验 {text}；实验编号为 1 到 {count}",
        "vi": "không có bài {text}; các bài là từ 1 đến {count}",
    },
    "next_fix": {
        "en": "Next: lab {lab}: fix the problem above and save the file.",
        "zh": "下一步：实验 {lab}：修正上面的问题并保存文件。",
        "vi": "Tiếp theo: bài {lab}: sửa lỗi ở trên và lưu tệp.",
    },
    "next_write": {
        "en": "Next: lab {lab}: write {function}() in compaction_lab/{module}.py; {notebook} says how.",
        "zh": "下一步：实验 {lab}：在 compaction_lab/{module}.py 中编写 {function}()；{notebook} 说明怎么做。",
        "vi": "Tiếp theo: bài {lab}: viết {function}() trong compaction_lab/{module}.py; {notebook} nói cách làm.",
    },
    "next_blocked": {
        "en": "Next: lab {other}, which lab {lab} calls.",
        "zh": "下一步：实验 {other}，实验 {lab} 会调用它。",
        "vi": "Tiếp theo: bài {other}, bài mà bài {lab} gọi.",
    },
    "next_failing": {
        "en": "Next: lab {lab}: make {case} pass; `workbook hint {lab}` gives a hint.",
        "zh": "下一步：实验 {lab}：让 {case} 通过；`workbook hint {lab}` 给出提示。",
        "vi": "Tiếp theo: bài {lab}: làm cho {case} đạt; `workbook hint {lab}` cho một gợi ý.",
    },
    "next_extra": {
        "en": "Next, for extra credit: lab {lab}'s Going further in {notebook}.",
        "zh": "下一步（额外加分）：{notebook} 中实验 {lab} 的“进一步探索”。",
        "vi": "Tiếp theo, để có điểm cộng: phần Đi xa hơn của bài {lab} trong {notebook}.",
    },
    "next_hint": {
        "en": " `workbook hint {lab}` gives a hint.",
        "zh": "`workbook hint {lab}` 给出提示。",
        "vi": " `workbook hint {lab}` cho một gợi ý.",
    },
    "next_nothing_left": {
        "en": "Nothing left: every visible check passes, extra credit included; hidden tests run at grading.",
        "zh": "没有剩下的了：每个可见检查都通过，包括额外加分；隐藏测试在评分时运行。",
        "vi": "Không còn gì: mọi kiểm tra công khai đều đạt, kể cả điểm cộng; bài kiểm tra ẩn chạy khi chấm.",
    },
    "overview_hint": {
        "en": "Where every lab stands: `workbook check` in a terminal (START.md).",
        "zh": "所有实验的进度：在终端中运行 `workbook check`（见 START.md）。",
        "vi": "Tình trạng của mọi bài: `workbook check` trong terminal (xem START.md).",
    },
}
"""Every message, by id, in every language: ``str.format`` templates whose placeholders are the same in each (but
English's plural endings, ``s`` and ``cs``)."""
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def language() -> str:
    """The workspace's language: ``WORKBOOK_LANGUAGE`` if it names one of ``LANGUAGES``, else the code in
    ``LANGUAGE_FILE``, else (no file, an unreadable or unknown one) English."""
    chosen = os.environ.get(ENVIRONMENT, "").strip()
    if chosen in LANGUAGES:
        return chosen
    try:
        written = LANGUAGE_FILE.read_text(encoding="utf-8").strip()
    except OSError:
        return "en"
    return written if written in LANGUAGES else "en"


def say(message_id: str, language_code: str | None = None, **values: object) -> str:
    """Message ``message_id`` in ``language_code`` (default: ``language()``) with ``values`` filled in; raises
    ``KeyError`` for an unknown id and ``ValueError`` for an unknown language."""
    chosen = language() if language_code is None else language_code
    if chosen not in LANGUAGES:
        raise ValueError(f"unknown language {chosen!r}: choose one of {', '.join(LANGUAGES)}")
    return MESSAGES[message_id][chosen].format(**values)


def title(number: int, language_code: str | None = None) -> str:
    """Lab ``number``'s title in ``language_code`` (default: ``language()``)."""
    return say(f"title_{number}", language_code)


def _head_pattern(template: str) -> re.Pattern[str]:
    """A template's sentence before its first ``;`` as a regex: ``{lab}`` and ``{function}`` captured in that
    order, any other value matched lazily."""
    head = re.split(r"[;；]", template, maxsplit=1)[0]
    parts = PLACEHOLDER.split(head)
    pattern = ""
    for index, part in enumerate(parts):
        if index % 2 == 0:
            pattern += re.escape(part)
        else:
            pattern += {"lab": r"(?P<lab>[1-5])", "function": r"(?P<function>\w+)"}.get(part, ".*?")
    return re.compile(pattern)


NOT_IMPLEMENTED = tuple(
    _head_pattern(MESSAGES[message_id][code])
    for message_id in ("not_implemented", "unrecorded_call")
    for code in LANGUAGES
)
"""The start of a ``LabNotImplementedError`` message (an ``UnrecordedCallError``'s too) in each language, naming the
lab and the function."""


def not_implemented_in(message: str) -> tuple[int, str] | None:
    """The lab number and function a ``LabNotImplementedError`` message in any language names, or None."""
    for pattern in NOT_IMPLEMENTED:
        found = pattern.match(message)
        if found:
            return int(found["lab"]), found["function"]
    return None
