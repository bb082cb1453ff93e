"""TorchRL's GymWrapper over an anywrap vector stack, on NumPy and through ToTorch,
with the episode statistics TorchRL reports."""

import logging

import gymnasium as gym
import torch
from gymnasium.vector import AutoresetMode
from torchrl.envs import GymWrapper

import anywrap

logging.getLogger("torchrl").setLevel(logging.WARNING)  # its notes on inferred specs
torch.manual_seed(0)  # TorchRL's random actions

for mode in (AutoresetMode.SAME_STEP, AutoresetMode.DISABLED):  # the modes TorchRL takes
    for to_torch in (False, True):
        envs = gym.make_vec(
            "CartPole-v1", 4, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}
        )
        if to_torch:
            envs = anywrap.vector.ToTorch(envs)
        # flat arrays on every step, which TorchRL can register (not a nested dict)
        envs = anywrap.vector.RecordEpisodeStatistics(envs, flat_info=True)
        envs = anywrap.vector.NormalizeReward(anywrap.vector.NormalizeObservation(envs))
        if to_torch:  # TorchRL's reward spec is float32, and it casts NumPy rewards only
            envs = anywrap.vector.TransformReward(envs, lambda r: r.to(torch.float32))
        env = GymWrapper(envs)
        if mode is AutoresetMode.DISABLED:  # there TorchRL reads info only when asked
            env = env.auto_register_info_dict()
        env.set_seed(0)
        rollout = env.rollout(100, break_when_any_done=False)
        done = rollout["next", "done"].squeeze(-1)
        if mode is AutoresetMode.SAME_STEP:  # filed with the reset: the next step's data
            returns = rollout["episode_r"][:, 1:][done[:, :-1]]
        else:  # filed with the done step
            returns = rollout["next", "episode_r"][done]
        reward = rollout["next", "reward"]
        print(
            f"{mode.name:9} {'ToTorch' if to_torch else 'NumPy':7} reward {reward.dtype}, "
            f"{returns.numel()} episodes reported, mean return {returns.mean():.1f}"
        )
