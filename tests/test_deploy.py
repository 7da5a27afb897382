"""The files of `deploy/` build from the repository as it is."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_dockerfile_copies_only_files_the_repository_has() -> None:
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text(encoding="utf-8")
    defaults = dict(
        line.split(" ", 1)[1].split("=", 1)
        for line in dockerfile.splitlines()
        if line.startswith("ARG ") and "=" in line
    )
    copies = [
        line.split()[1] for line in dockerfile.splitlines() if line.startswith("COPY ")
    ]
    assert copies
    for source in copies:
        for name, value in defaults.items():
            source = source.replace("${" + name + "}", value)
        assert (ROOT / source).is_file(), source
