"""A class for the similarity tests: independently written lab modules, and planted copies disguised as students
disguise them, laid out as a course's ``submitted/`` folder (no gradebook, no autograde: the detector reads files).

Independent writers, every lab: the demo's ``buggy`` sample (the reference, lab 3 with the chapter's mistake), the
demo's ``blank`` sample (the starters) and three students each writing one of the validity bank's correct versions
of every lab. The bank's correct versions of a lab share some region bodies (lab 4's Going further is one text for
all three): a shared body is left undone in every one of them, so no two bank students share code.

Planted copies (the rest of each copier's package is the starter):

- ``copies_correct`` hands in ``bank_3``'s lab 2 (``grouping_id_sets``): identifiers renamed, comments and blank
  lines changed, functions reordered, the function ``_match_by_id`` inlined into its one caller;
- ``copies_buggy`` hands in ``buggy``'s lab 3 (the reference with ``last_three_messages``): identifiers renamed,
  comments and blank lines changed, the module-level functions reordered, ``_content_units`` inlined into its one
  caller.
"""

from __future__ import annotations

import io
import re
import shutil
import textwrap
import tokenize
from pathlib import Path

from workbook.authoring.bank import Correct, bank, module_of
from workbook.authoring.samples import SAMPLES
from workbook.authoring.starters import replace_region
from workbook.course.layout import ASSIGNMENT, PACKAGE
from workbook.course.packages import starter_package
from workbook.manifest import LABS
from workbook.paths import SOLUTIONS
from workbook.similarity.sources import BEGIN, END

BANK_STUDENTS = ("bank_1", "bank_2", "bank_3")
INDEPENDENT = ("buggy", "blank", *BANK_STUDENTS)
PLANTED = {("copies_correct", "bank_3"): 2, ("copies_buggy", "buggy"): 3}
"""(copier, original) -> the lab copied."""

CORRECT_RENAMES = {
    "interactions": "chunks",
    "interaction": "chunk",
    "taken": "seen_ids",
    "made": "declared_here",
    "results": "answers",
    "answered": "answer_ids",
    "repeated": "twice",
    "stray": "orphans",
    "unanswered": "missing",
    "kind": "who",
}
BUGGY_RENAMES = {
    "groups": "turns",
    "group": "turn",
    "kept": "chosen",
    "used": "spent",
    "available": "room",
    "overflow": "too_big",
    "prefix": "head",
    "units": "total",
    "block": "part",
    "value": "thing",
}


def region_bodies(source: str, lab: int) -> list[str]:
    """The dedented body of each ``lab`` region of ``source``, in order."""
    bodies: list[list[str]] = []
    inside = False
    for line in source.splitlines(keepends=True):
        if (begin := BEGIN.match(line)) and int(begin["lab"]) == lab:
            bodies.append([])
            inside = True
        elif (end := END.match(line)) and int(end["lab"]) == lab:
            inside = False
        elif inside:
            bodies[-1].append(line)
    return [textwrap.dedent("".join(lines)) for lines in bodies]


def independent_module(entry: Correct, others: list[Correct]) -> str:
    """``entry``'s lab module, each region body it shares with another of ``others`` left undone as a starter
    leaves it (``raise NotImplementedError`` in a function, nothing at module level)."""
    module = module_of(entry.lab)
    source = (SOLUTIONS / f"{module}.py").read_text(encoding="utf-8")
    indents = [m["indent"] for line in source.splitlines() if (m := BEGIN.match(line)) and int(m["lab"]) == entry.lab]
    for index, body in enumerate(entry.regions):
        if any(other.regions[index] == body for other in others if other is not entry):
            body = 'raise NotImplementedError("not done")\n' if indents[index] else ""
        source = replace_region(source, entry.lab, body, f"{module}.py", index)
    return source


def rename(source: str, renames: dict[str, str]) -> str:
    """Every identifier of ``renames`` replaced where Python reads it as a name: never in a string, but in an
    f-string's replacement fields (Python 3.11 tokenizes an f-string as one string)."""
    words = re.compile(rf"\b({'|'.join(map(re.escape, renames))})\b")

    def fields(text: str) -> str:
        return re.sub(r"\{[^{}]*\}", lambda field: words.sub(lambda word: renames[word[0]], field[0]), text)

    lines = source.splitlines(keepends=True)
    found = []
    for item in tokenize.generate_tokens(io.StringIO(source).readline):
        if item.type == tokenize.NAME and item.string in renames:
            found.append((item.start, item.string, renames[item.string]))
        elif item.type == tokenize.STRING and "f" in item.string.split("'")[0].split('"')[0].lower():
            if item.start[0] == item.end[0]:
                found.append((item.start, item.string, fields(item.string)))
    for (row, column), old, new in reversed(found):  # right to left: earlier columns stay where they are
        line = lines[row - 1]
        lines[row - 1] = line[:column] + new + line[column + len(old) :]
    return "".join(lines)


def restyle(source: str) -> str:
    """Comments rewritten (the lab markers kept), docstrings dropped, a blank line after every ``return``."""
    out = []
    for line in source.splitlines():
        if BEGIN.match(line) or END.match(line):
            out.append(line)
            continue
        if line.strip().startswith("#"):
            out.append(re.sub(r"#.*", "# my approach", line))
            continue
        out.append(re.sub(r"  # .*$", "", line))
        if line.strip().startswith("return"):
            out.append("")
    return re.sub(r'\n(\s*)"""(?:(?!""").)*?"""\n', "\n", "\n".join(out) + "\n", flags=re.S)


def reorder_last_region(source: str, lab: int) -> str:
    """The module-level functions of the last ``lab`` region in reverse order."""
    lines = source.splitlines(keepends=True)
    begin = max(i for i, line in enumerate(lines) if (m := BEGIN.match(line)) and int(m["lab"]) == lab)
    end = next(i for i in range(begin + 1, len(lines)) if (m := END.match(lines[i])) and int(m["lab"]) == lab)
    body = "".join(lines[begin + 1 : end])
    head, *functions = re.split(r"(?m)^(?=def )", body)
    functions = [function.rstrip("\n") + "\n\n\n" for function in functions]
    return "".join(lines[: begin + 1]) + head + "".join(reversed(functions)) + "".join(lines[end:])


def inline_match_by_id(source: str) -> str:
    """``_match_by_id(interaction, taken)``, the one call of that function, replaced by its body (same names)."""
    function = re.search(r"(?ms)^def _match_by_id\(.*?\n(?=\n\n|# END LAB 2)", source)
    assert function is not None, "the bank's grouping_id_sets no longer has _match_by_id"
    text = function.group(0)
    body = re.sub(r'(?s)^.*?:\n    """.*?"""\n', "", text, count=1)
    call = "    for interaction in interactions:\n        _match_by_id(interaction, taken)\n"
    assert source.count(call) == 1
    inlined = "    for interaction in interactions:\n" + textwrap.indent(body, "    ")
    return source.replace(text, "").replace(call, inlined)


def inline_content_units(source: str) -> str:
    """``_content_units``, called once in ``_item_units``, written out in its place (its ``path`` renamed
    ``where``, its early return an ``if``/``elif``/``else``), and its definition removed."""
    function = re.search(r"(?ms)^def _content_units\(.*?\n    return units\n", source)
    assert function is not None, "budget.py no longer has _content_units as the copy expects"
    loop = re.search(
        r"(?ms)^    for index, block in enumerate\(content\):\n.*?(?=^    return units\n)", function.group(0)
    )
    assert loop is not None
    call = '    units += UNIT_WEIGHTS["message"] + _content_units(item.get("content"), f"{path}.content")\n'
    assert source.count(call) == 1
    inlined = (
        '    units += UNIT_WEIGHTS["message"]\n'
        '    content, where = item.get("content"), f"{path}.content"\n'
        "    if type(content) is str:\n"
        "        units += len(content)\n"
        "    elif type(content) is not list:\n"
        '        raise BudgetError(f"{where}: expected a string or a list of blocks, got {type(content).__name__}")\n'
        "    else:\n" + textwrap.indent(re.sub(r"\bpath\b", "where", loop.group(0)), "    ")
    )
    return source.replace(function.group(0), "").replace(call, inlined)


def copy_of_correct(original: str) -> str:
    """``original`` (a lab 2 module) disguised: a function inlined, renamed, restyled, functions reordered."""
    return reorder_last_region(restyle(rename(inline_match_by_id(original), CORRECT_RENAMES)), 2)


def copy_of_buggy(original: str) -> str:
    """``original`` (a lab 3 module) disguised: a function inlined, renamed, restyled, the last region's functions
    reordered."""
    return reorder_last_region(restyle(rename(inline_content_units(original), BUGGY_RENAMES)), 3)


def packages(dest: Path) -> dict[str, Path]:
    """Write every student's ``compaction_lab`` package under ``dest/STUDENT/``; return student -> package."""
    written: dict[str, Path] = {}
    for name in ("buggy", "blank"):
        written[name] = SAMPLES[name](dest / name / PACKAGE)
    entries = {lab.number: [entry for entry in bank((lab.number,)) if entry.kind == "correct"] for lab in LABS}
    for index, student in enumerate(BANK_STUDENTS):
        package = starter_package(dest / student / PACKAGE)
        for lab, correct in entries.items():
            text = independent_module(correct[index], correct)
            (package / f"{module_of(lab)}.py").write_text(text, encoding="utf-8")
        written[student] = package
    originals = {
        "copies_correct": copy_of_correct((written["bank_3"] / "grouping.py").read_text(encoding="utf-8")),
        "copies_buggy": copy_of_buggy((written["buggy"] / "budget.py").read_text(encoding="utf-8")),
    }
    for student, text in originals.items():
        package = starter_package(dest / student / PACKAGE)
        module = "grouping.py" if student == "copies_correct" else "budget.py"
        (package / module).write_text(text, encoding="utf-8")
        written[student] = package
    return written


def submitted_course(root: Path, students: dict[str, Path]) -> Path:
    """A course folder holding ``submitted/STUDENT/compaction_labs/compaction_lab`` for each of ``students``
    (student -> package) and a config file, enough for the detector; return ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "nbgrader_config.py").write_text("c = get_config()  # noqa\n", encoding="utf-8")
    for student, package in students.items():
        target = root / "submitted" / student / ASSIGNMENT / PACKAGE
        shutil.copytree(package, target, ignore=shutil.ignore_patterns("__pycache__"))
    return root
