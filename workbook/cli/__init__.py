"""The command layer: one thin module per ``workbook`` command (its arguments, then a call into the work)."""
