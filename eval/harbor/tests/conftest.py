import importlib.util
import os
import sys
from pathlib import Path

# Harbor itself when it is installed (or HARBOR_TESTS_USE_STUB is unset and `harbor` imports); else a stand-in with
# the interface ReinAgent uses, written from Harbor's documented behaviour.
if os.environ.get("HARBOR_TESTS_USE_STUB") == "1" or importlib.util.find_spec("harbor") is None:
    sys.path.insert(0, str(Path(__file__).parent / "stub"))
sys.path.insert(0, str(Path(__file__).parent.parent))
