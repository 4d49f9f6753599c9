"""The documentation site, API reference included, builds from the docstrings with no warning
(mkdocs --strict: a docstring or page that mkdocstrings cannot render fails here)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from tests.widgets.browser import skip_or_fail

ROOT = Path(__file__).resolve().parents[1]


def test_docs_site_and_api_reference_build(tmp_path: Path) -> None:
    for module in ("mkdocs", "mkdocstrings_handlers.python"):
        if importlib.util.find_spec(module.split(".")[0]) is None:
            skip_or_fail(f"{module} is not installed (pip install -e '.[docs]')", "docs build")
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs.yml", "-d", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    api = (site / "api" / "index.html").read_text(encoding="utf-8")
    # every public name of the package has its entry, with text from its docstring
    import perfweave

    missing = [name for name in perfweave.__all__ if name != "__version__" and name not in api]
    assert not missing, f"the API reference lacks {missing}"
    assert "request_timeout" in api  # the widget contract's documented option
