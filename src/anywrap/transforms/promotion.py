"""NumPy's type promotion (Gymnasium's), for any library: the dtype where two arrays meet.

Example:
    >>> import numpy as np
    >>> from anywrap.transforms.promotion import promote
    >>> promote(np, np.float32, "int64"), promote(np, "uint8", np.float32)
    (<class 'numpy.float64'>, <class 'numpy.float32'>)
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from anywrap.xp import resolve_dtype

__all__ = ["dtype_name", "promote"]


def dtype_name(dtype: Any) -> str:
    """The NumPy name of any library's dtype (``torch.float32`` -> ``'float32'``)."""
    name = getattr(dtype, "name", None)
    if isinstance(name, str):
        return name
    if isinstance(dtype, type):  # a scalar type, e.g. numpy.float32 or jax.numpy.float32
        import numpy as np

        return np.dtype(dtype).name
    return str(dtype).rsplit(".", 1)[-1]


_promotions: dict[tuple[int, tuple[str, ...], str], Any] = {}


def promote(xp: ModuleType, *dtypes: Any, device: Any = None) -> Any:
    """``xp``'s dtype for NumPy's promotion of ``dtypes`` (on ``device``)."""
    names = tuple(dtype_name(d) for d in dtypes)
    key = (id(xp), names, str(device))
    found = _promotions.get(key)
    if found is None:
        import numpy as np  # a host table, read once per dtypes

        name = np.result_type(*(np.dtype(n) for n in names)).name
        found = _promotions[key] = resolve_dtype(xp, name, device)
    return found
