"""anywrap.transforms.promotion: every library gets the dtype NumPy's promotion gives."""

from __future__ import annotations

import numpy as np
import pytest

from anywrap.transforms.promotion import dtype_name, promote

PAIRS = [("float32", "int64"), ("uint8", "float32"), ("float32", "float64"), ("int8", "uint8")]


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_the_dtype_is_numpys(backend, a, b):
    xp = backend.xp
    want = np.result_type(a, b).name
    if backend.float_dtype == "float32":  # JAX without x64 holds 64-bit types in 32 bits
        want = want.replace("64", "32")
    got = promote(xp, getattr(xp, a), getattr(xp, b), device=backend.device)
    assert dtype_name(got) == want
