"""Jupyter Server settings for the grader service: the formgrader iframe.

JupyterHub >= 4.1 sends ``Content-Security-Policy: frame-ancestors 'none'`` from single-user servers,
so the formgrader panel inside JupyterLab (an iframe) stays blank. Allowing ``'self'`` is safe only
when every server has its own origin (``JupyterHub.enable_subdomains``); the hub sets
WORKBOOK_FORMGRADER_IFRAME=1 exactly then. Otherwise instructors open the formgrader in its own tab:
https://HUB/services/COURSE_ID/formgrader
"""

import os

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

if os.environ.get("WORKBOOK_FORMGRADER_IFRAME") == "1":
    c.ServerApp.tornado_settings = {"headers": {"Content-Security-Policy": "frame-ancestors 'self'"}}
