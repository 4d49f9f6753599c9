"""binder/: repo2docker renders the Binder build of this repository offline (``--no-build``
needs neither Docker nor the network) into the Dockerfile that Binder would build."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from importlib.metadata import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
BINDER = ROOT / "binder"


def _pins() -> dict[str, Version]:
    pins = {}
    for line in (BINDER / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            req = Requirement(line)
            (spec,) = req.specifier
            assert spec.operator == "==", f"{line}: pin an exact version"
            pins[canonicalize_name(req.name)] = Version(spec.version)
    return pins


def _runtime_dependencies() -> list[Requirement]:
    """perfweave's own requirements (installed metadata: pyproject.toml as pip read it)."""
    reqs = [Requirement(r) for r in metadata("perfweave").get_all("Requires-Dist") or []]
    return [r for r in reqs if r.marker is None]


@pytest.fixture(scope="module")
def rendered() -> tuple[str, str]:
    """(Dockerfile, log) of ``repo2docker --no-build --debug`` on the repository."""
    exe = shutil.which("repo2docker", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("binder test skipped: no repo2docker (pip install -e '.[test]')")
    done = subprocess.run(
        [
            exe,
            "--no-build",
            "--no-run",
            "--debug",
            "--user-id",
            "1000",
            "--user-name",
            "jovyan",
            ".",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout, done.stderr


def test_requirements_install_this_repository_with_pins_that_satisfy_it() -> None:
    lines = [line.strip() for line in (BINDER / "requirements.txt").read_text().splitlines()]
    assert "-e ." in lines
    pins = _pins()
    for req in _runtime_dependencies():
        dep = str(req)
        name = canonicalize_name(req.name)
        assert name in pins, f"runtime dependency {req.name} is not pinned for Binder"
        assert pins[name] in req.specifier, f"{name}=={pins[name]} does not satisfy {dep}"
    # both routes of the tour: JupyterLab and Voila
    assert {"jupyterlab", "voila", "ipykernel"} <= set(pins)


def test_runtime_is_a_python_perfweave_supports() -> None:
    (line,) = (BINDER / "runtime.txt").read_text().split()
    m = re.fullmatch(r"python-(3\.\d+)", line)
    assert m, f"runtime.txt: {line!r} is not python-3.X"
    assert Version(m.group(1)) in SpecifierSet(metadata("perfweave")["Requires-Python"])


def test_repo2docker_renders_the_binder_build(rendered: tuple[str, str]) -> None:
    dockerfile, log = rendered
    version = (BINDER / "runtime.txt").read_text().strip().removeprefix("python-")
    assert f"Building conda environment for python={version}" in log
    # `-e .` is local: the requirements are installed after the whole repository is copied,
    # from the repository root (pip resolves `.` against the working directory)
    install = 'pip install --no-cache-dir -r "binder/requirements.txt"'
    copy_repo = "COPY --chown=1000:1000 src/ ${REPO_DIR}/"
    assert dockerfile.count(install) == 1
    assert "WORKDIR ${REPO_DIR}" in dockerfile
    assert dockerfile.index("WORKDIR ${REPO_DIR}") < dockerfile.index(copy_repo)
    assert dockerfile.index(copy_repo) < dockerfile.index(install)
    # binder/ takes precedence: no second install of the package, no postBuild step
    assert "pip install --no-cache-dir .\n" not in dockerfile
    steps = [line for line in dockerfile.splitlines() if not line.startswith("#")]
    assert not [line for line in steps if "postBuild" in line]
    assert not (BINDER / "postBuild").exists()
