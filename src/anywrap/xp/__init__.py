"""The xp layer: the one place that knows which array libraries exist.

Code above it writes ``xp = namespace(x)`` and the Array API standard's names; what the
standard lacks is here, each a function a backend registers its own form of.
:func:`register_backend` teaches anywrap a library. NumPy is built in; JAX and PyTorch
register the first time one of their arrays is met, TensorFlow through the entry point
group ``anywrap.backends``: ``import anywrap`` imports none of them.

Example:
    >>> import numpy as np
    >>> from anywrap import xp
    >>> xp.namespace(np.zeros(3)) is np, xp.device(np.zeros(3)), xp.library_name(1.0)
    (True, 'cpu', 'numpy')
    >>> xp.describe(np.zeros((2, 3), dtype=np.float32))
    'numpy.ndarray(shape=(2, 3), dtype=float32, device=cpu)'
"""

from anywrap.xp.core import (
    Array,
    UnknownArrayTypeError,
    describe,
    device,
    is_host,
    jit,
    library_name,
    register_backend,
    register_namespace,
    resolve_dtype,
    to_library,
    to_numpy,
    wide_float,
)
from anywrap.xp.ops import (
    Compiled,
    all_finite,
    branches,
    clip,
    cond,
    constant,
    count_true,
    dtype_kind,
    finite_rows,
    last_true_indices,
    mean_var,
    namespace,
    push_front,
    push_true,
    round_decimals,
    row_moments,
    select,
    stop_gradient,
    take,
)
from anywrap.xp.switch import CompileRecord, compile_enabled, compile_log, set_compile

__all__ = [
    "Array",
    "CompileRecord",
    "Compiled",
    "UnknownArrayTypeError",
    "all_finite",
    "branches",
    "clip",
    "compile_enabled",
    "compile_log",
    "cond",
    "constant",
    "count_true",
    "describe",
    "device",
    "dtype_kind",
    "finite_rows",
    "is_host",
    "jit",
    "last_true_indices",
    "library_name",
    "mean_var",
    "namespace",
    "push_front",
    "push_true",
    "register_backend",
    "register_namespace",
    "resolve_dtype",
    "round_decimals",
    "row_moments",
    "select",
    "set_compile",
    "stop_gradient",
    "take",
    "to_library",
    "to_numpy",
    "wide_float",
]
