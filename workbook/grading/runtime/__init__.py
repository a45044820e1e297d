"""The grader's runtime inside the sandbox: never imported here, copied by the judge into the package it grades
as ``compaction_lab/_grader/`` (runner, oracle and their relay), for that run only."""
