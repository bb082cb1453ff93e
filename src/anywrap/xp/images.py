"""Image operations outside the Array API standard, one registration per backend.

:func:`resize_images` applies OpenCV's ``INTER_AREA`` taps (Gymnasium's) in OpenCV's order:
exact on NumPy, within 1 on a few pixels on JAX and PyTorch.

Example:
    >>> import numpy as np
    >>> from anywrap.xp.images import resize_images, resize_taps
    >>> index, weight = resize_taps(5, 2, "area")
    >>> index.tolist(), (weight * 5).tolist()  # pixel 0: (p0 + p1 + 0.5 * p2) / 2.5
    ([[0, 2], [1, 3], [2, 4]], [[2.0, 1.0], [2.0, 2.0], [1.0, 2.0]])
    >>> img = np.arange(20, dtype=np.uint8).reshape(1, 4, 5, 1)
    >>> resize_images(img, (2, 2))[0, :, :, 0]
    array([[ 3,  6],
           [13, 16]], dtype=uint8)
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from anywrap.xp import Array, device, namespace
from anywrap.xp.core import Route

METHODS = ("area", "bilinear")
"""The resize filters: OpenCV's ``INTER_AREA`` (Gymnasium's) and antialiased bilinear."""

GRAY_WEIGHTS = (0.2125, 0.7154, 0.0721)
"""Gymnasium's grayscale weights of the red, green and blue channels."""


def _opencv_area_taps(n_in: int, n_out: int) -> list[list[tuple[int, float]]]:
    """OpenCV's ``computeResizeAreaTab``: each output pixel's source pixels and weights."""
    scale = 1.0 / (n_out / n_in)  # OpenCV works from the inverse scale, in double
    taps = []
    for d in range(n_out):
        f1 = d * scale
        f2 = f1 + scale
        cell = min(scale, n_in - f1)
        s2 = min(math.floor(f2), n_in - 1)
        s1 = min(math.ceil(f1), s2)
        t = []
        if s1 - f1 > 1e-3:
            t.append((s1 - 1, float(np.float32((s1 - f1) / cell))))
        t.extend((s, float(np.float32(1.0 / cell))) for s in range(s1, s2))
        if f2 - s2 > 1e-3:
            t.append((s2, float(np.float32(min(min(f2 - s2, 1.0), cell) / cell))))
        taps.append(t)
    return taps


def _opencv_area_linear_taps(n_in: int, n_out: int) -> list[list[tuple[int, float]]]:
    """OpenCV's bilinear coefficients for ``INTER_AREA`` where a side grows."""
    inv = n_out / n_in
    scale = 1.0 / inv
    taps = []
    for d in range(n_out):
        s = math.floor(d * scale)
        fx = float(np.float32((d + 1) - (s + 1) * inv))
        fx = 0.0 if fx <= 0 else fx - math.floor(fx)
        if s >= n_in - 1:
            s, fx = n_in - 1, 0.0
        taps.append([(s, 1.0 - fx), (min(s + 1, n_in - 1), fx)])
    return taps


def _triangle_taps(n_in: int, n_out: int) -> list[list[tuple[int, float]]]:
    """Antialiased bilinear: a triangle filter as wide as the scale when shrinking."""
    scale = n_in / n_out
    support = max(scale, 1.0)
    taps = []
    for d in range(n_out):
        center = scale * (d + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), n_in)
        w = [max(0.0, 1.0 - abs((j - center + 0.5) / support)) for j in range(lo, hi)]
        total = sum(w)
        taps.append([(lo + j, wj / total) for j, wj in enumerate(w) if wj > 0])
    return taps


@functools.lru_cache(maxsize=64)
def resize_taps(
    n_in: int, n_out: int, method: str = "area", shrink_both: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """One axis's filter ``(index, weight)``, each ``(K, n_out)``: output pixel ``d`` is
    ``sum_k weight[k, d] * input[index[k, d]]``; ``shrink_both=False``: OpenCV's bilinear."""
    if method == "area":
        taps = (_opencv_area_taps if shrink_both else _opencv_area_linear_taps)(n_in, n_out)
    elif method == "sum":  # a whole-number ratio: the block's plain sum
        k = n_in // n_out
        taps = [[(d * k + j, 1.0) for j in range(k)] for d in range(n_out)]
    elif method == "bilinear":
        taps = _triangle_taps(n_in, n_out)
    else:
        raise ValueError(f"resize: expected a method in {METHODS}, got {method!r}")
    k = max(len(t) for t in taps)  # shorter lists padded with their last pixel, weighted 0
    table = np.array([t + [(t[-1][0], 0.0)] * (k - len(t)) for t in taps])  # (n_out, k, 2)
    index = np.ascontiguousarray(table[..., 0].T, np.int32)
    weight = np.ascontiguousarray(table[..., 1].T, np.float32)
    index.setflags(write=False)
    weight.setflags(write=False)
    return index, weight


def shrinks_both(src: tuple[int, int], dst: tuple[int, int]) -> bool:
    """Whether OpenCV's ``INTER_AREA`` takes its area filter (neither side grows)."""
    return src[0] >= dst[0] and src[1] >= dst[1]


_constants: dict[tuple[Any, ...], tuple[Any, Any]] = {}


def host_constant(table: Any, like: Array, *args: Any) -> Array:
    """``table`` (a NumPy constant, or its maker called with ``args``) in ``like``'s library
    on its device, cached per device."""
    xp = namespace(like)
    dev = None if xp is np else device(like)
    if dev is None:  # NumPy, or a traced value: the table is a constant of the program
        made = table(*args) if callable(table) else table
        return made if xp is np else xp.asarray(made)
    name = f"{table.__module__}.{table.__qualname__}" if callable(table) else id(table)
    key = (name, args, type(like), str(dev))
    hit = _constants.get(key)
    if hit is None:  # the entry keeps ``table`` alive, so its id is never reused
        made = table(*args) if callable(table) else table
        hit = _constants[key] = (table, xp.asarray(np.array(made), device=dev))
    return hit[1]


@Route
def resize_images(images: Array, size: tuple[int, int], method: str = "area") -> Array:
    """Resize ``uint8`` images ``(B, H, W, C)`` to ``(B, size[0], size[1], C)`` by
    ``method`` (``"area"`` or ``"bilinear"``), rounded half to even and saturated (the
    generic form: each axis's taps in float32, columns first)."""
    xp = namespace(images)
    h_in, w_in = images.shape[1], images.shape[2]
    both = shrinks_both((h_in, w_in), size)
    if method == "area" and not both:  # OpenCV's bilinear in 11-bit fixed point
        shr = xp.bitwise_right_shift
        x = xp.astype(images, xp.int32)
        rows = shr(_apply_taps(x, tap_rows(w_in, size[1], "area", False, True), 2), 4)
        out = _apply_taps(rows, tap_rows(h_in, size[0], "area", False, True), 1, shift=16)
        return xp.astype(xp.clip(shr(out + 2, 2), 0, 255), xp.uint8)
    ky, kx = h_in // size[0], w_in // size[1]
    # A whole ratio: OpenCV sums each block, then scales by 1/area (2x2: adds 2, shifts).
    whole = method == "area" and (ky * size[0], kx * size[1]) == (h_in, w_in)
    taps = "sum" if whole else method
    x = xp.astype(images, xp.float32)
    rows = _apply_taps(x, tap_rows(w_in, size[1], taps, both), 2)
    out = _apply_taps(rows, tap_rows(h_in, size[0], taps, both), 1)
    if whole and (ky, kx) == (2, 2):
        out = xp.floor((out + 2.0) / 4.0)
    else:
        out = xp.round(out * float(np.float32(1.0 / (ky * kx))) if whole else out)
    return xp.astype(xp.clip(out, 0, 255), xp.uint8)


def _apply_taps(x: Array, taps: Any, axis: int, shift: int = 0) -> Array:
    """The sum of the taps' terms along ``axis``, each shifted right by ``shift`` bits."""
    xp = namespace(x)
    shape = [1] * x.ndim
    shape[axis] = taps[0][0].shape[0]
    acc = None
    for index, weight in taps:
        w = xp.reshape(host_constant(weight, x), tuple(shape))
        term = xp.take(x, host_constant(index, x), axis=axis) * w
        term = xp.bitwise_right_shift(term, shift) if shift else term
        acc = term if acc is None else acc + term
    return acc


@functools.lru_cache(maxsize=64)
def tap_rows(
    n_in: int, n_out: int, method: str, shrink_both: bool, fixed: bool = False
) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """:func:`resize_taps` as one ``(index, weight)`` pair of rows per tap; ``fixed``:
    the weights in 1/2048 (int32), OpenCV's fixed point."""
    index, weight = resize_taps(n_in, n_out, method, shrink_both)
    if fixed:
        weight = np.round(weight * np.float32(2048)).astype(np.int32)
        weight.setflags(write=False)  # and so its rows, views of it
    return tuple(zip(index, weight))


@resize_images.register(np.ndarray)
def _resize_numpy(images: np.ndarray, size: tuple[int, int], method: str = "area") -> np.ndarray:
    cv2 = _opencv() if method == "area" else None
    if cv2 is None:
        return resize_images.dispatch(object)(images, size, method)
    b, _, _, c = images.shape
    out = np.empty((b, size[0], size[1], c), np.uint8)
    for i in range(b):  # OpenCV resizes one image at a time
        resized = cv2.resize(images[i], (size[1], size[0]), interpolation=cv2.INTER_AREA)
        out[i] = resized.reshape(size[0], size[1], c)
    return out


@functools.cache
def _opencv() -> Any:
    try:
        import cv2
    except ImportError:
        return None
    return cv2


@Route
def write_rows(buffer: Array, index: Array, rows: Array) -> Array:
    """``buffer[index] = rows`` along axis 0 (``index`` increasing); NumPy and PyTorch write
    into ``buffer``, which the caller gives up."""
    xp = namespace(buffer)
    m, n = buffer.shape[0], index.shape[0]
    slots = xp.arange(m, dtype=index.dtype, device=device(buffer))
    owner = xp.clip(xp.searchsorted(index, slots), 0, n - 1)  # the row that writes each slot
    hit = xp.reshape(xp.take(index, owner) == slots, (m,) + (1,) * (buffer.ndim - 1))
    return xp.where(hit, xp.take(xp.astype(rows, buffer.dtype), owner, axis=0), buffer)


@write_rows.register(np.ndarray)
def _write_rows_numpy(buffer: np.ndarray, index: Any, rows: Any) -> np.ndarray:
    buffer[index] = rows
    return buffer


@functools.cache
def gray_fix_table() -> np.ndarray:
    """The ``b`` of each colour, by ``256 r + g``, whose float64 grayscale lands just below
    the whole number it equals (grey 43 becomes 42); -1 elsewhere."""
    # 721 is invertible modulo 10000: each (r, g) has at most one b making the sum whole.
    c = np.arange(256, dtype=np.int64)
    r, g = (a.ravel() for a in np.meshgrid(c, c, indexing="ij"))
    b = (-(2125 * r + 7154 * g) * pow(721, -1, 10000)) % 10000
    ok = b < 256
    rgb = np.stack([r[ok], g[ok], b[ok]], axis=-1).astype(np.uint8)
    exact = (2125 * r[ok] + 7154 * g[ok] + 721 * b[ok]) // 10000
    gym = np.sum(np.multiply(rgb, np.array(GRAY_WEIGHTS)), axis=-1).astype(np.uint8)
    low = gym != exact
    table = np.full(65536, -1, np.int32)  # int32: compared with int32 values (TF promotes nothing)
    table[rgb[low, 0].astype(np.int64) * 256 + rgb[low, 1]] = rgb[low, 2]
    table.setflags(write=False)
    return table


@Route
def rgb_to_gray(images: Array) -> Array:
    """Gymnasium's grayscale of ``uint8`` RGB images ``(..., 3)``, exactly:
    ``(2125 r + 7154 g + 721 b) // 10000``, one lower on :func:`gray_fix_table`'s colours."""
    xp = namespace(images)
    x = xp.astype(images, xp.int32)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    gray = (r * 2125 + g * 7154 + b * 721) // 10000
    table = host_constant(gray_fix_table, images)
    below = xp.take(table, xp.reshape(r * 256 + g, (-1,))) == xp.reshape(b, (-1,))
    gray = gray - xp.reshape(xp.astype(below, xp.int32), gray.shape)
    return xp.astype(gray, xp.uint8)


@functools.cache
def gray_lut() -> np.ndarray:
    """Gymnasium's grayscale of every colour, indexed by ``r | (g << 8) | (b << 16)``."""
    c = np.arange(256, dtype=np.uint8)
    g, r = (a.ravel() for a in np.meshgrid(c, c, indexing="ij"))  # r varies fastest
    lut = np.empty(1 << 24, np.uint8)
    weights = np.array(GRAY_WEIGHTS)
    for b in range(256):
        rgb = np.stack([r, g, np.full(65536, b, np.uint8)], axis=-1)
        lut[b << 16 : (b + 1) << 16] = np.sum(np.multiply(rgb, weights), axis=-1).astype(np.uint8)
    lut.setflags(write=False)
    return lut


@rgb_to_gray.register(np.ndarray)
def _rgb_to_gray_numpy(images: np.ndarray) -> np.ndarray:
    padded = np.zeros((*images.shape[:-1], 4), np.uint8)
    padded[..., :3] = images
    return gray_lut()[padded.view("<i4")[..., 0]]  # the bytes r, g, b, 0: one little-endian int32
