"""The tutorial notebooks: committed without outputs, and each runs top to bottom with nbclient
on a kernel of this interpreter, with no error and nothing on stderr, showing its widgets."""

from __future__ import annotations

import re
import shutil
import sys
from collections import Counter
from pathlib import Path

import nbformat
import pytest

from tests.notebooks._notebooks import NOTEBOOKS, SHOWN, notebook_path

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_SHOWN_AS = re.compile(
    r"^(?:<perfweave\.widgets\.\w+\.(\w+) object at|(\w+)\(children=|(Figure)\(axes=)"
)
_KERNEL_PYTHON = "import sys; print('kernel python:', sys.executable)"


def test_every_notebook_is_committed_without_outputs() -> None:
    found = sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb"))
    assert found == sorted(SHOWN), "notebooks/ and the notebooks under test differ"
    for name in found:
        nb = nbformat.read(notebook_path(name), as_version=4)
        nbformat.validate(nb)
        assert nb.metadata.get("kernelspec", {}).get("name") == "python3", name
        for i, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                assert not cell.outputs, f"{name} cell {i} has outputs"
                assert cell.execution_count is None, f"{name} cell {i} has an execution count"
        assert "widgets" not in nb.metadata, f"{name} stores widget state"


def test_every_notebook_starts_with_a_title_and_explains_itself() -> None:
    for name in SHOWN:
        nb = nbformat.read(notebook_path(name), as_version=4)
        assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# "), name
        markdown = [c for c in nb.cells if c.cell_type == "markdown"]
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert len(markdown) >= len(code) // 2, f"{name}: too little narrative"


def shown_widgets(nb: nbformat.NotebookNode) -> Counter:
    """Widgets displayed by the executed ``nb``, by class name ("bqplot" for Figures)."""
    shown: Counter = Counter()
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if WIDGET_VIEW not in data:
                continue
            m = _SHOWN_AS.match(data.get("text/plain", ""))
            assert m, f"a widget shown as {data.get('text/plain', '')[:80]!r}"
            name = next(g for g in m.groups() if g)
            shown["bqplot" if name == "Figure" else name] += 1
    return shown


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SHOWN))
def test_notebook_runs_top_to_bottom(name: str, tmp_path: Path) -> None:
    from nbclient import NotebookClient

    work = tmp_path / f"{name}.ipynb"
    shutil.copy(notebook_path(name), work)
    nb = nbformat.read(work, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(_KERNEL_PYTHON))
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    problems = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.output_type == "error":
                problems.append(f"cell {i}: {out.ename}: {out.evalue}")
            elif out.output_type == "stream" and out.name == "stderr":
                problems.append(f"cell {i} wrote to stderr: {out.text[:500]}")
    assert not problems, f"{name}:\n" + "\n".join(problems)
    assert nb.cells[-1].outputs[0].text.strip() == f"kernel python: {sys.executable}"
    assert shown_widgets(nb) == Counter(SHOWN[name])
