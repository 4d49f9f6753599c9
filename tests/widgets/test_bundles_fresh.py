"""The committed widget bundles are what `npm run build` makes from js/ today."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.widgets.browser import skip_or_fail

JS = Path(__file__).resolve().parents[2] / "js"


def test_committed_bundles_match_the_sources() -> None:
    node = shutil.which("node")
    if node is None:
        skip_or_fail("no node (apt-get install nodejs)", "bundle freshness check")
    if not (JS / "node_modules" / "esbuild").is_dir():
        skip_or_fail(
            "js/node_modules is missing (make js installs esbuild)", "bundle freshness check"
        )
    done = subprocess.run(
        [node, "build.mjs", "--check"], cwd=JS, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr or done.stdout
