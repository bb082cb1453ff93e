"""TorchRL's ``GymWrapper`` over an anywrap vector stack (issue 34). It reads
``env.autoreset_mode``, which Gymnasium's ``VectorWrapper`` does not pass through
(an AttributeError over any wrapped vector env), and takes SAME_STEP and DISABLED."""

from __future__ import annotations

import logging
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import anywrap

torch = pytest.importorskip("torch")
torchrl_envs = pytest.importorskip("torchrl.envs")

MODES = [AutoresetMode.SAME_STEP, AutoresetMode.DISABLED]


def _envs(mode: AutoresetMode):
    return gym.make_vec(
        "CartPole-v1", 3, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}
    )


@pytest.mark.parametrize("mode", list(AutoresetMode), ids=lambda m: m.name)
def test_every_vector_wrapper_reports_its_envs_autoreset_mode(mode):
    stack = anywrap.vector.RecordEpisodeStatistics(
        anywrap.vector.TransformReward(
            anywrap.vector.NormalizeObservation(anywrap.vector.ToTorch(_envs(mode))), lambda r: r
        )
    )
    env = stack
    while isinstance(env, gym.vector.VectorWrapper):
        assert env.autoreset_mode is mode, type(env)
        env = env.env
    with pytest.raises(AttributeError, match="autoreset_mode"):
        _ = anywrap.NormalizeObservation(gym.make("CartPole-v1")).autoreset_mode


def _rollout(stack, steps=40):
    logging.disable(logging.INFO)  # TorchRL's notes on specs it infers
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            env = torchrl_envs.GymWrapper(stack)
            return env, env.rollout(steps, break_when_any_done=False)
    finally:
        logging.disable(logging.NOTSET)


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_torchrl_takes_a_numpy_stack(mode):
    stack = anywrap.vector.RecordEpisodeStatistics(
        anywrap.vector.NormalizeReward(anywrap.vector.NormalizeObservation(_envs(mode)))
    )
    _, td = _rollout(stack)
    assert td["next", "reward"].shape[:2] == (3, 40)
    assert td["next", "done"].any()  # CartPole's episodes ended within the rollout


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_torchrl_takes_a_stack_through_to_torch_with_the_reward_as_its_spec_says(mode):
    """TorchRL's reward spec is float32 and it does not cast tensors; the recipe casts."""
    stack = anywrap.vector.NormalizeObservation(anywrap.vector.ToTorch(_envs(mode)))
    stack = anywrap.vector.TransformReward(stack, lambda r: r.to(torch.float32))
    env, td = _rollout(stack)
    assert env.reward_spec.dtype == td["next", "reward"].dtype == torch.float32
    assert td["next", "done"].any()
    obs = td["next", "observation"]
    assert obs.dtype == torch.float32 and np.isfinite(obs.numpy()).all()


class _PositionReward(gym.vector.VectorWrapper):
    """CartPole paying its cart's position each step: returns that are not lengths."""

    def step(self, actions):
        obs, _, terminated, truncated, info = self.env.step(actions)
        return obs, obs[:, 0].astype(np.float64), terminated, truncated, info


STEPS, SEED = 120, 3
ACTIONS = np.random.default_rng(0).integers(0, 2, (STEPS, 3))


def _gymnasiums_episodes() -> list[tuple[int, int, int, float]]:
    """Gymnasium's RecordEpisodeStatistics on NumPy, SAME_STEP, the same seed and actions."""
    envs = gym.wrappers.vector.RecordEpisodeStatistics(
        _PositionReward(_envs(AutoresetMode.SAME_STEP))
    )
    envs.reset(seed=SEED)
    episodes = []
    for t, actions in enumerate(ACTIONS[:-1]):  # TorchRL shows an episode a step later
        *_, info = envs.step(actions)
        for i in np.flatnonzero(info.get("_episode", [])):
            stats = info["episode"]
            episodes.append((int(i), t, int(stats["l"][i]), float(stats["r"][i])))
    return sorted(episodes)


def _torchrl_episodes(stack, mode: AutoresetMode):
    """TorchRL's rollout of ``stack`` with the seed and actions above: its data and the
    (sub-env, step it ended, length, return) of each episode it reports in the
    ``episode_r`` and ``episode_l`` keys. In SAME_STEP mode TorchRL files a done step's
    info with the reset that step made (the next step's root data); in DISABLED mode
    with the done step."""
    from torchrl.envs.utils import check_env_specs

    logging.disable(logging.INFO)  # TorchRL's notes on specs it infers
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            env = torchrl_envs.GymWrapper(stack, categorical_action_encoding=True)
            if mode is AutoresetMode.DISABLED:  # TorchRL reads no info there unless asked
                env = env.auto_register_info_dict()
            check_env_specs(env)
            steps = iter(torch.as_tensor(ACTIONS))

            def policy(td):
                return td.set("action", next(steps))

            td = env.rollout(
                STEPS,
                policy,
                auto_reset=False,
                tensordict=env.reset(seed=SEED),
                break_when_any_done=False,
            )
    finally:
        logging.disable(logging.NOTSET)
    done = td["next", "done"].squeeze(-1)
    if mode is AutoresetMode.SAME_STEP:
        r, n, done = td["episode_r"][:, 1:], td["episode_l"][:, 1:], done[:, :-1]
    else:
        r, n = td["next", "episode_r"], td["next", "episode_l"]
    assert not r[~done].any() and not n[~done].any()  # zero where no episode ended
    episodes = sorted((i, t, int(n[i, t]), float(r[i, t])) for i, t in done.nonzero().tolist())
    return td, episodes


def _reference_episodes(td, mode: AutoresetMode) -> list[tuple[int, int, int, float]]:
    """The episodes of TorchRL's data, summed here in float64 from its rewards and dones."""
    reward = td["next", "reward"].squeeze(-1).double().numpy()
    done = td["next", "done"].squeeze(-1).numpy()
    last = STEPS - 1 if mode is AutoresetMode.SAME_STEP else STEPS  # seen one step later
    episodes = []
    for i in range(reward.shape[0]):
        total, length = 0.0, 0
        for t in range(last):
            total, length = total + reward[i, t], length + 1
            if done[i, t]:
                episodes.append((i, t, length, total))
                total, length = 0.0, 0
    return sorted(episodes)


def _stack(mode: AutoresetMode, to_torch: bool):
    envs = _PositionReward(_envs(mode))
    if to_torch:  # RecordEpisodeStatistics above ToTorch: its statistics are tensors
        envs = anywrap.vector.ToTorch(envs)
        envs = anywrap.vector.TransformReward(envs, lambda r: r.to(torch.float32))
    return anywrap.vector.RecordEpisodeStatistics(envs, flat_info=True)


@pytest.mark.parametrize("to_torch", [False, True], ids=["numpy", "ToTorch"])
@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
def test_torchrl_reports_the_episode_statistics_of_a_flat_info_stack(mode, to_torch):
    """With ``flat_info=True`` TorchRL registers the statistics (it cannot register
    Gymnasium's nested ``info["episode"]`` dict), passes its spec check, and reports
    each episode's return and length through several episode ends."""
    td, episodes = _torchrl_episodes(_stack(mode, to_torch), mode)
    assert len(episodes) >= 6, episodes  # several ends, in every sub-env
    assert {e[0] for e in episodes} == {0, 1, 2}
    # TorchRL keeps float32 rewards (its spec); the wrapper summed them, or NumPy's
    # float64 ones, in float64: returns agree to float32 rounding
    references = [_reference_episodes(td, mode)]
    if mode is AutoresetMode.SAME_STEP:  # the same run as Gymnasium's wrapper on NumPy
        references.append(_gymnasiums_episodes())
    for reference in references:
        assert [e[:3] for e in episodes] == [e[:3] for e in reference]
        np.testing.assert_allclose([e[3] for e in episodes], [e[3] for e in reference], 1e-6)


def test_torchrl_cannot_register_gymnasiums_nested_episode_dict_on_a_device_stack():
    """Why ``flat_info`` exists: on device arrays the statistics are in ``info`` on
    every step (checking for a done would sync), so TorchRL's registration step sees
    ``info["episode"]``, a dict, and gives it a plain tensor spec it cannot stack."""
    stack = anywrap.vector.RecordEpisodeStatistics(
        anywrap.vector.TransformReward(
            anywrap.vector.ToTorch(_envs(AutoresetMode.SAME_STEP)), lambda r: r.to(torch.float32)
        )
    )
    with pytest.raises(AttributeError, match="batch_size"):
        _rollout(stack)
