"""The oracle: the course's reference solutions of the labs a graded lab uses, answering the runner's calls.

``python -s -E -m compaction_lab._grader.oracle READ_FD WRITE_FD FUNCTION...`` runs in a sandbox of its
own, beside the grader's runner (``runner.py``), in a package the runner's code cannot read: the reference
modules of the labs the graded lab uses, a stub of the graded lab (its functions answered by the runner,
that is by your code) and the starters of the other labs. It answers calls of the ``FUNCTION``s named
(``budget.build_context``, ...) over ``relay.py``'s channel until the runner closes its pipe; what it prints
goes nowhere.
"""

from __future__ import annotations

import importlib
import sys

from . import relay


def main(argv: list[str]) -> int:
    """Serve the functions ``argv[2:]`` on the channel reading fd ``argv[0]`` and writing fd ``argv[1]``."""
    read_fd, write_fd, *functions = argv
    channel = relay.connect(int(read_fd), int(write_fd), functions)
    for module in sorted({function.rpartition(".")[0] for function in functions}):
        importlib.import_module(f"compaction_lab.{module}")
    channel.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
