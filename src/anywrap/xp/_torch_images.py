"""PyTorch's image operations: registered with :mod:`anywrap.xp._torch`.

* ``resize_images``: OpenCV's area filter where both sides shrink by a ratio
  that is not whole (210x160 to 84x84) as two matrix products with the
  filter's dense weights (eager PyTorch runs the tap-by-tap form several
  times slower); the other area cases take the generic form; the antialiased
  bilinear filter is ``torch.nn.functional.interpolate(..., "bilinear",
  antialias=True)``.
* ``rgb_to_gray``: a lookup in Gymnasium's results for every colour
  (:func:`anywrap.xp.images.gray_lut`), four passes over the image where the
  integer formula takes a dozen eager kernels; a compiled program takes the
  integer formula, which TorchInductor fuses into one pass (the lookup's random
  reads of a 16 MiB table cost it several times more).
* ``write_rows``: ``buffer.index_copy_(0, index, rows)``, in place.

Example:
    >>> import torch
    >>> from anywrap.xp.images import write_rows
    >>> buf = torch.zeros((4, 2), dtype=torch.uint8)
    >>> write_rows(buf, torch.tensor([1, 3]), torch.ones((2, 2), dtype=torch.uint8)).tolist()
    [[0, 0], [1, 1], [0, 0], [1, 1]]
"""

from __future__ import annotations

import functools
import sys
from typing import Any

import numpy as np
import torch

from anywrap.xp import _torch
from anywrap.xp import images as _images
from anywrap.xp._torch_compile import tracing


@functools.lru_cache(maxsize=64)
def _dense(n_in: int, n_out: int) -> np.ndarray:
    """The area filter of one axis as an ``(n_out, n_in)`` float32 matrix."""
    index, weight = _images.resize_taps(n_in, n_out, "area", True)
    m = np.zeros((n_out, n_in), np.float32)
    for k in range(index.shape[0]):
        np.add.at(m, (np.arange(n_out), index[k]), weight[k])
    m.setflags(write=False)
    return m


@_torch.TORCH.route(_images.resize_images)
def _resize_torch(images: Any, size: tuple[int, int], method: str = "area") -> Any:
    _, h, w, _ = images.shape
    if method == "bilinear":
        x = images.permute(0, 3, 1, 2)
        if images.dtype != torch.uint8:
            x = x.float()
        out = torch.nn.functional.interpolate(
            x, size=size, mode="bilinear", antialias=True, align_corners=False
        )
        if out.dtype != torch.uint8:
            out = out.round().clamp(0, 255).to(torch.uint8)
        return out.permute(0, 2, 3, 1).contiguous()
    whole = h % size[0] == 0 and w % size[1] == 0
    if not _images.shrinks_both((h, w), size) or whole:
        return _images.resize_separable(images, size, method)
    my = _images.host_constant(_dense(h, size[0]), images)
    mx = _images.host_constant(_dense(w, size[1]), images)
    b, _, _, c = images.shape
    # Two plain matrix products (a batched one is several times slower on CPUs),
    # height first: one copy converts and lays the images out as (h, b, c, w).
    x = torch.empty((h, b, c, w), dtype=torch.float32, device=images.device)
    x.copy_(images.permute(1, 0, 3, 2))
    rows = my @ x.reshape(h, b * c * w)  # (size[0], b * c * w)
    out = rows.reshape(size[0] * b * c, w) @ mx.T  # (size[0] * b * c, size[1])
    out = out.round_().clamp_(0, 255).to(torch.uint8)
    return out.reshape(size[0], b, c, size[1]).permute(1, 0, 3, 2).contiguous()


@_torch.TORCH.route(_images.rgb_to_gray)
def _rgb_to_gray_torch(images: Any) -> Any:
    if tracing():  # a compiled program fuses the integer formula into one pass
        return _images.rgb_to_gray.default(images)
    lut = _images.host_constant(_images.gray_lut(), images)
    if sys.byteorder != "little":  # pragma: no cover - no such machine in CI
        x = images.to(torch.int32)
        keys = x[..., 0] | (x[..., 1] << 8) | (x[..., 2] << 16)
    else:  # the bytes r, g, b, 0 read as one little-endian int32: one pass
        keys = torch.nn.functional.pad(images, (0, 1)).view(torch.int32)[..., 0]
    return torch.index_select(lut, 0, keys.reshape(-1)).reshape(keys.shape)


@_torch.TORCH.route(_images.write_rows)
def _write_rows_torch(buffer: Any, index: Any, rows: Any) -> Any:
    return buffer.index_copy_(0, index.to(torch.int64), rows.to(buffer.dtype))
