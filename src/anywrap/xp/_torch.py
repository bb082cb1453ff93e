"""PyTorch backend: registered the first time a tensor is seen.

PyTorch tensors reach the Array API through ``array_api_compat.torch``. No
compiler is registered: ``torch.compile`` costs more in guards than the small
element-wise programs of the wrappers gain, so the transforms run eagerly.
"""

from __future__ import annotations

from typing import Any

import torch

from anywrap import xp as _xp


@_xp._device.register(torch.Tensor)
def _device_torch(x: Any) -> Any:
    return x.device


@_xp._to_numpy.register(torch.Tensor)
def _to_numpy_torch(x: Any) -> Any:
    return x.detach().cpu().numpy()


from anywrap.xp import _torch_random  # noqa: E402, F401  (random ops: xp/random.py)
