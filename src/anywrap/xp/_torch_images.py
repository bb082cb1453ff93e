"""PyTorch's image operations: registered with :mod:`anywrap.xp._torch`.

* ``resize_images``: OpenCV's area filter where both sides shrink by a ratio
  that is not whole (210x160 to 84x84) as two matrix products with the
  filter's dense weights (eager PyTorch runs the tap-by-tap form several
  times slower); the other area cases take the generic form; the antialiased
  bilinear filter is ``torch.nn.functional.interpolate(..., "bilinear",
  antialias=True)``.
* ``rgb_to_gray``: a lookup in Gymnasium's results for every colour
  (:func:`anywrap.xp.images.gray_lut`), four passes over the image where the
  integer formula takes a dozen eager kernels.
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

from anywrap.xp import images as _images


@functools.lru_cache(maxsize=64)
def _dense(n_in: int, n_out: int) -> np.ndarray:
    """The area filter of one axis as an ``(n_out, n_in)`` float32 matrix."""
    index, weight = _images.resize_taps(n_in, n_out, "area", True)
    m = np.zeros((n_out, n_in), np.float32)
    for k in range(index.shape[0]):
        np.add.at(m, (np.arange(n_out), index[k]), weight[k])
    m.setflags(write=False)
    return m


@_images.resize_images.register(torch.Tensor)
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
    # Two plain matrix products (a batched one is several times slower on CPUs):
    # along the width, then, transposed, along the height.
    x = images.permute(0, 3, 1, 2).to(torch.float32).reshape(b * c * h, w)
    cols = (x @ mx.T).reshape(b * c, h, size[1]).transpose(1, 2).reshape(-1, h)
    out = (cols @ my.T).reshape(b, c, size[1], size[0])
    out = out.round_().clamp_(0, 255).to(torch.uint8)
    return out.permute(0, 3, 2, 1).contiguous()


@_images.rgb_to_gray.register(torch.Tensor)
def _rgb_to_gray_torch(images: Any) -> Any:
    lut = _images.host_constant(_images.gray_lut(), images)
    padded = torch.zeros((*images.shape[:-1], 4), dtype=torch.uint8, device=images.device)
    if sys.byteorder == "little":  # b, g, r, 0: one little-endian int32 (r << 16 | g << 8 | b)
        padded[..., :3] = images.flip(-1)
    else:
        padded[..., 1:] = images
    keys = padded.view(torch.int32)[..., 0]
    return torch.index_select(lut, 0, keys.reshape(-1)).reshape(keys.shape)


@_images.write_rows.register(torch.Tensor)
def _write_rows_torch(buffer: Any, index: Any, rows: Any) -> Any:
    return buffer.index_copy_(0, index.to(torch.int64), rows.to(buffer.dtype))
