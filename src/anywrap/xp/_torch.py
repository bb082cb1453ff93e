"""The PyTorch backend, registered the first time a tensor (or the name "torch") is met.

Tensors reach the Array API through ``array_api_compat.torch``. This module
adds the device lookup, host views and DLPack imports that skip PyTorch's
slower generic paths, the detach that a tensor needs before export, and the
compiler: :class:`anywrap.xp.Compiled` runs each transform as one program
traced once per signature and compiled by TorchInductor, captured in a CUDA
graph on CUDA (see :mod:`anywrap.xp._torch_compile`; switched off by
:func:`anywrap.xp.set_compile` or ``ANYWRAP_TORCH_COMPILE=0``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from array_api_compat import torch as torch_xp
from torch.utils.dlpack import from_dlpack as _capsule_to_torch

from anywrap.tree import leaves, unflatten
from anywrap.xp import ops
from anywrap.xp._torch_compile import compile_torch, in_program, tracing
from anywrap.xp.policy import same_device
from anywrap.xp.registry import Backend, exportable, register_backend, to_numpy


def _to_numpy(x: Any) -> np.ndarray:
    x = x.detach()
    try:
        return x.numpy()  # type: ignore[no-any-return]  # on the CPU: a view, no copy
    except (TypeError, RuntimeError):  # on a device, or a dtype NumPy lacks
        return x.cpu().numpy()  # type: ignore[no-any-return]


def _from_array(x: Any, device: Any) -> Any:
    if not isinstance(x, torch.Tensor):
        if type(x) is np.ndarray and x.flags.writeable:
            try:  # torch.from_numpy warns on read-only buffers: DLPack shares those
                x = torch.from_numpy(x)
            except (TypeError, ValueError, RuntimeError):  # negative strides, byte order, ...
                x = _from_dlpack(x)
        else:
            x = _from_dlpack(x)
    return x if device is None else _to_device(x, device)


def _from_dlpack(x: Any) -> Any:
    src = exportable(x)
    try:
        if type(src) is not np.ndarray and src.__dlpack_device__()[0] == 1:
            # On the host there is no stream to synchronise with: a capsule skips
            # torch's version probing. (NumPy's read-only arrays need the
            # versioned protocol, which torch.from_dlpack speaks.)
            return _capsule_to_torch(src.__dlpack__())
        return torch.from_dlpack(src)
    except (AttributeError, BufferError, RuntimeError, TypeError, ValueError):
        host = to_numpy(x)
        return torch.as_tensor(host if host.flags.writeable else host.copy())


def _check_device(device: Any) -> None:
    try:
        target = torch.device(device)
    except (RuntimeError, TypeError) as e:
        raise ValueError(f"{device!r} is not a PyTorch device ({e})") from None
    if target.type == "cuda":
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if (target.index or 0) >= count:
            raise ValueError(
                f"device {device!r}: this PyTorch ({torch.__version__}) sees {count} CUDA GPU(s)"
            )
    elif target.type not in ("cpu", "meta") and not hasattr(torch, target.type):
        raise ValueError(f"device {device!r}: PyTorch has no {target.type!r} backend here")


def _to_device(x: Any, device: Any) -> Any:
    target = torch.device(device)
    if same_device(x.device, target):
        return x
    _check_device(device)
    return x.to(target)


TORCH: Backend = register_backend(
    Backend(
        "torch",
        (torch.Tensor,),
        namespace=lambda x: torch_xp,
        device=lambda x: x.device,
        to_numpy=_to_numpy,
        from_array=_from_array,
        to_device=_to_device,
        exportable=lambda x: x.detach() if x.requires_grad else x,
        check_device=_check_device,
        on_host=lambda x: x.is_cpu,
        jit=compile_torch,
        aliases=("pytorch",),
    )
)


@TORCH.route(ops.fast_path)
def _fast_path_torch(pred: Any, fast: Any, safe: Callable[..., Any], *operands: Any) -> Any:
    # In a program traced for the CPU, only the branch taken runs (torch.cond,
    # as JAX's lax.cond): the guard's extra passes over the batch cost nothing
    # while the fast formula holds. Eagerly, torch.cond would read the
    # predicate on the host, and TorchInductor's CUDA code reads it there too
    # (a sync, and no CUDA graph): both compute the two and select.
    if not (tracing() and pred.device.type == "cpu"):
        return ops.fast_path.default(pred, fast, safe, *operands)
    fast_leaves = leaves(fast)
    op_leaves = leaves(operands)
    # The branches take each tensor once (a branch's inputs may not alias).
    unique: dict[int, Any] = {}
    for v in (*fast_leaves, *op_leaves):
        if isinstance(v, torch.Tensor):
            unique.setdefault(id(v), v)
    slot = {key: i for i, key in enumerate(unique)}

    def rebuild(values: list[Any], tensors: tuple[Any, ...]) -> list[Any]:
        return [tensors[slot[id(v)]] if id(v) in slot else v for v in values]

    def take_fast(*tensors: Any) -> list[Any]:
        return [t.clone() for t in rebuild(fast_leaves, tensors)]  # nor return them

    def take_safe(*tensors: Any) -> list[Any]:
        out = leaves(safe(*unflatten(operands, rebuild(op_leaves, tensors))))
        given = {id(t) for t in tensors}
        return [t.clone() if id(t) in given else t for t in out]

    # The operator itself: torch.cond would hand the branches to TorchDynamo first.
    out = torch.ops.higher_order.cond(pred, take_fast, take_safe, tuple(unique.values()))
    return unflatten(fast, list(out))


from anywrap.xp import _torch_images as _torch_images  # noqa: E402  (image ops)
from anywrap.xp import _torch_random  # noqa: E402, F401  (random ops: xp/random.py)


@TORCH.route(ops.clip)
def _clip_torch(x: Any, low: Any, high: Any) -> Any:
    # The Array API's clip (torch.clamp underneath) with tensor bounds costs
    # twice the two elementwise kernels of the same formula (NaN propagates).
    if (
        type(low) is torch.Tensor
        and type(high) is torch.Tensor
        and low.dtype == x.dtype
        and high.dtype == x.dtype
    ):
        return torch.minimum(torch.maximum(x, low), high)
    return ops.clip.default(x, low, high)


@TORCH.route(ops.last_true_indices)
def _last_true_indices_torch(mask: Any, k: int) -> Any:
    # On the CPU one operator lists the first k Trues of the flipped mask, padded
    # with index 0 (so n - 1, a valid index): one call where the generic
    # formula's cumulative sum and binary search are two ATen calls in a
    # compiled program (TorchInductor compiles neither on the CPU) and seven
    # eagerly. On other devices the generic formula stays (Triton compiles a
    # cumulative sum).
    if mask.device.type != "cpu":
        return ops.last_true_indices.default(mask, k)
    found = torch.ops.aten.nonzero_static.default(torch.flip(mask, (0,)), size=k, fill_value=0)
    return mask.shape[0] - 1 - found[:, 0]


@TORCH.route(ops.mean_var)
def _mean_var_torch(x: Any) -> tuple[Any, Any]:
    if in_program() and x.ndim:
        # In a compiled program, the shifted sums: TorchInductor fuses them into
        # one pass over the batch. A wide batch is summed by blocks of rows (its
        # reduction over axis 0 runs a parallel loop per 16 columns otherwise).
        wide = x.shape[0] >= 2 * _BLOCK_ROWS and x[0].numel() >= _BLOCK_MIN_WIDTH
        return ops.shifted_mean_var(x, _sum_by_blocks if wide else None)
    # Eagerly one reduction (Welford's): one kernel where the generic formula
    # takes five.
    var, mean = torch.var_mean(x, dim=0, correction=0)
    return mean, var


_BLOCK_ROWS = 256
"""Rows summed together first by :func:`_sum_by_blocks`."""

_BLOCK_MIN_WIDTH = 16
"""Elements a row needs for sums by blocks to pay (measured on 2 CPU cores: 3
columns run faster as one plain sum, 17 to 376 faster by blocks)."""


def _sum_by_blocks(y: Any) -> Any:
    """The sum of ``y`` along axis 0 as sums of blocks of rows, then of the blocks:
    TorchInductor parallelises that over the blocks, reading whole rows."""
    rows = y.shape[0]
    whole = rows - rows % _BLOCK_ROWS
    blocks = y[:whole].reshape(whole // _BLOCK_ROWS, _BLOCK_ROWS, *y.shape[1:])
    out = blocks.sum(1).sum(0)
    return out if whole == rows else out + y[whole:].sum(0)
