"""Grading a submission: the cases, the judge, the sandbox, the runtime that runs inside it, and the scores."""
