"""The front end's own checks: its JSDoc types hold (`npm run typecheck`: tsc --checkJs over
js/src/lib and the widget folders, js/jsconfig.json) and its unit tests pass (`npm test`:
node's test runner over js/test/, e.g. the request channel's named reply key and timeout)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.widgets.browser import skip_or_fail

JS = Path(__file__).resolve().parents[2] / "js"


def _npm(what: str) -> str:
    npm = shutil.which("npm")
    if npm is None:
        skip_or_fail("no npm (apt-get install npm)", what)
    if not (JS / "node_modules" / "typescript").is_dir():
        skip_or_fail("js/node_modules has no typescript (cd js && npm ci)", what)
    return npm


def test_front_end_types_check() -> None:
    npm = _npm("JS type check")
    done = subprocess.run(
        [npm, "run", "--silent", "typecheck"], cwd=JS, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"tsc found type errors:\n{done.stdout}{done.stderr}"


def test_front_end_unit_tests_pass() -> None:
    npm = _npm("JS unit tests")
    done = subprocess.run(
        [npm, "test", "--silent"], cwd=JS, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"npm test failed:\n{done.stdout}{done.stderr}"
    assert "# fail 0" in done.stdout and "# pass 0" not in done.stdout
