"""Pure, jittable wrappers for JAX-native environments (Brax, gymnax, Gymnasium FuncEnv).

Protocol (the docs' guide "JAX-native envs", docs/guide/functional.md, has the full story)::

    obs, state = env.reset(key)
    obs, state, reward, terminated, truncated, info = env.step(state, action)

Wrapper state rides inside ``state``, so a whole wrapped rollout compiles
under ``jax.jit`` / ``jax.vmap`` / ``jax.lax.scan``. Wrappers over a batched env
(:class:`VmapWrapper`) keep one set of statistics for the whole batch.

This package imports JAX; ``import anywrap`` does not import it.

Example:
    >>> import jax, gymnax
    >>> from anywrap import functional as F
    >>> env = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=64)
    >>> env = F.NormalizeObservation(F.RecordEpisodeStatistics(F.ClipAction(env)))
    >>> obs, state = jax.jit(env.reset)(jax.random.key(0))
    >>> def body(state, key):
    ...     action = jax.random.uniform(key, (64, 1), minval=-3.0, maxval=3.0)
    ...     step = env.step(state, action)
    ...     return step.state, step.reward
    >>> rollout = jax.jit(lambda s, k: jax.lax.scan(body, s, jax.random.split(k, 10)))
    >>> state, rewards = rollout(state, jax.random.key(1))
    >>> rewards.shape
    (10, 64)
"""

try:
    import jax  # noqa: F401
except ModuleNotFoundError:  # named with the extra that installs it
    from anywrap._extras import require

    require("jax", "anywrap.functional")
    raise

from .adapters import (
    BraxEnv,
    FuncEnvAdapter,
    GymnaxEnv,
    from_brax,
    from_func_env,
    from_gymnax,
    gymnax_to_gymnasium_space,
)
from .add_white_noise import AddWhiteNoise, NoiseState
from .auto_reset import AutoReset, AutoResetState, CachedResetState
from .brax_training import (
    BRAX_AXIS,
    BraxStackEnv,
    BraxStackState,
    BraxTraining,
    brax_normalizer_params,
)
from .clip_action import ClipAction
from .clip_reward import ClipReward
from .core import FunctionalEnv, Step, Wrapper, batch_ndim, find_state
from .delay_observation import DelayObservation, DelayObservationState
from .discretize import DiscretizeAction, DiscretizeObservation
from .dtype_observation import DtypeObservation
from .filter_observation import FilterObservation
from .flatten_observation import FlattenObservation
from .frame_stack_observation import FrameStackObservation, FrameStackState
from .grayscale_observation import GrayscaleObservation
from .normalize_observation import NormalizeObservation, NormalizeObservationState
from .normalize_reward import NormalizeReward, NormalizeRewardState
from .obstruct_view import ObstructView
from .record_episode_statistics import (
    EpisodeStatisticsState,
    RecordEpisodeStatistics,
    episode_count,
    last_episodes,
    recent_episodes,
)
from .record_trajectory import RecordTrajectory, Trajectory, write_report
from .repeat_action import RepeatAction
from .rescale_action import RescaleAction
from .rescale_observation import RescaleObservation
from .reshape_observation import ReshapeObservation
from .resize_observation import ResizeObservation
from .sharding import shard_specs
from .sticky_action import StickyAction, StickyActionState
from .time_aware_observation import TimeAwareObservation, TimeAwareObservationState
from .time_limit import TimeLimit, TimeLimitState
from .transform_action import TransformAction
from .transform_observation import TransformObservation
from .transform_reward import TransformReward
from .vector_env import FunctionalVectorEnv, to_vector_env
from .vmap_wrapper import VmapWrapper

__all__ = [
    "BRAX_AXIS",
    "AddWhiteNoise",
    "AutoReset",
    "AutoResetState",
    "BraxEnv",
    "BraxStackEnv",
    "BraxStackState",
    "BraxTraining",
    "CachedResetState",
    "ClipAction",
    "ClipReward",
    "DelayObservation",
    "DelayObservationState",
    "DiscretizeAction",
    "DiscretizeObservation",
    "DtypeObservation",
    "EpisodeStatisticsState",
    "FilterObservation",
    "FlattenObservation",
    "FrameStackObservation",
    "FrameStackState",
    "FuncEnvAdapter",
    "FunctionalEnv",
    "FunctionalVectorEnv",
    "GrayscaleObservation",
    "GymnaxEnv",
    "NoiseState",
    "NormalizeObservation",
    "NormalizeObservationState",
    "NormalizeReward",
    "NormalizeRewardState",
    "ObstructView",
    "RecordEpisodeStatistics",
    "RecordTrajectory",
    "RepeatAction",
    "RescaleAction",
    "RescaleObservation",
    "ReshapeObservation",
    "ResizeObservation",
    "Step",
    "StickyAction",
    "StickyActionState",
    "TimeAwareObservation",
    "TimeAwareObservationState",
    "TimeLimit",
    "TimeLimitState",
    "Trajectory",
    "TransformAction",
    "TransformObservation",
    "TransformReward",
    "VmapWrapper",
    "Wrapper",
    "batch_ndim",
    "brax_normalizer_params",
    "episode_count",
    "find_state",
    "from_brax",
    "from_func_env",
    "from_gymnax",
    "gymnax_to_gymnasium_space",
    "last_episodes",
    "recent_episodes",
    "shard_specs",
    "to_vector_env",
    "write_report",
]
