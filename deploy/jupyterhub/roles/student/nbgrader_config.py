"""nbgrader settings for a student's own server."""

import os

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

# Submissions are filed under the hub user name. nbgrader takes the OS user name otherwise, which is
# the same under LocalProcessSpawner, "jovyan" (mapped to JUPYTERHUB_USER by nbgrader) in the
# docker-stacks images, and the hub's own user when every server runs as one account (tests).
c.CourseDirectory.student_id = os.environ["JUPYTERHUB_USER"]
