"""The student's loop with a kernel running: edit a lab file, save, run again (issue 12).

- In a real IPython kernel with the notebook's own setup cell (autoreload on): a saved syntax error turns the
  status red naming file and line and makes the test cells fail (autoreload keeps the old code, which would
  pass), and "Your implementation" shows the file as saved, new helper included, without a restart.
- In practice mode's JupyterLab (``workbook practice DIR``) in Debian's Chromium (Playwright): no instructor
  tools and no assignment list; lab 3 runs all green and its budget slider is wide enough to set a token at a
  time; lab 2 runs all green, then a syntax error typed into ``grouping.py`` in JupyterLab's editor and saved
  turns the status red, naming the file and the line. Screenshot: ``test-artifacts/practice-lab2-syntax-error.png``.
  The browser tests skip, saying why, where Playwright or Chromium is absent, before JupyterLab is started.
- The Chinese edition (issue 27): lab 3 of a workspace made with ``--language zh`` shows its heading and its
  status light in Chinese.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
import requests
from browser import CHROMIUM, CHROMIUM_FLAGS, NO_HUB_EXTRA
from hub_harness import free_port
from jupyter_client.manager import start_new_kernel

from workbook.paths import NOTEBOOKS, REPO, SOLUTIONS

LAB3 = "03_budget_projection.ipynb"
BROKEN = "\n\ndef broken(:\n    pass\n"
LAB2 = "02_interaction_grouping.ipynb"
SCREENSHOT = REPO / "test-artifacts" / "practice-lab2-syntax-error.png"
NEW_HELPER = '''def fixed_costs(options: BudgetOptions, system: float) -> float:
    """What is left for messages once the fixed costs are paid."""
    return max(0, options.max_tokens - system - options.reserved_output - options.safety_margin)


'''
SPENT = "available = max(0, options.max_tokens - system - options.reserved_output - options.safety_margin)"

pytestmark = pytest.mark.slow


def lab3_workspace(folder: Path) -> Path:
    """``folder`` holding lab 3's notebook beside a copy of the solution package."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(NOTEBOOKS / LAB3, folder)
    shutil.copytree(SOLUTIONS, folder / "compaction_lab", ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def save(path: Path, text: str) -> None:
    """Write ``text`` as an editor saves a file, a little later than the last save (autoreload compares times)."""
    time.sleep(1.1)
    path.write_text(text)


class Kernel:
    """A python3 kernel in a folder; ``run(code)`` returns the outputs (iopub contents) of one execution."""

    def __init__(self, folder: Path) -> None:
        self.manager, self.client = start_new_kernel(kernel_name="python3", cwd=str(folder))

    def run(self, code: str) -> list[dict]:
        outputs: list[dict] = []

        def keep(message: dict) -> None:
            if message["msg_type"] in ("stream", "display_data", "execute_result", "error"):
                outputs.append(message["content"])

        self.client.execute_interactive(code, output_hook=keep, timeout=120)
        return outputs

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


def html_of(outputs: list[dict]) -> str:
    return "".join(output.get("data", {}).get("text/html", "") for output in outputs)


def text_of(outputs: list[dict]) -> str:
    return "".join(output.get("text", "") + output.get("data", {}).get("text/plain", "") for output in outputs)


def test_the_kernel_never_runs_code_the_file_no_longer_holds(tmp_path):
    folder = lab3_workspace(tmp_path / "labs")
    budget = folder / "compaction_lab" / "budget.py"
    cells = {cell.get("id"): cell.source for cell in nbformat.read(folder / LAB3, as_version=4).cells}
    kernel = Kernel(folder)
    try:
        kernel.run(cells["lab3_setup"])
        assert "5/5 visible checks pass" in html_of(kernel.run("show_status(3)"))
        assert kernel.run(cells["lab3_setup"]) == []  # a re-run prints nothing ("already loaded" was printed)

        source = budget.read_text()
        save(budget, source + BROKEN)
        line = source.count("\n") + 3
        kernel.run(cells["lab3_setup"])  # Run All: autoreload fails here and keeps the old code
        status = html_of(kernel.run("show_status(3)"))
        assert f"compaction_lab/budget.py does not compile: line {line}: invalid syntax" in status
        assert "#cf222e" in status and "visible checks pass" not in status
        [error] = [output for output in kernel.run(cells["lab3_fixed_costs"]) if "ename" in output]
        assert error["ename"] == "ChecksFailed" and f"budget.py does not compile: line {line}" in error["evalue"]

        edited = source.replace("def build_context(", NEW_HELPER + "def build_context(").replace(
            SPENT, "available = fixed_costs(options, system)"
        )
        save(budget, edited)
        kernel.run(cells["lab3_setup"])
        assert "5/5 visible checks pass" in html_of(kernel.run("show_status(3)"))
        shown = text_of(kernel.run(cells["lab3_source"]))
        assert shown.startswith("def build_context(") and shown.count("def build_context(") == 1
        assert "def fixed_costs(" in shown and "def measure(" in shown and "class BudgetOptions" not in shown
    finally:
        kernel.close()


@contextlib.contextmanager
def practice_server(folder: Path, language: str = "en"):
    """``workbook practice`` on a fresh workspace ``folder`` in edition ``language`` whose labs 2, 3 and 5 are the
    solutions, serving JupyterLab: yields (base URL, token, workspace)."""
    workbook = [sys.executable, "-m", "workbook.cli.main", "practice", str(folder)]
    subprocess.run([*workbook, "--no-lab", "--language", language], check=True, capture_output=True)
    for module in ("grouping", "budget", "resumption"):
        shutil.copy(SOLUTIONS / f"{module}.py", folder / "compaction_lab")
    port, token = free_port(), "practice-test-token"
    options = ["--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}"]
    options += ["--allow-root"] if os.geteuid() == 0 else []
    options += [f"--LabApp.workspaces_dir={folder.parent / 'workspaces'}"]  # no layout restored from other runs
    # Every cell stays in the page (JupyterLab's default windowing detaches cells scrolled out while Run All goes on).
    tracker = folder.parent / "settings" / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
    tracker.parent.mkdir(parents=True)
    tracker.write_text('{"windowingMode": "none"}')
    options += [f"--LabApp.user_settings_dir={folder.parent / 'settings'}"]
    log = folder.parent / "jupyterlab.log"
    with open(log, "w") as out:
        server = subprocess.Popen([*workbook, "--", *options], stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                if requests.get(f"{base}/api/status?token={token}", timeout=2).ok:
                    break
            except requests.ConnectionError:
                pass
            assert server.poll() is None, log.read_text()
            time.sleep(0.5)
        yield base, token, folder
    finally:
        server.terminate()  # the workbook process became JupyterLab, which stops its kernels
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.fixture(scope="module")
def practice_lab(tmp_path_factory):
    """JupyterLab on an English practice workspace (``practice_server``)."""
    with practice_server(tmp_path_factory.mktemp("practice") / "labs") as served:
        yield served


def test_practice_jupyterlab_has_no_instructor_tools_and_no_assignment_list(practice_lab):
    base, token, _ = practice_lab
    page = requests.get(f"{base}/lab?token={token}", timeout=30).text
    config = json.loads(
        re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>', page, re.S).group(1)
    )
    assert {
        "@jupyter/nbgrader:formgrader",
        "@jupyter/nbgrader:create-assignment",
        "@jupyter/nbgrader:assignment-list",
        "@jupyter/nbgrader:course-list",
        "@jupyter/nbgrader:menu",
    } <= set(config["disabledExtensions"])
    for path in ("formgrader/api/status", "assignments?course_id=x", "formgraders"):
        assert (
            requests.get(
                f"{base}/{path}&token={token}" if "?" in path else f"{base}/{path}?token={token}", timeout=30
            ).status_code
            == 404
        ), path


@pytest.fixture(scope="module")
def browser():
    """Playwright and a headless Debian Chromium: ``(sync_api, browser)``; skips, saying why, where either is
    absent. Requested before ``practice_lab``, so a skip starts no JupyterLab."""
    sync_api = pytest.importorskip("playwright.sync_api", reason=NO_HUB_EXTRA)
    if CHROMIUM is None:
        pytest.skip("chromium is not installed: run scripts/install-system-deps.sh")
    # Run All on a busy 2-core machine can take far longer than expect()'s 5 s default: wait as long as the page does.
    sync_api.expect.set_options(timeout=90_000)
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            yield sync_api, chromium
        finally:
            chromium.close()


def open_notebook(browser, base: str, token: str, notebook: str):
    """A new page on ``notebook`` in JupyterLab, its kernel idle; returns the page."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(90_000)
    page.goto(f"{base}/lab/tree/{notebook}?token={token}")
    kernel_idle(page).wait_for()
    return page


def notebook_outputs(page):
    """The outputs of the notebook on screen: JupyterLab keeps the notebooks of earlier tests in hidden tabs."""
    return page.locator(".jp-OutputArea-output").filter(visible=True)


def kernel_idle(page):
    """JupyterLab's kernel status button while the notebook's kernel is idle."""
    return page.get_by_role("button", name=re.compile(r"^Python 3 \(ipykernel\) \| Idle$"))


def test_lab3_runs_all_green_and_its_slider_sets_a_token_at_a_time_in_the_browser(browser, practice_lab):
    sync_api, chromium = browser
    base, token, _ = practice_lab
    page = open_notebook(chromium, base, token, LAB3)
    try:
        run_all(page)
        outputs = notebook_outputs(page)
        sync_api.expect(outputs.get_by_text(re.compile(r"5/5 visible checks pass")).first).to_be_visible()
        assert page.get_by_text("exchange directory").count() == 0
        assert page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").count() == 0
        track = outputs.locator(".widget-slider").first.locator(".slider-container")
        assert track.bounding_box()["width"] / 50 >= 8, "lab 3's max_tokens slider: pixels per token"
    finally:
        page.close()


def test_a_syntax_error_saved_in_grouping_py_turns_lab2_red_naming_the_line_in_the_browser(browser, practice_lab):
    """Done-when of issue 12: the kernel keeps running the old, passing code; the status must not be green."""
    sync_api, chromium = browser
    base, token, folder = practice_lab
    grouping = folder / "compaction_lab" / "grouping.py"
    saved = grouping.read_text()
    line = saved.count("\n") + 3  # Ctrl+End: the empty last line; then two newlines
    page = open_notebook(chromium, base, token, LAB2)
    try:
        run_all(page)
        outputs = notebook_outputs(page)
        sync_api.expect(outputs.get_by_text(re.compile(r"(\d+)/\1 visible checks pass")).first).to_be_visible()

        # The student opens grouping.py in JupyterLab's editor, types a syntax error at the end and saves.
        page.goto(f"{base}/lab/tree/compaction_lab/grouping.py?token={token}")
        page.locator(".jp-FileEditor .cm-content:visible").click()
        page.keyboard.press("Control+End")
        page.keyboard.type("\n\ndef broken(:\n")
        page.keyboard.press("Control+s")
        wait_for(lambda: "def broken(:" in grouping.read_text())
        assert grouping.read_text().splitlines()[line - 1].strip() == "def broken(:"

        page.goto(f"{base}/lab/tree/{LAB2}?token={token}")
        kernel_idle(page).wait_for()
        run_all(page)
        title = f"compaction_lab/grouping.py does not compile: line {line}: invalid syntax"
        red = outputs.locator("b", has_text=title)
        sync_api.expect(red.first).to_be_visible()
        assert red.first.evaluate("element => getComputedStyle(element).color") == "rgb(207, 34, 46)"  # views.RED
        # For the screenshot; JupyterLab may hide the cell again while Run All goes on, so no waiting for it.
        red.first.evaluate("element => element.scrollIntoView({block: 'center'})")
        SCREENSHOT.parent.mkdir(exist_ok=True)
        page.screenshot(path=str(SCREENSHOT))
        assert outputs.get_by_text(re.compile(r"visible checks pass")).count() == 0
    finally:
        page.close()
        grouping.write_text(saved)


def run_all(page) -> None:
    """Run → Run All Cells."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()


def wait_for(condition, seconds: float = 30) -> None:
    """Poll ``condition`` until it holds; fail after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)


def test_the_chinese_lab3_status_light_speaks_chinese_in_the_browser(browser, tmp_path):
    """Issue 27: a workspace released in Chinese shows lab 3 in Chinese, and its status light's fixed words too."""
    sync_api, chromium = browser
    with practice_server(tmp_path / "labs", language="zh") as (base, token, _):
        page = open_notebook(chromium, base, token, LAB3)
        try:
            sync_api.expect(page.get_by_role("heading", name="实验 3：预算投影")).to_be_visible()
            run_all(page)
            outputs = notebook_outputs(page)
            title = "实验 3（预算投影），compaction_lab/budget.py 中的 build_context(): 5/5 个可见检查通过"
            sync_api.expect(outputs.locator("b", has_text=title).first).to_be_visible()
            assert outputs.get_by_text(re.compile(r"可见检查：5 分（3 个单元格）")).count() >= 1
            assert outputs.get_by_text("visible checks pass").count() == 0
        finally:
            page.close()
