"""The front end's JSDoc types hold: `npm run typecheck` (tsc --checkJs over js/src/lib and the
widget folders, js/jsconfig.json) passes."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.widgets.browser import skip_or_fail

JS = Path(__file__).resolve().parents[2] / "js"


def test_front_end_types_check() -> None:
    npm = shutil.which("npm")
    if npm is None:
        skip_or_fail("no npm (apt-get install npm)", "JS type check")
    if not (JS / "node_modules" / "typescript").is_dir():
        skip_or_fail("js/node_modules has no typescript (cd js && npm ci)", "JS type check")
    done = subprocess.run(
        [npm, "run", "--silent", "typecheck"], cwd=JS, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"tsc found type errors:\n{done.stdout}{done.stderr}"
