"""The hidden cases: the grader's own, never in a release, a student's package or a student's process.

One module per lab module (``hidden_cases/budget.py`` for lab 3), each with ``CASES``, a tuple of
``compaction_lab.provided.cases.Case`` with ``hidden=True`` and a one-line ``hint`` (all a student sees of a
failed hidden case). Their inputs are built in the grader's process from the reference package's
scenarios; the expected outcomes are the reference solutions' (``workbook.judge``). ``workbook build``
copies this folder into the course (``COURSE/grading/hidden_cases/``), where an instructor may edit it.
"""
