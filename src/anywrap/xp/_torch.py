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

from typing import Any

import numpy as np
import torch
from array_api_compat import torch as torch_xp

from anywrap.xp._torch_compile import compile_torch
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
            from torch.utils.dlpack import from_dlpack

            return from_dlpack(src.__dlpack__())
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
        jit=compile_torch,
        aliases=("pytorch",),
    )
)


from anywrap.xp import _torch_images as _torch_images  # noqa: E402  (image ops)
from anywrap.xp import _torch_random  # noqa: E402, F401  (random ops: xp/random.py)
