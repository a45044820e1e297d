"""``python -m workbook``: the ``workbook`` command."""

import sys

from workbook.cli.main import main

sys.exit(main())
