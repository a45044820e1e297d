"""The course's LTI 1.3 tool registration, read from its ``nbgrader_config.py``.

An LMS (the LTI *platform*) registers the workbook as a *tool* once per course; the instructor copies what the
platform shows into the course config::

    c.LmsTool.issuer = "https://canvas.instructure.com"
    c.LmsTool.client_id = "10000000000042"
    c.LmsTool.deployment_id = "7:abc..."
    c.LmsTool.auth_token_url = "https://school.instructure.com/login/oauth2/token"
    c.LmsTool.key_set_url = "https://school.instructure.com/api/lti/security/jwks"
    c.LmsTool.private_key_file = "lti/tool-private.pem"   # relative to the course directory
    c.LmsTool.lineitems_url = "https://school.instructure.com/api/lti/courses/42/line_items"
    c.LmsTool.memberships_url = "https://school.instructure.com/api/lti/courses/42/names_and_roles"
    c.LmsTool.student_id_field = "lis_person_sourcedid"

``lineitems_url`` and ``memberships_url`` are the course's Assignment and Grade Services line-items URL and its
Names and Role Provisioning Services memberships URL, as a launch's claims carry them (the hub keeps them, see
``deploy/``). ``student_id_field`` names the field of a platform member whose value is the nbgrader student id
(the same claim the hub's authenticator makes the hub user name of). ``tool_registration`` turns the settings into
pylti1p3's ``Registration``, whose private key signs the client-credentials token request.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from traitlets import Unicode
from traitlets.config import Configurable

from workbook.course.layout import Course
from workbook.errors import CourseError


class LmsError(CourseError):
    """The LMS registration is incomplete, or the platform refused a request; the message says which."""


class TokenRefused(LmsError):
    """The platform's token endpoint refused the tool's signed token request: nothing was posted."""


class LmsTool(Configurable):
    """The tool registration settings of ``nbgrader_config.py`` (``c.LmsTool.NAME``); see the module."""

    issuer = Unicode("", help="The platform's issuer (iss), e.g. https://canvas.instructure.com.").tag(config=True)
    client_id = Unicode("", help="The client id the platform gave the tool.").tag(config=True)
    deployment_id = Unicode("", help="The deployment id of the tool in the platform.").tag(config=True)
    auth_token_url = Unicode("", help="The platform's OAuth 2 token URL.").tag(config=True)
    auth_audience = Unicode("", help="The token request's audience, if the platform wants one besides its URL.").tag(
        config=True
    )
    key_set_url = Unicode("", help="The platform's public key set (JWKS) URL.").tag(config=True)
    private_key_file = Unicode(
        "", help="The tool's RSA private key (PEM), relative to the course directory; its public key is registered."
    ).tag(config=True)
    lineitems_url = Unicode("", help="The course's AGS line items URL (the launch's `lineitems` claim).").tag(
        config=True
    )
    memberships_url = Unicode("", help="The course's NRPS context memberships URL.").tag(config=True)
    student_id_field = Unicode(
        "lis_person_sourcedid", help="The member field whose value is the nbgrader student id."
    ).tag(config=True)


REQUIRED = (
    "issuer",
    "client_id",
    "deployment_id",
    "auth_token_url",
    "key_set_url",
    "private_key_file",
    "lineitems_url",
    "memberships_url",
)
"""The settings without which nothing can be posted."""


@dataclass(frozen=True)
class ToolRegistration:
    """A complete registration: the settings (URLs as given) and the private key file, made absolute."""

    issuer: str
    client_id: str
    deployment_id: str
    auth_token_url: str
    auth_audience: str
    key_set_url: str
    private_key_file: Path
    lineitems_url: str
    memberships_url: str
    student_id_field: str

    def pylti(self):
        """pylti1p3's ``Registration`` of this tool (the private key read now, its public key derived from it).

        Raises ``LmsError`` naming the key file when it cannot be read as an RSA private key."""
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat, load_pem_private_key
        from pylti1p3.registration import Registration

        try:
            private = self.private_key_file.read_text(encoding="utf-8")
            key = load_pem_private_key(private.encode("utf-8"), password=None)
            public = key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo).decode("ascii")
        except (OSError, ValueError, TypeError) as error:
            raise LmsError(
                f"c.LmsTool.private_key_file {self.private_key_file}: not a readable PEM private key ({error})"
            ) from error
        registration = (
            Registration()
            .set_issuer(self.issuer)
            .set_client_id(self.client_id)
            .set_auth_token_url(self.auth_token_url)
            .set_key_set_url(self.key_set_url)
            .set_tool_private_key(private)
            .set_tool_public_key(public)
        )
        if self.auth_audience:
            registration.set_auth_audience(self.auth_audience)
        return registration


def tool_registration(course: Course) -> ToolRegistration:
    """The course's ``ToolRegistration`` from ``c.LmsTool`` in its config.

    Raises ``LmsError`` naming every missing setting and the config file, or the missing key file."""
    tool = LmsTool(config=course.config())
    missing = [name for name in REQUIRED if not getattr(tool, name)]
    if missing:
        names = ", ".join(f"c.LmsTool.{name}" for name in missing)
        raise LmsError(f"{course.config_file}: the LMS registration lacks {names} (docs: instructors/lms.md)")
    key = Path(tool.private_key_file).expanduser()
    key = key if key.is_absolute() else course.root / key
    if not key.is_file():
        raise LmsError(f"c.LmsTool.private_key_file: no file {key}")
    return ToolRegistration(
        issuer=tool.issuer,
        client_id=tool.client_id,
        deployment_id=tool.deployment_id,
        auth_token_url=tool.auth_token_url,
        auth_audience=tool.auth_audience,
        key_set_url=tool.key_set_url,
        private_key_file=key,
        lineitems_url=tool.lineitems_url,
        memberships_url=tool.memberships_url,
        student_id_field=tool.student_id_field,
    )
