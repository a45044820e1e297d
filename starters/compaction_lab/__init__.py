"""compaction_lab: the five labs of the compaction workbook.

The history never changes; the context is rebuilt to fit. Import what you need from the
module that defines it (``compaction_lab.budget``, ``compaction_lab.records``, ...): one
concept per module, lined up with the notebooks.
"""
