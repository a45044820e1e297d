"""An LTI 1.3 platform on loopback for the LMS tests: lti1p3platform's token endpoint, key set, Assignment and Grade
Services and Names and Role Provisioning Services, served by ``http.server`` on 127.0.0.1, with the line items,
scores and members kept in memory (``Store``), as an LMS keeps them in its database.

It also launches a registered tool (``register_tool``), as an LMS does when a member clicks the tool's link:
``launch_url(user_id)`` starts lti1p3platform's OIDC third-party login (a redirect to the tool's login initiation
URL), and ``/authorize`` answers the tool's authentication request with lti1p3platform's launch, an ``id_token``
signed with the platform's key (the one ``/jwks`` publishes) in a form the browser posts to the tool's redirect
URI. The id_token carries the member's identity and roles, the custom parameter ``sis_id`` (the LMS's
``$Person.sourcedId``, the member's ``lis_person_sourcedid``), the course (context), a resource link, and the
Assignment and Grade Services and Names and Role Provisioning Services claims.

lti1p3platform checks what matters: the tool's signed token request against the tool's registered public key, every
service call's bearer token (signed by the platform's key) and its scopes. ``Store.fail_scores_for`` makes the score
endpoint answer 500 for some LTI users, as a broken platform would.
"""

from __future__ import annotations

import html
import json
import threading
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from jwcrypto.jwk import JWK
from lti1p3platform.exceptions import LineItemNotFoundException
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.membership import Context
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request
from lti1p3platform.response import Response
from lti1p3platform.score import UpdateScoreStatus
from lti1p3platform.service_connector import AssignmentsGradesService, NamesRoleProvisioningService

CLIENT_ID = "workbook-tool"
DEPLOYMENT_ID = "deployment-1"
CONTEXT = {"id": "course-1", "label": "CW", "title": "Compaction workbook"}
RESOURCE_LINK = "compaction-labs-link"
"""The resource link (the course's link to the tool) every launch is from."""
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"


def rsa_key_pem() -> tuple[str, str]:
    """A new RSA key pair as PEM: (private, public)."""
    key = JWK.generate(kty="RSA", size=2048)
    return key.export_to_pem(private_key=True, password=None).decode(), key.export_to_pem().decode()


@dataclass
class Store:
    """The platform's data: line items by id (their URL), scores by line item id then LTI user id, the members,
    every score POST received (``posted``), the users whose score POSTs fail with 500, the token requests, and the
    launch messages signed (``launches``, decoded)."""

    members: list[dict[str, Any]]
    line_items: dict[str, dict[str, Any]] = field(default_factory=dict)
    scores: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    posted: list[tuple[str, str]] = field(default_factory=list)
    fail_scores_for: set[str] = field(default_factory=set)
    token_requests: list[int] = field(default_factory=list)
    launches: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def by_resource(self) -> dict[str, dict[str, Any]]:
        """The line items by resource id."""
        return {item["resourceId"]: item for item in self.line_items.values()}

    def scores_of(self, resource_id: str) -> dict[str, dict[str, Any]]:
        """The latest score per LTI user of the line item with ``resource_id``."""
        return self.scores.get(self.by_resource()[resource_id]["id"], {})


class LoopbackRequest(Request):
    """lti1p3platform's request made from an ``http.server`` handler."""

    def build_metadata(self, request: Any):
        handler: BaseHTTPRequestHandler = request
        parts = urlsplit(handler.path)
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length).decode() if length else ""
        content_type = handler.headers.get("Content-Type", "")
        return {
            "method": handler.command,
            "form_data": dict(parse_qsl(body)) if "form" in content_type else {},
            "get_data": dict(parse_qsl(parts.query)),
            "headers": handler.headers,
            "content_type": content_type,
            "path": parts.path,
            "json": json.loads(body) if body and "json" in content_type else None,
        }


class LoopbackPlatform:
    """The platform server (a context manager: started on entry on a free loopback port, stopped on exit).

    ``tool_public_pem`` is the tool's registered public key; ``members`` the course's members (NRPS)."""

    def __init__(self, tool_public_pem: str, members: list[dict[str, Any]]) -> None:
        self.store = Store(members)
        self.platform_private, self.platform_public = rsa_key_pem()
        self.tool_jwk = Registration.get_jwk(tool_public_pem)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.tool_login_url: str | None = None
        self.tool_redirect_uris: set[str] = set()
        self.tool_target_link_uri: str | None = None

    @property
    def issuer(self) -> str:
        return self.url

    token_url = property(lambda self: f"{self.url}/token")
    jwks_url = property(lambda self: f"{self.url}/jwks")
    lineitems_url = property(lambda self: f"{self.url}/lineitems")
    memberships_url = property(lambda self: f"{self.url}/memberships")
    authorize_url = property(lambda self: f"{self.url}/authorize")

    def register_tool(self, login_url: str, redirect_uri: str, target_link_uri: str) -> None:
        """Register the tool's launch side: its OIDC login initiation URL, the redirect URI it may name (the
        launch is posted there, and nowhere else) and the target link URI of the course's link to it."""
        self.tool_login_url = login_url
        self.tool_redirect_uris = {redirect_uri}
        self.tool_target_link_uri = target_link_uri

    def launch_url(self, user_id: str) -> str:
        """Where a member's browser goes to launch the tool (the LMS's link): redirected to the tool's login."""
        return f"{self.url}/launch?{urlencode({'user': user_id})}"

    def __enter__(self) -> LoopbackPlatform:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()

    def config_lines(self, private_key_file: str, student_id_field: str = "lis_person_sourcedid") -> str:
        """The ``c.LmsTool`` lines of a course config registering the tool with this platform."""
        settings = {
            "issuer": self.issuer,
            "client_id": CLIENT_ID,
            "deployment_id": DEPLOYMENT_ID,
            "auth_token_url": self.token_url,
            "key_set_url": self.jwks_url,
            "private_key_file": private_key_file,
            "lineitems_url": self.lineitems_url,
            "memberships_url": self.memberships_url,
            "student_id_field": student_id_field,
        }
        return "".join(f"c.LmsTool.{name} = {value!r}\n" for name, value in settings.items())

    def _conf(self) -> LTI1P3PlatformConfAbstract:
        platform = self

        class Conf(LTI1P3PlatformConfAbstract):
            def init_platform_config(self, **kwargs: Any) -> None:
                self._registration = (
                    Registration()
                    .set_iss(platform.issuer)
                    .set_client_id(CLIENT_ID)
                    .set_deployment_id(DEPLOYMENT_ID)
                    .set_platform_public_key(platform.platform_public)
                    .set_platform_private_key(platform.platform_private)
                    .set_tool_key_set({"keys": [platform.tool_jwk]})
                )
                if platform.tool_login_url and platform.tool_target_link_uri:
                    self._registration.set_oidc_login_url(platform.tool_login_url)
                    self._registration.set_launch_url(platform.tool_target_link_uri)

            def get_registration_by_params(self, **kwargs: Any) -> Registration:
                return self._registration

        return Conf()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        platform = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                platform._serve(self)

            do_POST = do_PUT = do_DELETE = do_GET

        return Handler

    def _send(self, handler: BaseHTTPRequestHandler, code: int, body: Any, media_type: str = "application/json"):
        data = b"" if body is None else json.dumps(body).encode()
        handler.send_response(code)
        handler.send_header("Content-Type", media_type)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        request = LoopbackRequest(handler)
        path = request.path.rstrip("/")
        conf = self._conf()
        if path == "/jwks":
            return self._send(handler, 200, conf.get_jwks())
        if path == "/launch":
            return self._launch(handler, request, conf)
        if path == "/authorize":
            return self._authorize(handler, request, conf)
        if path == "/token":
            self.store.token_requests.append(1)
            try:
                return self._send(handler, 200, conf.get_access_token(request.form_data))
            except Exception as error:  # what lti1p3platform raises for a bad assertion: refuse it
                return self._send(handler, 401, {"error": "invalid_client", "error_description": str(error)})
        if path == "/memberships":
            service = Members(request, conf, self.memberships_url, self.store)
            return self._respond(handler, service.handle_resp(service.handle_get_members))
        grades = Grades(request, conf, self.lineitems_url, self.store)
        if path == "/lineitems":
            method = grades.handle_get_lineitems if request.method == "GET" else grades.handle_create_lineitem
            return self._respond(handler, grades.handle_resp(method))
        rest = path.removeprefix("/lineitems/").split("/")
        item = f"{self.lineitems_url}/{rest[0]}"
        if len(rest) == 2 and rest[1] == "scores":
            user = str((request.json or {}).get("userId"))
            if user in self.store.fail_scores_for:
                return self._send(handler, 500, {"error": "internal server error"})
            return self._respond(handler, grades.handle_resp(grades.handle_update_score, line_item_id=item))
        if len(rest) == 2 and rest[1] == "results":
            return self._respond(handler, grades.handle_resp(grades.handle_get_results, line_item_id=item))
        method = {
            "GET": grades.handle_get_lineitem,
            "PUT": grades.handle_update_lineitem,
            "DELETE": grades.handle_delete_lineitem,
        }[request.method or "GET"]
        return self._respond(handler, grades.handle_resp(method, line_item_id=item))

    def _member(self, user_id: str) -> dict[str, Any] | None:
        return next((member for member in self.store.members if member["user_id"] == user_id), None)

    def _launch(self, handler: BaseHTTPRequestHandler, request: Request, conf: LTI1P3PlatformConfAbstract) -> None:
        """The LMS's link to the tool: lti1p3platform's OIDC third-party login, a redirect to the tool's login."""
        user = request.get_data.get("user", "")
        if self.tool_login_url is None or self._member(user) is None:
            return self._send(handler, 404, {"error": f"no registered tool, or no member {user!r}"})
        location = Login(request, conf).initiate_login(user)
        handler.send_response(302)
        handler.send_header("Location", location)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    def _authorize(self, handler: BaseHTTPRequestHandler, request: Request, conf: LTI1P3PlatformConfAbstract):
        """The tool's OIDC authentication request: checked (an implicit-flow id_token, posted as a form, to a
        registered redirect URI, for a member and for this link), answered with lti1p3platform's signed launch."""
        query = request.get_data
        expected = {"response_type": "id_token", "response_mode": "form_post", "scope": "openid"}
        wrong = sorted(name for name, value in expected.items() if query.get(name) != value)
        if query.get("redirect_uri") not in self.tool_redirect_uris:
            wrong.append("redirect_uri")
        if query.get("lti_message_hint") != RESOURCE_LINK:
            wrong.append("lti_message_hint")
        member = self._member(query.get("login_hint", ""))
        if member is None:
            wrong.append("login_hint")
        if wrong:
            return self._send(handler, 400, {"error": "invalid_request", "error_description": ", ".join(wrong)})
        launch = Launch(request, conf, self, member)
        try:
            page = launch.lti_launch()
        except Exception as error:  # what lti1p3platform raises for a bad preflight answer
            return self._send(handler, 400, {"error": "invalid_request", "error_description": repr(error)})
        body = page.encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html; charset=utf-8")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    def _respond(self, handler: BaseHTTPRequestHandler, response: Response) -> None:
        result = response.result
        if isinstance(result, dict) and "content" in result:  # a page: the list, as AGS containers are
            result = result["content"]
        if result is None and response.code >= 400:
            result = {"error": response.message}
        self._send(handler, response.code, result, response.media_type)


class Grades(AssignmentsGradesService):
    """lti1p3platform's AGS endpoints over the ``Store``."""

    def __init__(self, request, platform_config, lineitems_url: str, store: Store) -> None:
        super().__init__(request, platform_config, lineitems_url)
        self.store = store
        self.base = lineitems_url

    def find_lineitems(self, page=1, limit=None, line_item_id=None, resource_link_id=None, resource_id=None, tag=None):
        items = [
            item
            for item in self.store.line_items.values()
            if (resource_id is None or item.get("resourceId") == resource_id)
            and (tag is None or item.get("tag") == tag)
        ]
        return {"content": items, "has_next": False, "next": None}

    def find_lineitem(self, line_item_id):
        if line_item_id not in self.store.line_items:
            raise LineItemNotFoundException(line_item_id)
        return self.store.line_items[line_item_id]

    def create_lineitem(self, creation_data):
        with self.store.lock:
            item = {**creation_data, "id": f"{self.base}/{uuid.uuid4().hex[:12]}"}
            self.store.line_items[item["id"]] = item
        return item

    def update_lineitem(self, update_data):
        item = self.find_lineitem(update_data["id"])
        item.update(update_data)
        return item

    def delete_lineitem(self, line_item_id):
        self.find_lineitem(line_item_id)
        with self.store.lock:
            del self.store.line_items[line_item_id]
            self.store.scores.pop(line_item_id, None)

    def update_score(self, line_item_id, score):
        self.find_lineitem(line_item_id)
        with self.store.lock:
            user = str(score["userId"])
            scores = self.store.scores.setdefault(line_item_id, {})
            created = user not in scores
            scores[user] = dict(score)
            self.store.posted.append((line_item_id, user))
        return UpdateScoreStatus.CREATED if created else UpdateScoreStatus.SUCCESS

    def get_results(self, line_item_id, page=1, limit=None, user_id=None):
        self.find_lineitem(line_item_id)
        results = [
            {
                "id": f"{line_item_id}/results/{user}",
                "userId": user,
                "resultScore": score.get("scoreGiven"),
                "resultMaximum": score.get("scoreMaximum"),
                "comment": score.get("comment"),
                "scoreOf": line_item_id,
            }
            for user, score in self.store.scores.get(line_item_id, {}).items()
            if user_id is None or user == user_id
        ]
        return {"content": results, "has_next": False, "next": None}


class Members(NamesRoleProvisioningService):
    """lti1p3platform's NRPS endpoint over the ``Store``'s members."""

    def __init__(self, request, platform_config, memberships_url: str, store: Store) -> None:
        super().__init__(request, platform_config, memberships_url)
        self.store = store

    def get_member_data_page(self, page=1, limit=None, role=None, since=None):
        return {"content": [dict(member) for member in self.store.members], "has_next": False}

    def get_context_by_id(self):
        return Context(**CONTEXT)


class Login(OIDCLoginAbstract):
    """lti1p3platform's OIDC third-party login: the message hint names the course's link to the tool."""

    def set_lti_message_hint(self, **kwargs: Any) -> None:
        self._lti_message_hint = RESOURCE_LINK

    def get_lti_message_hint(self) -> str:
        return RESOURCE_LINK

    def get_redirect(self, url: str) -> str:
        return url


class Launch(LTIAdvantageMessageLaunchAbstract):
    """lti1p3platform's LTI Advantage resource link launch of one member, rendered as the self-posting form an LMS
    sends the browser (``id_token`` and ``state`` to the tool's redirect URI)."""

    def __init__(self, request, platform_config, platform: LoopbackPlatform, member: dict[str, Any]) -> None:
        super().__init__(request, platform_config)
        self.platform = platform
        self.member = member

    def prepare_launch(self, preflight_response: dict[str, Any]) -> None:
        member = self.member
        roles = [INSTRUCTOR if "Instructor" in member.get("roles", []) else LEARNER]
        self.set_user_data(member["user_id"], roles, full_name=member.get("name"), email_address=member.get("email"))
        self.set_resource_link_claim(RESOURCE_LINK, title="Compaction labs")
        self.set_launch_context_claim(CONTEXT["id"], context_title=CONTEXT["title"], context_label=CONTEXT["label"])
        self.set_custom_parameters_claim({"sis_id": member["lis_person_sourcedid"]})  # sis_id=$Person.sourcedId
        self.set_extra_claims(
            {"https://purl.imsglobal.org/spec/lti/claim/lis": {"person_sourcedid": member["lis_person_sourcedid"]}}
        )
        self.set_ags(lineitems_url=self.platform.lineitems_url)
        self.set_nrps(self.platform.memberships_url)

    def get_launch_data(self) -> tuple[dict[str, Any], str]:
        message, state = super().get_launch_data()
        self.platform.store.launches.append(dict(message))
        return message, state

    def render_launch_form(self, launch_data: dict[str, Any], **kwargs: Any) -> str:
        fields = "".join(
            f'<input type="hidden" name="{name}" value="{html.escape(launch_data[name])}">'
            for name in ("id_token", "state")
        )
        action = html.escape(launch_data["launch_url"])
        return (
            f'<!DOCTYPE html><html><body onload="document.forms[0].submit()">'
            f'<form method="post" action="{action}">{fields}</form></body></html>'
        )
