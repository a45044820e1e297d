"""The student's messages in the workspace's language (issue 27): one catalogue, the same values in every
language, the language from the release or ``WORKBOOK_LANGUAGE``, and a not-implemented error every language's
tools still recognise."""

from __future__ import annotations

from pathlib import Path

import pytest

from compaction_lab.provided import messages
from compaction_lab.provided.errors import LabNotImplementedError, UnrecordedCallError
from compaction_lab.provided.labs import LABS
from compaction_lab.provided.messages import MESSAGES, PLACEHOLDER, language, not_implemented_in, say
from compaction_lab.provided.notebook import status as status_module
from compaction_lab.provided.notebook.checklist import Checklist
from compaction_lab.provided.notebook.status import lab_status
from workbook.cli.check import add_parser
from workbook.course.editions import LANGUAGE_FILE
from workbook.course.layout import LANGUAGES


@pytest.fixture
def in_language(monkeypatch: pytest.MonkeyPatch):
    """Set the messages' language through ``WORKBOOK_LANGUAGE``."""

    def choose(code: str) -> None:
        monkeypatch.setenv(messages.ENVIRONMENT, code)

    return choose


def test_every_message_in_every_language_with_the_same_values() -> None:
    assert messages.LANGUAGES == tuple(LANGUAGES)
    for message_id, texts in MESSAGES.items():
        assert tuple(texts) == messages.LANGUAGES, message_id
        english = set(PLACEHOLDER.findall(texts["en"]))
        for text in texts.values():  # the same values; only English has plural endings (s, cs)
            assert set(PLACEHOLDER.findall(text)) | ({"s", "cs"} & english) == english, (message_id, text)
    assert [messages.title(lab.number, "en") for lab in LABS] == [lab.title for lab in LABS]


def test_the_language_comes_from_the_environment_then_the_release(tmp_path: Path, monkeypatch) -> None:
    package = Path(messages.__file__).parents[1]
    assert messages.LANGUAGE_FILE == package / LANGUAGE_FILE  # where workbook build writes it
    monkeypatch.delenv(messages.ENVIRONMENT, raising=False)
    monkeypatch.setattr(messages, "LANGUAGE_FILE", tmp_path / "language.txt")
    assert language() == "en"
    (tmp_path / "language.txt").write_text("vi\n", encoding="utf-8")
    assert language() == "vi"
    monkeypatch.setenv(messages.ENVIRONMENT, "zh")
    assert language() == "zh"
    monkeypatch.setenv(messages.ENVIRONMENT, "fr")  # unknown: the release's
    assert language() == "vi"
    (tmp_path / "language.txt").write_text("klingon", encoding="utf-8")
    assert language() == "en"
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        say("blocked_by", "fr", lab=2)


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("en", "Lab 3 (budget projection): build_context() is not implemented yet; see 03_budget_projection.ipynb"),
        ("zh", "实验 3（预算投影）：build_context() 尚未实现；请看 03_budget_projection.ipynb"),
        ("vi", "Bài 3 (chiếu ngân sách): build_context() chưa được viết; xem 03_budget_projection.ipynb"),
    ],
)
def test_not_implemented_speaks_the_language_and_is_recognised(code: str, expected: str, in_language) -> None:
    in_language(code)
    error = LabNotImplementedError(3, "build_context")
    assert (str(error), error.lab, error.function) == (expected, 3, "build_context")
    assert LabNotImplementedError.named_in(expected) == not_implemented_in(expected) == (3, "build_context")
    assert LabNotImplementedError.named_in(f"{expected[:-10]}") == (3, "build_context")
    assert LabNotImplementedError.named_in("build_context() is not implemented yet") is None


def test_status_light_and_check_lines_in_chinese(in_language, monkeypatch) -> None:
    notebooks = Path(__file__).resolve().parents[2] / "notebooks"
    monkeypatch.setattr(status_module, "PACKAGE_DIR", notebooks / "compaction_lab")  # the notebooks beside it
    in_language("zh")
    status = lab_status(3)  # the reference solutions: every visible check passes
    assert status.title == (
        "实验 3（预算投影），compaction_lab/budget.py 中的 build_context(): "
        "5/5 个可见检查通过; 额外加分：11/11 个检查通过"
    )
    assert status.points.startswith("可见检查：5 分（3 个单元格）。隐藏测试：3 分（3 个单元格）")
    in_language("vi")
    assert lab_status(3).points.endswith(
        "Câu trả lời viết: 2 điểm (1 ô), chấm tay. Điểm cộng: 7 điểm (7 ô), ngoài điểm của bài."
    )


def test_checklist_fixed_words_in_each_language(in_language) -> None:
    lab = next(item for item in LABS if item.number == 3)
    empty = Checklist(lab)
    in_language("vi")
    assert empty.graded_alone() == "bộ chấm chạy bài 3 với bài None mẫu, nên điểm của nó không phải chờ bài của bạn"
    in_language("zh")
    assert say("not_started", function="build_context") == "尚未开始（build_context 抛出 LabNotImplementedError）"


def test_the_check_command_offers_the_languages() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    assert parser.parse_args(["check", "--language", "vi"]).language == "vi"
    with pytest.raises(SystemExit):
        parser.parse_args(["check", "--language", "fr"])
    action = next(a for a in parser._subparsers._group_actions[0].choices["check"]._actions if a.dest == "language")
    assert tuple(action.choices) == tuple(LANGUAGES)


@pytest.mark.parametrize("code", ["zh", "vi"])
def test_the_relay_rebuilds_an_editions_not_implemented_error_as_english_does(code: str, monkeypatch) -> None:
    """What crosses the sandbox is the message: a student's edition's words must come back as the same error,
    so the judge's verdict (a lab not started) is the English one."""
    from workbook.grading.runtime import relay

    monkeypatch.setenv(messages.ENVIRONMENT, code)
    sent = str(LabNotImplementedError(3, "replay"))
    monkeypatch.setenv(messages.ENVIRONMENT, "en")
    error = relay.rebuilt_error(["LabNotImplementedError", "NotImplementedError"], sent, None, "budget.replay")
    english = relay.rebuilt_error(
        ["LabNotImplementedError", "NotImplementedError"], str(LabNotImplementedError(3, "replay")), None, "f"
    )
    assert type(error) is type(english) is LabNotImplementedError
    assert (error.lab, error.function, str(error)) == (english.lab, english.function, str(english))


@pytest.mark.parametrize("code", ["en", "zh", "vi"])
def test_a_call_the_course_has_no_answer_for_names_the_lab_to_finish_in_each_language(code: str, in_language) -> None:
    in_language(code)
    error = UnrecordedCallError(2, "group_interactions")
    assert isinstance(error, LabNotImplementedError) and (error.lab, error.function) == (2, "group_interactions")
    assert not_implemented_in(str(error)) == (2, "group_interactions")
    assert "02_interaction_grouping.ipynb" in str(error)


def test_what_a_lab_was_checked_on_in_each_language(in_language) -> None:
    lab3 = next(item for item in LABS if item.number == 3)
    assert Checklist(lab3, answered=(2, 5)).checked_on() == (
        "labs 2, 5 are not done yet: lab 3 is checked with the course's answers for their calls on these inputs"
    )
    assert Checklist(lab3, answered=(2,)).checked_on() == (
        "lab 2 is not done yet: lab 3 is checked with the course's answers for lab 2's calls on these inputs; "
        "lab 3 is checked on your own lab 5"
    )
    assert Checklist(lab3).checked_on() == "lab 3 is checked on your own labs 2, 5"
    assert Checklist(lab3, answered=(2,)).checked_on(own=False).startswith("lab 2 is not done yet")
    assert Checklist(next(item for item in LABS if item.number == 2)).checked_on() == ""
    in_language("zh")
    assert Checklist(lab3).checked_on() == "实验 3 用你自己的实验 2, 5 来检查"
