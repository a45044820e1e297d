"""nbgrader settings for the course's shared grader service (formgrader + create assignment)."""

import os

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

# The course directory must lie inside the service's notebook root (its cwd), or the formgrader
# refuses to work ("course directory root is not a subdirectory of the notebook server root").
c.CourseDirectory.root = os.environ["WORKBOOK_COURSE_ROOT"]
# nbgrader's docs: always keep a log file on a hub; the exchange's errors are only there.
c.NbGrader.logfile = os.environ["WORKBOOK_NBGRADER_LOG"]
# The formgrader's Collect button (and `nbgrader collect` here) collects a submission only when its files
# are owned by the student it names; forged ones go to EXCHANGE/COURSE/quarantine/ (workbook/pipeline/collect.py).
# Where every user has the same uid it refuses; to take the typed names anyway (anyone can then submit
# as anyone): c.OwnerCheckedCollect.accept_claimed_names = True
c.ExchangeFactory.collect = "workbook.pipeline.collect.OwnerCheckedCollect"

# The formgrader reads the course's own nbgrader_config.py (written by `workbook build`) only when
# the service starts, but this file on every request. Loading it from here means a course built
# while the service runs is graded with its settings (above all Autograde.exclude_overwriting:
# without it autograde replaces each student's lab modules by the starters and everyone gets 0).
_course_config = os.path.join(c.CourseDirectory.root, "nbgrader_config.py")
if os.path.exists(_course_config):
    load_subconfig(_course_config)  # noqa: F821 (provided by traitlets)

# Student code runs only in a sandbox (bubblewrap; deploy/README.md, "Grading sandbox"): a kernel is
# never started without one, so a machine that cannot sandbox refuses to autograde instead of running
# student code as the grader. After the course config, which says "auto".
c.SandboxKernelManager.isolation = "required"
