"""The Chinese and Vietnamese editions of the lab notebooks (issue 27).

Every English translatable cell of a translated notebook has its translation, made from the English text as it
is now; a cell added or changed in English without one is an error, never a fallback. An edition is the English
notebook with its markdown and test docstrings translated and nothing else changed: the same cells, code, grade
ids and points, valid nbgrader schema 3, and no markdown cell left in English. ``workbook build --language``
lays out a course in an edition and records it; an edition's notebook passes on the solutions and fails as the
English one does on the starters.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbgrader import nbgraderformat
from packages import STARTER_PACKAGE

from compaction_lab.provided.checking.case import is_extra_credit, visible_cases
from compaction_lab.provided.labs import LABS
from compaction_lab.provided.messages import not_implemented_in, say, title
from workbook.authoring.catalogues import TRANSLATED, project_hints
from workbook.cli.main import main as cli
from workbook.course.editions import (
    EDITIONS,
    EditionError,
    check,
    edition,
    hint_problems,
    hint_translations,
    is_test_cell,
    language_of,
    mark_package,
    read_catalogue,
    text_hash,
    translatable,
    translated_hint,
)
from workbook.course.layout import Course
from workbook.pipeline.build import build
from workbook.pipeline.release import release

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
SOLUTIONS = REPO / "solutions" / "compaction_lab"
EDITION_NOTEBOOKS = [
    pytest.param(language, NOTEBOOKS / lab.notebook, id=f"{language}-{lab.marker}")
    for language in TRANSLATED
    for lab in LABS
]
CODE_SPAN = re.compile(r"```.*?```|`[^`\n]*`|\$[^$\n]*\$", re.DOTALL)
CJK = re.compile(r"[\u4e00-\u9fff]")
VIETNAMESE = re.compile(r"[àáảãạăằắẳẵặâầấẩẫậèéẻẽẹêềếểễệìíỉĩịòóỏõọôồốổỗộơờớởỡợùúủũụưừứửữựỳýỷỹỵđ]", re.IGNORECASE)
LATIN = re.compile(r"[A-Za-z]")


def in_language(text: str, language: str) -> float:
    """The share of ``text``'s words, code spans excepted, written in ``language``: for zh the CJK characters
    among CJK characters and Latin words; for vi the words holding a Vietnamese letter (a diacritic or đ)."""
    prose = CODE_SPAN.sub(" ", text)
    words = re.findall(r"\w+", prose)
    if language == "zh":
        cjk = len(CJK.findall(prose))
        latin = sum(1 for word in words if LATIN.search(word))
        return cjk / max(1, cjk + latin)
    latin_words = [word for word in words if LATIN.search(word) or VIETNAMESE.search(word)]
    return sum(1 for word in latin_words if VIETNAMESE.search(word)) / max(1, len(latin_words))


@pytest.mark.parametrize(("language", "notebook"), EDITION_NOTEBOOKS)
def test_every_english_cell_has_its_translation(language: str, notebook: Path) -> None:
    assert check(language, notebook) == []
    english = translatable(nbformat.read(notebook, as_version=4))
    entries = read_catalogue(EDITIONS / language / f"{notebook.stem}.yaml")
    assert list(entries) == list(english)
    assert all(entries[cell_id].source == text_hash(source.text) for cell_id, source in english.items())


@pytest.mark.parametrize(("language", "notebook"), EDITION_NOTEBOOKS)
def test_edition_grades_as_english(language: str, notebook: Path) -> None:
    english = nbformat.read(notebook, as_version=4)
    translated = edition(language, notebook)
    nbgraderformat.reads(nbformat.writes(translated), as_version=4)  # raises for bad nbgrader metadata
    assert {
        cell.metadata["nbgrader"]["schema_version"] for cell in translated.cells if "nbgrader" in cell.metadata
    } == {3}
    assert language_of(translated) == language and language_of(english) == "en"
    assert [(cell.id, cell.cell_type, cell.metadata) for cell in translated.cells] == [
        (cell.id, cell.cell_type, cell.metadata) for cell in english.cells
    ]
    for ours, theirs in zip(translated.cells, english.cells, strict=True):
        if ours.cell_type == "code" and not is_test_cell(ours):
            assert ours.source == theirs.source
        elif is_test_cell(ours):
            assert ours.source.split('"""')[2:] == theirs.source.split('"""')[2:], ours.id  # the code after it
            assert ours.source != theirs.source
        assert ours.get("outputs", []) == [] and ours.get("execution_count") is None


@pytest.mark.parametrize(("language", "notebook"), EDITION_NOTEBOOKS)
def test_no_markdown_cell_left_in_english(language: str, notebook: Path) -> None:
    for cell in edition(language, notebook).cells:
        if cell.cell_type == "markdown":
            assert in_language(cell.source, language) > 0.3, (cell.id, in_language(cell.source, language))
        elif is_test_cell(cell):
            assert in_language(cell.source.split('"""')[1], language) > 0.3, cell.id


def test_the_share_tells_english_from_the_editions() -> None:
    english = "Walk the interactions from the newest backwards, keeping `u1` whole."
    assert in_language(english, "zh") == in_language(english, "vi") == 0.0
    assert in_language("从最新的交互往回走，保留 `u1`。", "zh") == 1.0
    assert in_language("Đi từ tương tác mới nhất ngược về, giữ `u1`.", "vi") > 0.7


def copy_with(tmp_path: Path, notebook: Path, change) -> Path:
    """A copy of ``notebook`` under ``tmp_path`` after ``change(notebook)``, beside a copy of the editions."""
    shutil.copytree(EDITIONS, tmp_path / "editions")
    english = nbformat.read(notebook, as_version=4)
    change(english)
    nbformat.write(english, tmp_path / notebook.name)
    return tmp_path / notebook.name


def test_a_changed_or_added_english_cell_fails(tmp_path: Path) -> None:
    notebook = NOTEBOOKS / "03_budget_projection.ipynb"

    def change(english) -> None:
        english.cells[0].source += "\nOne sentence more."
        english.cells.insert(1, nbformat.v4.new_markdown_cell("A new cell.", id="lab3-new"))
        english.cells[-1].id = "lab3-renamed"

    copy = copy_with(tmp_path, notebook, change)
    editions = tmp_path / "editions"
    assert check("zh", copy, editions) == [
        "cell lab3-opening: the English text changed since it was translated",
        "cell lab3-new: no translation",
        "cell lab3-renamed: no translation",
        "cell lab3-closing: no such cell in English",
    ]
    with pytest.raises(EditionError, match="03_budget_projection.ipynb has no complete zh edition"):
        edition("zh", copy, editions)


def test_a_missing_catalogue_and_an_unknown_language(tmp_path: Path) -> None:
    notebook = NOTEBOOKS / "03_budget_projection.ipynb"
    assert check("zh", notebook, tmp_path) == ["no Simplified Chinese catalogue (zh/03_budget_projection.yaml)"]
    assert check("en", notebook, tmp_path) == []
    with pytest.raises(EditionError, match="unknown language 'fr': choose one of en, zh, vi"):
        check("fr", notebook)


def test_a_malformed_catalogue_is_refused(tmp_path: Path) -> None:
    (tmp_path / "zh").mkdir()
    path = tmp_path / "zh" / "03_budget_projection.yaml"
    path.write_text("cells:\n  lab3-opening: {source: 1}\n", encoding="utf-8")
    with pytest.raises(EditionError, match="cell lab3-opening: needs a string 'source' and 'text'"):
        read_catalogue(path)
    path.write_text("cells: [\n", encoding="utf-8")
    with pytest.raises(EditionError, match="not valid YAML"):
        read_catalogue(path)


def execute(notebook: nbformat.NotebookNode, name: str, package: Path, folder: Path) -> nbformat.NotebookNode:
    """Run ``notebook`` as ``name`` in ``folder`` beside a copy of ``package`` (errors kept as outputs)."""
    shutil.copytree(package, folder / "compaction_lab", ignore=shutil.ignore_patterns("__pycache__"))
    nbformat.write(notebook, folder / name)
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(folder)}}
    ).execute()
    return notebook


def errors(cell) -> list[tuple[str, str]]:
    """The errors ``cell`` raised, as (class name, message)."""
    return [(output.ename, output.evalue) for output in cell.get("outputs", []) if output.output_type == "error"]


SLOW = pytest.mark.slow
RUN_PARAMS = [
    pytest.param(
        language, lab, id=f"{language}-{lab.marker}", marks=(pytest.mark.slow, getattr(pytest.mark, lab.marker))
    )
    for language in TRANSLATED
    for lab in LABS
]


@pytest.mark.parametrize(("language", "lab"), RUN_PARAMS)
def test_edition_passes_on_solutions_and_fails_as_english_on_starters(language: str, lab, tmp_path: Path) -> None:
    """Run as a student's workspace of that edition would (its package records the language): every cell runs
    clean on the solutions; on the starters each visible test cell raises the lab's ``LabNotImplementedError`` in
    the edition's words, a hidden one prints its line in them, and nothing else fails."""
    solved = execute(edition(language, NOTEBOOKS / lab.notebook), lab.notebook, SOLUTIONS, tmp_path / "solutions")
    assert [(cell.id, errors(cell)) for cell in solved.cells if errors(cell)] == []
    assert all("✗" not in output.get("text", "") for cell in solved.cells for output in cell.get("outputs", []))
    starters = tmp_path / "package"
    shutil.copytree(STARTER_PACKAGE, starters, ignore=shutil.ignore_patterns("__pycache__"))
    mark_package(starters, language)
    started = execute(edition(language, NOTEBOOKS / lab.notebook), lab.notebook, starters, tmp_path / "starters")
    own = say(
        "not_implemented",
        language,
        lab=lab.number,
        title=title(lab.number, language),
        function=lab.function,
        notebook=lab.notebook,
    )
    visible = {case.grade_id for case in visible_cases(lab.number)}
    for cell in started.cells:
        if not is_test_cell(cell):
            assert cell.cell_type == "markdown" or errors(cell) == [], (cell.id, errors(cell))
        elif cell.id in visible and is_extra_credit(cell.id):
            [(name, message)] = errors(cell)
            assert name == "LabNotImplementedError" and not_implemented_in(message)[0] == lab.number, message
            assert message.startswith(own.split(f"{lab.function}()")[0]), message
        elif cell.id in visible:
            assert errors(cell) == [("LabNotImplementedError", own)], cell.id
        else:
            printed = "".join(output.get("text", "") for output in cell.outputs)
            assert printed == say("hidden_cell", language, grade_id=cell.id) + "\n", printed


def test_build_in_an_edition_records_it(tmp_path: Path, capsys) -> None:
    assert cli(["build", "--course", str(tmp_path / "course"), "--language", "zh"]) == 0
    assert "; edition zh (Simplified Chinese)" in capsys.readouterr().out
    course = Course(tmp_path / "course")
    assert "# Edition: zh (Simplified Chinese), built by `workbook build --language zh`." in (
        course.config_file.read_text(encoding="utf-8")
    )
    for lab in LABS:
        built = nbformat.read(course.source / lab.notebook, as_version=4)
        assert built == edition("zh", NOTEBOOKS / lab.notebook)
        assert language_of(built) == "zh"
    released = release(course)
    assert {path.name for path in released} >= {lab.notebook for lab in LABS}
    lab3 = nbformat.read(course.release / "03_budget_projection.ipynb", as_version=4)
    assert language_of(lab3) == "zh" and lab3.cells[0].source.startswith("# 实验 3：预算投影")
    grade_cells = [(cell.id, cell.metadata.get("nbgrader")) for cell in lab3.cells if "nbgrader" in cell.metadata]
    source = nbformat.read(NOTEBOOKS / "03_budget_projection.ipynb", as_version=4)
    assert [cell_id for cell_id, _ in grade_cells] == [cell.id for cell in source.cells if "nbgrader" in cell.metadata]


def test_build_refuses_an_unknown_language_and_changes_nothing(tmp_path: Path) -> None:
    with pytest.raises(EditionError, match="unknown language 'fr'"):
        build(tmp_path / "course", language="fr")
    assert not (tmp_path / "course").exists()
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    copy = copy_with(notebooks, NOTEBOOKS / "03_budget_projection.ipynb", lambda english: english.cells.pop())
    with pytest.raises(EditionError, match="cell lab3-closing: no such cell in English"):
        build(tmp_path / "course", notebooks=copy.parent, language="vi")
    assert not (tmp_path / "course").exists()


def test_every_hint_is_translated_in_each_edition() -> None:
    hints = project_hints()
    assert len(hints) > 100
    for language in TRANSLATED:
        assert hint_problems(language, hints) == []
        translations = hint_translations(language)
        assert all(in_language(translations[hint], language) > 0.3 for hint in hints), language
    hint = "Only the latest summary is shown, exactly once."
    assert translated_hint(hint, "zh") == "只显示最新的摘要，且恰好一次。"
    assert translated_hint(hint, "vi") == "Chỉ bản tóm tắt mới nhất được hiển thị, đúng một lần."
    assert translated_hint(hint, "en") == translated_hint(hint, "fr") == hint
    assert translated_hint("A course's own hint.", "zh") == "A course's own hint."  # shown as written


def test_a_hint_without_translation_or_without_case_is_reported(tmp_path: Path) -> None:
    (tmp_path / "zh").mkdir()
    (tmp_path / "zh" / "hints.yaml").write_text("hints:\n  Old hint.: 旧提示。\n  Kept.: ''\n", encoding="utf-8")
    assert hint_problems("zh", ["Kept.", "New hint."], tmp_path) == [
        "hint 'Kept.': no translation",
        "hint 'New hint.': no translation",
        "hint 'Old hint.': no case has it",
    ]
    (tmp_path / "vi").mkdir()
    (tmp_path / "vi" / "hints.yaml").write_text("hints: [a, b]\n", encoding="utf-8")
    with pytest.raises(EditionError, match="vi/hints.yaml: expected a 'hints' mapping"):
        hint_translations("vi", tmp_path)
