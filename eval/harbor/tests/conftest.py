import sys
from pathlib import Path

# Harbor itself is not installed here: a stand-in with the interface ReinAgent uses.
sys.path.insert(0, str(Path(__file__).parent / "stub"))
sys.path.insert(0, str(Path(__file__).parent.parent))
