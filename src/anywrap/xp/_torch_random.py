"""PyTorch's random ops for :mod:`anywrap.xp.random`: a ``torch.Generator`` on the device.

The generator lives on the tensors' device (a CUDA generator for CUDA
tensors), so a draw is one kernel and never waits for the host. Its state,
for ``state_dict``, is the byte tensor ``Generator.get_state()`` returns,
seen as 64-bit words (on the CPU).

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
    state = key.get_state()
    # Whole 64-bit words where the bytes allow it: a checkpoint keeps integers of 32 or 64 bits.
    return state.view(torch.int64) if state.numel() % 8 == 0 else state


@_random.key_from_data.register(torch.Generator)
def _key_from_data_torch(key: Any, data: Any) -> Any:
    words = torch.as_tensor(data, device="cpu").contiguous()
    gen = torch.Generator(device=key.device)
    gen.set_state(words.view(torch.uint8).clone() if words.dtype != torch.uint8 else words.clone())
    return gen
