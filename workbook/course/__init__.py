"""The course: the nbgrader course directory and its config, submissions, intake, honest accidents, lateness."""
