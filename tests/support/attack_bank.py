"""Attacks a clever student tried on the judge (a red-team pass), each now part of ``test_judge_bank.py``:

- ``MEMOISER``: replaces ``wire.observe`` with a lookup of the visible cases' expected observations,
  stripping a twin's renaming first (it strips a ``~xxxxxx`` suffix, the old renaming);
- ``memoiser(lookup, twins, spray)``: the same for today's renaming (issue 20): a lookup of the released expected
  values, a structural twin matcher and an error spray naming every id, key and path, alone or together
  (``tests/grading/test_memoiser_attacks.py``);
- ``ERROR_OF_EVERY_KIND``: every lab function raises one class deriving from all the course's errors, whose
  message lists every key, path and short string of its inputs, so every error case would find its words;
- ``DEEP_REPORT``: writes report lines the grader cannot read (a JSON list nested 100,000 deep, a line with
  a list as its key) to the runner's pipe, and rigs the notebook's own checks;
- ``SPRAYED_ERRORS``: a correct lab 4 whose every refusal is re-raised naming every argument's name and every
  key, path and short string of its inputs (``tests/grading/test_variants.py``);
- ``TWIN_LEAK``: in the hidden cases' sandbox, answers every twin with an error whose class name carries the
  hidden inputs (compressed), to read them on the feedback page.
"""

from __future__ import annotations

MEMOISER = r"""
def _install_memo():
    import json, re
    import compaction_lab.provided.checking.case as cases
    import compaction_lab.provided.checking.wire as wire
    known = cases.expected_observations()
    suffix = re.compile(r"(~[0-9a-f]{6})$")
    real = wire.observe

    def strip(value, found):
        if isinstance(value, str) and suffix.search(value):
            match = suffix.search(value)
            found[value[:match.start()]] = match.group(1)
            return value[:match.start()]
        if isinstance(value, list):
            return [strip(item, found) for item in value]
        if isinstance(value, dict):
            return {key: strip(item, found) for key, item in value.items()}
        return value

    def add(value, found):
        if isinstance(value, str):
            for base, tail in found.items():
                value = re.sub(r"(?<![\w~])" + re.escape(base) + r"(?![\w~])", base + tail, value)
            return value
        if isinstance(value, list):
            return [add(item, found) for item in value]
        if isinstance(value, dict):
            return {key: add(item, found) for key, item in value.items()}
        return value

    def observe(function, args, kwargs):
        found = {}
        plain = json.dumps(strip([args, kwargs], found), sort_keys=True)
        for case in cases.visible_cases():
            if case.function == function and json.dumps([list(case.args), dict(case.kwargs)], sort_keys=True) == plain:
                answer = add(dict(known[case.key]), found)
                answer["inputs_after"] = [args, kwargs]
                if "returned" in answer:
                    answer["shared"] = []
                return answer
        return real(function, args, kwargs)

    wire.observe = observe


_install_memo()
"""

ERROR_OF_EVERY_KIND = r"""
def _words(value, path="", out=None):
    out = [] if out is None else out
    if isinstance(value, dict):
        for key, item in value.items():
            here = f"{path}.{key}" if path else key
            out += [key, here]
            _words(item, here, out)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _words(item, path, out)
    elif isinstance(value, str) and len(value) < 40:
        out.append(value)
    return out


def _raise_every_kind(*args, **kwargs):
    from compaction_lab.provided import errors

    class Every(errors.SessionEntryError, errors.SessionStoreError, errors.InteractionError, errors.BudgetError,
                errors.CompactionError):
        pass

    raise Every(" ".join(dict.fromkeys(_words([list(args), kwargs])))[:1990])
"""

DEEP_REPORT = r"""
import compaction_lab.provided.notebook.cells as _cells
import os as _os
import sys as _sys

_cells.check = lambda grade_id: None
if _sys.argv and _sys.argv[0].endswith("runner.py") and len(_sys.argv) >= 4:
    _os.write(int(_sys.argv[3]), b"[" * 100000 + b"]" * 100000 + b"\n")
    _os.write(int(_sys.argv[3]), b'{"key": ["x"], "observation": {}}\n{"key": "case-0", "observation": []}\n')
"""

TWIN_LEAK = r"""
def _leak():
    import base64, json, sys, zlib
    if not (sys.argv and sys.argv[0].endswith("runner.py") and len(sys.argv) >= 4):
        return
    cases = json.load(open(sys.argv[1]))
    text = base64.b64encode(zlib.compress(json.dumps([c["args"] for c in cases]).encode(), 9)).decode()
    import compaction_lab.provided.checking.wire as wire
    real, state = wire.observe, {"at": 0}

    def observe(function, args, kwargs):
        if "id-" in json.dumps([args, kwargs]) or "~" in json.dumps([args, kwargs]):  # a twin, renamed
            piece, state["at"] = text[state["at"]:state["at"] + 200], state["at"] + 200
            print("LEAKED " + piece)
            return {"raised": {"classes": ["L_" + piece, "Exception"], "message": "LEAKED " + piece},
                    "inputs_after": [args, kwargs]}
        return real(function, args, kwargs)

    wire.observe = observe


try:
    _leak()
except Exception:
    pass
"""

# The memoiser of issue 20, rewritten for today's grader (twins renamed to ``id-`` and 8 hex digits). Installed at
# the end of a lab module, it replaces ``wire.observe`` in the runner; ``memoiser(...)`` picks its parts:
# ``lookup`` answers a visible case from the released expected values (a refusal with its class, naming what the
# case names); ``twins`` matches a renamed copy back to its visible case by structure (every ``id-xxxxxxxx`` name
# unified with the original's) and renames the answer; ``spray`` answers anything else with the lab's error class
# and a message naming every id, key and path of the input.
MEMOISER_PARTS = r"""
def _install_memoiser(lookup, twins, spray):
    import json, re
    import compaction_lab.provided.checking.case as cases
    import compaction_lab.provided.checking.wire as wire
    if getattr(wire, "_memoised", False):
        return
    wire._memoised = True
    known, visible, real = cases.expected_observations(), cases.visible_cases(), wire.observe
    renamed = re.compile(r"id-[0-9a-f]{8}$")
    errors = {"records": "SessionEntryError", "grouping": "InteractionError", "budget": "BudgetError",
              "compaction": "CompactionError", "resumption": "CompactionError"}

    def unify(mine, theirs, names):
        if isinstance(mine, str) and isinstance(theirs, str):
            if mine == theirs:
                return True
            return bool(renamed.match(theirs)) and names.setdefault(mine, theirs) == theirs
        if isinstance(mine, list) and isinstance(theirs, list):
            return len(mine) == len(theirs) and all(unify(a, b, names) for a, b in zip(mine, theirs))
        if isinstance(mine, dict) and isinstance(theirs, dict):
            return mine.keys() == theirs.keys() and all(unify(mine[k], theirs[k], names) for k in mine)
        return type(mine) is type(theirs) and mine == theirs

    def rename(value, names):
        if isinstance(value, str):
            for old, new in names.items():
                value = re.sub(r"(?<![\w-])" + re.escape(old) + r"(?![\w-])", new, value)
            return value
        if isinstance(value, list):
            return [rename(item, names) for item in value]
        if isinstance(value, dict):
            return {rename(key, names): rename(item, names) for key, item in value.items()}
        return value

    def words(value, path, out):
        if isinstance(value, dict):
            for key, item in value.items():
                here = f"{path}.{key}" if path else key
                out += [key, here]
                words(item, here, out)
        elif isinstance(value, list):
            for item in value:
                words(item, path, out)
        elif isinstance(value, str) and len(value) < 40:
            out.append(value)
        return out

    def raised(name, message, args, kwargs):
        return {"raised": {"classes": [name, "Exception"], "message": message[:1990]}, "inputs_after": [args, kwargs]}

    def observe(function, args, kwargs):
        for case in visible:
            names = {}
            if case.function != function or not unify([list(case.args), dict(case.kwargs)], [args, kwargs], names):
                continue
            if not (twins if names else lookup):
                break
            if case.raises:
                named = [item if isinstance(item, str) else item[0] for item in case.naming]
                return raised(case.raises, " ".join(rename(named, names)), args, kwargs)
            answer = rename(known[case.key]["returned"], names)
            return {"returned": answer, "shared": [], "inputs_after": [args, kwargs]}
        if spray:
            module = function.split(".")[0]
            return raised(errors.get(module, "BudgetError"), " ".join(dict.fromkeys(words([args, kwargs], "", []))),
                          args, kwargs)
        return real(function, args, kwargs)

    wire.observe = observe
"""


def memoiser(lookup: bool = True, twins: bool = True, spray: bool = True) -> str:
    """The text that installs the memoiser with the parts chosen, to append to a lab module."""
    return MEMOISER_PARTS + f"\n_install_memoiser({lookup}, {twins}, {spray})\n"


# Appended to a correct lab 4 module: its functions wrapped so that each refusal keeps its class and names every
# parameter's name and every key, path and short string of the call's inputs.
SPRAYED_ERRORS = r"""
def _spray_errors():
    import functools, inspect
    from compaction_lab.provided import errors

    def words(value, path, out):
        if isinstance(value, dict):
            for key, item in value.items():
                here = f"{path}.{key}" if path else key
                out += [key, here]
                words(item, here, out)
        elif isinstance(value, (list, tuple)):
            for item in value:
                words(item, path, out)
        elif isinstance(value, str) and len(value) < 40:
            out.append(value)
        return out

    def wrap(function):
        names = list(inspect.signature(function).parameters)

        @functools.wraps(function)
        def sprayed(*args, **kwargs):
            try:
                return function(*args, **kwargs)
            except (errors.BudgetError, errors.CompactionError, errors.InteractionError,
                    errors.SessionEntryError) as error:
                raise type(error)(" ".join(dict.fromkeys(names + words([list(args), kwargs], "", [])))) from None
        return sprayed

    for name in ("create_compaction_entry", "compaction_trigger", "should_compact", "group_tool_rounds",
                 "select_compaction_boundary"):
        globals()[name] = wrap(globals()[name])


_spray_errors()
"""
