"""Keeping the editions in step with English (issue 27): the suite's check and the translator's stub."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import yaml

from workbook.authoring.catalogues import all_problems, main, stubbed, write_stub
from workbook.course.editions import EDITIONS, check, read_catalogue, text_hash

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
LAB3 = "03_budget_projection.ipynb"


def test_every_edition_is_complete(capsys) -> None:
    assert all_problems() == []
    assert main(["--check"]) == 0
    assert capsys.readouterr().out == "every edition (zh, vi) is complete\n"


def changed_course(tmp_path: Path) -> tuple[Path, Path]:
    """Lab 3 with its closing cell reworded and a cell added, beside a copy of the editions."""
    notebooks, editions = tmp_path / "notebooks", tmp_path / "editions"
    notebooks.mkdir()
    shutil.copytree(EDITIONS, editions)
    notebook = nbformat.read(NOTEBOOKS / LAB3, as_version=4)
    notebook.cells[-1].source = "## Before you go on\n\nLab 3 is done."
    notebook.cells.append(nbformat.v4.new_markdown_cell("One more page.", id="lab3-more"))
    nbformat.write(notebook, notebooks / LAB3)
    return notebooks, editions


def test_the_stub_marks_what_changed_and_keeps_the_rest(tmp_path: Path) -> None:
    notebooks, editions = changed_course(tmp_path)
    before = read_catalogue(editions / "zh" / "03_budget_projection.yaml")
    assert write_stub("zh", notebooks / LAB3, editions) == 2
    after = read_catalogue(editions / "zh" / "03_budget_projection.yaml")
    assert after["lab3-opening"] == before["lab3-opening"]  # done entries are kept as they are
    closing, more = after["lab3-closing"], after["lab3-more"]
    assert (closing.text, closing.todo) == (before["lab3-closing"].text, "## Before you go on\n\nLab 3 is done.")
    assert closing.source == text_hash("## Before you go on\n\nLab 3 is done.")
    assert (more.text, more.todo, more.source) == ("", "One more page.", text_hash("One more page."))
    assert check("zh", notebooks / LAB3, editions) == [
        "cell lab3-closing: translation not finished",
        "cell lab3-more: translation not finished",
    ]
    assert all_problems(notebooks, editions) == [
        "zh/03_budget_projection.ipynb: cell lab3-closing: translation not finished",
        "zh/03_budget_projection.ipynb: cell lab3-more: translation not finished",
        "vi/03_budget_projection.ipynb: cell lab3-closing: the English text changed since it was translated",
        "vi/03_budget_projection.ipynb: cell lab3-more: no translation",
    ]


def test_a_translated_stub_passes_the_check(tmp_path: Path) -> None:
    notebooks, editions = changed_course(tmp_path)
    write_stub("zh", notebooks / LAB3, editions)
    path = editions / "zh" / "03_budget_projection.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["cells"]["lab3-closing"] = {
        "source": data["cells"]["lab3-closing"]["source"],
        "text": "## 继续之前\n\n实验 3 完成。",
    }
    data["cells"]["lab3-more"] = {"source": data["cells"]["lab3-more"]["source"], "text": "再多一页。"}
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    assert check("zh", notebooks / LAB3, editions) == []
    assert list(stubbed("zh", notebooks / LAB3, editions)) == list(data["cells"])
