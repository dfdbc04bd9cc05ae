"""Every `python` block of docs/python.md and docs/jax.md runs as written (from the repository
root, as the page's paths assume)."""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGES = ["docs/python.md", "docs/jax.md"]


def blocks():
    for page in PAGES:
        text = (ROOT / page).read_text()
        for m in re.finditer(r"^```python\n(.*?)^```", text, re.DOTALL | re.MULTILINE):
            line = text[:m.start()].count("\n") + 2
            yield pytest.param(page, line, m.group(1), id=f"{page}:{line}")


@pytest.mark.parametrize("page,line,code", list(blocks()))
def test_block_runs(page, line, code, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    exec(compile("\n" * (line - 1) + code, str(ROOT / page), "exec"), {})


def test_there_are_blocks():
    assert len(list(blocks())) >= 1
