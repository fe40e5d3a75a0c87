import sys
from pathlib import Path

# Harbor before 2026-03-24: the template installed-agent interface, as a stand-in (its own pytest run:
# `python3 -m pytest eval/harbor/tests_legacy`, since one process holds one `harbor` package).
sys.path.insert(0, str(Path(__file__).parent / "stub"))
sys.path.insert(0, str(Path(__file__).parent.parent))
