"""Jupyter kernels inside the sandbox: the kernel manager nbgrader's autograde uses for student notebooks.

nbgrader's ``Execute`` preprocessor (nbclient underneath) starts one kernel per notebook with the
graded folder (``autograded/STUDENT/ASSIGNMENT``) as its cwd. ``SandboxKernelManager`` instead:

1. makes a ``workbook.grading.sandbox.private_dir`` and copies into it the regular files of that folder
   except the notebooks (so the student's package and the provided modules, never the notebooks,
   which hold every notebook's hidden tests at that point); symlinks and special files are skipped;
2. puts the kernel's connection file and its ipc sockets (``transport = "ipc"``) in that folder:
   no TCP port, so the kernel needs no network and parallel kernels never race for a port;
3. starts the kernel with ``workbook.grading.sandbox.wrap`` in that folder, interrupts it by message (a
   signal to bubblewrap would not reach it), and removes the folder after shutdown.

Nothing the kernel writes reaches the course. Its isolation mode is the ``isolation`` trait
(``c.SandboxKernelManager.isolation`` in ``nbgrader_config.py``, set per run by ``workbook autograde
--isolation``); in mode ``required`` a kernel is never started without a sandbox
(``SandboxUnavailable``). ``slot`` picks the sandbox uid of concurrent graders (``workbook autograde``
gives each worker its own).

nbgrader's ``Execute`` passes ``kernel_manager_class=AsyncKernelManager`` to nbclient as a keyword,
which overrides any ``c.Execute.kernel_manager_class`` setting; ``SandboxExecute`` is ``Execute``
with this manager, listed in ``c.Autograde.autograde_preprocessors`` (see ``workbook.course.layout``), and with
every output capped as it arrives (``workbook.grading.output_caps``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from pathlib import Path

from jupyter_client.kernelspec import KernelSpec
from jupyter_client.manager import AsyncKernelManager
from nbgrader.preprocessors import Execute
from traitlets import CaselessStrEnum, Integer, default

from workbook.grading.output_caps import CELL_CHARS, NOTEBOOK_CHARS, OUTPUT_CHARS, OutputBudget
from workbook.grading.sandbox import MODES, Limits, detect, private_dir, wrap


def copy_for_kernel(source: Path, dest: Path, uid: int) -> list[Path]:
    """Copy the regular files under ``source`` except notebooks (and ``__pycache__``, checkpoints) to
    ``dest``, which exists; symlinks, fifos, sockets and devices are skipped. Files and folders made
    belong to ``uid`` (when that is not this process's). Returns the copied files' relative paths."""
    copied = []
    for folder, dirs, files in os.walk(source):
        dirs[:] = sorted(
            name
            for name in dirs
            if name not in ("__pycache__", ".ipynb_checkpoints") and not os.path.islink(os.path.join(folder, name))
        )
        relative = Path(folder).relative_to(source)
        target = dest / relative
        target.mkdir(exist_ok=True)
        for name in sorted(files):
            path = Path(folder) / name
            if name.endswith((".ipynb", ".pyc")) or not stat.S_ISREG(path.lstat().st_mode):
                continue
            shutil.copyfile(path, target / name, follow_symlinks=False)
            copied.append(relative / name)
    if uid != os.getuid():
        for folder, dirs, files in os.walk(dest):
            for name in [folder, *(os.path.join(folder, entry) for entry in dirs + files)]:
                os.chown(name, uid, uid, follow_symlinks=False)
    return copied


class SandboxKernelManager(AsyncKernelManager):
    """An ``AsyncKernelManager`` whose kernel runs in the sandbox, in a private copy of its cwd (see the module)."""

    isolation = CaselessStrEnum(
        MODES,
        default_value="auto",
        config=True,
        help="required: never start a kernel without a sandbox; auto: sandbox when "
        "bubblewrap works here, else run as the grader; off: never sandbox.",
    )
    slot = Integer(0, config=True, help="Sandbox slot of this grader (uid FIRST_UID + slot as root).")

    @default("transport")
    def _transport_default(self) -> str:
        return "ipc"

    @property
    def kernel_spec(self) -> KernelSpec | None:
        """The kernel's spec, interrupted by message (a signal to bubblewrap would not reach the kernel)."""
        spec = super().kernel_spec
        if spec is not None:
            spec.interrupt_mode = "message"
        return spec

    async def _async_pre_start_kernel(self, **kw):
        """Make the private folder, copy the kernel's cwd into it, and wrap the kernel command in the sandbox.

        Raises ``SandboxUnavailable`` (before anything is started) when ``isolation`` is ``required`` and this
        machine cannot sandbox."""
        sandbox = detect(self.isolation)
        self.log.info("%s", sandbox.describe())
        source = Path(kw.get("cwd") or os.getcwd())
        self._private = contextlib.ExitStack()
        workdir = self._private.enter_context(private_dir(sandbox, self.slot))
        copy_for_kernel(source, workdir, sandbox.uid(self.slot))
        self.connection_file = str(workdir / "kernel.json")
        self.ip = str(workdir / "kernel-ipc")
        kw["cwd"] = str(workdir)
        try:
            kernel_cmd, kw = await super()._async_pre_start_kernel(**kw)
            if sandbox.uid(self.slot) != os.getuid():
                os.chown(self.connection_file, sandbox.uid(self.slot), sandbox.uid(self.slot))
        except BaseException:
            self._private.close()
            raise
        return wrap(sandbox, kernel_cmd, workdir=workdir, slot=self.slot, limits=Limits()), kw

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        """jupyter_client's cleanup, then (unless restarting) remove the private folder."""
        await super()._async_cleanup_resources(restart=restart)
        private = getattr(self, "_private", None)
        if not restart and private is not None:
            private.close()
            del self._private


class SandboxExecute(Execute):
    """nbgrader's ``Execute`` preprocessor with ``SandboxKernelManager`` as the kernel manager, whose outputs are
    capped as they arrive (``workbook.grading.output_caps``; nbclient has no limit of its own). Widget state is
    neither stored nor emulated (no Output widget collects outputs past the caps); an inert notebook would drop it
    anyway (``workbook.pipeline.inert``)."""

    output_chars = Integer(OUTPUT_CHARS, config=True, help="Characters one output keeps.")
    cell_chars = Integer(CELL_CHARS, config=True, help="Characters a cell's outputs keep together.")
    notebook_chars = Integer(NOTEBOOK_CHARS, config=True, help="Characters a notebook's outputs keep together.")

    def __init__(self, **kwargs):
        kwargs.setdefault("kernel_manager_class", SandboxKernelManager)
        kwargs.setdefault("store_widget_state", False)
        super().__init__(**kwargs)

    def on_comm_open_jupyter_widget(self, msg):
        """No widget is emulated: nbclient's Output widget would keep the outputs it captures past the caps."""
        return None

    def reset_execution_trackers(self) -> None:
        """nbclient's per-notebook trackers, and a fresh ``OutputBudget`` (``ValueError`` for caps out of order)."""
        super().reset_execution_trackers()
        self.output_budget = OutputBudget(self.output_chars, self.cell_chars, self.notebook_chars)

    def output(self, outs, msg, display_id, cell_index):
        """nbclient's handling of an output message, then the caps: the output kept, cut, or dropped."""
        out = super().output(outs, msg, display_id, cell_index)
        if out is None or not outs or outs[-1] is not out:
            return out
        kept = self.output_budget.admit(out, cell_index)
        if kept is None:
            outs.pop()
            if display_id:  # nbclient recorded the dropped output's index for later updates
                self._display_id_map[display_id][cell_index].pop()
            return None
        outs[-1] = kept
        return kept

    def _update_display_id(self, display_id, msg):
        """nbclient's ``update_display`` handling with the new data capped (``OutputBudget.admit_update``)."""
        if display_id in self._display_id_map and isinstance(msg.get("content", {}).get("data"), dict):
            msg["content"]["data"] = self.output_budget.admit_update(msg["content"]["data"])
            msg["content"]["metadata"] = {}
        super()._update_display_id(display_id, msg)
