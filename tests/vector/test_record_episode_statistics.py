"""anywrap.vector.RecordEpisodeStatistics beyond the contract suite: masked resets."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import anywrap


def make_vec(env_id: str, n: int, mode: AutoresetMode = AutoresetMode.NEXT_STEP):
    return gym.make_vec(
        env_id, num_envs=n, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}
    )


def test_partial_reset_restarts_only_the_reset_episodes():
    envs = anywrap.vector.RecordEpisodeStatistics(
        make_vec("CartPole-v1", 3, AutoresetMode.DISABLED)
    )
    envs.reset(seed=0)
    for _ in range(3):
        envs.step(np.ones(3, dtype=np.int64))
    envs.reset(options={"reset_mask": np.array([False, True, False])})
    np.testing.assert_array_equal(envs.episode_lengths, [3, 0, 3])
    np.testing.assert_array_equal(envs.episode_returns, [3.0, 0.0, 3.0])


def test_flat_info_gives_the_nested_statistics_as_flat_arrays_on_every_step():
    """``flat_info=True``: ``stats_key + "_r"/"_l"/"_t"`` and the mask on every step, zero
    where no episode ended, and Gymnasium's nested dict where one did."""
    nested = gym.wrappers.vector.RecordEpisodeStatistics(make_vec("CartPole-v1", 3), stats_key="ep")
    flat = anywrap.vector.RecordEpisodeStatistics(
        make_vec("CartPole-v1", 3), stats_key="ep", flat_info=True
    )
    assert flat.flat_info
    nested.reset(seed=1)
    flat.reset(seed=1)
    ends = 0
    for actions in np.random.default_rng(0).integers(0, 2, (40, 3)):
        *_, ours = flat.step(actions)
        *_, theirs = nested.step(actions)
        assert "ep" not in ours and {"ep_r", "ep_l", "ep_t", "_ep"} <= set(ours)
        mask = theirs.get("_ep", np.zeros(3, dtype=bool))
        np.testing.assert_array_equal(ours["_ep"], mask)
        for k in "rl":
            expected = theirs["ep"][k] if "ep" in theirs else np.zeros(3)
            np.testing.assert_array_equal(ours[f"ep_{k}"], expected)
        assert (ours["ep_t"][~mask] == 0).all() and (ours["ep_t"][mask] >= 0).all()
        ends += int(mask.sum())
    assert ends >= 3
    assert list(flat.length_queue) == list(nested.length_queue)


def test_flat_info_must_be_a_bool():
    with pytest.raises(
        TypeError, match=r"RecordEpisodeStatistics: expected `flat_info` to be a bool"
    ):
        anywrap.vector.RecordEpisodeStatistics(make_vec("CartPole-v1", 2), flat_info="yes")


def test_flat_info_on_torch_reads_no_device_value():
    torch = pytest.importorskip("torch")
    from helpers import (
        ReplayVectorEnv,
        make_backend,
        record_vector_trajectory,
        run_vector,
        torch_no_host_sync,
    )

    traj = record_vector_trajectory(num_envs=3, num_steps=30)  # ends after 9, 12, 15 steps
    envs = anywrap.vector.RecordEpisodeStatistics(
        ReplayVectorEnv(traj, make_backend("torch")), flat_info=True
    )
    envs.reset(seed=0)  # the state moves to the tensors' device once, at first use
    with torch_no_host_sync():
        infos = [event[-1] for event in run_vector(envs) if event[0] == "step"]
    assert all(isinstance(info["episode_l"], torch.Tensor) for info in infos)
    assert sorted(set(torch.stack([i["episode_l"] for i in infos]).flatten().tolist())) == [
        0,
        9,
        12,
        15,
    ]


def test_prev_dones_in_same_step_mode_are_gymnasiums_on_every_step():
    """A step where nothing ended clears ``prev_dones`` (it kept the last ends before)."""

    def make():
        return gym.make_vec(
            "CartPole-v1", num_envs=2, vectorization_mode="sync", max_episode_steps=3,
            vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
        )  # fmt: skip

    theirs = gym.wrappers.vector.RecordEpisodeStatistics(make())
    ours = anywrap.vector.RecordEpisodeStatistics(make())
    theirs.reset(seed=0)
    ours.reset(seed=0)
    seen = set()
    for _ in range(7):
        action = np.ones(2, dtype=np.int64)
        theirs.step(action)
        ours.step(action)
        np.testing.assert_array_equal(np.asarray(ours.prev_dones), theirs.prev_dones)
        seen.add(bool(theirs.prev_dones.any()))
    assert seen == {False, True}  # steps with and without an end
