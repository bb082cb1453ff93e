"""The benchmark suite lives beside the package (``benchmarks/``), not in it: its tests
import it from the checkout's root."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.append(ROOT)  # `benchmarks` is a regular package: it wins over TorchRL's folder
