"""README's "From Python" example runs as shown: its code, run, prints exactly the output the
README shows beneath it."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_example_prints_what_the_readme_shows() -> None:
    text = README.read_text()
    section = text.split("\n## From Python\n", 1)[1].split("\n## ", 1)[0]
    assert "pip install ./python" in section
    code, shown = re.search(r"```python\n(.*?)```\n\n```text\n(.*?)```", section, re.S).groups()  # type: ignore[union-attr]
    assert len(code.strip().splitlines()) <= 10
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == shown
