"""``workbook lms push``: each student's scores posted to the LMS's line items through Assignment and Grade Services.

What is posted is ``workbook.lms.scores``' (read from the gradebook, never written to it): one line item per lab
notebook (``--lab N``: that lab's only) or one for the whole assignment (``--total``), each found again by its
resource id and created, with the notebook's (assignment's) points as ``scoreMaximum``, when the platform has none.

Students are matched to the platform's members by ``c.LmsTool.student_id_field``; a student the platform does not
list is named and skipped. A score equal to the platform's current result (points, maximum, comment) is not posted
again, so a second push posts nothing; a refusal names the student, the line item and the HTTP status, and the
other scores are still posted. A refused token request stops the push before anything is posted.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from workbook.course.layout import Course
from workbook.lms.ags import GradeService
from workbook.lms.registration import LmsError
from workbook.lms.scores import Score, describe, planned_scores


@dataclass
class PushReport:
    """What a push did, each entry one sentence: scores ``posted``, scores left ``unchanged``, line items
    ``created``, students ``unknown`` to the platform, ``failed`` posts (student, line item, status), ``skipped``."""

    posted: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """True when every student was known and every post accepted."""
        return not self.unknown and not self.failed


def _same(result: dict | None, score: Score) -> bool:
    if not result:
        return False
    try:
        given, maximum = float(result.get("resultScore")), float(result.get("resultMaximum"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return (
        math.isclose(given, score.score_given, abs_tol=1e-6)
        and math.isclose(maximum, score.score_maximum, abs_tol=1e-6)
        and (result.get("comment") or "") == score.comment
    )


def push(
    course: Course,
    service: GradeService,
    lab: int | None = None,
    total: bool = False,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> PushReport:
    """Post ``planned_scores(course, lab, total)`` through ``service``; return the ``PushReport``.

    Raises ``TokenRefused`` (nothing posted) when the platform refuses the token request, ``LmsError`` when its
    member list cannot be read. Any other refusal is reported in ``failed`` and the push goes on."""
    plan = planned_scores(course, lab, total)
    service.connect()
    field_name = service.tool.student_id_field
    members = {str(member[field_name]): member for member in service.members() if member.get(field_name)}
    report = PushReport()
    students = sorted({planned.student for planned in plan})
    report.unknown = [
        f"{student}: no member of the LMS course has {field_name} {student!r}; skipped"
        for student in students
        if student not in members
    ]
    targets = list(dict.fromkeys(planned.target for planned in plan))
    for target in targets:
        mine = [planned for planned in plan if planned.target == target and planned.student in members]
        if not mine:
            continue
        try:
            line_item, created = service.line_item(target)
            results = service.results(line_item)
        except LmsError as error:
            report.failed.extend(f"{planned.student}, line item {target.label!r}: {error}" for planned in mine)
            continue
        if created:
            report.created.append(f"line item {target.label!r} (resource id {target.resource_id})")
        for planned in mine:
            if planned.score is None:
                report.skipped.append(describe(planned))
                continue
            user_id = str(members[planned.student]["user_id"])
            if _same(results.get(user_id), planned.score):
                report.unchanged.append(describe(planned))
                continue
            try:
                service.post(line_item, user_id, planned.score, now().isoformat())
            except LmsError as error:
                report.failed.append(f"{planned.student}, line item {target.label!r}: {error}")
                continue
            report.posted.append(describe(planned))
    return report
