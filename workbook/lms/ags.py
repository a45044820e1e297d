"""The platform's grade services as the tool calls them, through pylti1p3: the access token, the course's members
(Names and Role Provisioning Services), line items, results and scores (Assignment and Grade Services).

pylti1p3 signs the client-credentials token request with the tool's private key and sends every call; this module
only says which call, and turns a refusal into an ``LmsError`` that names what was refused and the HTTP status.
"""

from __future__ import annotations

from typing import Any

import requests
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem
from pylti1p3.names_roles import NamesRolesProvisioningService
from pylti1p3.service_connector import ServiceConnector

from workbook.lms.registration import LmsError, TokenRefused, ToolRegistration
from workbook.lms.scores import Score, Target

AGS_SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
]
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"


def _status(error: LtiServiceException) -> str:
    response = error.response
    text = " ".join((response.text or "").split())[:120]
    return f"HTTP {response.status_code}" + (f" ({text})" if text else "")


class GradeService:
    """The platform's services for one ``ToolRegistration``; one access token per scope set, fetched once."""

    def __init__(self, tool: ToolRegistration, session: requests.Session | None = None) -> None:
        self.tool = tool
        self.connector = ServiceConnector(tool.pylti(), session)
        self.ags = AssignmentsGradesService(
            self.connector,
            {"scope": AGS_SCOPES, "lineitems": tool.lineitems_url},  # type: ignore[typeddict-item]
        )
        self.nrps = NamesRolesProvisioningService(self.connector, {"context_memberships_url": tool.memberships_url})

    def connect(self) -> None:
        """Fetch the access tokens now. Raises ``TokenRefused`` (with the status) when the platform refuses the
        signed token request: a private key that is not the registered one, or a wrong client id."""
        for scopes in (AGS_SCOPES, [NRPS_SCOPE]):
            try:
                self.connector.get_access_token(scopes)
            except LtiServiceException as error:
                raise TokenRefused(
                    f"the platform's token endpoint {self.tool.auth_token_url} refused the tool's token request "
                    f"({_status(error)}): is {self.tool.private_key_file} the key registered for client id "
                    f"{self.tool.client_id!r}? Nothing was posted."
                ) from error
            except requests.RequestException as error:
                raise TokenRefused(f"the platform's token endpoint {self.tool.auth_token_url}: {error}") from error

    def members(self) -> list[dict[str, Any]]:
        """The course's members as the platform lists them (``user_id``, ``roles``, names, ...).
        Raises ``LmsError`` with the status."""
        try:
            return [dict(member) for member in self.nrps.get_members()]
        except LtiServiceException as error:
            raise LmsError(f"the platform's memberships {self.tool.memberships_url}: {_status(error)}") from error

    def line_item(self, target: Target) -> tuple[LineItem, bool]:
        """The platform's line item of ``target``, found by its resource id or created; and whether it was created.
        Raises ``LmsError`` naming the line item and the status."""
        try:
            found = self.ags.find_lineitem_by_resource_id(target.resource_id)
            if found:
                return found, False
            wanted = (
                LineItem()
                .set_label(target.label)
                .set_resource_id(target.resource_id)
                .set_score_maximum(target.score_maximum)
                .set_tag(target.resource_id)
            )
            return self.ags.find_or_create_lineitem(wanted, find_by="resource_id"), True
        except LtiServiceException as error:
            raise LmsError(f"line item {target.label!r}: {_status(error)}") from error
        except LtiException as error:
            raise LmsError(f"line item {target.label!r}: {error}") from error

    def results(self, line_item: LineItem) -> dict[str, dict[str, Any]]:
        """The line item's current results by LTI user id (``resultScore``, ``resultMaximum``, ``comment``).
        Raises ``LmsError`` naming the line item and the status."""
        try:
            return {str(result.get("userId")): result for result in self.ags.get_grades(line_item)}
        except LtiServiceException as error:
            raise LmsError(f"results of line item {line_item.get_label()!r}: {_status(error)}") from error

    def post(self, line_item: LineItem, user_id: str, score: Score, timestamp: str) -> None:
        """Post ``score`` of the LTI user ``user_id`` to ``line_item`` at ``timestamp`` (ISO 8601).
        Raises ``LmsError`` with the status."""
        grade = (
            Grade()
            .set_score_given(score.score_given)
            .set_score_maximum(score.score_maximum)
            .set_activity_progress(score.activity_progress)
            .set_grading_progress(score.grading_progress)
            .set_timestamp(timestamp)
            .set_user_id(user_id)
            .set_comment(score.comment)
        )
        try:
            self.ags.put_grade(grade, line_item)
        except LtiServiceException as error:
            raise LmsError(_status(error)) from error
        except requests.RequestException as error:
            raise LmsError(str(error)) from error
