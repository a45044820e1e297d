"""nbgrader settings of `workbook practice`'s JupyterLab (this folder is first on JUPYTER_CONFIG_PATH there):
Validate interrupts a cell after the labs' time limit, as autograde does and as the notebooks state."""

from workbook.course.layout import DEFAULT_CELL_TIMEOUT

c = get_config()  # noqa: F821 (nbgrader's config loader provides get_config)
c.Execute.timeout = DEFAULT_CELL_TIMEOUT
