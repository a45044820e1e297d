"""The Python environment a test hub's accounts run, outside the checkout: every account may read it wherever
the checkout lies (a clone in a private home, or under a ``chmod 700`` folder, as CI's may be).

``hub_environment(dest)`` fills ``dest`` (a fresh folder every account may traverse) with:

- ``python/``: a virtual environment of ``shared_interpreter()`` (this environment's Python version, one every
  account may run) whose ``.pth`` file puts the two folders below on ``sys.path``, with this environment's
  console scripts (their shebangs rewritten) and a copy of its Jupyter data and config (``share``, ``etc``);
- ``site-packages/``: a copy of this environment's installed packages but this project's own install (an
  editable one points into the checkout);
- ``project/``: this project's package and the folders its wheel carries, laid out as the wheel installs them
  (``pyproject.toml``'s ``packages`` and ``force-include``), so no server imports from the checkout;
- ``deploy/jupyterhub/``: a copy of the deployment's hub config and the roles' Jupyter config folders, which
  the servers read.

Copies are hard links where the file system allows (a second for the whole environment) and the file is
readable by everyone; otherwise copies made readable by everyone. Folders are mode 755. Nothing is kept
between hubs: ``dest`` goes with the hub's folder.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

from workbook.paths import REPO

PROJECT_DISTRIBUTION = "compaction_workbook"
"""This project's distribution name as installed (``compaction_workbook-0.1.0.dist-info``)."""


def shared_interpreter() -> Path | None:
    """A Python of this environment's version that every account may run: this environment's base
    interpreter when its installation is world-readable, else the system's ``/usr/bin/pythonX.Y``; None
    when neither is."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for prefix in (Path(sys.base_prefix), Path("/usr")):
        interpreter = prefix / "bin" / version
        paths = [interpreter, prefix / "lib" / version, *interpreter.parents]
        if all(path.exists() and path.stat().st_mode & stat.S_IXOTH for path in paths):
            return interpreter
    return None


def readable_copy(source: Path, dest: Path, skip=lambda path: False) -> None:
    """Copy the tree ``source`` to the new folder ``dest`` for every account: folders mode 755, each file a hard
    link when it is readable by everyone and on the same file system, else a copy readable by everyone
    (executable by everyone when its owner may execute it); symlinks as they are. ``skip(entry)`` leaves an
    entry of ``source`` itself out; ``__pycache__`` folders are left out."""
    dest.mkdir(mode=0o755, parents=True)
    os.chmod(dest, 0o755)
    for entry in sorted(source.iterdir()):
        target = dest / entry.name
        if skip(entry) or entry.name == "__pycache__":
            continue
        if entry.is_symlink():
            target.symlink_to(os.readlink(entry))
        elif entry.is_dir():
            readable_copy(entry, target)
        elif entry.is_file():
            mode = entry.stat().st_mode
            if mode & stat.S_IROTH:
                try:
                    os.link(entry, target)
                    continue
                except OSError:  # another file system, or links not allowed
                    pass
            shutil.copyfile(entry, target)
            os.chmod(target, 0o755 if mode & stat.S_IXUSR else 0o644)


def _project_files(project: Path) -> None:
    """``project`` as this project's wheel installs it: the package folders and the wheel's ``force-include``."""
    wheel = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["hatch"]["build"]["targets"]
    wheel = wheel["wheel"]
    project.mkdir(mode=0o755)
    for package in wheel["packages"]:
        readable_copy(REPO / package, project / package)
    for source, target in wheel.get("force-include", {}).items():
        readable_copy(REPO / source, project / target)


def _own_install(path: Path) -> bool:
    """True for a file or folder of site-packages that belongs to this project's own (editable) install."""
    name = path.name
    return (
        name.startswith((f"{PROJECT_DISTRIBUTION}-", f"_editable_impl_{PROJECT_DISTRIBUTION}", "__editable__"))
        or name == "workbook"
    )


def hub_environment(dest: Path) -> Path:
    """Fill ``dest`` (see the module) and return the environment's ``bin`` folder. Raises RuntimeError when no
    Python of this version is one every account may run."""
    interpreter = shared_interpreter()
    if interpreter is None:
        raise RuntimeError(f"no Python {sys.version_info.major}.{sys.version_info.minor} that every account may run")
    python = dest / "python"
    subprocess.run([str(interpreter), "-m", "venv", "--without-pip", str(python)], check=True)
    packages = Path(sysconfig.get_paths()["purelib"])
    readable_copy(packages, dest / "site-packages", skip=_own_install)
    _project_files(dest / "project")
    readable_copy(REPO / "deploy" / "jupyterhub", dest / "deploy" / "jupyterhub")
    shared_packages = Path(sysconfig.get_paths(vars={"base": str(python), "platbase": str(python)})["purelib"])
    (shared_packages / "workbook-environment.pth").write_text(
        f"import site; site.addsitedir({str(dest / 'site-packages')!r})\n{dest / 'project'}\n"
    )
    for folder in ("share", "etc"):
        if Path(sys.prefix, folder).is_dir():
            readable_copy(Path(sys.prefix, folder), python / folder)
    scripts = Path(sys.executable).parent
    for script in sorted(scripts.iterdir()):
        target = python / "bin" / script.name
        if target.exists() or not script.is_file():
            continue
        shebang, _, body = script.read_bytes().partition(b"\n")
        if shebang.startswith(f"#!{scripts}/python".encode()):  # a console script of this environment
            target.write_bytes(f"#!{python / 'bin' / 'python'}\n".encode() + body)
            target.chmod(0o755)
    return python / "bin"
