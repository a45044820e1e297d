"""nbgrader settings every server of the course shares (students, instructors, the grader service).

The hub passes the values in the environment (see ../../jupyterhub_config.py), so the course id and
the exchange are written down once.
"""

import os

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

# One course: the id MUST equal the name of the grader service in jupyterhub_config.py.
c.CourseDirectory.course_id = os.environ["WORKBOOK_COURSE_ID"]

# The exchange: one directory every server sees at the same path (a shared volume on Kubernetes).
c.Exchange.root = os.environ["WORKBOOK_EXCHANGE"]
# One course per exchange; set True (everywhere at once) before a second course shares this exchange,
# and then students fetch into <course_id>/<assignment_id>/ instead of <assignment_id>/.
c.Exchange.path_includes_course = False

# The labs' time limit: Validate interrupts a cell after as many seconds as autograde does (the hub passes
# workbook.course.layout.DEFAULT_CELL_TIMEOUT; the notebooks state it).
if "WORKBOOK_CELL_TIMEOUT" in os.environ:
    c.Execute.timeout = int(os.environ["WORKBOOK_CELL_TIMEOUT"])
