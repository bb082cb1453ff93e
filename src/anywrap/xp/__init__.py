"""The xp layer: the one place that knows which array libraries exist.

Everything above this layer writes ``xp = namespace(x)`` and then uses the
Python Array API standard's names (``xp.where``, ``xp.sqrt``, ``xp.mean``).
One idea per module:

* :mod:`~anywrap.xp.registry`: the :class:`Backend` record of each library
  (namespace, device, DLPack and host conversion, compiler, float64 policy),
  :func:`register_backend`, and the queries :func:`namespace`,
  :func:`device`, :func:`to_numpy`, :func:`backend_of`, :func:`backend_named`.
* :mod:`~anywrap.xp.policy`: dtype and device policy (:func:`wide_float`,
  :func:`resolve_dtype`, :func:`is_host`, :func:`describe`).
* :mod:`~anywrap.xp.host`: standard operations with short cuts of the same
  formula for NumPy values on the host.
* :mod:`~anywrap.xp.ops`: routed operations (:class:`Route`) that a backend
  may send to a faster kernel of the same formula.
* :mod:`~anywrap.xp.compile`: :class:`Compiled`, a transform compiled once per
  backend that runs it.
* :mod:`~anywrap.xp.switch`: :func:`set_compile` turns PyTorch's compiled path
  on or off; :func:`compile_log` lists what it compiled.

JAX and PyTorch register themselves from ``_jax.py`` and ``_torch.py`` the
first time one of their arrays is seen, so ``import anywrap`` imports
neither; any other library registers through the same public API (see
:mod:`anywrap.backends`).

Example:
    >>> import numpy as np
    >>> from anywrap import xp
    >>> xp.namespace(np.zeros(3)) is np
    True
    >>> xp.backend_of(np.zeros(3)).name, xp.to_numpy(np.ones(2))
    ('numpy', array([1., 1.]))
"""

from __future__ import annotations

from typing import Any

from anywrap.xp.compile import Compiled, jit
from anywrap.xp.host import all_true, astype, flat, is_floating, result_dtype, where
from anywrap.xp.ops import (
    Route,
    clip,
    count_true,
    cumulative_sum,
    fast_path,
    last_true_indices,
    mean_var,
    push_front,
    shifted_mean_var,
    sum_along,
    sum_rows,
    take,
)
from anywrap.xp.policy import (
    describe,
    has_float64,
    is_host,
    resolve_dtype,
    same_device,
    wide_float,
)
from anywrap.xp.registry import (
    Backend,
    UnknownArrayTypeError,
    backend_named,
    backend_of,
    backend_of_namespace,
    device,
    exportable,
    is_on_host,
    library_name,
    namespace,
    register_backend,
    register_namespace,
    resolve_library,
    to_numpy,
)
from anywrap.xp.switch import (
    CompileRecord,
    compile_after_calls,
    compile_enabled,
    compile_log,
    cpu_kernels,
    set_compile,
)

__all__ = [
    "Array",
    "Backend",
    "CompileRecord",
    "Compiled",
    "Route",
    "UnknownArrayTypeError",
    "all_true",
    "astype",
    "backend_named",
    "backend_of",
    "backend_of_namespace",
    "clip",
    "compile_after_calls",
    "compile_enabled",
    "compile_log",
    "count_true",
    "cpu_kernels",
    "cumulative_sum",
    "describe",
    "device",
    "exportable",
    "fast_path",
    "flat",
    "has_float64",
    "is_floating",
    "is_host",
    "is_on_host",
    "jit",
    "last_true_indices",
    "library_name",
    "mean_var",
    "namespace",
    "push_front",
    "register_backend",
    "register_namespace",
    "resolve_dtype",
    "resolve_library",
    "result_dtype",
    "same_device",
    "set_compile",
    "shifted_mean_var",
    "sum_along",
    "sum_rows",
    "take",
    "to_numpy",
    "where",
    "wide_float",
]

Array = Any
"""Any array of a supported library (the Array API has no common base class)."""
