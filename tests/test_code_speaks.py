"""Code speaks of the code: no issue numbers in what ships (history belongs in git), and every
project document the code and the guides cite (``docs/rules.md``, ``docs/glossary.md``) is in
the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: What ships or is run by a user: the packages, the deployment files, the benchmarks.
SHIPPED = ("server", "protocol", "terminal", "firmware_sim", "deploy", "benchmarks")
SHIPPED_FILES = ("pyproject.toml", "traveller")
#: Not read: dependencies installed beside the keypad's host tool, and the benchmarks' results
#: log, whose sections are dated records of what was measured for which piece of work.
SKIPPED = ("node_modules", "__pycache__", "benchmarks/RESULTS.md")
ISSUE_REFERENCE = re.compile(r"\bissues?[- ]?#?\d+", re.IGNORECASE)
#: Files still holding a reference, each with who removes it (they are being changed elsewhere
#: now). An entry whose file no longer has one fails too: remove the entry.
STILL_TO_CLEAN: dict[str, str] = {}
#: Project documents cited by path from the code and the guides.
CITED_DOC = re.compile(r"(?<![\w./])docs/[\w.-]+\.md\b")
GUIDES = ("README.md", "ARCHITECTURE.md", "CONTRIBUTING.md", "SECURITY.md")


def _shipped_texts() -> dict[str, str]:
    paths = [ROOT / name for name in SHIPPED_FILES]
    for folder in SHIPPED:
        paths += (ROOT / folder).rglob("*")
    texts: dict[str, str] = {}
    for path in paths:
        relative = path.relative_to(ROOT).as_posix()
        if not path.is_file() or any(part in relative for part in SKIPPED):
            continue
        try:
            texts[relative] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # an image, a compiled catalogue
            continue
    return texts


def test_no_issue_numbers_in_shipped_code() -> None:
    found: dict[str, list[str]] = {}
    for relative, text in _shipped_texts().items():
        for number, line in enumerate(text.splitlines(), start=1):
            if ISSUE_REFERENCE.search(line):
                found.setdefault(relative, []).append(f"{number}: {line.strip()[:90]}")
    unexpected = {path: lines for path, lines in found.items() if path not in STILL_TO_CLEAN}
    assert not unexpected, (
        "issue numbers in shipped code (say what the code does; history belongs in git):\n"
        + "\n".join(f"{path}:{line}" for path, lines in unexpected.items() for line in lines)
    )
    cleaned = sorted(set(STILL_TO_CLEAN) - set(found))
    assert not cleaned, f"no issue number left in {cleaned}: remove them from STILL_TO_CLEAN"


def test_the_issue_pattern_finds_the_usual_spellings() -> None:
    for line in ("(issue 20)", "Issue 18: the fast path", "issues 14 and 16", "see issue #7"):
        assert ISSUE_REFERENCE.search(line), line
    for line in ("an issue with the lead", "tissue 20", "issued 3 tokens"):
        assert not ISSUE_REFERENCE.search(line), line


def test_every_cited_project_document_is_in_the_repository() -> None:
    texts = _shipped_texts()
    for guide in GUIDES:
        texts[guide] = (ROOT / guide).read_text(encoding="utf-8")
    cited: dict[str, set[str]] = {}
    for relative, text in texts.items():
        for document in CITED_DOC.findall(text):
            cited.setdefault(document, set()).add(relative)
    assert {"docs/rules.md", "docs/glossary.md"} <= set(cited)
    missing = {doc: sorted(where) for doc, where in cited.items() if not (ROOT / doc).is_file()}
    assert not missing, f"cited but not in the repository: {missing}"
    outside = [path for path, text in texts.items() if "../shared/" in text]
    assert not outside, f"cite the copies under docs/, not ../shared/: {outside}"
