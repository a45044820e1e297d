"""No stale binding after a save under a running kernel (issue 24), in a real IPython kernel on a workspace made
by ``workbook practice`` whose lab modules are the solutions': each notebook's setup cell (autoreload on), status
cell and test cells run; then each lab module in turn is saved again, with a harmless edit, and the status and test
cells run again. Every output must be the fresh kernel's.

Autoreload reloads a module at the next cell run after its file's modification time passes the one it recorded,
so each save sets the time a few seconds later than the last, and edits the module at module level (``SAVED``)
so that it runs again rather than being patched in place; the test then checks the reload really happened:
the module's import spec (replaced by every reload) has lost a marker set before the save, and every class the
module defines is a new object. ``tests/provided/test_reload.py`` checks the same in-process and faster.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
from ast import literal_eval
from pathlib import Path

import nbformat
import pytest
from jupyter_client.manager import start_new_kernel

from compaction_lab.provided.labs import LABS
from workbook.paths import SOLUTIONS
from workbook.student.practice import practice

pytestmark = pytest.mark.slow

LATER = 5
"""Seconds each save moves a file's modification time on, past what autoreload recorded."""
SAVED = re.compile(r'^if __name__ == "__main__":\n    print\("saved", \d+\)\n', re.MULTILINE)
"""The lines each save rewrites: a statement at module level that runs nothing on import, and that IPython 9's
autoreload cannot patch in place (it patches changed functions, classes and constants), so the module runs again
and defines new classes, as on any save that changes more than functions."""
SAVES = itertools.count(1)
KEPT = {
    "stream": ("name", "text"),
    "display_data": ("data",),
    "execute_result": ("data",),
    "error": ("ename", "evalue"),
}
"""What of each kind of output is compared (never execution counts or metadata)."""


class Kernel:
    """A python3 kernel in a folder; ``run(code)`` returns the outputs of one execution, as compared."""

    def __init__(self, folder: Path) -> None:
        self.manager, self.client = start_new_kernel(kernel_name="python3", cwd=str(folder))

    def run(self, code: str) -> list[dict]:
        outputs: list[dict] = []

        def keep(message: dict) -> None:
            kind = message["msg_type"]
            if kind not in KEPT:
                return
            output = {"kind": kind, **{key: message["content"][key] for key in KEPT[kind]}}
            last = outputs[-1] if outputs else {}
            if kind == "stream" and last.get("kind") == kind and last["name"] == output["name"]:
                last["text"] += output["text"]  # one stream, however the kernel split it into messages
            else:
                outputs.append(output)

        self.client.execute_interactive(code, output_hook=keep, timeout=300)
        return outputs

    def value(self, expression: str) -> str:
        """What ``print(expression)`` prints in the kernel."""
        [output] = self.run(f"print({expression})")
        return output["text"].strip()

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A practice workspace whose five lab modules are the solutions'."""
    folder = tmp_path_factory.mktemp("reload") / "labs"
    practice(folder)
    for lab in LABS:
        shutil.copyfile(SOLUTIONS / f"{lab.module}.py", folder / "compaction_lab" / f"{lab.module}.py")
    return folder


def save_later(path: Path) -> None:
    """Save ``path`` again with one harmless edit at module level (``SAVED``, ``SAVES`` counting the saves),
    its modification time ``LATER`` seconds after its last."""
    source = SAVED.sub("", path.read_text(encoding="utf-8"))
    path.write_text(f'{source}if __name__ == "__main__":\n    print("saved", {next(SAVES)})\n', encoding="utf-8")
    moved = path.stat().st_mtime + LATER
    os.utime(path, (moved, moved))


CLASS_IDS = (
    "{{name: id(item) for name, item in vars(sys.modules[{module!r}]).items()"
    " if isinstance(item, type) and item.__module__ == {module!r}}}"
)
"""The ids of the classes module ``module`` defines, by name, as a kernel expression."""


@pytest.mark.parametrize("lab", LABS, ids=lambda lab: lab.module)
def test_the_cells_read_as_in_a_fresh_kernel_after_each_lab_module_is_saved(workspace: Path, lab) -> None:
    cells = nbformat.read(workspace / lab.notebook, as_version=4).cells
    setup = next(cell.source for cell in cells if cell.get("id") == f"lab{lab.number}_setup")
    checked = [cell.get("id") for cell in cells if cell.get("id") == f"lab{lab.number}-status"]
    checked += [
        cell.get("id") for cell in cells if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade")
    ]
    sources = {cell.get("id"): cell.source for cell in cells}
    assert "%autoreload 2" in setup and len(checked) >= 4
    kernel = Kernel(workspace)
    try:
        kernel.run(setup)
        fresh = {cell_id: kernel.run(sources[cell_id]) for cell_id in checked}
        assert not [cell_id for cell_id, outputs in fresh.items() if any(out["kind"] == "error" for out in outputs)]
        kernel.run("import sys")
        renewed: set[str] = set()
        for saved in LABS:
            module = f"compaction_lab.{saved.module}"
            kernel.run(f"import {module}\nsys.modules[{module!r}].__spec__.reload_marker = True")
            classes = kernel.value(CLASS_IDS.format(module=module))
            save_later(workspace / "compaction_lab" / f"{saved.module}.py")
            again = {cell_id: kernel.run(sources[cell_id]) for cell_id in checked}
            assert kernel.value(f"hasattr(sys.modules[{module!r}].__spec__, 'reload_marker')") == "False", module
            ids, now = literal_eval(classes), literal_eval(kernel.value(CLASS_IDS.format(module=module)))
            assert now.keys() == ids.keys() and not [name for name in ids if ids[name] == now[name]], module
            assert again == fresh, f"{lab.notebook} after a save of {saved.module}.py"
            renewed |= set(ids)
        assert {"BudgetOptions", "CachePolicy", "Context", "CompactionOptions", "ResumePoint"} <= renewed
    finally:
        kernel.close()
