"""``find_similar`` on a class: planted disguised copies flagged on their own lab only, independent writers and
starters never."""

from __future__ import annotations

import itertools

import pytest
from similar_class import INDEPENDENT, PLANTED, packages, submitted_course

from workbook.course.layout import Course
from workbook.course.packages import starter_package
from workbook.errors import CourseError
from workbook.similarity.findings import find_similar
from workbook.similarity.settings import THRESHOLD, SimilarityError


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    root = tmp_path_factory.mktemp("planted")
    return find_similar(Course(submitted_course(root / "course", packages(root / "packages"))), workers=1)


def flagged(findings):
    return {(pair.lab, pair.kind, pair.first, pair.second) for pair in findings.flagged()}


def test_every_planted_copy_is_flagged_on_its_own_lab_and_nothing_else_is(planted):
    expected = {(lab, "code", *sorted(pair)) for pair, lab in PLANTED.items()}
    assert flagged(planted) == expected
    for pair in planted.flagged():
        assert pair.score >= 0.9  # disguises that leave the tokens' shape alone barely move it
        assert pair.spans_first and pair.spans_second


def test_no_independent_pair_comes_near_the_threshold(planted):
    for comparison in planted.comparisons:
        names = list(comparison.students)
        for (a, first), (b, second) in itertools.combinations(enumerate(names), 2):
            if first in INDEPENDENT and second in INDEPENDENT:
                index = len(names) * a - a * (a + 1) // 2 + (b - a - 1)  # upper triangle, row by row
                assert comparison.scores[index] < THRESHOLD, (comparison.lab, first, second)


def test_the_copy_of_the_buggy_module_matches_its_lines(planted):
    pair = next(pair for pair in planted.flagged() if pair.lab == 3)
    assert (pair.first, pair.second) == ("buggy", "copies_buggy")
    buggy_lines = pair.texts[0].splitlines()
    bug = next(number for number, line in enumerate(buggy_lines, 1) if "start.entries[-3:]" in line)
    assert any(span.start <= bug <= span.end for span in pair.spans_first)


def test_ten_students_handing_in_the_starter_flag_nothing(tmp_path):
    students = {f"student_{n}": starter_package(tmp_path / "packages" / str(n) / "compaction_lab") for n in range(10)}
    findings = find_similar(Course(submitted_course(tmp_path / "course", students)), workers=1)
    assert findings.flagged() == []
    assert all(comparison.scores.max(initial=0) == 0 for comparison in findings.comparisons)


def test_a_module_of_ones_own_counts_for_the_lab_that_imports_it(tmp_path):
    mine = "def walk(items):\n    total = 0\n    for item in items:\n        total += len(item) * 3 - 1\n"
    mine += "        if total > 99:\n            raise ValueError(f'too long: {total}')\n    return total\n"
    students = {}
    for name in ("ann", "bob"):
        package = starter_package(tmp_path / "packages" / name / "compaction_lab")
        (package / "mine.py").write_text(mine * 3, encoding="utf-8")
        source = (package / "resumption.py").read_text(encoding="utf-8")
        (package / "resumption.py").write_text(source + "\nfrom .mine import walk\n", encoding="utf-8")
        students[name] = package
    findings = find_similar(Course(submitted_course(tmp_path / "course", students)), workers=1)
    assert flagged(findings) == {(5, "code", "ann", "bob")}


def test_a_student_whose_file_cannot_be_read_is_named_and_the_others_compared(tmp_path):
    students = {name: starter_package(tmp_path / "packages" / name / "compaction_lab") for name in "abc"}
    (students["a"] / "records.py").write_bytes(b"\xff\xfe not utf-8")
    findings = find_similar(Course(submitted_course(tmp_path / "course", students)), labs=[1], workers=1)
    comparison = findings.comparisons[0]
    assert comparison.students == ("b", "c") and list(comparison.unreadable) == ["a"]
    assert "UnicodeDecodeError" in findings.unreadable()["a, lab 1 code"]


def test_a_symbolic_link_is_never_followed(tmp_path):
    students = {name: starter_package(tmp_path / "packages" / name / "compaction_lab") for name in "ab"}
    course = submitted_course(tmp_path / "course", students)
    secret = tmp_path / "secret.py"
    secret.write_text("answer = 42\n")
    module = course / "submitted" / "a" / "compaction_labs" / "compaction_lab" / "records.py"
    module.unlink()
    module.symlink_to(secret)
    findings = find_similar(Course(course), labs=[1], kinds=["code"], workers=1)
    assert findings.unreadable() == {"a, lab 1 code": "OSError: records.py is a symbolic link"}


def test_bad_input_is_refused_by_name(tmp_path):
    with pytest.raises(CourseError, match="not a workbook course"):
        find_similar(Course(tmp_path))
    (tmp_path / "nbgrader_config.py").write_text("")
    with pytest.raises(SimilarityError, match="lab: expected one of 1, 2, 3, 4, 5, got 9"):
        find_similar(Course(tmp_path), labs=[9])
