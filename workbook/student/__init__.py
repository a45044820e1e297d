"""The student's tools without a hub: a practice workspace and ``workbook check``."""
