"""``workbook collect``: nbgrader's collect, keeping only submissions whose owner is the student they name.

nbgrader's exchange files a submission under whatever name the submitter typed (``nbgrader submit
--student student1`` works for anyone), and its collect keeps each student's newest one, so a forged
later submission replaces the real one; nbgrader only logs "cheating attempt?". ``OwnerCheckedCollect``
is nbgrader's ``ExchangeCollect`` with a screen run before nbgrader picks the newest submission per
student: a submission is collected only if its folder and every file and folder in it (``lstat``, links
not followed) are owned by the account named like the student it claims. Anything else (another owner,
a symbolic link, a special file, an unreadable folder) is moved, untouched, to
``EXCHANGE/COURSE/quarantine/`` (the grader's, mode 700: a rename beside ``inbound/``, so nothing is
copied and the files keep their owner as evidence), one warning line names it, and nbgrader then
collects the student's newest genuine submission, and keeps its receipt: the time the submission took its final
form in the exchange (``workbook.course.received``), which decides its lateness.

Owners only mean something where every user has their own uid. Where the exchange cannot tell them
apart (every submission owned by one uid while naming several students, or an owner with no account
here), collect refuses and says why, unless ``accept_claimed_names`` is set (``--accept-claimed-names``):
then names are taken as typed, as plain nbgrader does, and only links and special files are quarantined.

``workbook collect`` runs it through nbgrader's API; the hub's grader service plugs the same class into
the formgrader's Collect button with ``c.ExchangeFactory.collect`` (deploy/jupyterhub/roles/grader/).
"""

from __future__ import annotations

import os
import pwd
import stat
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from nbgrader.apps.baseapp import NbGrader
from nbgrader.exchange.default import ExchangeCollect
from traitlets import Bool
from traitlets.config import Config

from workbook.course.layout import ACCEPT_FLAG, ASSIGNMENT, QUARANTINE, Course, CourseError
from workbook.course.received import arrival_time, record_receipt


@dataclass(frozen=True)
class Submission:
    """One folder of the inbound: the student it claims, its submission time (naive UTC), the uid owning it."""

    folder: Path
    student: str
    time: datetime
    owner_uid: int

    @property
    def owner(self) -> str:
        """The owning account's name, or ``uid N`` when no account has that uid."""
        return account_name(self.owner_uid) or f"uid {self.owner_uid}"


def account_name(uid: int) -> str | None:
    """The name of the account with ``uid``, or None when there is none."""
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return None


def unsafe_entry(folder: Path, student: str | None) -> str | None:
    """Why ``folder`` is not ``student``'s own plain submission, or None when it is.

    Checks the folder and everything below it with ``lstat`` (links are never followed): a symbolic
    link, anything other than a regular file or folder, a folder that cannot be read, or (unless
    ``student`` is None) an owner other than the account named ``student``. The reason names the path
    relative to ``folder`` and, for an owner, the owning account.
    """
    pending = [folder]
    while pending:
        path = pending.pop()
        where = str(path.relative_to(folder)) if path != folder else "the folder"
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            return f"{where} is a symbolic link"
        if not (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode)):
            return f"{where} is not a regular file or folder"
        if student is not None and account_name(info.st_uid) != student:
            return f"{where} is owned by {account_name(info.st_uid) or f'uid {info.st_uid}'}"
        if stat.S_ISDIR(info.st_mode):
            try:
                pending += sorted(path.iterdir(), reverse=True)
            except OSError as error:
                return f"{where} cannot be read ({error.strerror})"
    return None


def owners_unknowable(submissions: list[Submission]) -> str | None:
    """Why the owners of ``submissions`` cannot tell who submitted, or None when they can.

    They cannot when one uid owns every submission while they name more than one student (the
    servers share a uid), or when an owning uid has no account on this machine.
    """
    for submission in submissions:
        if account_name(submission.owner_uid) is None:
            return f"{submission.folder.name} is owned by uid {submission.owner_uid}, which has no account here"
    students = {submission.student for submission in submissions}
    uids = {submission.owner_uid for submission in submissions}
    if len(uids) == 1 and len(students) > 1:
        return (
            f"all {len(submissions)} submissions, naming {len(students)} different students, are owned by "
            f"{submissions[0].owner}: the users share one uid"
        )
    return None


class OwnerCheckedCollect(ExchangeCollect):
    """nbgrader's collect that moves forged or unsafe submissions to quarantine before it collects.

    Plugged in with ``c.ExchangeFactory.collect = "workbook.pipeline.collect.OwnerCheckedCollect"``. Raises
    nbgrader's ``ExchangeError`` (through ``fail``, so the formgrader shows the message) when owners
    cannot tell who submitted and ``accept_claimed_names`` is False, or when a submission cannot be
    moved to quarantine (then nothing is collected in that run).
    """

    accept_claimed_names = Bool(
        False,
        help="Collect submissions under the student name typed when submitting, even where the exchange "
        "cannot tell owners apart (one uid for every user). Links and special files are still quarantined.",
    ).tag(config=True)

    def init_src(self) -> None:
        """Quarantine what must not be collected, then let nbgrader pick each student's newest submission."""
        if self.coursedir.course_id:  # without one nbgrader's init_src fails and says so
            self.quarantine_unsafe()
        super().init_src()

    def do_copy(self, src: str, dest: str, log: object = None) -> None:
        """nbgrader's copy of the inbound folder ``src`` to ``submitted/STUDENT/ASSIGNMENT`` (``dest``), then the
        student's receipt: the newest change time of ``src`` and everything in it (``received.arrival_time``),
        which the student cannot set back, as the submission's time."""
        when = arrival_time(Path(src))
        super().do_copy(src, dest, log)
        student = Path(dest).parent.name
        record_receipt(Course(Path(self.coursedir.root)), student, when, "the exchange's change time")

    def submissions(self, student: str = "*") -> list[Submission]:
        """The inbound's submissions of this assignment claiming ``student`` ("*": anyone), oldest first."""
        inbound = Path(self.root, self.coursedir.course_id, "inbound")
        found = []
        for folder in inbound.glob(f"{student}+{self.coursedir.assignment_id}+*"):
            record = self._path_to_record(str(folder))
            found.append(Submission(folder, record["username"], record["timestamp"], os.lstat(folder).st_uid))
        return sorted(found, key=lambda submission: (submission.time, submission.folder.name))

    def quarantine_unsafe(self) -> None:
        """Move every submission that ``unsafe_entry`` rejects to quarantine, logging one warning line each.

        Fails (``ExchangeError``) without moving anything when ``owners_unknowable`` and owners are checked.
        """
        student = self.coursedir.student_id or "*"
        everyone = self.submissions()
        unknowable = owners_unknowable(everyone)
        if unknowable and not self.accept_claimed_names:
            self.fail(
                f"not collecting: the exchange cannot tell who submitted what ({unknowable}). Anyone can "
                "submit under any student's name, so collecting would grade whoever submitted last under "
                "that name. Give every user their own uid (deploy/README.md), or take the names as typed: "
                f"`workbook collect {ACCEPT_FLAG}` (formgrader: "
                "c.OwnerCheckedCollect.accept_claimed_names = True)"
            )
        if self.accept_claimed_names:
            self.check_owner = False  # nbgrader's own check would flag every submission
            self.log.warning("owner check off (%s): submissions are collected under the names typed", ACCEPT_FLAG)
        candidates = everyone if student == "*" else self.submissions(student)
        rejected = [
            (submission, reason)
            for submission in candidates
            if (reason := unsafe_entry(submission.folder, None if self.accept_claimed_names else submission.student))
        ]
        if rejected:
            quarantine = Path(self.root, self.coursedir.course_id, QUARANTINE)
            self.ensure_directory(str(quarantine), 0o700)
        for submission, reason in rejected:
            destination = quarantine / submission.folder.name
            try:
                os.rename(submission.folder, destination)
            except OSError as error:
                self.fail(
                    f"cannot move {submission.folder} to {destination} ({error.strerror}); nothing was "
                    "collected. Move it there as root, then collect again."
                )
            self.log.warning("quarantined, not collected: %s", quarantine_line(submission, reason, destination))
        self.log.info(
            "owner check: %d submission(s) of %s checked, %d quarantined",
            len(candidates),
            self.coursedir.assignment_id,
            len(rejected),
        )


def quarantine_line(submission: Submission, reason: str, destination: Path) -> str:
    """One line naming a quarantined submission: claimed student, real owner, submission time, reason, place."""
    return (
        f"claims {submission.student}, owned by {submission.owner}, submitted "
        f"{submission.time:%Y-%m-%d %H:%M:%S} UTC: {reason}; moved to {destination}"
    )


def nbgrader_config(course: Course) -> Config:
    """nbgrader's configuration as its own commands see it, then ``course``'s.

    That is every ``nbgrader_config.py`` on Jupyter's config path (on the hub, the grader role's: course
    id, exchange root), then the course's ``nbgrader_config.py`` with ``CourseDirectory.root`` set.
    Raises ``CourseError`` when ``course`` is not built.
    """
    loader = NbGrader()
    loader.load_cwd_config = False  # the course's own config is loaded explicitly below
    if any(Path(folder, "nbgrader_config.py").exists() for folder in loader.config_file_paths):
        loader.load_config_file()
    config = Config(loader.config)
    config.merge(course.config())
    return config


def collect(course: Course, accept_claimed_names: bool = False) -> str:
    """Collect the assignment's submissions into ``submitted/`` with ``OwnerCheckedCollect``; return nbgrader's log.

    Runs nbgrader's ``NbGraderAPI.collect`` (newer submissions replace collected ones). Raises
    ``CourseError`` with nbgrader's log (which says why) when collect fails or refuses.
    """
    config = nbgrader_config(course)
    config.ExchangeFactory.collect = OwnerCheckedCollect
    config.OwnerCheckedCollect.accept_claimed_names = accept_claimed_names
    result = course.api(config).collect(ASSIGNMENT)
    if not result["success"]:
        raise CourseError(f"nbgrader collect failed:\n{result.get('log') or result.get('error', '')}".rstrip())
    return result.get("log", "")
