"""Editions: the lab notebooks in another language, built from the English ones and a translation catalogue.

English is the one source of truth. An edition is a catalogue per notebook, ``notebooks/editions/<language>/
<notebook stem>.yaml``, holding one entry per translatable cell keyed by the cell's stable id:

- a markdown cell (written-answer cells and their model answers included) is translated whole;
- an autograder test cell has only its docstring translated; its code is the English cell's.

The cases' hints, which a feedback page (hidden cases) and ``workbook hint`` (visible ones) show, are translated in
``hints.yaml`` beside the catalogues.

Each entry stores ``source``, the hash of the English text it translates, and ``text``, the translation. An
edition is built only when every translatable English cell has an entry whose hash matches the English text as
it is now: a cell added or changed in English without its translation is an error, never an English fallback.
Everything else (code cells, cell ids, grade ids, points, nbgrader and workbook metadata) is the English
notebook's, so an edition grades exactly as English does; the notebook's metadata records its language.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import yaml

from workbook.course.layout import LANGUAGES, SOURCE_LANGUAGE
from workbook.errors import CourseError
from workbook.paths import NOTEBOOKS

EDITIONS = NOTEBOOKS / "editions"
"""One folder per translated language, holding a catalogue per notebook."""
SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
"""nbgrader's markers of a written answer's model answer, kept verbatim by a translation."""
LANGUAGE_FILE = Path("provided") / "language.txt"
"""Where a package built in an edition records its language, relative to the package folder: the student's
messages (``compaction_lab.provided.messages``) read it, so a workspace speaks its release's language."""
DOCSTRING = re.compile(r'^"""(?P<text>.*?)"""', re.DOTALL)
"""A test cell's opening: its docstring."""


class EditionError(CourseError):
    """An edition cannot be built: an unknown language, a missing, stale or malformed translation."""


@dataclass(frozen=True)
class Entry:
    """One translated cell: ``source`` the hash of the English text it translates (``text_hash``), ``text`` the
    translation (empty while untranslated), ``todo`` the English text still to translate (None once done)."""

    source: str
    text: str
    todo: str | None = None


def text_hash(text: str) -> str:
    """The hash an entry records of English ``text``: the first 16 hex digits of its SHA-256 (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def is_test_cell(cell: Any) -> bool:
    """Whether ``cell`` is an autograder test cell (an nbgrader grade cell of code)."""
    return cell.cell_type == "code" and bool(cell.metadata.get("nbgrader", {}).get("grade"))


def docstring(cell: Any) -> str:
    """The docstring of test ``cell``; raises ``EditionError`` when the cell does not open with one."""
    match = DOCSTRING.match(cell.source)
    if match is None:
        raise EditionError(f"test cell {cell.id} does not open with a docstring")
    return match["text"]


@dataclass(frozen=True)
class Source:
    """An English text an edition translates: a markdown cell's whole ``text`` or a test cell's docstring
    (``is_docstring``)."""

    text: str
    is_docstring: bool = False


def translatable(notebook: Any) -> dict[str, Source]:
    """The English texts of ``notebook`` that an edition translates, by cell id, in cell order: every markdown
    cell's source and every test cell's docstring."""
    texts = {}
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            texts[cell.id] = Source(cell.source)
        elif is_test_cell(cell):
            texts[cell.id] = Source(docstring(cell), is_docstring=True)
    return texts


def check_language(language: str) -> str:
    """``language`` itself if it names an edition (``LANGUAGES``); raises ``EditionError`` otherwise."""
    if language not in LANGUAGES:
        raise EditionError(f"unknown language {language!r}: choose one of {', '.join(LANGUAGES)}")
    return language


def catalogue_path(language: str, notebook: Path, editions: Path = EDITIONS) -> Path:
    """Where the ``language`` catalogue of the English ``notebook`` file is."""
    return editions / check_language(language) / f"{notebook.stem}.yaml"


def read_catalogue(path: Path) -> dict[str, Entry]:
    """The entries of the catalogue at ``path``, by cell id ({} when there is no such file); raises
    ``EditionError`` when the file is not a mapping of ``cells`` whose entries have a string ``source`` and
    ``text``."""
    if not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as error:
        raise EditionError(f"{path.name}: not valid YAML: {error}") from None
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, dict):
        raise EditionError(f"{path.name}: expected a mapping with a 'cells' mapping of cell ids")
    entries = {}
    for cell_id, entry in cells.items():
        if not isinstance(entry, dict) or not all(isinstance(entry.get(key), str) for key in ("source", "text")):
            raise EditionError(f"{path.name}: cell {cell_id}: needs a string 'source' and 'text'")
        todo = entry.get("todo")
        entries[str(cell_id)] = Entry(entry["source"], entry["text"], None if todo is None else str(todo))
    return entries


def problems(english: dict[str, Source], entries: dict[str, Entry]) -> list[str]:
    """What keeps ``entries`` from translating the ``english`` texts (``translatable``), one sentence each, in
    cell order: a missing entry, an English text changed since its translation, an empty or unfinished
    translation, a test docstring's translation that would end the docstring early, a written answer without
    nbgrader's solution markers, and entries for cells the English notebook no longer has. Empty when the catalogue is complete."""
    found = []
    for cell_id, source in english.items():
        text = source.text
        entry = entries.get(cell_id)
        if entry is None:
            found.append(f"cell {cell_id}: no translation")
            continue
        if entry.source != text_hash(text):
            found.append(f"cell {cell_id}: the English text changed since it was translated")
        if not entry.text.strip() or entry.todo is not None:
            found.append(f"cell {cell_id}: translation not finished")
        if source.is_docstring and ('"""' in entry.text or entry.text.endswith(('"', "\\"))):
            found.append(f"cell {cell_id}: a docstring's translation may not hold triple quotes or end in \" or \\")
        for marker in SOLUTION_MARKERS:
            if (marker in text) != (marker in entry.text):
                found.append(f"cell {cell_id}: the translation must keep {marker!r} as the English does")
    found += [f"cell {cell_id}: no such cell in English" for cell_id in entries if cell_id not in english]
    return found


def check(language: str, notebook: Path, editions: Path = EDITIONS) -> list[str]:
    """The problems (``problems``) of the ``language`` catalogue of the English ``notebook`` file; [] for
    English, which is its own source."""
    if check_language(language) == SOURCE_LANGUAGE:
        return []
    english = translatable(nbformat.read(notebook, as_version=4))
    path = catalogue_path(language, notebook, editions)
    if not path.is_file():
        return [f"no {LANGUAGES[language]} catalogue ({language}/{path.name})"]
    return problems(english, read_catalogue(path))


def edition(language: str, notebook: Path, editions: Path = EDITIONS) -> Any:
    """The ``language`` edition of the English ``notebook`` file, as an nbformat notebook: the translated
    markdown and docstrings in place, everything else the English notebook's, and ``metadata.workbook.
    language`` set (English is the file as it is, without it). Raises ``EditionError`` naming the notebook and
    every problem when the catalogue is incomplete or stale (``check``); the English file is never changed."""
    found = check(language, notebook, editions)
    if found:
        raise EditionError(f"{notebook.name} has no complete {language} edition: " + "; ".join(found))
    result = nbformat.read(notebook, as_version=4)
    if language == SOURCE_LANGUAGE:
        return result
    entries = read_catalogue(catalogue_path(language, notebook, editions))
    for cell in result.cells:
        if cell.cell_type == "markdown":
            cell.source = entries[cell.id].text
        elif is_test_cell(cell):
            code = cell.source[DOCSTRING.match(cell.source).end() :]  # type: ignore[union-attr]
            cell.source = f'"""{entries[cell.id].text.strip()}"""{code}'
    result.metadata.setdefault("workbook", {})["language"] = language
    return result


HINTS = "hints.yaml"
"""Beside an edition's notebook catalogues: the cases' hints translated, ``hints: {English: translation}``."""


@functools.cache
def hint_translations(language: str, editions: Path = EDITIONS) -> dict[str, str]:
    """The ``language`` translations of the cases' hints, by English hint ({} for English or without a
    file); raises ``EditionError`` when the file is not a ``hints`` mapping of strings to strings."""
    path = editions / check_language(language) / HINTS
    if language == SOURCE_LANGUAGE or not path.is_file():
        return {}
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as error:
        raise EditionError(f"{language}/{HINTS}: not valid YAML: {error}") from None
    hints = data.get("hints") if isinstance(data, dict) else None
    if not isinstance(hints, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in hints.items()):
        raise EditionError(f"{language}/{HINTS}: expected a 'hints' mapping of English hints to translations")
    return hints


def translated_hint(hint: str, language: str, editions: Path = EDITIONS) -> str:
    """A case's ``hint`` in ``language``: its translation, or ``hint`` as written when there is none (a
    course's own hint, edited in ``grading/cases``, or an unknown language)."""
    if language not in LANGUAGES:
        return hint
    return hint_translations(language, editions).get(hint, hint)


def hint_problems(language: str, hints: list[str], editions: Path = EDITIONS) -> list[str]:
    """What keeps the ``language`` hints file from translating every one of ``hints`` (the project's cases'): a
    hint without a translation, an empty one, and translations of hints no case has."""
    if check_language(language) == SOURCE_LANGUAGE:
        return []
    translations = hint_translations(language, editions)
    found = [f"hint {hint!r}: no translation" for hint in hints if not translations.get(hint, "").strip()]
    return found + [f"hint {hint!r}: no case has it" for hint in translations if hint not in hints]


def mark_package(package: Path, language: str) -> None:
    """Record ``language`` in the package folder ``package`` (``LANGUAGE_FILE``); English, the default of the
    student's messages, writes nothing."""
    if check_language(language) != SOURCE_LANGUAGE:
        (package / LANGUAGE_FILE).write_text(language + "\n", encoding="utf-8")


def language_of(notebook: Any) -> str:
    """The language a built notebook records (``edition``), English when it records none."""
    return str(notebook.metadata.get("workbook", {}).get("language", SOURCE_LANGUAGE))
