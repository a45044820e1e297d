"""What the course provides; you do not edit these files (your five lab modules sit one level up).

The running example and scenarios (``example``, ``scenarios``), the course's errors (``errors``), the session
stores (``stores``), token estimators (``estimators``), scripted summarizers (``summarizers``), Pi sessions
(``pi_import``, ``repair``), the labs' manifest (``labs``); ``checking/``, what a check is; ``notebook/``, what
the notebooks' cells call.
"""
