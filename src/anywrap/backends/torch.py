"""The PyTorch backend, registered the first time a tensor (or the name "torch") is met:
``array_api_compat.torch``, fast host views and imports, the compiler
(:mod:`anywrap.backends.torch_compile`) and faster kernels of the routed formulas.

Example:
    >>> import torch
    >>> from anywrap import xp
    >>> xp.library_name(torch.zeros(2)), xp.device(torch.zeros(2))
    ('torch', device(type='cpu'))
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from array_api_compat import torch as torch_xp
from torch.utils.dlpack import from_dlpack as _capsule_to_torch

from anywrap import xp
from anywrap.backends.torch_compile import TorchProgram
from anywrap.xp import images, random


def _to_numpy(x: Any) -> np.ndarray:
    x = x.detach()
    if x.dtype == torch.bfloat16:  # as ml_dtypes.bfloat16 (JAX's): its bits, viewed
        try:
            import ml_dtypes
        except ImportError:
            raise TypeError(
                "anywrap: NumPy has no bfloat16 of its own; install ml_dtypes (JAX brings it) "
                "to convert a bfloat16 tensor, or cast it first (tensor.float())"
            ) from None
        return _to_numpy(x.view(torch.int16)).view(ml_dtypes.bfloat16)
    try:
        return x.numpy()  # type: ignore[no-any-return]  # on the CPU: a view, no copy
    except (TypeError, RuntimeError):  # on a device, or a dtype NumPy lacks
        return x.cpu().numpy()  # type: ignore[no-any-return]


def _from_dlpack(x: Any) -> Any:
    try:
        if type(x) is not np.ndarray and x.__dlpack_device__()[0] == 1:
            # On the host a capsule skips torch's stream and version probing.
            return _capsule_to_torch(x.__dlpack__())
        return torch.from_dlpack(x)
    except (AttributeError, BufferError, RuntimeError, TypeError, ValueError):
        host = xp.to_numpy(x)
        return torch.as_tensor(host if host.flags.writeable else host.copy())


def _from_array(x: Any, device: Any) -> Any:
    if not isinstance(x, torch.Tensor):
        strides = getattr(x, "strides", None)
        if strides and min(strides) < 0:
            # Negative strides (a flipped image): PyTorch's DLPack import aborts the process.
            x = xp.namespace(x).asarray(x, copy=True)
        if type(x) is np.ndarray and x.dtype.name == "bfloat16":  # ml_dtypes' (JAX's)
            x = torch.from_numpy(np.ascontiguousarray(x).view(np.int16)).view(torch.bfloat16)
        elif type(x) is np.ndarray and x.flags.writeable:
            try:  # torch.from_numpy warns on read-only buffers: DLPack shares those
                x = torch.from_numpy(x)
            except (TypeError, ValueError, RuntimeError):  # negative strides, byte order, ...
                x = _from_dlpack(x)
        else:
            x = _from_dlpack(x)
    if device is None:
        return x
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
    return x if x.device == target else x.to(target)


xp.register_backend(
    torch.Tensor,
    namespace=torch_xp,
    name="torch",
    device=lambda x: x.device,
    to_numpy=_to_numpy,
    from_array=_from_array,
    jit=lambda fn, donate=False: TorchProgram(fn),
    aliases=("pytorch",),
)


_INTEGERS = tuple(getattr(torch, f"{u}int{b}", None) for u in ("", "u") for b in (8, 16, 32, 64))


@xp.dtype_kind.register(torch.Tensor)
def _dtype_kind(x: Any) -> str:
    # dtype attributes and comparisons, which TorchDynamo traces (a dict lookup it cannot)
    d = x.dtype
    if d == torch.bool:
        return "bool"
    return "real" if d.is_floating_point or d in _INTEGERS else ""


@xp.stop_gradient.register(torch.Tensor)
def _stop_gradient(x: Any) -> Any:
    # A tensor with no graph is itself: a transform then knows there is none to keep.
    return x.detach() if x.requires_grad else x


_constants: dict[tuple[Any, ...], torch.Tensor] = {}
# dtypes whose kernels compute in the dtype itself: a 0-d tensor gives a Python number's bits.
_OWN_ARITHMETIC = (torch.float32, torch.float64, torch.int32, torch.int64, torch.bool)


@xp.constant.register(torch.Tensor)  # type: ignore[attr-defined]
def _constant(like: Any, value: Any) -> Any:
    # Traced, a Python number is a constant of the graph already.
    if torch.compiler.is_compiling():
        return value
    key = (type(value), value, like.dtype, like.device)
    found = _constants.get(key)
    if found is not None:  # kept only where the checks below passed
        return found
    if (
        like.dtype not in _OWN_ARITHMETIC
        or (like.dtype == torch.bool) != (type(value) is bool)
        or (isinstance(value, float) and not like.is_floating_point())
    ):
        return value
    # Filled on the device; never an inference tensor, which autograd could not save.
    with torch.inference_mode(False):
        found = _constants[key] = (
            torch.tensor(value, dtype=like.dtype, device=like.device)  # a tuple, copied once
            if type(value) is tuple
            else torch.full((), value, dtype=like.dtype, device=like.device)
        )
    return found


@xp.select.register(torch.Tensor)
def _select(condition: Any, x1: Any, x2: Any) -> Any:
    if type(x1) is type(x2) is torch.Tensor and x1.dtype == x2.dtype:
        return torch.where(condition, x1, x2)
    return torch_xp.where(condition, x1, x2)


@xp.clip.register(torch.Tensor)
def _clip(x: Any, low: Any, high: Any) -> Any:
    # torch.clamp with tensor bounds costs twice these kernels (NaN propagates).
    if (low is not None or high is not None) and all(
        b is None or (type(b) is torch.Tensor and b.dtype == x.dtype) for b in (low, high)
    ):
        if low is not None:
            x = torch.maximum(x, low)
        return x if high is None else torch.minimum(x, high)
    return xp.clip.dispatch(object)(x, low, high)


@xp.last_true_indices.register(torch.Tensor)
def _last_true_indices(mask: Any, k: int) -> Any:
    # On the CPU one operator lists the first k Trues of the flipped mask, padded with 0.
    if mask.device.type != "cpu":
        return xp.last_true_indices.dispatch(object)(mask, k)
    found = torch.ops.aten.nonzero_static.default(torch.flip(mask, (0,)), size=k, fill_value=0)
    return mask.shape[0] - 1 - found[:, 0]


_push_scores: dict[tuple[int, int, Any], tuple[Any, Any, Any]] = {}


@xp.push_true.register(torch.Tensor)
def _push_true(mask: Any, buffers: Any, values: Any, count: Any) -> Any:
    n, size = mask.shape[0], buffers[0].shape[0]
    if torch.compiler.is_compiling():
        # Traced, a scan and a binary search fuse into the program (a topk and its
        # concatenations stay calls of their own: 40 to 50 us a step on a CPU, 4096 envs).
        # Slot j takes the True whose running count is count - j (the j-th newest), or,
        # past the Trues, the buffer's slot j - count.
        j = torch.arange(size, device=mask.device)
        found = torch.searchsorted(torch.cumsum(mask, 0), count - j).clamp(max=n - 1)
        older, front = (j - count).clamp(min=0), j < count
        return tuple(
            torch.where(front, v.index_select(0, found).to(b.dtype), b.index_select(0, older))
            for b, v in zip(buffers, values)
        )
    # Eagerly, one topk (fewer launches): the Trues scored by index above the buffer's slots
    # by age, the Falses below all; the `size` best index values and buffers concatenated.
    key = (n, size, mask.device)
    scores = _push_scores.get(key)
    if scores is None:
        with torch.inference_mode(False):
            scores = _push_scores[key] = (
                torch.arange(size, n + size, device=mask.device),
                torch.full((), -1, dtype=torch.int64, device=mask.device),
                torch.arange(size - 1, -1, -1, device=mask.device),
            )
    trues, false, slots = scores
    order = torch.topk(torch.cat((torch.where(mask, trues, false), slots)), size).indices
    return tuple(
        torch.cat((v if v.dtype == b.dtype else v.to(b.dtype), b)).index_select(0, order)
        for b, v in zip(buffers, values)
    )


@xp.finite_rows.register(torch.Tensor)
def _finite_rows(x: Any) -> Any:
    # x - x is NaN exactly where x is not finite, and so is a row's sum: a few kernels.
    if not x.is_floating_point():
        return torch.ones(x.shape[:1], dtype=torch.bool, device=x.device)
    d = x - x
    if x.ndim > 1:
        d = d.sum(tuple(range(1, x.ndim)))
    return d == d


# One kernel each: torch.round of the same formula; index_select (the standard's take also
# wraps negatives); count_nonzero (a sum casts first).
xp.round_decimals.register(torch.Tensor)(lambda x, decimals: torch.round(x, decimals=decimals))
xp.take.register(torch.Tensor)(lambda x, indices: torch.index_select(x, 0, indices))
xp.count_true.register(torch.Tensor)(torch.count_nonzero)


@xp.mean_var.register(torch.Tensor)
def _mean_var(x: Any, mask: Any = None) -> tuple[Any, Any]:
    if mask is not None:  # the generic formula, with PyTorch's own scalar forms
        return xp.row_moments(x, mask)[:2]  # type: ignore[no-any-return]
    if torch.compiler.is_compiling() and x.ndim:
        # Compiled, the shifted sums fuse into one pass (a wide batch by blocks of rows).
        wide = x.shape[0] >= 2 * _BLOCK_ROWS and x[0].numel() >= _BLOCK_MIN_WIDTH
        return _shifted_mean_var(x, _sum_by_blocks if wide else _sum0)
    var, mean = torch.var_mean(x, dim=0, correction=0)  # eagerly one Welford reduction
    return mean, var


_NARROW = 8  # rows this wide or narrower: a row's sums by one matrix-vector product
_row_sums: dict[tuple[int, Any, Any], Any] = {}
_wide: dict[str, Any] = {}  # a Moments count's dtype (xp.wide_float's) by device type


def _counted(x: Any, keep: Any) -> tuple[Any, Any]:
    # The count in the dtype a merge takes it (no cast there); the divisor of x's sums.
    kind = x.device.type
    wide = _wide.get(kind) or _wide.setdefault(kind, xp.wide_float(torch_xp, x.device))
    count = torch.count_nonzero(keep).to(wide)
    return count, (count if x.ndim > 1 else count.to(x.dtype)).clamp_min(1)


def _masked_mean_var(x: Any, keep: Any, n: Any) -> tuple[Any, Any]:
    """The moments of the entries in ``keep`` (broadcast to ``x``), ``n`` rows of them."""
    zero = _constant(x, 0.0)  # a kept 0-d tensor: where wraps a Python 0.0 anew
    mean = torch.where(keep, x, zero).sum(0) / n
    dev = torch.where(keep, x - mean, zero)
    return mean, (dev * dev).sum(0) / n


@xp.row_moments.register(torch.Tensor)
def _row_moments(x: Any, mask: Any = None, finite: bool = False) -> tuple[Any, Any, Any]:
    # Eagerly, x - x (NaN where x is not finite) summed along each narrow row by ones(k, 1)
    # and added to x makes the rows left out NaN, which nansum skips (half ones(k, k)'s time).
    narrow = x.ndim == 1 or (x.ndim == 2 and x.shape[1] <= _NARROW)
    if not (finite and narrow) or (
        x.dtype not in (torch.float32, torch.float64) or torch.compiler.is_compiling()
    ):
        if finite:
            ok = _finite_rows(x)
            mask = ok if mask is None else mask & ok
        if mask is None:
            return (*_mean_var(x), x.shape[0])
        count, n = _counted(x, mask)
        rows = mask if x.ndim < 2 else mask.reshape((x.shape[0],) + (1,) * (x.ndim - 1))
        return (*_masked_mean_var(x, rows, n), count)
    spread = x - x
    if x.ndim == 2 and x.shape[1] > 1:  # (rows, 1): a row's sum, by ones(k, 1)
        key = (x.shape[1], x.dtype, x.device)
        ones = _row_sums.get(key)
        if ones is None:
            with torch.inference_mode(False):
                ones = _row_sums[key] = torch.ones((key[0], 1), dtype=x.dtype, device=x.device)
        spread = torch.mm(spread, ones)
    ok = spread == spread  # the rows kept: (rows,) or (rows, 1)
    if mask is not None:
        ok = ok & (mask if x.ndim == 1 else mask.reshape(-1, 1))
        count, n = _counted(x, ok)
        return (*_masked_mean_var(x, ok, n), count)
    count, n = _counted(x, ok)
    kept = x + spread  # x, with the rows left out all NaN
    mean = kept.nansum(0) / n
    dev = kept - mean
    return mean, (dev * dev).nansum(0) / n, count


SHIFT_ROWS = 16  # leading rows averaged for the origin of the shifted sums
_BLOCK_ROWS = 256
_BLOCK_MIN_WIDTH = 16  # sums by blocks of rows pay from 16 elements a row


def _sum0(y: Any) -> Any:
    return y.sum(0)


def _shifted_mean_var(x: Any, total: Callable[[Any], Any]) -> tuple[Any, Any]:
    """The mean and variance in one read, about the first rows' mean (keeping precision)."""
    rows = x.shape[0]
    head = min(rows, SHIFT_ROWS)
    origin = x[:head].sum(0) / head
    y = x - origin
    offset = total(y) / rows
    # Rounding can take a constant column's variance a hair below zero.
    return origin + offset, torch.clamp_min(total(y * y) / rows - offset * offset, 0.0)


def _sum_by_blocks(y: Any) -> Any:
    """The sum along axis 0 by blocks of rows (TorchInductor parallelises over blocks)."""
    rows = y.shape[0]
    whole = rows - rows % _BLOCK_ROWS
    out = y[:whole].reshape(whole // _BLOCK_ROWS, _BLOCK_ROWS, *y.shape[1:]).sum(1).sum(0)
    return out if whole == rows else out + y[whole:].sum(0)


@functools.lru_cache(maxsize=64)
def _dense(n_in: int, n_out: int) -> np.ndarray:
    """The area filter of one axis as an ``(n_out, n_in)`` float32 matrix."""
    index, weight = images.resize_taps(n_in, n_out, "area", True)
    m = np.zeros((n_out, n_in), np.float32)
    np.add.at(m, (np.arange(n_out), index), weight)  # (K, n_out) taps, added tap by tap
    m.setflags(write=False)
    return m


@images.resize_images.register(torch.Tensor)
def _resize(batch: Any, size: tuple[int, int], method: str = "area") -> Any:
    b, h, w, c = batch.shape
    if method == "bilinear":  # torch's own antialiased filter
        x = batch.permute(0, 3, 1, 2)
        x = x if batch.dtype == torch.uint8 else x.float()
        out = torch.nn.functional.interpolate(
            x, size=size, mode="bilinear", antialias=True, align_corners=False
        )
        if out.dtype != torch.uint8:
            out = out.round().clamp(0, 255).to(torch.uint8)
        return out.permute(0, 2, 3, 1).contiguous()
    if not images.shrinks_both((h, w), size) or (h % size[0] == 0 and w % size[1] == 0):
        return images.resize_images.dispatch(object)(batch, size, method)
    # A ratio that is not whole (210x160 to 84x84): two matrix products, height first.
    my = images.host_constant(_dense, batch, h, size[0])
    mx = images.host_constant(_dense, batch, w, size[1])
    x = torch.empty((h, b, c, w), dtype=torch.float32, device=batch.device)
    x.copy_(batch.permute(1, 0, 3, 2))
    rows = my @ x.reshape(h, b * c * w)
    out = rows.reshape(size[0] * b * c, w) @ mx.T
    out = out.round_().clamp_(0, 255).to(torch.uint8)
    return out.reshape(size[0], b, c, size[1]).permute(1, 0, 3, 2).contiguous()


@images.rgb_to_gray.register(torch.Tensor)
def _rgb_to_gray(batch: Any) -> Any:
    # Eagerly a lookup (four passes, not a dozen); compiled, the fused integer formula.
    if torch.compiler.is_compiling():
        return images.rgb_to_gray.dispatch(object)(batch)
    # Made here on the host, so that a trace finds the compiled formula's table cached.
    images.host_constant(images.gray_fix_table, batch)
    lut = images.host_constant(images.gray_lut(), batch)
    if sys.byteorder != "little":  # pragma: no cover - no such machine in CI
        x = batch.to(torch.int32)
        keys = x[..., 0] | (x[..., 1] << 8) | (x[..., 2] << 16)
    else:  # the bytes r, g, b, 0 read as one little-endian int32: one pass
        keys = torch.nn.functional.pad(batch, (0, 1)).view(torch.int32)[..., 0]
    return torch.index_select(lut, 0, keys.reshape(-1)).reshape(keys.shape)


@images.write_rows.register(torch.Tensor)
def _write_rows(buffer: Any, index: Any, rows: Any) -> Any:
    return buffer.index_copy_(0, index.to(torch.int64), rows.to(buffer.dtype))


@random.new_key.register(torch.Tensor)
def _new_key(like: Any, seed: int) -> Any:
    return torch.Generator(device=like.device).manual_seed(seed)


@random.uniform.register(torch.Generator)
def _uniform(key: Any, shape: tuple[int, ...]) -> tuple[Any, Any]:
    return key, torch.rand(shape, generator=key, device=key.device)


@random.key_data.register(torch.Generator)
def _key_data(key: Any) -> Any:
    state = key.get_state()
    # 64-bit words where the bytes allow it: a checkpoint keeps 32 or 64-bit ints.
    return state.view(torch.int64) if state.numel() % 8 == 0 else state


@random.key_from_data.register(torch.Generator)
def _key_from_data(key: Any, data: Any) -> Any:
    words = torch.as_tensor(data, device="cpu").contiguous()
    return torch.Generator(device=key.device).set_state(words.view(torch.uint8).clone())
