"""Student notebooks made inert (``workbook.pipeline.inert``), the pages' Content-Security-Policy
(``workbook.page_policy``) and the caps on what a grading kernel displays (``workbook.grading.output_caps``,
through ``SandboxExecute`` with a real kernel, unsandboxed)."""

from __future__ import annotations

import re

import pytest
from nbconvert import HTMLExporter
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell
from traitlets.config import Config

from workbook.grading.kernel import SandboxExecute
from workbook.grading.output_caps import OutputBudget, cut_note, output_chars
from workbook.page_policy import POLICY, policy_meta, with_policy
from workbook.pipeline.feedback_words import feedback_word
from workbook.pipeline.inert import PROTOCOLS, InertNotebook, removed_note
from workbook.pipeline.report import render

ANSWER = (
    "My answer is **strict**: <script>window.__pwned = 'md'</script> <img src=x onerror=\"window.__pwned = 1\">"
    " [see this](javascript:window.__pwned=2) <a href='javascript:void(0)'>or this</a> and <em>that</em>.\n\n"
    "```\nfirst\n\n**not bold** <i>\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
)
ACTIVE = ("<script", "onerror", "javascript:", "__pwned = 1")


def inert(*cells, widgets: bool = False):
    notebook = new_notebook(cells=list(cells))
    if widgets:
        notebook.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {"x": {}}}}
    return InertNotebook().preprocess(notebook, {})[0]


def test_a_written_answer_keeps_its_formatting_and_loses_everything_active():
    cell = inert(new_markdown_cell(ANSWER)).cells[0]
    assert cell.source.startswith("<div><p>My answer is <strong>strict</strong>: ")
    assert "<em>that</em>" in cell.source and "<td>1</td>" in cell.source
    assert [word for word in ACTIVE if word in cell.source] == []
    assert "\n" not in cell.source, "one line: a markdown renderer reads it as one HTML block"
    assert "<pre><code>first&#10;&#10;**not bold** &lt;i&gt;&#10;</code></pre>" in cell.source
    page, _ = HTMLExporter(template_name="classic").from_notebook_node(new_notebook(cells=[cell]))
    body = page[page.index("<body") :]
    assert "<strong>strict</strong>" in body and "<pre><code>first\n\n**not bold** &lt;i&gt;\n</code></pre>" in body
    assert [word for word in ("onerror", "javascript:", "__pwned = 1") if word in body] == []
    assert "<script>window.__pwned" not in body


def test_making_a_notebook_inert_twice_changes_nothing_more():
    once = inert(new_markdown_cell(ANSWER))
    twice = InertNotebook().preprocess(once, {})[0]
    assert twice.cells[0].source == once.cells[0].source


def test_outputs_keep_only_safe_types_and_a_dropped_output_becomes_one_line():
    outputs = [
        new_output(
            "display_data",
            data={
                "text/html": "<b onclick='x()'>bold</b><script>alert(1)</script><style>p{}</style>",
                "application/javascript": "alert(1)",
                "text/plain": "<HTML object>",
            },
        ),
        new_output("display_data", data={"application/vnd.jupyter.widget-view+json": {"model_id": "m"}}),
        new_output("display_data", data={"image/svg+xml": "<svg onload='alert(1)'/>", "text/latex": "$x$"}),
        new_output("display_data", data={"image/png": 'x" onerror="alert(1)'}),
        new_output("display_data", data={"image/png": "iVBORw0KGgo="}, metadata={"image/png": {"width": 4, "x": "y"}}),
        new_output("execute_result", data={"text/markdown": "*it* [x](javascript:y)"}, execution_count=1),
        new_output("stream", name='stdout"><script>', text="<script>printed</script>"),
        new_output("error", ename="E", evalue="<b>v</b>", traceback=["line"]),
    ]
    cell = inert(new_code_cell("x", outputs=outputs)).cells[0]
    kept = [output.get("data") or output.get("text") or output.get("traceback") for output in cell.outputs]
    assert kept == [
        {"text/html": "<b>bold</b>alert(1)p{}", "text/plain": "<HTML object>"},
        feedback_word("widget") + "\n",  # one line: the widget is interactive in JupyterLab
        {"text/plain": removed_note(["image/svg+xml", "text/latex"])},
        {"text/plain": removed_note(["image/png"])},
        {"image/png": "iVBORw0KGgo="},
        {"text/markdown": '<div><p><em>it</em> <a href="#harmful-link">x</a></p></div>'},
        "<script>printed</script>",  # a stream: nbconvert escapes it when it renders the page
        ["line"],
    ]
    assert cell.outputs[4].metadata == {"image/png": {"width": 4}}
    assert cell.outputs[6].name == "stdout"
    page, _ = HTMLExporter(template_name="classic").from_notebook_node(new_notebook(cells=[cell]))
    assert "<script>printed" not in page and "&lt;script&gt;printed" in page and "alert(1)</script>" not in page


def test_a_context_table_keeps_its_layout_and_a_style_nothing_else():
    row = (
        "<table><tr style='background-color:#ddf4ff'><td style='text-align:left;white-space:pre-wrap;"
        "background:url(https://x.test/a.png);margin:-900px;position:fixed'>u1</td></tr></table>"
    )
    shown = new_output("display_data", data={"text/html": row})
    (output,) = inert(new_code_cell("x", outputs=[shown])).cells[0].outputs
    assert output.data["text/html"] == (
        '<table><tbody><tr style="background-color:#ddf4ff;">'
        '<td style="text-align:left;white-space:pre-wrap;">u1</td></tr></tbody></table>'
    )


def test_a_widget_says_in_its_notebooks_edition_that_it_is_interactive_in_jupyterlab():
    widget = new_output("display_data", data={"application/vnd.jupyter.widget-view+json": {}, "text/plain": "VBox()"})
    notebook = new_notebook(cells=[new_code_cell("grouping_explorer()", outputs=[widget])])
    notebook.metadata["workbook"] = {"language": "vi"}
    (output,) = InertNotebook().preprocess(notebook, {})[0].cells[0].outputs
    assert output.text == "[tiện ích tương tác: mở notebook này trong JupyterLab và chạy ô để dùng]\n"


def test_raw_cells_widget_state_and_attachments_are_made_inert():
    answer = new_markdown_cell("see ![x](attachment:x.svg)")
    answer.attachments = {"x.svg": {"image/svg+xml": "<svg onload='alert(1)'/>"}}
    answer.metadata["widgets"] = {"state": {}}
    notebook = inert(
        answer, new_raw_cell("<script>alert(1)</script><b>r</b>", metadata={"raw_mimetype": "text/html"}), widgets=True
    )
    assert "widgets" not in notebook.metadata and "widgets" not in notebook.cells[0].metadata
    assert "attachments" not in notebook.cells[0] and notebook.cells[0].source == "<div><p>see </p></div>"
    assert notebook.cells[1].source == "alert(1)<b>r</b>"


def test_links_keep_only_bleachs_protocols():
    assert PROTOCOLS == {"http", "https", "mailto"}
    links = '[a](https://example.org) <a href="data:text/html,x">b</a> <a href="vbscript:x">c</a> [d](#top) [e](file:x)'
    cell = inert(new_markdown_cell(links)).cells[0]
    assert re.findall(r"<a[^>]*>", cell.source) == [
        '<a href="https://example.org">',
        "<a>",  # bleach
        "<a>",
        '<a href="#top">',
        '<a href="#harmful-link">',  # mistune, before bleach
    ]


def test_every_page_gets_the_policy_first_in_its_head():
    page = with_policy("<!DOCTYPE html><html><HEAD lang='en'><script>x</script></head></html>")
    assert page.index(policy_meta()) == page.index("<HEAD lang='en'>") + len("<HEAD lang='en'>")
    assert "script-src 'none'" in POLICY and "object-src 'none'" in POLICY and "base-uri 'none'" in POLICY
    assert 'content="default-src &#x27;none&#x27;; script-src &#x27;none&#x27;' in policy_meta()
    with pytest.raises(ValueError, match="without <head>"):
        with_policy("<p>no head</p>")


def test_the_report_page_carries_the_policy():
    from workbook.pipeline.report import Cohort

    data = Cohort(["<script>s</script>"], {"<script>s</script>": {}}, {"<script>s</script>": {}}, {}, {}, [])
    page = render(data, [])
    assert page.index(policy_meta()) < page.index("<meta charset")
    assert "<script" not in page


def budget(**caps):
    return OutputBudget(**{"output_chars": 10, "cell_chars": 25, "notebook_chars": 40, **caps})


def stream(text: str):
    return new_output("stream", name="stdout", text=text)


def test_an_output_is_cut_at_its_cap_with_one_note():
    kept = budget().admit(stream("x" * 30), 0)
    assert kept.text == "x" * 10 + cut_note("this output", 10)
    shown = budget().admit(new_output("display_data", data={"text/plain": "y" * 30, "text/html": "z" * 30}), 0)
    assert shown.data == {"text/plain": "y" * 10 + cut_note("this output", 10)}
    error = budget().admit(new_output("error", ename="E", evalue="v" * 4, traceback=["t" * 8, "u" * 8]), 0)
    assert error.evalue == "vvvv" and error.traceback == ["t" * 6, cut_note("this output", 10)]


def test_a_cell_and_a_notebook_stop_at_their_caps_with_one_note_each():
    caps = budget()
    first = [caps.admit(stream("a" * 10), 0) for _ in range(4)]
    assert [item.text if item else None for item in first] == [
        "a" * 10,
        "a" * 10,
        "a" * 5 + cut_note("this cell", 25),
        None,
    ]
    second = [caps.admit(stream("b" * 10), 1) for _ in range(3)]
    assert [item.text if item else None for item in second] == ["b" * 10, "b" * 5 + cut_note("this notebook", 40), None]
    assert caps.admit(stream("c"), 2) is None and caps.used == 40
    assert caps.admit_update({"text/plain": "d"}) == {"text/plain": cut_note("this notebook", 40).lstrip("\n")}


def test_an_update_of_a_display_is_capped_and_counted():
    caps = budget()
    assert caps.admit_update({"text/plain": "e" * 8}) == {"text/plain": "e" * 8} and caps.used == 8
    assert caps.admit_update({"text/plain": "e" * 11}) == {"text/plain": cut_note("this output", 10).lstrip("\n")}
    assert output_chars(new_output("display_data", data={"application/json": {"k": "v"}})) == len('{"k": "v"}')


def test_caps_out_of_order_are_refused():
    with pytest.raises(ValueError, match="per output <= per cell <= per notebook"):
        OutputBudget(output_chars=10, cell_chars=5, notebook_chars=40)


BOMB = """
from IPython.display import display, HTML, update_display
for _ in range(3):
    print("p" * 3000, flush=True)
display(HTML("h" * 3000))
display(HTML("small"), display_id="d")
update_display(HTML("u" * 3000), display_id="d")
"""


def test_the_grading_kernel_caps_what_a_cell_displays_as_it_arrives():
    notebook = new_notebook(cells=[new_code_cell(BOMB), new_code_cell("print('q' * 5000)")])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    unsandboxed = Config({"SandboxKernelManager": {"isolation": "off"}})  # the caps are the client's, not bwrap's
    execute = SandboxExecute(output_chars=1000, cell_chars=2500, notebook_chars=3600, timeout=60, config=unsandboxed)
    executed, _ = execute.preprocess(notebook, {"metadata": {"path": "."}})
    first, second = (cell.outputs for cell in executed.cells)
    texts = [output.get("text") or output.data.get("text/plain") or output.data.get("text/html") for output in first]
    assert texts[0] == "p" * 1000 + cut_note("this output", 1000)
    assert texts[2] == "p" * 500 + cut_note("this cell", 2500) and len(first) == 3, "the rest of the cell dropped"
    assert [output.text for output in second] == ["q" * 1000 + cut_note("this output", 1000)]
    assert execute.output_budget.used == 3500
