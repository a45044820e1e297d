"""Keeping the editions' catalogues in step with the English notebooks: the check and the translator's stub.

``python -m workbook.authoring.catalogues --check`` fails (exit 1) when any notebook of any edition lacks a
translation or holds one of an English text that has since changed (``workbook.course.editions.check``).
``python -m workbook.authoring.catalogues --stub zh`` brings each ``zh`` catalogue up to date for a translator:
entries that are done are kept as they are; a cell without an entry gets one with an empty ``text``, and a cell
whose English changed keeps its old ``text``; both get the new ``source`` hash and a ``todo`` holding the English
to translate. The check fails until each ``todo`` is translated into ``text`` and removed. It also fails when
a case's hint (visible or hidden) has no translation in an edition's ``hints.yaml``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat
import yaml

from workbook.course.editions import (
    EDITIONS,
    HINTS,
    LANGUAGES,
    SOURCE_LANGUAGE,
    Entry,
    catalogue_path,
    check,
    hint_problems,
    read_catalogue,
    text_hash,
    translatable,
)
from workbook.paths import LAB_CASES, NOTEBOOKS

TRANSLATED = tuple(language for language in LANGUAGES if language != SOURCE_LANGUAGE)
"""The languages with catalogues."""


class _Literal(yaml.SafeDumper):
    """A YAML dumper writing every multi-line string as a literal block, so a catalogue reads as the cells do."""


def _string(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Literal.add_representer(str, _string)


def stubbed(language: str, notebook: Path, editions: Path = EDITIONS) -> dict[str, Entry]:
    """The ``language`` catalogue of the English ``notebook`` file brought up to date for a translator, by cell
    id in cell order (see the module's docstring); entries for cells English no longer has are dropped."""
    english = translatable(nbformat.read(notebook, as_version=4))
    entries = read_catalogue(catalogue_path(language, notebook, editions))
    result = {}
    for cell_id, source in english.items():
        entry = entries.get(cell_id)
        digest = text_hash(source.text)
        if entry is not None and entry.source == digest:
            result[cell_id] = entry
        else:
            result[cell_id] = Entry(digest, entry.text if entry else "", todo=source.text)
    return result


def catalogue_text(language: str, notebook: Path, entries: dict[str, Entry]) -> str:
    """The YAML text of a catalogue holding ``entries`` for ``notebook`` in ``language``."""
    cells = {}
    for cell_id, entry in entries.items():
        cells[cell_id] = {"source": entry.source, "text": entry.text}
        if entry.todo is not None:
            cells[cell_id]["todo"] = entry.todo
    header = (
        f"# The {LANGUAGES[language]} edition of {notebook.name}: per cell id, the hash of the English text\n"
        "# translated (source) and its translation (text).\n"
        "# python -m workbook.authoring.catalogues --stub refreshes it.\n"
    )
    body = yaml.dump({"cells": cells}, Dumper=_Literal, allow_unicode=True, sort_keys=False, width=1000)
    return header + body


def write_stub(language: str, notebook: Path, editions: Path = EDITIONS) -> int:
    """Write the stubbed ``language`` catalogue of ``notebook`` (``stubbed``); return how many entries are
    still to translate."""
    entries = stubbed(language, notebook, editions)
    path = catalogue_path(language, notebook, editions)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(catalogue_text(language, notebook, entries), encoding="utf-8")
    return sum(entry.todo is not None for entry in entries.values())


def project_hints(cases: Path = LAB_CASES) -> list[str]:
    """The hints of the project's cases, each once: the visible cases' (``workbook hint`` shows them), then the
    hidden cases' (feedback pages show them), each kind in lab order."""
    from workbook.grading.casebook import load_cases

    every = (case.hint for kind in ("visible", "hidden") for case in load_cases(cases, kind))
    return list(dict.fromkeys(hint for hint in every if hint))


def all_problems(notebooks: Path = NOTEBOOKS, editions: Path = EDITIONS, cases: Path = LAB_CASES) -> list[str]:
    """Every problem of every translated edition of the notebooks in ``notebooks`` and of the hints of the cases in
    ``cases``, each naming its language and notebook (or hints file)."""
    hints = project_hints(cases)
    return [
        f"{language}/{notebook.name}: {problem}"
        for language in TRANSLATED
        for notebook in sorted(notebooks.glob("*.ipynb"))
        for problem in check(language, notebook, editions)
    ] + [
        f"{language}/{HINTS}: {problem}"
        for language in TRANSLATED
        for problem in hint_problems(language, hints, editions)
    ]


def main(argv: list[str] | None = None) -> int:
    """``python -m workbook.authoring.catalogues --check | --stub LANGUAGE``; the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--check", action="store_true", help="fail if an edition lacks or has a stale translation")
    group.add_argument("--stub", choices=TRANSLATED, help="bring this language's catalogues up to date to translate")
    args = parser.parse_args(argv)
    if args.check:
        found = all_problems()
        for problem in found:
            print(problem)
        print("editions are incomplete" if found else f"every edition ({', '.join(TRANSLATED)}) is complete")
        return 1 if found else 0
    for notebook in sorted(NOTEBOOKS.glob("*.ipynb")):
        todo = write_stub(args.stub, notebook)
        print(f"{args.stub}/{notebook.stem}.yaml: {todo} to translate")
    return 0


if __name__ == "__main__":
    sys.exit(main())
