"""LTI 1.3 login for the classroom hub: students and instructors arrive from the LMS (Canvas, Moodle, ...).

``jupyterhub_config.py`` loads this file when ``WORKBOOK_LTI13_ISSUER`` is set. It replaces the PAM login with
jupyterhub-ltiauthenticator's LTI 1.3 authenticator: OIDC login initiation at ``/hub/lti13/oauth_login``, the
launch at ``/hub/lti13/oauth_callback``, the platform's keys from its JWKS URL, and the tool's configuration
JSON at ``/hub/lti13/config``. The LMS's side is in docs/hub/lti.md.

**The user mapping.** LMS user -> hub user -> nbgrader student id. The hub user name is the launch's custom claim
``sis_id``, which the LMS fills from the tool's custom parameter ``sis_id=$Person.sourcedId`` (the student's SIS
id). The nbgrader student id is the hub user name, as for every hub user. ``workbook lms push`` finds the same
person among the LMS's members by ``lis_person_sourcedid``, the same SIS id. Set ``WORKBOOK_LTI13_USERNAME_KEY`` to
use another claim, e.g. ``email`` or ``sub`` (the LMS's opaque id).

**Grade passback.** Each launch's Assignment and Grade Services and Names and Role Provisioning Services claims (the
course's line items URL, the scopes, the memberships URL) go into the user's auth state (``lti_services``, which
needs ``JUPYTERHUB_CRYPT_KEY``), and into the JSON file ``WORKBOOK_LTI_SERVICES`` by course. The instructor copies
them into ``c.LmsTool`` of the course's ``nbgrader_config.py`` (``workbook.lms.launch``).
"""

import os

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

STATE = os.environ.get("WORKBOOK_HUB_STATE", "/srv/jupyterhub")

c.JupyterHub.authenticator_class = "ltiauthenticator.lti13.auth.LTI13Authenticator"
c.LTI13Authenticator.issuer = os.environ["WORKBOOK_LTI13_ISSUER"]  # the platform's iss
c.LTI13Authenticator.client_id = set(os.environ.get("WORKBOOK_LTI13_CLIENT_ID", "").split(","))  # CHANGE
c.LTI13Authenticator.authorize_url = os.environ.get("WORKBOOK_LTI13_AUTHORIZE_URL", "")  # the platform's OIDC auth
c.LTI13Authenticator.jwks_endpoint = os.environ.get("WORKBOOK_LTI13_JWKS_URL", "")  # the platform's key set
c.LTI13Authenticator.username_key = os.environ.get("WORKBOOK_LTI13_USERNAME_KEY", "custom_sis_id")
c.LTI13Authenticator.uri_scheme = os.environ.get("WORKBOOK_LTI13_URI_SCHEME", "auto")

# Keep the launch's grade-service claims: in the auth state (encrypted with JUPYTERHUB_CRYPT_KEY) and in a file
# the instructors read.
c.Authenticator.enable_auth_state = bool(os.environ.get("JUPYTERHUB_CRYPT_KEY"))
os.environ.setdefault("WORKBOOK_LTI_SERVICES", os.path.join(STATE, "lti-services.json"))
from workbook.lms.launch import keep_lti_services  # noqa: E402 (after the settings it does not depend on)

c.Authenticator.post_auth_hook = keep_lti_services
