"""A report's frames: the options checked when a recorder is built, :class:`FrameCapture`,
which renders them at the steps a report keeps and checks each at the step that made it,
and :class:`FrameEncoder`, which compresses frames (Pillow) into the strings a page shows.

Example:
    >>> import numpy as np
    >>> to_uint8(np.array([[[0.0, 0.5, 1.0]]])).tolist()
    [[[0, 128, 255]]]
"""

from __future__ import annotations

import io
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from anywrap import xp as axp
from anywrap.record.layout import shape_of

__all__ = ["FrameCapture", "FrameEncoder", "check_frame", "check_frame_options", "to_uint8"]

_MAX_QUEUED = 32  # frames waiting for the encoder before a step waits for it

_FORMATS = {"webp": "image/webp", "jpeg": "image/jpeg", "png": "image/png"}


def check_frame_options(owner: str, fmt: Any, quality: Any, max_side: Any) -> str:
    """The frame options checked (what :class:`FrameEncoder` takes); the format in
    lower case. Each error names ``owner`` and the argument."""
    name = fmt.lower() if isinstance(fmt, str) else fmt
    if name not in _FORMATS:
        raise ValueError(f"{owner}: frame_format must be one of {sorted(_FORMATS)}, got {fmt!r}")
    if isinstance(quality, bool) or not (isinstance(quality, int) and 1 <= quality <= 100):
        raise ValueError(f"{owner}: frame_quality must be an int in [1, 100], got {quality!r}")
    if max_side is not None and (
        isinstance(max_side, bool) or not (isinstance(max_side, int) and max_side >= 16)
    ):
        raise ValueError(f"{owner}: max_frame_side must be None or an int >= 16, got {max_side!r}")
    return str(name)


class FrameEncoder:
    """Compresses ``rgb_array`` frames with Pillow (WebP by default).

    ``max_side`` shrinks frames whose longer side is larger (keeping the
    aspect ratio) before encoding.

    Example:
        >>> enc = FrameEncoder("webp", quality=75)
        >>> frame = np.zeros((64, 48, 3), np.uint8)
        >>> data = enc.encode(frame)
        >>> data[:4], data[8:12], enc.mime
        (b'RIFF', b'WEBP', 'image/webp')
    """

    def __init__(self, fmt: str = "webp", quality: int = 75, max_side: int | None = 512) -> None:
        fmt = check_frame_options("FrameEncoder", fmt, quality, max_side)
        try:
            import PIL.Image  # noqa: F401
        except ImportError as e:  # pragma: no cover - the record extra installs it
            raise ImportError(
                "RecordHTML needs Pillow to compress frames: pip install '.[record]' from a "
                "checkout (or pass frames=False for a charts-only report)"
            ) from e
        self.format, self.quality, self.max_side = fmt, quality, max_side
        self.mime = _FORMATS[fmt]

    def encode(self, frame: Any) -> bytes:
        """One ``(H, W, 3)`` or ``(H, W)`` uint8 frame (or ``(H, W, 4)``) -> image bytes."""
        from PIL import Image

        a = to_uint8(np.asarray(frame))
        if a.ndim == 3 and a.shape[-1] == 1:
            a = a[..., 0]
        check_frame("RecordHTML", a)
        img = Image.fromarray(a)
        if self.max_side is not None and max(img.size) > self.max_side:
            img.thumbnail((self.max_side, self.max_side), Image.Resampling.BILINEAR)
        if self.format == "jpeg" and img.mode == "RGBA":
            img = img.convert("RGB")
        buf = io.BytesIO()
        if self.format == "webp":
            # method 2: within 3% of the smallest files (method 6) at a fifth of the time.
            img.save(buf, format="WEBP", quality=self.quality, method=2)
        elif self.format == "jpeg":
            img.save(buf, format="JPEG", quality=self.quality)
        else:
            img.save(buf, format="PNG", optimize=False)
        return buf.getvalue()


def to_uint8(a: np.ndarray) -> np.ndarray:
    """A frame's pixels as uint8, faithfully: bools as 0 and 255; floats as [0, 1]
    where no value is above 1, else as [0, 255] (NaN as 0); uint16 by its high byte
    (the scale of 16-bit images); other integers clipped to [0, 255]."""
    if a.dtype == np.uint8:
        return a
    if a.dtype == np.bool_:
        return a.astype(np.uint8) * np.uint8(255)
    if a.dtype.kind == "f":
        values = np.nan_to_num(a.astype(np.float64), nan=0.0, posinf=255.0, neginf=0.0)
        scale = 255.0 if values.size and values.max() <= 1.0 else 1.0
        return np.clip(values * scale + 0.5, 0, 255).astype(np.uint8)
    if a.dtype == np.uint16:
        return (a >> 8).astype(np.uint8)
    if a.dtype.kind in "iu":
        return np.clip(a, 0, 255).astype(np.uint8)
    raise ValueError(f"RecordHTML: expected frames of numbers, got dtype {a.dtype}")


def check_frame(owner: str, a: np.ndarray) -> None:
    """An ``(H, W)``, ``(H, W, 1)``, ``(H, W, 3)`` or ``(H, W, 4)`` frame of at least one
    pixel; a channels-first ``(3, H, W)`` frame is named as such."""
    shape = a.shape
    ok = a.ndim == 2 or (a.ndim == 3 and shape[-1] in (1, 3, 4))
    if ok and min(shape[:2]) >= 1:
        return
    hint = ""
    if a.ndim == 3 and shape[0] in (1, 3, 4) and shape[-1] not in (1, 3, 4):
        hint = " (channels first? an rgb_array is (H, W, 3): np.moveaxis(frame, 0, -1))"
    elif ok:
        hint = " (an empty frame)"
    raise ValueError(
        f"{owner}: expected render() to give an (H, W, 3) rgb_array, got shape {shape}{hint}"
    )


class FrameCapture:
    """Renders ``env`` for the rows of a report and encodes the frames on a worker thread.

    A long episode is thinned, not cut: when a report holds more than ``max_frames``
    frames, every other one is dropped and from then on only every ``stride``-th row
    (doubled) is rendered, so memory stays bounded and the frames spread evenly.
    """

    def __init__(
        self, owner: str, env: Any, encoder: FrameEncoder, indices: list[int], batch: Any
    ) -> None:
        self.owner, self.env, self.encoder = owner, env, encoder
        self.indices, self.batch = indices, batch
        self._pool: ThreadPoolExecutor | None = None
        self._encoding: deque[Future] = deque()  # frames submitted, oldest first

    def add(self, report: Any, row: Any, max_frames: int) -> None:
        """Capture ``row``'s frames into ``report`` (``row`` is counted after)."""
        index = report.rows
        if index % report.stride:
            return
        row.frames = self._capture()
        report.framed.append((index, row))
        if len(report.framed) > max_frames:
            report.stride *= 2
            kept = []
            for i, r in report.framed:
                if i % report.stride:
                    for f in r.frames or ():
                        if f is not None:
                            f.cancel()
                    r.frames = None
                else:
                    kept.append((i, r))
            report.framed = kept

    def _capture(self) -> list[Future | None]:
        out = self.env.render()
        k = len(self.indices)
        if isinstance(out, list) and self.batch is None:  # rgb_array_list
            out = out[-1] if out else None
        if out is None:
            frames: list[Any] = [None] * k
        elif self.batch is None:
            frames = [out]
        elif isinstance(out, (list, tuple)) or (
            len(shape_of(out)) == 4 and shape_of(out)[0] == self.batch
        ):
            frames = [out[i] for i in self.indices]
        else:  # one picture of the whole batch
            frames = [out] * k
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="anywrap-frames")
        # A copy: an env may draw its next frame into the same buffer. Checked here, at
        # the step that made it, not when the report is written.
        copies = [None if f is None else np.array(axp.to_numpy(f)) for f in frames]
        for f in copies:
            if f is not None:
                check_frame(self.owner, f)
        futures = [None if f is None else self._pool.submit(self.encoder.encode, f) for f in copies]
        # Back-pressure: an env that renders faster than frames encode would otherwise
        # queue raw frames without bound. Wait on the oldest.
        self._encoding.extend(f for f in futures if f is not None)
        while len(self._encoding) > _MAX_QUEUED:
            oldest = self._encoding.popleft()
            if not oldest.cancelled():  # a thinned frame may have been cancelled
                oldest.exception()
        return futures

    def close(self) -> None:
        """Wait for the frames being encoded and stop the worker thread."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
