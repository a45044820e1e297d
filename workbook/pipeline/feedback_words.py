"""The fixed words of a feedback page, in its notebook's edition (en, zh or vi; ``workbook.course.editions``).

Only what the page says around the judge's results comes from here: the hidden tests' summary, a cell that was
not judged, the extra credit set apart, the line that stands for a widget (``workbook.pipeline.inert``), and the
overview page's words (``workbook.pipeline.feedback_overview``). The results themselves (case names, calls, values,
messages) and the instructor's hints are shown as the judge recorded them; the scores are the gradebook's.
"""

from __future__ import annotations

from workbook.course.layout import LANGUAGES, SOURCE_LANGUAGE

FEEDBACK_WORDS: dict[str, dict[str, str]] = {
    "hidden_all": {
        "en": "✓ hidden tests: all {count} passed",
        "zh": "✓ 隐藏测试：{count} 个全部通过",
        "vi": "✓ bài kiểm tra ẩn: cả {count} đều đạt",
    },
    "hidden_one_passed": {"en": "✓ hidden test: passed", "zh": "✓ 隐藏测试：通过", "vi": "✓ bài kiểm tra ẩn: đạt"},
    "hidden_not_all": {
        "en": "✗ hidden tests: not all {count} passed",
        "zh": "✗ 隐藏测试：{count} 个并未全部通过",
        "vi": "✗ bài kiểm tra ẩn: không phải cả {count} đều đạt",
    },
    "hidden_one_failed": {
        "en": "✗ hidden test: failed",
        "zh": "✗ 隐藏测试：未通过",
        "vi": "✗ bài kiểm tra ẩn: thất bại",
    },
    "they_check": {"en": "{head}; what they check:", "zh": "{head}；它们检查的内容：", "vi": "{head}; chúng kiểm tra:"},
    "it_checks": {"en": "{head}; what it checks:", "zh": "{head}；它检查的内容：", "vi": "{head}; nó kiểm tra:"},
    "not_judged": {"en": "This cell was not judged.", "zh": "此单元格未被评判。", "vi": "Ô này không được chấm."},
    "score_extra": {
        "en": "**Score: {score}** (+{extra}: extra credit, outside this notebook's points)",
        "zh": "**得分：{score}**（+{extra}：额外加分，在本 notebook 的分数之外）",
        "vi": "**Điểm: {score}** (+{extra}: điểm cộng, ngoài điểm của notebook này)",
    },
    "extra_line": {"en": "extra credit: +{extra}", "zh": "额外加分：+{extra}", "vi": "điểm cộng: +{extra}"},
    "overview_title": {
        "en": "Feedback for {student}: the five labs",
        "zh": "{student} 的反馈：五个实验",
        "vi": "Phản hồi cho {student}: năm bài lab",
    },
    "overview_lab": {"en": "lab", "zh": "实验", "vi": "bài lab"},
    "overview_auto": {"en": "autograded", "zh": "自动评分", "vi": "chấm tự động"},
    "overview_written": {"en": "written answers", "zh": "书面回答", "vi": "câu trả lời viết"},
    "overview_extra": {"en": "extra credit", "zh": "额外加分", "vi": "điểm cộng"},
    "overview_total": {"en": "total", "zh": "合计", "vi": "tổng"},
    "overview_score": {"en": "Score: {score}", "zh": "得分：{score}", "vi": "Điểm: {score}"},
    "overview_late": {
        "en": "after a late penalty of {penalty}",
        "zh": "已扣除迟交罚分 {penalty}",
        "vi": "sau khi trừ {penalty} điểm nộp muộn",
    },
    "overview_pending": {
        "en": "Written answers not graded yet: {count} ({points} points); ?/N counts 0 until they are.",
        "zh": "尚未评分的书面回答：{count} 个（{points} 分）；评分前 ?/N 计为 0。",
        "vi": "Câu trả lời viết chưa được chấm: {count} ({points} điểm); ?/N tính là 0 cho đến khi được chấm.",
    },
    "overview_failed": {
        "en": "What failed, with the hints",
        "zh": "未通过的内容及提示",
        "vi": "Những gì chưa đạt, kèm gợi ý",
    },
    "overview_nothing_failed": {
        "en": "Every test passed.",
        "zh": "所有测试均已通过。",
        "vi": "Mọi bài kiểm tra đều đạt.",
    },
    "overview_link": {
        "en": "[All five labs at a glance: your overview]({link})",
        "zh": "[五个实验一览：你的总览]({link})",
        "vi": "[Cả năm bài lab trong một trang: tổng quan của bạn]({link})",
    },
    "widget": {
        "en": "[an interactive widget: open this notebook in JupyterLab and run the cell to use it]",
        "zh": "[交互式控件：在 JupyterLab 中打开此 notebook 并运行该单元格即可使用]",
        "vi": "[tiện ích tương tác: mở notebook này trong JupyterLab và chạy ô để dùng]",
    },
}
"""Each fixed text of a feedback page, by id, in every language: ``str.format`` templates with the same
placeholders in each."""


def feedback_word(word_id: str, language: str = SOURCE_LANGUAGE, **values: object) -> str:
    """Fixed text ``word_id`` in ``language`` with ``values`` filled in; a language without words (none of
    ``LANGUAGES``) gets English, so a page is never left unwritten. Raises ``KeyError`` for an unknown id."""
    texts = FEEDBACK_WORDS[word_id]
    return texts[language if language in LANGUAGES else SOURCE_LANGUAGE].format(**values)
