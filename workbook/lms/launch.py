"""What the classroom hub keeps of an LTI 1.3 launch: the course's grade services, for ``workbook lms push``.

``deploy/jupyterhub/lti13_config.py`` logs students in through jupyterhub-ltiauthenticator. Its hub user name is the
launch's custom claim ``sis_id``, which the LMS fills with the SIS id (the tool's custom parameter
``sis_id=$Person.sourcedId``). That name is the nbgrader student id, the ``lis_person_sourcedid`` that ``lms push``
matches. ``keep_lti_services`` is the authenticator's ``post_auth_hook``. From each launch it keeps, in the user's
auth state and in a JSON file by course (LTI context) for the instructor, the claims passback needs:

- the Assignment and Grade Services endpoint: ``lineitems`` (the course's line items URL, ``c.LmsTool.lineitems_url``),
  ``lineitem`` (the launch's own line item, if any), ``scope`` (what the tool may do);
- the Names and Role Provisioning Services ``context_memberships_url`` (``c.LmsTool.memberships_url``);
- the issuer, client id (``aud``) and deployment id, which ``c.LmsTool`` needs as well.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
CONTEXT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/context"
DEPLOYMENT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
SERVICES_FILE = "WORKBOOK_LTI_SERVICES"
"""The environment variable naming the JSON file of every course's services (unset: none is written)."""


def launch_services(id_token: dict[str, Any]) -> dict[str, Any]:
    """The grade-service claims of a launch's decoded ``id_token``, as the ``c.LmsTool`` settings they fill:
    ``issuer``, ``client_id``, ``deployment_id``, ``lineitems_url``, ``memberships_url``, plus the AGS ``scope``,
    the launch's ``lineitem`` and the ``context`` id. A claim the launch lacks is left out."""
    ags = id_token.get(AGS_CLAIM) or {}
    nrps = id_token.get(NRPS_CLAIM) or {}
    audience = id_token.get("aud")
    found = {
        "issuer": id_token.get("iss"),
        "client_id": audience[0] if isinstance(audience, list) and audience else audience,
        "deployment_id": id_token.get(DEPLOYMENT_CLAIM),
        "context": (id_token.get(CONTEXT_CLAIM) or {}).get("id"),
        "lineitems_url": ags.get("lineitems"),
        "lineitem": ags.get("lineitem"),
        "scope": ags.get("scope"),
        "memberships_url": nrps.get("context_memberships_url"),
    }
    return {name: value for name, value in found.items() if value}


def record_services(path: Path, services: dict[str, Any]) -> None:
    """Keep ``services`` (one launch's, ``launch_services``) in the JSON file ``path`` under its course id (the
    issuer's when the launch has no context), replacing that course's earlier entry; the file is replaced whole."""
    path = Path(path)
    known = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    key = services.get("context") or services.get("issuer") or "unknown"
    known[key] = services
    temporary = path.with_suffix(path.suffix + ".tmp")
    temporary.write_text(json.dumps(known, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    temporary.replace(path)


def keep_lti_services(authenticator: Any, handler: Any, authentication: dict[str, Any]) -> dict[str, Any]:
    """jupyterhub-ltiauthenticator's ``post_auth_hook``: add ``lti_services`` (``launch_services`` of the launch,
    which ltiauthenticator passes as the auth state) to the auth state, and record them in the file that
    ``WORKBOOK_LTI_SERVICES`` names, if set; return the authentication. Never fails a login: a file that cannot be
    written is logged."""
    state = dict(authentication.get("auth_state") or {})
    services = launch_services(state)
    state["lti_services"] = services
    target = os.environ.get(SERVICES_FILE)
    if target and services.get("lineitems_url"):
        try:
            record_services(Path(target), services)
        except (OSError, ValueError) as error:
            authenticator.log.warning("%s: cannot record the launch's LTI services (%s)", target, error)
    return {**authentication, "auth_state": state}
