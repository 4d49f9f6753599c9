"""The wheel ships every widget bundle, and the bundles load as ES modules without the network.

The wheel is built from this tree and installed with no dependencies into a fresh venv; its
Python runs with this venv's site-packages on PYTHONPATH, so dependencies resolve while perfweave
itself comes from the wheel (an editable install's ``.pth`` is not read from PYTHONPATH).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.widgets.browser import skip_or_fail

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "src" / "perfweave" / "widgets" / "static"

# A bundle must not load anything from the network: no remote import / import() / @import /
# url(), and no CDN at all. Plain URL strings (e.g. the SVG namespace) are fine.
_REMOTE = r"""["'`]?\s*(?:https?:)?//"""
NETWORK_PATTERNS = {
    "import from a URL": re.compile(r"""\b(?:from|import)\s*\(?\s*["'`](?:https?:)?//"""),
    "CSS @import of a URL": re.compile(r"@import\s+(?:url\(\s*)?" + _REMOTE),
    "CSS url() of a URL": re.compile(r"\burl\(\s*" + _REMOTE),
    "a CDN": re.compile(r"//cdn\."),
}


def _run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kwargs)
    assert done.returncode == 0, f"{' '.join(cmd)}\n{done.stdout}\n{done.stderr}"
    return done


def source_bundles() -> list[Path]:
    """The widget bundles of the source tree (``static/*.js`` and ``*.css``)."""
    return sorted(STATIC.glob("*.js")) + sorted(STATIC.glob("*.css"))


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``perfweave`` folder of the wheel, installed into a fresh venv."""
    tmp = tmp_path_factory.mktemp("wheel")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    _run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp / "dist"), str(ROOT)])
    (wheel,) = (tmp / "dist").glob("perfweave-*.whl")
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    _run([*pip, "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)])
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONPATH"] = sysconfig.get_paths()["purelib"]
    probe = "import json, perfweave; print(json.dumps(perfweave.__file__))"
    if (STATIC.parent / "__init__.py").exists():
        probe = "import perfweave.widgets; " + probe
    done = _run([str(python), "-c", probe], env=env, cwd=tmp)
    package = Path(json.loads(done.stdout.strip().splitlines()[-1])).parent
    assert package.is_relative_to(venv), f"perfweave imported from {package}, not the wheel"
    return package


def test_wheel_ships_every_bundle(installed: Path) -> None:
    bundles = source_bundles()
    assert any(b.suffix == ".js" for b in bundles), f"no widget bundle in {STATIC}"
    for bundle in bundles:
        shipped = installed / "widgets" / "static" / bundle.name
        assert shipped.is_file(), f"{bundle.name} is missing from the wheel"
        assert shipped.read_bytes() == bundle.read_bytes(), f"{bundle.name} differs in the wheel"


def test_bundles_are_es_modules_with_render(installed: Path) -> None:
    """Each shipped ``.js`` imports in node (>= 20.19 detects ESM in a ``.js`` file) and
    default-exports ``{ render }``, as anywidget expects."""
    node = shutil.which("node")
    if node is None:
        skip_or_fail("no node (apt-get install nodejs)", what="ES module check")
    bundles = sorted((installed / "widgets" / "static").glob("*.js"))
    assert bundles, "the wheel ships no .js bundle"
    for bundle in bundles:
        check = (
            f"const m = await import({json.dumps(bundle.as_uri())});"
            "if (typeof m.default?.render !== 'function') process.exit(3);"
        )
        done = subprocess.run(
            [node, "--input-type=module", "-e", check], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, f"{bundle.name}: no default {{ render }}\n{done.stderr}"


def test_bundles_do_not_reach_the_network(installed: Path) -> None:
    bundles = sorted((installed / "widgets" / "static").glob("*.js"))
    bundles += sorted((installed / "widgets" / "static").glob("*.css"))
    assert bundles, "the wheel ships no bundle"
    found = [
        f"{bundle.name}: {what}: {match.group(0)!r}"
        for bundle in bundles
        for what, pattern in NETWORK_PATTERNS.items()
        for match in pattern.finditer(bundle.read_text(errors="replace"))
    ]
    assert not found, "shipped bundles reference the network:\n" + "\n".join(found)
