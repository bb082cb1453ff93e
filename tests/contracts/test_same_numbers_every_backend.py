"""Contract 3, "same type out as in", and "same numbers" across backends.

The six-wrapper CleanRL stack runs on a replay of a real Pendulum trajectory
given as arrays of each backend (NumPy included). Every output must be of
that backend, on its device, and agree with Gymnasium's own wrappers run on a
NumPy replay of the same trajectory (``GYM_VECTOR`` for vector envs: on
DISABLED trajectories it follows anywrap's documented partial reset).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from helpers import (
    GYM_VECTOR,
    Backend,
    ReplayEnv,
    ReplayVectorEnv,
    make_backend,
    moments_with_prior,
    record_single_trajectory,
    record_vector_trajectory,
    run_single,
    run_vector,
    tolerance_for,
)

import anywrap
from anywrap import xp as axp

OBS_CLIP = 3.0
REW_CLIP = 5.0


def vector_stack(replay: ReplayVectorEnv, lib: object = anywrap.vector) -> dict:
    """The CleanRL continuous-control stack; ``lib`` is anywrap.vector or Gymnasium's."""
    xp = replay.backend.xp
    layers = {}
    env = layers["rec"] = lib.RecordEpisodeStatistics(replay)
    env = lib.ClipAction(env)
    env = layers["obs"] = lib.NormalizeObservation(env)
    env = lib.TransformObservation(env, lambda o: xp.clip(o, -OBS_CLIP, OBS_CLIP))
    env = layers["rew"] = lib.NormalizeReward(env, gamma=0.99)
    env = layers["top"] = lib.TransformReward(env, lambda r: xp.clip(r, -REW_CLIP, REW_CLIP))
    return layers


def single_stack(replay: ReplayEnv, lib: object = anywrap) -> dict:
    xp = replay.backend.xp
    layers = {}
    env = layers["rec"] = lib.RecordEpisodeStatistics(replay)
    env = lib.ClipAction(env)
    env = layers["obs"] = lib.NormalizeObservation(env)
    env = lib.TransformObservation(env, lambda o: xp.clip(o, -OBS_CLIP, OBS_CLIP), None)
    env = layers["rew"] = lib.NormalizeReward(env, gamma=0.99)
    env = layers["top"] = lib.TransformReward(env, lambda r: xp.clip(r, -REW_CLIP, REW_CLIP))
    return layers


def assert_native(x: object, backend: Backend, what: str) -> None:
    """``x`` is an array of ``backend`` on its device (Contract 3)."""
    assert isinstance(x, backend.array_type), f"{what}: {type(x)} is not {backend.name}"
    assert str(axp.device(x)) == str(backend.device), (
        f"{what}: on {axp.device(x)}, expected {backend.device}"
    )


def close(got: object, want: object, backend: Backend, what: str, rtol: float | None = None):
    """``got`` (NumPy copy of a backend array) agrees with Gymnasium's ``want``."""
    got = np.asarray(got)
    tol = tolerance_for(backend, got.dtype)
    np.testing.assert_allclose(
        got.astype(np.float64),
        np.asarray(want, dtype=np.float64),
        rtol=tol.rtol if rtol is None else rtol,
        atol=tol.atol,
        err_msg=f"{backend.name}: {what}",
    )


def stats_of(layers: dict, to_numpy) -> dict:
    obs, rew = layers["obs"].obs_rms, layers["rew"].return_rms
    return {
        "obs.mean": to_numpy(obs.mean),
        "obs.var": to_numpy(obs.var),
        "obs.count": to_numpy(obs.count),
        "ret.mean": to_numpy(rew.mean),
        "ret.var": to_numpy(rew.var),
        "ret.count": to_numpy(rew.count),
    }


@pytest.fixture(scope="module")
def numpy_backend() -> Backend:
    return make_backend("numpy")


# Regression: the array_api_strict DISABLED case once failed, because
# `reset_mask_of` (then `check_reset_mask`) refused array_api_strict bool masks.
# Regression: NumPy rewards once drifted from Gymnasium's by ~1.5e-9 relative
# from the first step with skipped sub-envs (Gymnasium forms the float32
# product `batch_var * batch_count`; anywrap formed it in float64).
@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.DISABLED])
def test_vector_stack_same_type_and_numbers(backend, numpy_backend, mode):
    traj = record_vector_trajectory(autoreset_mode=mode)
    ref_layers = vector_stack(ReplayVectorEnv(traj, numpy_backend), lib=GYM_VECTOR)
    ref = run_vector(ref_layers["top"])
    replay = ReplayVectorEnv(traj, backend)
    layers = vector_stack(replay)
    out = run_vector(layers["top"])
    assert len(out) == len(ref) == len(traj.events)

    saw_episode = False
    for i, (got, want) in enumerate(zip(out, ref)):
        assert got[0] == want[0]
        assert_native(got[1], backend, f"obs of event {i}")
        assert got[1].dtype == backend.xp.float32 and want[1].dtype == np.float32
        close(backend.to_numpy(got[1]), want[1], backend, f"obs of event {i}")
        if got[0] == "step":
            for j, name in ((2, "reward"), (3, "terminated"), (4, "truncated")):
                assert_native(got[j], backend, f"{name} of event {i}")
            if backend.name == "numpy":
                assert got[2].dtype == want[2].dtype == np.float64
            close(backend.to_numpy(got[2]), want[2], backend, f"reward of event {i}")
            info = got[5]
            if "episode" in want[5]:
                saw_episode = True
                ep, mask = info["episode"], info["_episode"]
                assert_native(mask, backend, "info['_episode']")
                np.testing.assert_array_equal(backend.to_numpy(mask), want[5]["_episode"])
                for k in ("r", "l", "t"):
                    assert_native(ep[k], backend, f"info['episode'][{k!r}]")
                m = want[5]["_episode"]
                close(backend.to_numpy(ep["r"])[m], want[5]["episode"]["r"][m], backend, "r")
                np.testing.assert_array_equal(
                    backend.to_numpy(ep["l"])[m], want[5]["episode"]["l"][m]
                )
    assert saw_episode

    # Statistics live in the backend too, and agree with Gymnasium's.
    for view in (layers["obs"].obs_rms, layers["rew"].return_rms):
        for attr in ("mean", "var", "count"):
            assert_native(getattr(view, attr), backend, f"{view!r}.{attr}")
    got_stats, want_stats = stats_of(layers, backend.to_numpy), stats_of(ref_layers, np.asarray)
    for k in want_stats:
        close(got_stats[k], want_stats[k], backend, k)
    n_obs = traj.num_envs * (traj.num_steps + 1)  # every reset obs counted too
    if mode is AutoresetMode.DISABLED:
        # Masked resets feed only the sub-envs reset.
        masked = [int(e.reset_mask.sum()) for e in traj.events[1:] if e.kind == "reset"]
        assert masked
        n_obs += sum(masked)
    close(got_stats["obs.count"], n_obs + 1e-4, backend, "obs count", rtol=1e-6)

    # ClipAction clipped the actions as the backend's arrays.
    assert len(replay.received_actions) == traj.num_steps
    for a, raw in zip(replay.received_actions, traj.actions):
        assert_native(a, backend, "clipped action")
        np.testing.assert_array_equal(backend.to_numpy(a), np.clip(raw, -2.0, 2.0))


def test_single_stack_same_type_and_numbers(backend, numpy_backend):
    traj = record_single_trajectory()
    ref_layers = single_stack(ReplayEnv(traj, numpy_backend), lib=gym.wrappers)
    ref = run_single(ref_layers["top"])
    replay = ReplayEnv(traj, backend)
    layers = single_stack(replay)
    out = run_single(layers["top"])
    assert len(out) == len(ref) == len(traj.events)
    episodes = 0
    for i, (got, want) in enumerate(zip(out, ref)):
        close(backend.to_numpy(got[1]), want[1], backend, f"obs of event {i}")
        if backend.name != "numpy":
            assert_native(got[1], backend, f"obs of event {i}")
        if got[0] != "step":
            continue
        close(backend.to_numpy(got[2]), want[2], backend, f"reward of event {i}")
        if backend.name != "numpy":
            for j, name in ((2, "reward"), (3, "terminated"), (4, "truncated")):
                assert_native(got[j], backend, f"{name} of event {i}")
        if "episode" in want[5]:
            episodes += 1
            ep = got[5]["episode"]
            if backend.name != "numpy":
                assert_native(ep["r"], backend, "info['episode']['r']")
            close(backend.to_numpy(ep["r"]), want[5]["episode"]["r"], backend, "episode r")
            assert int(backend.to_numpy(ep["l"])) == int(want[5]["episode"]["l"])
    assert episodes >= 3
    for view in (layers["obs"].obs_rms, layers["rew"].return_rms):
        for attr in ("mean", "var", "count"):
            assert_native(getattr(view, attr), backend, f"{view!r}.{attr}")
    got_stats, want_stats = stats_of(layers, backend.to_numpy), stats_of(ref_layers, np.asarray)
    for k in want_stats:
        close(got_stats[k], want_stats[k], backend, k)
    for a, raw in zip(replay.received_actions, traj.actions):
        if backend.name != "numpy":
            assert_native(a, backend, "clipped action")
        np.testing.assert_array_equal(backend.to_numpy(a), np.clip(raw, -2.0, 2.0))


def test_gymnasium_vector_normalize_observation_does_not_keep_torch(numpy_backend):
    """The contrast: Gymnasium 1.4's vector NormalizeObservation cannot take tensors
    (``np.mean(tensor, axis=0)`` raises a TypeError); anywrap's returns tensors
    holding the numbers Gymnasium's gives on the same observations in NumPy."""
    torch_backend = make_backend("torch")
    import torch

    traj = record_vector_trajectory()
    theirs = gym.wrappers.vector.NormalizeObservation(ReplayVectorEnv(traj, torch_backend))
    with pytest.raises(TypeError, match="axis"):
        theirs.reset(seed=0)
    ours = anywrap.vector.NormalizeObservation(ReplayVectorEnv(traj, torch_backend))
    ref_replay = ReplayVectorEnv(traj, numpy_backend)
    ref = gym.wrappers.vector.NormalizeObservation(ref_replay)
    got, want = [ours.reset(seed=0)[0]], [ref.reset(seed=0)[0]]
    for _ in range(5):
        action = ref_replay.action()
        got.append(ours.step(torch.from_numpy(np.array(action)))[0])
        want.append(ref.step(action)[0])
    for i, (g, w) in enumerate(zip(got, want)):
        assert isinstance(g, torch.Tensor) and g.dtype == torch.float32
        close(g.numpy(), w, torch_backend, f"obs {i}")
    assert isinstance(ours.obs_rms.mean, torch.Tensor)
    close(ours.obs_rms.mean.numpy(), ref.obs_rms.mean, torch_backend, "obs_rms.mean")
    close(ours.obs_rms.var.numpy(), ref.obs_rms.var, torch_backend, "obs_rms.var")


# Regression: a masked update (every update is masked, as non-finite rows are
# skipped) once added an int64 count to the float64 count, which
# array-api-strict refuses.
def test_array_api_strict_masked_moment_update():
    xs = pytest.importorskip("array_api_strict")
    from anywrap.transforms import moments

    x = np.array([[1.0, 2.0], [3.0, 6.0], [5.0, 7.0]], dtype=np.float32)
    m = moments.init_moments((2,), xp=xs, dtype=xs.float32)
    m = moments.update_moments(m, xs.asarray(x))
    ref = gym.wrappers.utils.RunningMeanStd(shape=(2,), dtype=np.float32)
    ref.update(x)
    np.testing.assert_allclose(np.from_dlpack(m.mean), ref.mean, rtol=1e-6)
    np.testing.assert_allclose(np.from_dlpack(m.var), ref.var, rtol=1e-6)


def shell_numbers(env: object) -> dict:
    """What a partial reset may change in each of the three stateful vector shells."""
    if hasattr(env, "episode_returns"):
        return {"returns": env.episode_returns, "lengths": env.episode_lengths}
    if hasattr(env, "obs_rms"):
        rms = env.obs_rms
        return {"mean": rms.mean, "var": rms.var, "count": rms.count}
    return {"G": env.accumulated_reward}


def _host(values: dict, to_numpy) -> dict:
    # each value keeps its dtype: float32 statistics agree to float32 rounding
    return {k: np.asarray(to_numpy(v)) for k, v in values.items()}


# Regression (array_api_strict): `reset_mask_of` (then `check_reset_mask`) once refused valid masks,
# whose dtype prints as "array_api_strict.bool".
@pytest.mark.parametrize(
    "shell", ["RecordEpisodeStatistics", "NormalizeObservation", "NormalizeReward"]
)
def test_vector_shells_reset_only_the_masked_sub_envs(backend, numpy_backend, shell):
    """A partial reset with a mask of the backend restarts the masked sub-envs only.

    The numbers are those of Gymnasium's wrapper on a NumPy replay, taught the
    documented partial reset (``GYM_VECTOR``); the masked rows of the returns
    and lengths (and of G) go to zero, the others keep their values, and the
    observation statistics learn from the masked rows alone.
    """
    traj = record_vector_trajectory(autoreset_mode=AutoresetMode.DISABLED)
    i = next(i for i, e in enumerate(traj.events) if i and e.kind == "reset")
    mask_np = np.array(traj.events[i].reset_mask)
    assert 0 < mask_np.sum() < traj.num_envs, "the first masked reset must be partial"
    replay = ReplayVectorEnv(traj, backend)
    ours = getattr(anywrap.vector, shell)(replay)
    ref_replay = ReplayVectorEnv(traj, numpy_backend)
    theirs = getattr(GYM_VECTOR, shell)(ref_replay)
    ours.reset(seed=0)
    theirs.reset(seed=0)
    for _ in range(i - 1):
        ours.step(replay.action())
        theirs.step(ref_replay.action())
    before = _host(shell_numbers(ours), backend.to_numpy)
    mask = backend.to_backend(mask_np)
    obs, _ = ours.reset(options={"reset_mask": mask})
    ref_obs, _ = theirs.reset(options={"reset_mask": mask_np.copy()})
    assert replay.reset_options[-1]["reset_mask"] is mask  # passed on to the env as given
    after = _host(shell_numbers(ours), backend.to_numpy)
    want = _host(shell_numbers(theirs), np.asarray)
    for k in want:
        close(after[k], want[k], backend, f"{shell}.{k} after the partial reset")
    if shell == "NormalizeObservation":
        assert after["count"] == pytest.approx(before["count"] + mask_np.sum(), abs=1e-9)
        seen = [e.obs for e in traj.events[:i]] + [traj.events[i].obs[mask_np]]
        mean, var, count = moments_with_prior(np.concatenate(seen))
        close(after["count"], count, backend, "count")
        np.testing.assert_allclose(after["mean"], mean, rtol=2e-5, atol=1e-6)
        np.testing.assert_allclose(after["var"], var, rtol=2e-5, atol=1e-6)
        close(backend.to_numpy(obs), ref_obs, backend, "obs of the partial reset")
    else:
        for k in after:
            np.testing.assert_array_equal(after[k][mask_np], 0.0, err_msg=k)
            np.testing.assert_array_equal(after[k][~mask_np], before[k][~mask_np], err_msg=k)
            assert np.all(before[k][~mask_np] != 0), (k, before[k])  # a reset would show
