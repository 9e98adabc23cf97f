"""The package build's one step beyond pyproject.toml: the gettext catalogues (the server's, the
terminal's and the keypad's ``.po``) are compiled to ``.mo`` as the package is built, so no
process compiles them at start.

A wheel gets them beside the ``.po`` it carries. An editable install (``pip install -e``, what
``./traveller`` does) runs the same step with ``editable_mode`` set, and its packages are the
source tree itself, so the ``.mo`` are written there (ignored by git). A ``.po`` edited after
that is compiled in memory until the next install (protocol/catalogues.py tells by its digest).
"""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildPyWithCatalogues(build_py):
    """``build_py``, then every catalogue of the built (or, editable, the source) packages."""

    def run(self) -> None:
        super().run()
        # The compiler is the one the packages use at run time (protocol/catalogues.py, which
        # imports only the standard library and Babel, a build requirement).
        sys.path.insert(0, str(ROOT))
        from protocol import catalogues  # noqa: PLC0415 - from the tree being built

        target = ROOT if self.editable_mode else Path(self.build_lib)
        for compiled in catalogues.compile_tree(target):
            print(f"compiled {compiled.relative_to(target)}")

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        if self.editable_mode:  # written into the source tree, not the build
            return list(super().get_outputs(include_bytecode))
        built = Path(self.build_lib)
        catalogues = [
            str(po.with_suffix(".mo")) for po in built.glob("*/locales/*/LC_MESSAGES/*.po")
        ]
        return [*super().get_outputs(include_bytecode), *catalogues]


setup(cmdclass={"build_py": BuildPyWithCatalogues})
