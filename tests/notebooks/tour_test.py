"""notebooks/tour.ipynb: committed without outputs, and it runs from top to bottom (nbclient,
in a kernel of this Python, on a copy) with its figures, the agent's episodes and the local
server's answer among its outputs."""

import json
import os
import pathlib
import sys

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "tour.ipynb"


def code_cells(notebook) -> list:
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def test_the_tour_is_committed_without_outputs():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    assert len(code_cells(notebook)) >= 8
    for cell in code_cells(notebook):
        assert cell.outputs == [] and cell.execution_count is None, cell.source[:60]


@pytest.fixture
def kernel(tmp_path, monkeypatch) -> str:
    """A kernel spec running this Python (``JUPYTER_PATH`` finds it before any other), with
    this checkout's imagine_tf first on its path."""
    spec = tmp_path / "jupyter" / "kernels" / "imagine-tf-test"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    kernel_json = {"argv": argv, "display_name": "imagine-tf test", "language": "python"}
    (spec / "kernel.json").write_text(json.dumps(kernel_json))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    path = [str(ROOT), str(ROOT / "client"), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in path if p))
    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", "3")
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's inline backend draws
    return "imagine-tf-test"


@pytest.mark.integration  # the notebook starts a server on 127.0.0.1
@pytest.mark.timeout(400)
def test_the_tour_runs_and_shows_figures_episodes_and_the_servers_answer(kernel, tmp_path):
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=240,  # per cell: the server's start is waited for in one
        kernel_name=kernel,
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()  # raises CellExecutionError, with the cell and its traceback
    outputs = [output for cell in code_cells(notebook) for output in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    data = [o.get("data", {}) for o in outputs if o.output_type == "display_data"]
    assert sum("image/png" in d for d in data) >= 4  # frames, p_i, α and occlusion, CGH
    assert sum("image/gif" in d for d in data) == 2  # the agent's two episodes
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "the partner says:" in text and "achieved = " in text
    assert text.count("served P = ") == 5 and "server exit status: 0" in text
    nbformat.write(notebook, tmp_path / "tour.executed.ipynb")  # to look at after a failure
