"""TorchRL's side of B5: the demo's batched PyTorch Pendulum as a TorchRL ``EnvBase``.

The Gymnasium side, :func:`anywrap.demo.torch_pendulum_vector_env`, and the
CleanRL stack, :func:`anywrap.demo.cleanrl_stack`, live in the package, where
``anywrap demo`` uses them; both sides step the same dynamics.
"""

from __future__ import annotations

from typing import Any

from anywrap.demo import _PendulumCore  # the same dynamics as the Gymnasium side

__all__ = ["torchrl_pendulum_env"]


def torchrl_pendulum_env(num_envs: int, device: Any = "cpu") -> Any:
    """The same batched Pendulum as a TorchRL ``EnvBase`` (batch size ``[num_envs]``).

    Keys: ``observation`` ``(num_envs, 3)``, ``reward`` ``(num_envs, 1)``,
    ``done`` / ``terminated`` / ``truncated`` ``(num_envs, 1)``; partial
    resets through TorchRL's ``_reset`` mask. Raises ``ImportError`` without
    torchrl.
    """
    import torch
    from tensordict import TensorDict
    from torchrl.data import Bounded, Categorical, Composite, Unbounded
    from torchrl.envs import EnvBase

    dev = torch.device(device)

    class TorchRLPendulum(EnvBase):
        batch_locked = True

        def __init__(self) -> None:
            super().__init__(device=dev, batch_size=torch.Size([num_envs]))
            self.core = _PendulumCore(num_envs, dev)
            n = num_envs
            self.observation_spec = Composite(
                observation=Unbounded(shape=(n, 3), device=dev), shape=(n,), device=dev
            )
            self.action_spec = Bounded(-2.0, 2.0, shape=(n, 1), device=dev)
            self.reward_spec = Unbounded(shape=(n, 1), device=dev)
            self.done_spec = Composite(
                done=Categorical(2, shape=(n, 1), dtype=torch.bool, device=dev),
                terminated=Categorical(2, shape=(n, 1), dtype=torch.bool, device=dev),
                truncated=Categorical(2, shape=(n, 1), dtype=torch.bool, device=dev),
                shape=(n,),
                device=dev,
            )

        def _reset(self, tensordict: Any = None, **kwargs: Any) -> Any:
            mask = None
            if tensordict is not None and "_reset" in tensordict.keys():
                mask = tensordict.get("_reset").reshape(num_envs)
            self.core.reset_rows(mask)
            false = torch.zeros(num_envs, 1, dtype=torch.bool, device=dev)
            return TensorDict(
                {
                    "observation": self.core.obs(),
                    "done": false,
                    "terminated": false,
                    "truncated": false,
                },
                batch_size=self.batch_size,
                device=dev,
            )

        def _step(self, tensordict: Any) -> Any:
            reward, truncated = self.core.step(tensordict.get("action"))
            trunc = truncated.reshape(num_envs, 1)
            return TensorDict(
                {
                    "observation": self.core.obs(),
                    "reward": reward.reshape(num_envs, 1),
                    "done": trunc,
                    "terminated": torch.zeros_like(trunc),
                    "truncated": trunc,
                },
                batch_size=self.batch_size,
                device=dev,
            )

        def _set_seed(self, seed: int | None) -> None:
            if seed is not None:
                self.core.seed(seed)

    return TorchRLPendulum()
