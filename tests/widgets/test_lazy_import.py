"""The analysis core never imports the widget stack (checked in a fresh interpreter)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "hatchet"

# traitlets is listed because the core does not import it either (checked): only widgets do.
WIDGET_STACK = ("ipywidgets", "anywidget", "bqplot", "traitlets", "IPython", "ipykernel", "comm")

CORE_USE = f"""
import json, sys

import perfweave

gf = perfweave.GraphFrame.from_lists(("main", ("solve", "mpi_wait"), "io"))
assert len(gf.graph) == 4, gf
profile = perfweave.read({str(DATA / "caliper-cpi-json" / "cpi-callpath-profile.json")!r})
literal = perfweave.read({str(DATA / "json" / "hatchet-graph-literal.json")!r})
assert len(profile.graph) > 0 and len(literal.graph) > 0

import perfweave.classes, perfweave.cli, perfweave.counts, perfweave.ensemble, perfweave.merge

stack = {WIDGET_STACK!r}
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in stack)))
"""


def test_core_does_not_import_widget_stack() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CORE_USE], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert loaded == [], f"the core imported the widget stack: {loaded}"
