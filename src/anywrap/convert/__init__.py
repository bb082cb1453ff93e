"""Zero-copy conversion between NumPy, JAX, PyTorch, CuPy, TensorFlow and any
Array API library, and the single-env wrappers built on it.

The ladder, per array (``to_library``):

1. Already the target library: returned as is (moved only if ``device=`` asks).
2. DLPack (``target.from_dlpack(x)``): zero-copy whenever source and target can
   share the buffer, which on the host is every pair among NumPy, JAX, PyTorch
   and TensorFlow. Device is preserved: a CUDA tensor becomes a CUDA JAX array.
3. The source cannot be shared as is (a read-only NumPy array into
   TensorFlow, a tensor that requires grad, a non-compact stride into JAX, or a
   device array into NumPy, which lives on the host): one copy, done by the
   source library.

The per-step path (:func:`converter`, which the wrappers hold) resolves each
leaf type once. Each library's side of a conversion (its DLPack import, its
host view, its device moves, the cheapest zero-copy route from a given
source) is a hook of its backend (:func:`anywrap.xp.register_backend`), so the
same code serves every pair, and a library registered from outside converts
like the others.

Then an explicit ``device=`` moves the result once. dtypes are preserved
(bool and integers included), with one exception imposed by JAX: without
``jax_enable_x64`` JAX cannot hold 64-bit values and narrows them to 32 bits
(it copies to do so; a warning says so once per dtype).

What to know, honestly:

* **Read-only views.** A NumPy view of a JAX (or TensorFlow) array is
  read-only, because those arrays are immutable. Gymnasium's single-env
  wrappers never write into observations or rewards, so they work on these
  views without a copy. Gymnasium's *vector* wrappers do write in place:
  ``VectorizeTransformReward.rewards`` (so vector ``ClipReward``) assigns
  ``rewards[i] = ...``, and ``VectorizeTransformObservation.observations``
  (so vector ``FlattenObservation``) stacks its result back into the input
  observation array whenever the transformed space equals the original one
  (``same_out``, e.g. flattening a 1-D ``Box``), and into ``info["final_obs"]``
  in SAME_STEP mode. The vector wrappers therefore always hand out writable
  rewards, terminations and truncations (a copy of ``num_envs`` values, only
  when the source is read-only), and ``writable=True`` does the same for
  observations and infos (a copy, only of read-only leaves).
* **PyTorch views of JAX arrays are writable**: PyTorch ignores the read-only
  flag. Writing into such a tensor changes the JAX array too; do not.
* **Host -> JAX** is zero-copy only for buffers aligned to 64 bytes (JAX's
  requirement on CPU) and larger than ``anywrap.backends.jax.SMALL_HOST_COPY``
  (64 KiB): below that, JAX's DLPack import costs more than a copy, so small
  arrays (actions, rewards) are copied. Integer and bool host scalars
  (discrete actions) are converted once per value and the immutable JAX
  array reused.
* **TensorFlow on GPU**: TensorFlow's DLPack import and export work for GPU
  tensors, but moving a tensor to a *different* device or library placement
  goes through TensorFlow's own copy, which for GPU tensors is known to stage
  through host memory. Converting TF GPU tensors to NumPy always copies to the
  host. TensorFlow is registered with anywrap from outside the core, through
  :mod:`anywrap.backends.tensorflow`.
* CuPy, and any other Array API library that nobody registered, takes the
  generic path: its own ``from_dlpack``, and a host copy where DLPack cannot
  share. It is never imported unless it is the target.

Layout: :mod:`~anywrap.convert.converter` (one array, and a tree),
:mod:`~anywrap.convert.wrappers` (the single-env family; the vector one is
:mod:`anywrap.vector.convert`).

Example:
    >>> import numpy as np
    >>> from anywrap.convert import convert
    >>> tree = {"obs": np.zeros(3, dtype=np.float32), "mask": (np.ones(2, dtype=bool),)}
    >>> out = convert(tree, "numpy")
    >>> out["obs"] is tree["obs"], out["mask"][0].dtype
    (True, dtype('bool'))
"""

from __future__ import annotations

from anywrap.convert.converter import (
    Converter,
    convert,
    converter,
    library_of,
    resolve_library,
    to_library,
)
from anywrap.convert.wrappers import (
    ArrayConversion,
    JaxToNumpy,
    JaxToTorch,
    NumpyToTorch,
    ToJax,
    ToNumpy,
    ToTensorFlow,
    ToTorch,
)

__all__ = [
    "ArrayConversion",
    "Converter",
    "JaxToNumpy",
    "JaxToTorch",
    "NumpyToTorch",
    "ToJax",
    "ToNumpy",
    "ToTensorFlow",
    "ToTorch",
    "convert",
    "converter",
    "library_of",
    "resolve_library",
    "to_library",
]
