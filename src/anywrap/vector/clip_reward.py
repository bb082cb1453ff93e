"""ClipReward for vector envs."""

from anywrap.shell.maps import VectorRewardMap
from anywrap.wrappers.clip_reward import init_clip_reward

__all__ = ["ClipReward"]


class ClipReward(VectorRewardMap):
    """Clips each sub-env's reward to ``[min_reward, max_reward]``, in the rewards' library.

    Drop-in for :class:`gymnasium.wrappers.vector.ClipReward`; see
    :class:`anywrap.ClipReward`. The rewards keep their dtype, as in Gymnasium
    (which writes the clipped values back into the reward array; never done
    in place here).

    Example:
        >>> import gymnasium as gym
        >>> import anywrap
        >>> envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
        >>> envs = anywrap.vector.ClipReward(envs, 0.0, 0.5)
        >>> _ = envs.reset(seed=0)
        >>> envs.step(envs.action_space.sample())[1]
        array([0.5, 0.5])

    Change logs:
     * v0.1.0 - Initially added, matching Gymnasium 1.4.
    """

    __init__ = init_clip_reward
