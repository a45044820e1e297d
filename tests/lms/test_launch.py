"""The hub's LTI 1.3 login (``deploy/jupyterhub/lti13_config.py``) maps an LMS user to the hub user and nbgrader
student id by the documented rule, and keeps the launch's grade-service claims for ``workbook lms push``.

jupyterhub-ltiauthenticator's own authenticator, configured by the deploy file, reads a decoded launch, and its
validator accepts the loopback platform's signed launch; tests/hub/test_lti.py runs the OIDC flow in a running hub."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import requests
from lti_platform import CLIENT_ID, LoopbackPlatform, rsa_key_pem
from ltiauthenticator.lti13.auth import LTI13Authenticator
from ltiauthenticator.lti13.validator import LTI13LaunchValidator
from traitlets.config.loader import PyFileConfigLoader

from workbook.lms.registration import REQUIRED, LmsTool

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "jupyterhub"
LAUNCH = {
    "iss": "https://lms.example.edu",
    "aud": "workbook-tool",
    "sub": "a6d5c443-1f51-4783-ba1a-7686ffe3b54a",
    "email": "ada@example.org",
    "https://purl.imsglobal.org/spec/lti/claim/deployment_id": "deployment-1",
    "https://purl.imsglobal.org/spec/lti/claim/context": {"id": "course-42", "title": "Compaction workbook"},
    "https://purl.imsglobal.org/spec/lti/claim/lis": {"person_sourcedid": "ada"},
    "https://purl.imsglobal.org/spec/lti/claim/custom": {"sis_id": "ada"},
    "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {
        "scope": ["https://purl.imsglobal.org/spec/lti-ags/scope/score"],
        "lineitems": "https://lms.example.edu/api/lti/courses/42/line_items",
    },
    "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice": {
        "context_memberships_url": "https://lms.example.edu/api/lti/courses/42/names_and_roles",
        "service_versions": ["2.0"],
    },
}
"""A decoded launch of Ada's, as Canvas sends one with the custom parameter sis_id=$Person.sourcedId."""


def hub_config(monkeypatch, tmp_path):
    monkeypatch.setenv("WORKBOOK_LTI13_ISSUER", LAUNCH["iss"])
    monkeypatch.setenv("WORKBOOK_LTI13_CLIENT_ID", "workbook-tool")
    monkeypatch.setenv("WORKBOOK_HUB_STATE", str(tmp_path))
    monkeypatch.delenv("WORKBOOK_LTI_SERVICES", raising=False)
    config = PyFileConfigLoader("lti13_config.py", path=str(DEPLOY)).load_config()
    return config


def test_the_hub_user_is_the_sis_id_and_the_launchs_grade_services_are_kept(monkeypatch, tmp_path):
    config = hub_config(monkeypatch, tmp_path)
    assert config.JupyterHub.authenticator_class == "ltiauthenticator.lti13.auth.LTI13Authenticator"
    authenticator = LTI13Authenticator(config=config)
    assert (authenticator.issuer, authenticator.client_id) == (LAUNCH["iss"], {"workbook-tool"})
    authentication = asyncio.run(authenticator.authenticate(None, dict(LAUNCH)))
    assert authentication["name"] == "ada", "the SIS id: the nbgrader student id lms push matches"
    kept = config.Authenticator.post_auth_hook(authenticator, None, authentication)
    services = kept["auth_state"]["lti_services"]
    assert services == {
        "issuer": "https://lms.example.edu",
        "client_id": "workbook-tool",
        "deployment_id": "deployment-1",
        "context": "course-42",
        "lineitems_url": "https://lms.example.edu/api/lti/courses/42/line_items",
        "scope": ["https://purl.imsglobal.org/spec/lti-ags/scope/score"],
        "memberships_url": "https://lms.example.edu/api/lti/courses/42/names_and_roles",
    }
    recorded = json.loads((tmp_path / "lti-services.json").read_text())
    assert recorded == {"course-42": services}
    settings = set(LmsTool.class_trait_names(config=True))
    assert {"issuer", "client_id", "deployment_id", "lineitems_url", "memberships_url"} <= settings & set(services)
    assert set(REQUIRED) - set(services) == {"auth_token_url", "key_set_url", "private_key_file"}, (
        "what the instructor adds from the LMS's registration page"
    )


def test_another_claim_can_name_the_hub_user(monkeypatch, tmp_path):
    monkeypatch.setenv("WORKBOOK_LTI13_USERNAME_KEY", "email")
    authenticator = LTI13Authenticator(config=hub_config(monkeypatch, tmp_path))
    assert asyncio.run(authenticator.authenticate(None, dict(LAUNCH)))["name"] == "ada@example.org"


def test_the_loopback_platforms_launch_is_one_ltiauthenticator_accepts(monkeypatch, tmp_path):
    tool = "http://127.0.0.1:9/hub/lti13"  # nothing listens there: the test plays the browser and the tool
    members = [{"user_id": "lti-user-ada", "lis_person_sourcedid": "ada", "name": "Ada Lovelace", "roles": []}]
    with LoopbackPlatform(rsa_key_pem()[1], members) as platform:
        platform.register_tool(f"{tool}/oauth_login", f"{tool}/oauth_callback", "http://127.0.0.1:9/hub/home")
        login = requests.get(platform.launch_url("lti-user-ada"), allow_redirects=False, timeout=30)
        assert login.status_code == 302 and login.headers["Location"].startswith(f"{tool}/oauth_login?")
        initiation = dict(parse_qsl(urlsplit(login.headers["Location"]).query))
        LTI13LaunchValidator().validate_login_request(initiation)
        assert (initiation["iss"], initiation["login_hint"], initiation["client_id"]) == (
            platform.issuer,
            "lti-user-ada",
            CLIENT_ID,
        )
        request = {
            "response_type": "id_token",
            "scope": "openid",
            "response_mode": "form_post",
            "prompt": "none",
            "client_id": initiation["client_id"],
            "redirect_uri": f"{tool}/oauth_callback",
            "login_hint": initiation["login_hint"],
            "lti_message_hint": initiation["lti_message_hint"],
            "nonce": "nonce-1",
            "state": "state-1",
        }
        elsewhere = requests.get(platform.authorize_url, params={**request, "redirect_uri": "http://evil/"}, timeout=30)
        assert elsewhere.status_code == 400 and "redirect_uri" in elsewhere.text
        form = requests.get(platform.authorize_url, params=request, timeout=30)
        assert form.status_code == 200 and f'action="{tool}/oauth_callback"' in form.text
        id_token = form.text.split('name="id_token" value="', 1)[1].split('"', 1)[0]
        validator = LTI13LaunchValidator()
        launch = validator.verify_and_decode_jwt(id_token, platform.issuer, {CLIENT_ID}, platform.jwks_url, ["RS256"])
        validator.validate_id_token(launch)
        assert launch["nonce"] == "nonce-1"
        monkeypatch.setenv("WORKBOOK_LTI13_ISSUER", platform.issuer)
        monkeypatch.setenv("WORKBOOK_LTI13_CLIENT_ID", CLIENT_ID)
        monkeypatch.setenv("WORKBOOK_HUB_STATE", str(tmp_path))
        authenticator = LTI13Authenticator(config=PyFileConfigLoader("lti13_config.py", path=str(DEPLOY)).load_config())
        assert asyncio.run(authenticator.authenticate(None, launch))["name"] == "ada"
