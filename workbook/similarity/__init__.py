"""Code similarity across a class: which students handed in the same lab code or written answer.

``sources`` collects each student's documents per lab (lab regions and own modules; written answers) and
the boilerplate; ``detect`` fingerprints and compares them; ``spans`` turns matches into lines; ``clusters`` groups
students sharing one implementation; ``pages`` writes the side-by-side pages and the report's section; ``check``
runs it all on a course. Nothing here changes a grade: a match is a reason to look, not a verdict.
"""
