"""Student notebooks made inert: nothing a student wrote or their code displayed runs in a reader's browser.

A graded notebook is rendered as HTML on the instructor's side twice: by nbgrader's formgrader, on the Jupyter
server's own origin (where a script could read the ``_xsrf`` cookie and rewrite any grade), and by
``workbook feedback``. ``InertNotebook`` is the last preprocessor of autograde (so the autograded notebook the
formgrader reads is already inert) and of feedback (``workbook.course.config``). For every cell:

- markdown cells (the written answers) and ``text/markdown`` outputs are rendered to HTML by mistune (the markdown
  library nbconvert renders with), that HTML is sanitized by nbconvert's ``SanitizeHTML`` (bleach) with
  ``TAGS``, ``ATTRIBUTES`` and ``STYLES`` as the allow-list (disallowed tags are stripped, their text kept; links
  only to ``PROTOCOLS``; a ``style`` keeps only the layout of ``STYLES``, so the labs' context tables read as in
  JupyterLab), and stored on one line (newlines as ``&#10;``) wrapped in a ``<div>``: a markdown renderer then
  passes it through as one HTML block, so an answer still reads as formatted text and nothing in it is read as
  markdown again;
- raw cells are sanitized the same way (nbconvert emits an HTML raw cell as it is);
- a widget's output (an explorer) is one ``text/plain`` line saying that it is interactive in JupyterLab (in the
  notebook's edition: ``feedback_words``);
- other outputs keep only the MIME types of ``KEPT``: ``text/plain``, ``text/html`` (sanitized), ``text/markdown``
  (rendered and sanitized, as a cell), ``image/png`` and ``image/jpeg`` (when their data is base64). Everything
  else (JavaScript, widget views, SVG, LaTeX, JSON, unknown types) is dropped; an output left with nothing is
  one ``text/plain`` line saying what was removed. Output metadata keeps only numeric image sizes; a stream's
  name is ``stdout`` or ``stderr``; an unknown output type becomes such a line;
- markdown attachments, notebook- and cell-level widget state are removed.

Text outputs (streams, tracebacks, ``text/plain``) are escaped by nbconvert when it renders them and are kept as
they are, so the judge's lines and what the student's code printed still read the same.
"""

from __future__ import annotations

import binascii
import re

import bleach
import mistune
from nbconvert.preprocessors import Preprocessor
from nbconvert.preprocessors.sanitize import SanitizeHTML
from nbformat import NotebookNode
from nbformat.v4 import new_output
from traitlets import Bool

from workbook.course.editions import language_of
from workbook.pipeline.feedback_words import feedback_word

TAGS = frozenset(
    "a abbr b blockquote br code dd del div dl dt em h1 h2 h3 h4 h5 h6 hr i kbd li ol p pre q s samp small "
    "span strong sub sup table tbody td tfoot th thead tr u ul".split()
)
"""The HTML tags an inert notebook keeps (text formatting and tables); any other tag is removed, its text kept."""
ATTRIBUTES = {
    "a": ["href", "title"],
    "abbr": ["title"],
    "td": ["colspan", "rowspan", "style"],
    "th": ["colspan", "rowspan", "style"],
    **{tag: ["style"] for tag in ("b", "div", "span", "table", "tr")},
}
"""The attributes kept, by tag: no event handler, class or id (nothing the formgrader's own scripts or styles could
be steered by); a ``style`` only with ``STYLES``."""
STYLES = (
    "background-color",
    "border-left",
    "color",
    "font-family",
    "font-style",
    "font-weight",
    "padding",
    "text-align",
    "vertical-align",
    "white-space",
)
"""The CSS properties a kept ``style`` may set: colours, alignment and wrapping, the labs' tables and status boxes
(``compaction_lab.provided.notebook.views``). None takes a URL (no ``background``, ``list-style``) and none moves
an element over another (no ``margin``, ``position``), so a style can neither load anything nor cover the
formgrader's own controls."""
WIDGET = "application/vnd.jupyter.widget-view+json"
"""The MIME type of a widget's view: its output stands for something only a running kernel can show."""
PROTOCOLS = frozenset(bleach.ALLOWED_PROTOCOLS)
"""The URL schemes a kept link may use, bleach's (http, https, mailto; ``SanitizeHTML`` passes none of its own):
bleach drops any other ``href``, ``javascript:`` among them; a relative link is kept."""
KEPT = ("text/plain", "text/html", "text/markdown", "image/png", "image/jpeg")
"""The output MIME types kept (``text/html`` and ``text/markdown`` sanitized)."""
_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]*")
_MARKDOWN = mistune.create_markdown(escape=False, plugins=["strikethrough", "table"])


def removed_note(kinds: list[str]) -> str:
    """The one line that stands for an output whose ``kinds`` (MIME or output types) were all removed."""
    return f"[an output was removed here: {', '.join(kinds)} is not shown in a graded notebook]\n"


class InertNotebook(Preprocessor):
    """nbconvert preprocessor: every markdown and raw cell and every output of a notebook made inert (see the
    module). The notebook is changed in place; nothing it holds makes it fail."""

    enabled = Bool(True, help="nbconvert runs a preprocessor only when enabled").tag(config=True)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.sanitizer = SanitizeHTML(
            tags=sorted(TAGS), attributes=ATTRIBUTES, styles=list(STYLES), strip=True, parent=self
        )
        self.language = "en"

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        """Remove the notebook's widget state, then make each cell inert (``preprocess_cell``)."""
        nb.metadata.pop("widgets", None)
        self.language = language_of(nb)
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell: NotebookNode, resources: dict, index: int) -> tuple[NotebookNode, dict]:
        """One cell made inert: markdown rendered and sanitized, raw sanitized, outputs filtered."""
        cell.metadata.pop("widgets", None)
        if cell.cell_type == "markdown":
            cell.pop("attachments", None)
            cell.source = self.inert_markdown(cell.source)
        elif cell.cell_type == "raw":
            cell.source = self.inert_html(cell.source)
        elif cell.cell_type == "code":
            cell.outputs = [self.inert_output(output) for output in cell.get("outputs", [])]
        return cell, resources

    def inert_html(self, text: str) -> str:
        """``text`` (HTML) with only ``TAGS``, ``ATTRIBUTES``, ``STYLES`` and links to ``PROTOCOLS``, through bleach."""
        return self.sanitizer.sanitize_html_tags(text)

    def inert_markdown(self, text: str) -> str:
        """``text`` (markdown) rendered to HTML, sanitized, on one line in a ``<div>`` (see the module)."""
        rendered = _MARKDOWN(text)
        html = self.inert_html(rendered if isinstance(rendered, str) else "").strip()
        return "<div>" + html.replace("\r", "").replace("\n", "&#10;") + "</div>" if html else ""

    def inert_output(self, output: NotebookNode) -> NotebookNode:
        """``output`` with only what an inert notebook keeps (see the module); a new one-line output when
        nothing of it is kept."""
        kind = output.get("output_type")
        if kind == "stream":
            output.name = output.get("name") if output.get("name") in ("stdout", "stderr") else "stdout"
            return output
        if kind == "error":
            return output
        if kind not in ("display_data", "execute_result"):
            return new_output("stream", name="stdout", text=removed_note([f"an output of type {kind!r}"]))
        data = output.get("data", {})
        if WIDGET in data:
            return new_output("stream", name="stdout", text=feedback_word("widget", self.language) + "\n")
        kept, removed = {}, []
        for mime, value in data.items():
            text = "".join(value) if isinstance(value, list) else value
            if mime not in KEPT or not isinstance(text, str):
                removed.append(mime)
            elif mime == "text/html":
                kept[mime] = self.inert_html(text)
            elif mime == "text/markdown":
                kept[mime] = self.inert_markdown(text)
            elif mime.startswith("image/") and not _is_base64(text):
                removed.append(mime)
            else:
                kept[mime] = text
        if not kept:
            kept = {"text/plain": removed_note(removed or ["an empty output"])}
        output.data = kept
        output.metadata = _image_sizes(output.get("metadata", {}), kept)
        output.pop("transient", None)
        return output


def _is_base64(text: str) -> bool:
    """Whether ``text`` is base64 (what nbconvert puts in a ``data:`` URL); anything else could break out of it."""
    if not _BASE64.fullmatch(text):
        return False
    try:
        binascii.a2b_base64(re.sub(r"\s", "", text).encode("ascii"))
    except binascii.Error:
        return False
    return True


def _image_sizes(metadata: dict, kept: dict) -> dict:
    """Of an output's ``metadata``, only the numeric ``width`` and ``height`` of its kept images."""
    sizes = {}
    for mime in kept:
        given = metadata.get(mime)
        if mime.startswith("image/") and isinstance(given, dict):
            numbers = {
                key: given[key]
                for key in ("width", "height")
                if isinstance(given.get(key), int | float) and not isinstance(given.get(key), bool)
            }
            if numbers:
                sizes[mime] = numbers
    return sizes
