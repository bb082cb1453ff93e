"""TorchRL's GymWrapper over an anywrap vector stack, on NumPy and through ToTorch."""

import logging

import gymnasium as gym
import torch
from gymnasium.vector import AutoresetMode
from torchrl.envs import GymWrapper

import anywrap

logging.getLogger("torchrl").setLevel(logging.WARNING)  # its notes on inferred specs

for mode in (AutoresetMode.SAME_STEP, AutoresetMode.DISABLED):  # the modes TorchRL takes
    for to_torch in (False, True):
        envs = gym.make_vec(
            "CartPole-v1", 4, vectorization_mode="sync", vector_kwargs={"autoreset_mode": mode}
        )
        if to_torch:
            envs = anywrap.vector.ToTorch(envs)
        envs = anywrap.vector.NormalizeReward(anywrap.vector.NormalizeObservation(envs))
        if to_torch:  # TorchRL's reward spec is float32, and it casts NumPy rewards only
            envs = anywrap.vector.TransformReward(envs, lambda r: r.to(torch.float32))
        env = GymWrapper(envs)
        rollout = env.rollout(64, break_when_any_done=False)
        reward = rollout["next", "reward"]
        print(
            f"{mode.name:9} {'ToTorch' if to_torch else 'NumPy':7} reward {reward.dtype}, "
            f"{int(rollout['next', 'done'].sum())} episode ends"
        )
