"""The instructor's pipeline: release, collect, autograde, grades, feedback, export, report."""
