"""Real coding-agent sessions under the labs' rules: ``workbook inspect``."""
