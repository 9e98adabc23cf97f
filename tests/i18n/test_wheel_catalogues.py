"""The package build compiles the gettext catalogues: a wheel built from this tree (setup.py's
step, in the isolated build environment pyproject.toml asks for) holds a current ``.mo`` beside
every ``.po``."""

from __future__ import annotations

import gettext
import hashlib
import io
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from protocol import catalogues

ROOT = Path(__file__).resolve().parents[2]


def _uv() -> str | None:
    fetched = Path(sys.executable).parent.parent / "uv-bootstrap" / "bin" / "uv"
    return shutil.which("uv") or (str(fetched) if fetched.exists() else None)


@pytest.mark.slow
def test_the_wheel_carries_every_compiled_catalogue(tmp_path: Path) -> None:
    """A real build (setup.py's step, in the isolated build environment pyproject.toml asks
    for): the wheel holds a current ``.mo`` beside every ``.po``."""
    uv = _uv()
    if uv is None:
        pytest.skip("no uv here to build the wheel with (./traveller fetches one)")
    made_here = not (ROOT / "build").exists()  # setuptools' build folder: removed if new
    built = subprocess.run(
        [uv, "build", "--wheel", "--out-dir", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if made_here:
        shutil.rmtree(ROOT / "build", ignore_errors=True)
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = tmp_path.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        pos = sorted(n for n in names if n.endswith(".po"))
        assert len(pos) == 12
        for po in pos:
            mo = po.removesuffix(".po") + ".mo"
            assert mo in names, mo
            source = hashlib.sha256(archive.read(po)).hexdigest()
            compiled = gettext.GNUTranslations(io.BytesIO(archive.read(mo)))
            assert compiled.pgettext(catalogues.SOURCE_CONTEXT, catalogues.SOURCE_DIGEST) == source
