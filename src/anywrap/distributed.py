"""``reduce`` hooks that make running statistics global across devices or processes.

The transforms in :mod:`anywrap.transforms.moments` accept ``reduce``: a
function that sums an array over every participant of a distributed batch.
With it, each participant passes only its own shard and all of them end up
with the statistics of the whole batch (count and sum are reduced, then the
squared deviations from the global mean).

* :func:`torch_allreduce_sum` sums over the processes of a
  ``torch.distributed`` group (one ``all_reduce`` per call, on the tensor's
  device, with no host synchronisation).
* :func:`jax_psum` sums over a named mapped axis (``shard_map``, ``pmap``, or
  ``vmap(axis_name=...)``).

Neither torch nor jax is imported until a hook is made.

Example:
    >>> import jax, jax.numpy as jnp
    >>> from anywrap.distributed import jax_psum
    >>> from anywrap.transforms import moments
    >>> m = moments.init_moments((), xp=jnp, dtype=jnp.float32)
    >>> x = jnp.arange(8.0).reshape(2, 4)  # two shards of four samples
    >>> upd = jax.vmap(lambda s: moments.update_moments(m, s, reduce=jax_psum("i")), axis_name="i")
    >>> float(upd(x).mean[0])  # the global mean, on every shard
    3.4999...
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["jax_psum", "torch_allreduce_sum"]


def torch_allreduce_sum(group: Any = None) -> Callable[[Any], Any]:
    """A ``reduce`` hook: the SUM of a tensor over the processes of ``group``.

    The input is never modified: the reduction runs on a clone, which is
    returned. ``group=None`` means the default (world) process group, which
    must have been set up with ``torch.distributed.init_process_group``.
    Every process must call the hook the same number of times, in the same
    order (as with any collective).

    Example:
        >>> reduce = torch_allreduce_sum()  # doctest: +SKIP
        >>> m = update_moments(m, local_batch, reduce=reduce)  # doctest: +SKIP
    """
    import torch.distributed as dist

    if not dist.is_available():
        raise RuntimeError("torch_allreduce_sum: this PyTorch build has no torch.distributed")

    def reduce(x: Any) -> Any:
        if not dist.is_initialized():
            raise RuntimeError(
                "torch_allreduce_sum: torch.distributed is not initialised; call "
                "torch.distributed.init_process_group(...) in every process first"
            )
        y = x.clone()
        dist.all_reduce(y, op=dist.ReduceOp.SUM, group=group)
        return y

    return reduce


def jax_psum(axis_name: str | tuple[str, ...]) -> Callable[[Any], Any]:
    """A ``reduce`` hook: ``jax.lax.psum`` over the mapped axis ``axis_name``.

    Use it inside ``shard_map``, ``pmap`` or ``vmap`` with that axis name.

    Example:
        >>> reduce = jax_psum("devices")
    """
    import jax

    def reduce(x: Any) -> Any:
        return jax.lax.psum(x, axis_name)

    return reduce
