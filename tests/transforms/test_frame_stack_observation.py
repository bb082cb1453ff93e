"""FrameStackObservation's transform: the ring buffer reads what per-env deques hold
(Gymnasium's way of stacking), and a step writes one frame per env, in place."""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest

from anywrap.transforms import frame_stack_observation as T


def deque_reference(events, depth, pad):
    """Per-env deques: ``events`` are ``(kind, obs, flags)``; a ``"reset"`` restarts the
    envs of its mask (every env without one), a ``"start"`` those of its flags."""
    n = events[0][1].shape[0]
    queues = [None] * n
    out = []
    for kind, obs, flags in events:
        for i in range(n):
            if (kind == "reset" and (flags is None or flags[i])) or (kind == "start" and flags[i]):
                first = obs[i] if pad is None else pad
                queues[i] = deque([first] * (depth - 1) + [obs[i]], maxlen=depth)
            elif kind == "start":
                queues[i].append(obs[i])
        out.append(np.stack([np.stack(list(q)) for q in queues]))
    return out


@pytest.mark.parametrize("depth", [1, 3, 5])
@pytest.mark.parametrize("pad_with_first", [True, False])
def test_the_ring_buffer_reads_what_deques_hold(backend, depth, pad_with_first):
    """Random steps, episode starts and partial resets."""
    rng = np.random.default_rng(depth)
    n, frame = 5, (2, 3)
    pad = np.full(frame, -7, np.int16)
    state = T.init_frame_stack(
        n,
        depth,
        frame,
        xp=backend.xp,
        dtype=backend.xp.int16,
        device=backend.device,
        padding=None if pad_with_first else backend.to_backend(pad),
    )
    events, outs = [], []
    for t in range(30):
        obs = rng.integers(-100, 100, (n, *frame)).astype(np.int16)
        if t == 0 or rng.random() < 0.1:
            mask = None if t == 0 else rng.random(n) < 0.5
            m = None if mask is None else backend.to_backend(mask)
            state, out = T.reset_frame_stack(
                state, backend.to_backend(obs), m, pad_with_first=pad_with_first
            )
            events.append(("reset", obs, mask))
        else:
            start = rng.random(n) < 0.2
            state, out = T.push_frame(
                state,
                backend.to_backend(obs),
                pad_with_first=pad_with_first,
                start=backend.to_backend(start),
            )
            events.append(("start", obs, start))
        outs.append(backend.to_numpy(out))
    want = deque_reference(events, depth, None if pad_with_first else pad)
    for t, (w, g) in enumerate(zip(want, outs)):
        np.testing.assert_array_equal(g, w, err_msg=f"call {t}")


def test_a_step_writes_one_frame_per_env_in_place():
    n, depth, frame = 3, 16, (4, 4)
    state = T.init_frame_stack(n, depth, frame, xp=np, dtype=np.uint8)
    state, _ = T.reset_frame_stack(state, np.ones((n, *frame), np.uint8), pad_with_first=True)
    before = state.frames.copy()
    buffer = state.frames
    state, out = T.push_frame(state, np.full((n, *frame), 9, np.uint8), pad_with_first=True)
    assert state.frames is buffer  # written in place, not copied
    assert np.any(state.frames != before, axis=(1, 2)).sum() == n  # one row per env
    assert out.shape == (n, depth, *frame) and not np.shares_memory(out, state.frames)
    # memory: each frame once, the padding frame, two int32 pointers and a flag per env
    assert sum(a.nbytes for a in state) == (n * depth + 1) * 16 + n * (4 + 4 + 1)
