"""What the course provides: the running example, scenarios, errors, stores, checks, views and explorers.

You do not edit these modules; your five lab modules sit one level up (``compaction_lab/records.py``,
``grouping.py``, ``budget.py``, ``compaction.py``, ``resumption.py``).
"""
