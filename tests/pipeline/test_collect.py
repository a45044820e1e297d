"""``workbook collect`` on a fake exchange: forged or unsafe submissions go to quarantine, the real ones are collected.

The exchange is built in tmp_path as nbgrader's submit leaves it (``inbound/STUDENT+ASSIGNMENT+TIME+RANDOM/``),
each folder chowned to the account that "submitted" it. Two existing system accounts play the students (their
names are the student ids), so the tests need root; they skip without it.
"""

from __future__ import annotations

import os
import pwd
import shutil
from datetime import datetime
from pathlib import Path

import pytest
from nbgrader.api import Gradebook
from traitlets.config import Config

from workbook.cli.main import main
from workbook.course.config import config_text
from workbook.course.layout import ASSIGNMENT, Course
from workbook.course.received import Received, arrival_time, read_receipt
from workbook.pipeline.collect import QUARANTINE, nbgrader_config

COURSE_ID = "compaction-workbook"
ACCOUNTS = ("daemon", "bin", "sys", "nobody")  # Debian's base accounts; any two will do
NO_ACCOUNT_UID = 54321


@pytest.fixture
def students() -> tuple[pwd.struct_passwd, pwd.struct_passwd]:
    """(victim, forger): two accounts whose names serve as student ids."""
    if os.getuid() != 0:
        pytest.skip("chowning submissions to other accounts needs root")
    found = []
    for name in ACCOUNTS:
        try:
            found.append(pwd.getpwnam(name))
        except KeyError:
            continue
    if len(found) < 2:
        pytest.skip(f"needs two of the accounts {ACCOUNTS}")
    return found[0], found[1]


@pytest.fixture(scope="module")
def empty_gradebook(tmp_path_factory) -> Path:
    """An empty gradebook of the course, made once (nbgrader runs alembic for that, seconds)."""
    path = tmp_path_factory.mktemp("gradebook") / "gradebook.db"
    with Gradebook(f"sqlite:///{path}", COURSE_ID):
        pass
    return path


@pytest.fixture
def course(tmp_path, empty_gradebook) -> Course:
    """A course (nbgrader config, empty gradebook) on the empty exchange ``tmp_path/exchange``."""
    exchange = tmp_path / "exchange"
    (exchange / COURSE_ID / "inbound").mkdir(parents=True)
    course = Course(tmp_path / "course")
    course.root.mkdir()
    course.config_file.write_text(
        config_text(course_id=COURSE_ID) + f"c.Exchange.root = {str(exchange)!r}\n", encoding="utf-8"
    )
    shutil.copyfile(empty_gradebook, course.root / "gradebook.db")
    return course


def inbound(course: Course) -> Path:
    """The exchange's inbound folder of ``course``."""
    return Path(nbgrader_config(course).Exchange.root) / COURSE_ID / "inbound"


def submit(course: Course, claimed: str, owner: int, minute: int, work: str) -> Path:
    """A submission claiming ``claimed`` at 10:MINUTE UTC, its folder and files owned by uid ``owner``;
    ``work.txt`` says ``work``."""
    folder = inbound(course) / f"{claimed}+{ASSIGNMENT}+2026-12-15 10:{minute:02d}:00.000000 UTC+r{minute}"
    (folder / "compaction_lab").mkdir(parents=True)
    (folder / "work.txt").write_text(work, encoding="utf-8")
    (folder / "compaction_lab" / "budget.py").write_text("# budget\n", encoding="utf-8")
    (folder / "timestamp.txt").write_text(f"2026-12-15 10:{minute:02d}:00.000000 UTC", encoding="utf-8")
    for path in (folder, *folder.rglob("*")):
        os.chown(path, owner, -1)
    return folder


def collected(course: Course, student: str) -> str | None:
    """``work.txt`` of ``student``'s collected submission, None when nothing was collected."""
    path = course.submitted(student) / "work.txt"
    return path.read_text(encoding="utf-8") if path.exists() else None


def run_collect(course: Course, capsys, *flags: str) -> tuple[int, str]:
    """``workbook collect --course COURSE FLAGS``: (exit code, output on one line)."""
    code = main(["collect", "--course", str(course.root), *flags])
    return code, " ".join(capsys.readouterr().out.split())


def test_forgery_is_quarantined_and_the_victim_keeps_their_own_work(course, students, capsys):
    victim, forger = students
    submit(course, victim.pw_name, victim.pw_uid, 1, "the victim's work")
    submit(course, forger.pw_name, forger.pw_uid, 2, "the forger's own work")
    forged = submit(course, victim.pw_name, forger.pw_uid, 3, "the forger's work, filed as the victim's")

    code, output = run_collect(course, capsys)

    assert code == 0, output
    quarantined = inbound(course).parent / QUARANTINE / forged.name
    assert (
        f"quarantined, not collected: claims {victim.pw_name}, owned by {forger.pw_name}, submitted "
        f"2026-12-15 10:03:00 UTC: the folder is owned by {forger.pw_name}; moved to {quarantined}"
    ) in output
    assert "owner check: 3 submission(s) of compaction_labs checked, 1 quarantined" in output
    assert collected(course, victim.pw_name) == "the victim's work"
    assert collected(course, forger.pw_name) == "the forger's own work"
    assert not forged.exists()
    assert (quarantined / "work.txt").read_text() == "the forger's work, filed as the victim's"
    assert quarantined.stat().st_uid == forger.pw_uid  # moved, not copied: the owner stays as evidence
    assert oct(quarantined.parent.stat().st_mode & 0o777) == "0o700"


@pytest.mark.parametrize(
    ("plant", "reason"),
    [
        (lambda folder, forger: os.chown(folder / "work.txt", forger.pw_uid, -1), "work.txt is owned by {forger}"),
        (
            lambda folder, forger: os.lchown(
                os.symlink("/etc/shadow", folder / "compaction_lab" / "records.py")
                or folder / "compaction_lab" / "records.py",
                forger.pw_uid,
                -1,
            ),
            "compaction_lab/records.py is a symbolic link",
        ),
        (lambda folder, forger: os.mkfifo(folder / "pipe"), "pipe is not a regular file or folder"),
    ],
    ids=["file-of-another-account", "symlink", "fifo"],
)
def test_a_submission_holding_another_owners_file_or_a_link_is_quarantined(course, students, capsys, plant, reason):
    victim, forger = students
    submit(course, victim.pw_name, victim.pw_uid, 1, "the victim's work")
    tampered = submit(course, victim.pw_name, victim.pw_uid, 2, "tampered")
    plant(tampered, forger)

    code, output = run_collect(course, capsys)

    assert code == 0, output
    assert f"claims {victim.pw_name}, owned by {victim.pw_name}" in output
    assert reason.format(forger=forger.pw_name) in output
    assert collected(course, victim.pw_name) == "the victim's work"
    assert (inbound(course).parent / QUARANTINE / tampered.name).is_dir()


def test_one_uid_for_every_student_is_refused_unless_names_are_accepted(course, students, capsys):
    victim, shared = students
    first = submit(course, victim.pw_name, shared.pw_uid, 1, "work A")
    second = submit(course, shared.pw_name, shared.pw_uid, 2, "work B")

    code, output = run_collect(course, capsys)

    assert code == 1
    assert (
        f"not collecting: the exchange cannot tell who submitted what (all 2 submissions, naming 2 different "
        f"students, are owned by {shared.pw_name}: the users share one uid)"
    ) in output
    assert "workbook collect --accept-claimed-names" in output
    assert first.exists() and second.exists()  # nothing moved
    assert not (course.root / "submitted").exists() and not (inbound(course).parent / QUARANTINE).exists()

    code, output = run_collect(course, capsys, "--accept-claimed-names")

    assert code == 0, output
    assert "owner check off (--accept-claimed-names)" in output and "cheating attempt" not in output
    assert (collected(course, victim.pw_name), collected(course, shared.pw_name)) == ("work A", "work B")


def test_an_owner_without_an_account_is_refused(course, students, capsys):
    victim, _ = students
    submit(course, victim.pw_name, NO_ACCOUNT_UID, 1, "work")

    code, output = run_collect(course, capsys)

    assert code == 1
    assert f"is owned by uid {NO_ACCOUNT_UID}, which has no account here" in output
    assert collected(course, victim.pw_name) is None


def test_nbgraders_api_uses_the_check_when_the_factory_names_it(course, students):
    """What the hub's grader config does for the formgrader's Collect button."""
    victim, forger = students
    submit(course, victim.pw_name, victim.pw_uid, 1, "the victim's work")
    submit(course, victim.pw_name, forger.pw_uid, 2, "forged")
    config = Config(nbgrader_config(course))
    config.ExchangeFactory.collect = "workbook.pipeline.collect.OwnerCheckedCollect"

    result = course.api(config).collect(ASSIGNMENT)

    assert result["success"], result
    assert f"[WARNING] quarantined, not collected: claims {victim.pw_name}, owned by {forger.pw_name}" in result["log"]
    assert collected(course, victim.pw_name) == "the victim's work"


def test_collect_keeps_the_exchanges_change_time_as_the_receipt_not_the_students_text(course, students, capsys):
    """The folder name and ``timestamp.txt`` say 10:01 (the student's ``nbgrader submit`` writes both); the
    receipt is when the folder took its final form, which no account but root can set back."""
    victim, _ = students
    folder = submit(course, victim.pw_name, victim.pw_uid, 1, "the victim's work")
    os.utime(folder / "work.txt", (0, 0))  # a student can set a file's modification time, never its change time
    changed = arrival_time(folder)

    code, output = run_collect(course, capsys)

    assert code == 0, output
    receipt = read_receipt(course, victim.pw_name)
    assert receipt == Received(changed, "the exchange's change time")
    assert receipt.time.year >= 2026 and receipt.time != datetime(2026, 12, 15, 10, 1)
