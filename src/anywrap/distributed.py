"""``reduce`` hooks (a sum over every participant, as :mod:`anywrap.transforms.moments`
takes) that make running statistics global across devices or processes."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

__all__ = ["jax_psum", "torch_allreduce_sum"]


def torch_allreduce_sum(group: Any = None) -> Callable[[Any], Any]:
    """A ``reduce`` hook: the sum of a tensor (a clone) over the processes of ``group``
    (``None``: the default group). Every process calls it the same number of times.

    Example:
        A group of one process shows the calls (``torchrun`` starts the real ones):

        >>> import torch, torch.distributed as dist
        >>> from anywrap.transforms import moments
        >>> dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
        >>> local = torch.tensor([[1.0], [2.0], [3.0], [6.0]], dtype=torch.float64)
        >>> m = moments.init_moments((1,), xp=torch, dtype=torch.float64)
        >>> m = moments.update_moments(m, local, reduce=torch_allreduce_sum())
        >>> round(float(m.mean[0]), 3), round(float(m.var[0]), 3)  # of the 4 rows: 3.0, 3.5
        (3.0, 3.5)
        >>> dist.destroy_process_group()
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
    """A ``reduce`` hook: ``jax.lax.psum`` over the mapped axis ``axis_name`` (inside
    ``shard_map``, ``pmap`` or ``vmap``).

    Example:
        >>> import jax, jax.numpy as jnp
        >>> jax.vmap(jax_psum("i"), axis_name="i")(jnp.arange(4.0))  # 0 + 1 + 2 + 3 everywhere
        Array([6., 6., 6., 6.], dtype=float32)
    """
    import jax

    return functools.partial(jax.lax.psum, axis_name=axis_name)
