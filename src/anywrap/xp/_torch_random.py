"""PyTorch's random ops for :mod:`anywrap.xp.random`: a ``torch.Generator`` on the device.

The generator lives on the tensors' device (a CUDA generator for CUDA
tensors), so a draw is one kernel and never waits for the host. Its state,
for ``state_dict``, is the byte tensor ``Generator.get_state()`` returns.

Example:
    >>> import torch
    >>> from anywrap.xp import random
    >>> key = random.new_key(torch.zeros(3), 2**40 + 7)
    >>> key, u = random.uniform(key, (4,))
    >>> u.dtype, u.device.type, bool(((u >= 0) & (u < 1)).all())
    (torch.float32, 'cpu', True)
"""

from __future__ import annotations

from typing import Any

import torch

from anywrap.xp import random as _random


@_random._new_key.register(torch.Tensor)
def _new_key_torch(like: Any, seed: int) -> Any:
    gen = torch.Generator(device=like.device)
    gen.manual_seed(seed)
    return gen


@_random.uniform.register(torch.Generator)
def _uniform_torch(key: Any, shape: tuple[int, ...]) -> tuple[Any, Any]:
    return key, torch.rand(shape, generator=key, device=key.device)


@_random.key_data.register(torch.Generator)
def _key_data_torch(key: Any) -> Any:
    return key.get_state()


@_random.key_from_data.register(torch.Generator)
def _key_from_data_torch(key: Any, data: Any) -> Any:
    gen = torch.Generator(device=key.device)
    gen.set_state(torch.as_tensor(data, dtype=torch.uint8, device="cpu").clone())
    return gen
