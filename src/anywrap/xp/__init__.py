"""The xp layer: the one place that knows which array libraries exist.

Code above this layer writes ``xp = namespace(x)`` and then the Array API
standard's names (``xp.where``, ``xp.sqrt``, ``xp.mean``). What the standard
lacks is here, each a :func:`functools.singledispatch` function that a
backend registers its own form of:

* :func:`namespace`, :func:`device`, :func:`to_numpy`: what an array is and
  where it lives (``array_api_compat`` answers for every library it knows;
  NumPy values map to the ``numpy`` module itself, the fastest route);
* :func:`to_library`: any array as an array of a named library (DLPack,
  zero-copy where the two can share);
* :func:`jit` and :class:`Compiled`: a pure transform compiled by the backend
  of the arrays it meets (``jax.jit``, TorchInductor; NumPy runs it as it is);
* :func:`cond`: one of two branches by a 0-d bool, without a host sync;
* a few standard formulas that a backend may run in a faster form of the same
  formula (:func:`mean_var`, :func:`count_true`, :func:`finite_rows`,
  :func:`last_true_indices`, :func:`push_front`, :func:`push_true`, :func:`take`,
  :func:`clip`), and :func:`branches`: whether :func:`cond` runs only the branch taken.
* :func:`stop_gradient`: values without their autodiff graph (``detach``);
  :func:`constant`: a Python number as the backend adds it to an array most cheaply,
  and :func:`select`: ``where`` beside such a constant.

:func:`register_backend` teaches anywrap a library in one call. NumPy is
built in; JAX and PyTorch register from :mod:`anywrap.backends` the first
time one of their arrays (or names) is met, and TensorFlow, like any third
party, through the entry point group ``anywrap.backends``: ``import anywrap``
imports none of them.

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
    finite_rows,
    jit,
    last_true_indices,
    mean_var,
    namespace,
    push_front,
    push_true,
    select,
    stop_gradient,
    take,
)
from anywrap.xp.switch import (
    CompileRecord,
    compile_enabled,
    compile_log,
    set_compile,
)

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
    "select",
    "set_compile",
    "stop_gradient",
    "take",
    "to_library",
    "to_numpy",
    "wide_float",
]
