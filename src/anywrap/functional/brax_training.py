"""Brax's trainers on an anywrap stack: ``ppo.train(..., wrap_env_fn=BraxTraining(stack))``.

Brax's ``ppo.train`` wraps the env it is given with ``wrap_env_fn(env,
episode_length=, action_repeat=, randomization_fn=)``, once for training and
once for evaluation, and then drives a Brax ``Env``: ``reset(keys) -> State``
and ``step(State, action) -> State``, with ``truncation``, ``episode_done``,
``episode_metrics`` and ``steps`` in ``State.info``. :class:`BraxTraining` is
such a ``wrap_env_fn``: it wraps the env as Brax (or MuJoCo Playground) does,
adapts it with :func:`~anywrap.functional.from_brax`, puts the user's stack
over it, and shows the stack to Brax as a :class:`BraxStackEnv`.

Where the observation statistics live is the one hard part. Brax keeps its
observation normaliser in the learner: the statistics are part of the policy's
parameters, so its evaluator and ``make_policy(params)`` see them, summed over
its ``pmap`` axis. anywrap's :class:`~anywrap.functional.NormalizeObservation`
keeps them in the env state, which ``ppo.train`` neither returns nor hands to
its evaluator. :class:`BraxTraining` carries them over: the training env sends
them to the host every ``publish_every`` steps (one ``jax.debug.callback``,
about 0.3 ms on a CPU, so once per unroll rather than once per step), and the
evaluation env starts each evaluation from the last statistics sent, frozen.
After training, :attr:`BraxTraining.obs_stats` holds them, and
:meth:`BraxTraining.make_policy` or :func:`brax_normalizer_params` deploy the
policy with them.

Neither Brax nor Playground is imported until a :class:`BraxTraining` wraps an env.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from anywrap.transforms.moments import Moments, normalize, scale, total_count
from anywrap.transforms.normalize_observation import _is_moments

from .adapters import BraxEnv, from_brax
from .brax_training_env import BRAX_AXIS, BraxStackEnv, BraxStackState
from .core import FunctionalEnv, Wrapper
from .episodes import AutoReset
from .maps import ClipReward, TransformReward
from .statistics import (
    NormalizeObservation,
    NormalizeObservationState,
    NormalizeReward,
    NormalizeRewardState,
)

__all__ = ["BRAX_AXIS", "BraxStackEnv", "BraxStackState", "BraxTraining", "brax_normalizer_params"]

_REWARD_WRAPPERS = (NormalizeReward, TransformReward, ClipReward)
# Wrappers that leave observations alone, and those that map each one (``_map``): the
# deployed policy replays the second kind (see BraxTraining.observation_fn).
_OBS_UNCHANGED = (
    "RecordEpisodeStatistics",
    "ClipAction",
    "RescaleAction",
    "StickyAction",
    *(w.__name__ for w in (AutoReset, *_REWARD_WRAPPERS)),
)


def _chain(env: Any) -> list[Any]:
    """The wrappers of a stack, outermost first, down to (and with) the adapter."""
    out = [env]
    while isinstance(out[-1], Wrapper):
        out.append(out[-1].env)
    return out


class _Mailbox:
    """The last statistics a training env sent to the host: ``{"obs": moments tree,
    "reward": moments of the return}``, for the normalisers its stack holds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.value: dict[str, Any] = {}
        self.sent = 0

    def clear(self) -> None:
        with self._lock:
            self.value, self.sent = {}, 0

    def put(self, stats: dict[str, Any]) -> None:
        with self._lock:
            self.value = jax.tree.map(np.array, stats)
            self.sent += 1

    def get(self, fresh: dict[str, Any]) -> dict[str, Any]:
        with self._lock:  # where nothing was sent yet: the fresh statistics
            value = {k: self.value.get(k, v) for k, v in fresh.items()}
        return jax.tree.map(lambda v, f: np.asarray(v, dtype=f.dtype), value, fresh)

    def fetch(self, kind: str, fresh: Any) -> Any:
        """The last ``kind`` statistics sent (``fresh`` if none), read inside a traced
        function: one host call."""
        shapes = jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype), {kind: fresh})
        return jax.pure_callback(self.get, shapes, {kind: fresh})[kind]


class _EvalMark:
    """The env ``ppo.train`` gets as ``eval_env``: tells :class:`BraxTraining` to build the
    evaluation stack over ``env``."""

    def __init__(self, env: Any) -> None:
        self.env = env

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["env"], name)


class BraxTraining:
    """A ``wrap_env_fn`` for Brax's ``ppo.train`` that puts an anywrap stack over the env.

    ``make_stack(env)`` builds the stack over ``env``, a batched, autoresetting
    :func:`~anywrap.functional.from_brax` adapter of the env wrapped as Brax does
    (``brax.envs.training.wrap``, or MuJoCo Playground's
    ``wrap_for_brax_training`` for a Playground env; ``wrap`` to choose). It is
    called once per batch size: for a device's share of the training envs, and
    for the evaluation envs.

    The training env: the stack as built, its statistics (``axis_name`` of
    ``RecordEpisodeStatistics``, ``NormalizeObservation`` and
    ``NormalizeReward``, where left None) summed over Brax's ``pmap`` axis
    :data:`BRAX_AXIS`, so they are global over devices.

    The evaluation env (``ppo.train(eval_env=training.eval_env(env))``): the
    same stack without its reward wrappers (``NormalizeReward``,
    ``TransformReward``, ``ClipReward``), so that the evaluation reward is in
    the env's own units, and with its ``NormalizeObservation`` frozen
    (``update_running_mean=False``) at the training statistics: each
    evaluation starts from the last statistics the training env sent to the
    host. It sends them every ``publish_every`` steps; with
    ``publish_every`` a divisor of ``ppo.train``'s ``unroll_length`` (the
    default 10 is its default), the last one sent before an evaluation is that
    of the training's last step. A stack may hold one ``NormalizeObservation``.

    A reset of the training env (``ppo.train``'s ``num_resets_per_eval``)
    starts new episodes, not new statistics: ``NormalizeObservation`` and
    ``NormalizeReward`` go on from the last statistics sent. A reset sends
    none (under ``pmap`` another device's reset would read them), so the
    evaluation before any training step (``num_evals > 1``) normalises with
    fresh statistics.

    Args:
        make_stack: Builds the stack over the adapted env.
        publish_every: Training steps between two sends of the observation
            statistics to the host.
        wrap: How to wrap the env for training, ``wrap(env, episode_length=,
            action_repeat=, randomization_fn=)``; by default Brax's
            ``envs.training.wrap``, or Playground's ``wrap_for_brax_training``
            for a Playground env.

    Example:
        The CleanRL stack over Brax's ``fast`` env, trained by ``ppo.train``
        (see the recipe "Brax PPO on an anywrap stack" for a full run)::

            def stack(env):
                return F.NormalizeReward(F.NormalizeObservation(F.RecordEpisodeStatistics(env)))

            training = F.BraxTraining(stack)
            make_policy, params, metrics = ppo.train(
                environment=env, eval_env=training.eval_env(env), wrap_env_fn=training, ...
            )
            policy = training.make_policy(make_policy)(params)  # raw observations in

        The envs it builds, without a trainer:

        >>> import jax
        >>> from brax import envs
        >>> from anywrap import functional as F
        >>> training = F.BraxTraining(lambda env: F.NormalizeReward(F.NormalizeObservation(env)))
        >>> env = envs.get_environment("fast")
        >>> train_env = training(env, episode_length=100)
        >>> eval_env = training(training.eval_env(env), episode_length=100)
        >>> train_env, eval_env
        (<BraxStackEnv training>, <BraxStackEnv evaluation>)
        >>> state = jax.jit(eval_env.reset)(jax.random.split(jax.random.PRNGKey(0), 8))
        >>> state.obs.shape, sorted(state.info)
        ((8, 2), ['episode_done', 'episode_metrics', 'steps', 'truncation'])
    """

    def __init__(
        self,
        make_stack: Callable[[FunctionalEnv], FunctionalEnv],
        *,
        publish_every: int = 10,
        wrap: Callable[..., Any] | None = None,
    ) -> None:
        if not callable(make_stack):
            raise TypeError(
                f"BraxTraining: expected make_stack to be a function of the adapted env, "
                f"got {make_stack!r}"
            )
        if isinstance(publish_every, bool) or not isinstance(publish_every, int):
            raise TypeError(
                f"BraxTraining: expected publish_every to be an int, got {publish_every!r}"
            )
        if publish_every < 1:
            raise ValueError(f"BraxTraining: expected publish_every >= 1, got {publish_every}")
        self.make_stack = make_stack
        self.publish_every = publish_every
        self.wrap = wrap
        self._mailbox = _Mailbox()
        self._built: FunctionalEnv | None = None  # the last stack built: its observation maps

    def eval_env(self, env: Any) -> Any:
        """``env``, marked so that this ``wrap_env_fn`` builds the evaluation stack over it:
        pass it as ``ppo.train``'s ``eval_env``."""
        return _EvalMark(env)

    def __call__(
        self,
        env: Any,
        episode_length: int = 1000,
        action_repeat: int = 1,
        randomization_fn: Any = None,
        **kwargs: Any,
    ) -> BraxStackEnv:
        """Wrap ``env`` as ``ppo.train``'s ``wrap_env_fn`` does: the training env, or,
        for an env marked by :meth:`eval_env`, the evaluation env."""
        training = not isinstance(env, _EvalMark)
        env = env if training else env.env
        inner = self._wrap_for(env)(
            env,
            episode_length=episode_length,
            action_repeat=action_repeat,
            randomization_fn=randomization_fn,
            **kwargs,
        )

        base = from_brax(inner)  # the reset keys set the batch: a device's share under pmap
        stack = self.make_stack(base)
        self._check(stack, base)
        if training:  # a new training: its statistics start afresh
            self._mailbox.clear()
            return BraxStackEnv(
                self._training_stack(stack),
                inner,
                training=True,
                publish=self._send,
                publish_every=self.publish_every,
                after_reset=self._restore_reward_stats,
            )
        return BraxStackEnv(self._evaluation_stack(stack), inner, training=False)

    def _wrap_for(self, env: Any) -> Callable[..., Any]:
        if self.wrap is not None:
            return self.wrap
        if type(env.unwrapped).__module__.startswith("mujoco_playground"):
            from mujoco_playground import wrapper

            return wrapper.wrap_for_brax_training  # type: ignore[no-any-return]
        from brax import envs

        return envs.training.wrap  # type: ignore[no-any-return]

    # -------------------------------------------------------- the two stacks
    @staticmethod
    def _check(stack: Any, base: BraxEnv) -> None:
        chain = _chain(stack)
        if chain[-1] is not base:
            raise TypeError(
                f"BraxTraining: make_stack must build over the env it is given; its stack "
                f"ends at {chain[-1]!r}"
            )
        if sum(isinstance(w, NormalizeObservation) for w in chain) > 1:
            raise ValueError(
                "BraxTraining: the stack holds more than one NormalizeObservation; the "
                "evaluation env can carry the statistics of one"
            )

    def _training_stack(self, stack: FunctionalEnv) -> FunctionalEnv:
        self._built = stack
        for w in _chain(stack):
            if hasattr(w, "axis_name") and w.axis_name is None:
                w.axis_name = BRAX_AXIS
            if isinstance(w, NormalizeObservation):  # a reset of Brax's keeps them
                w.initial_stats = partial(self._mailbox.fetch, "obs")
        return stack

    def _evaluation_stack(self, stack: FunctionalEnv) -> FunctionalEnv:
        chain = [w for w in _chain(stack) if not isinstance(w, _REWARD_WRAPPERS)]
        for outer, inner in itertools.pairwise(chain):
            outer.env = inner  # the reward wrappers left out
        for w in chain:
            if hasattr(w, "axis_name"):
                w.axis_name = None
            if isinstance(w, NormalizeObservation):
                w.update_running_mean = False
                w.initial_stats = partial(self._mailbox.fetch, "obs")
        self._built = chain[0]
        return chain[0]

    def _send(self, state: Any, when: Any = None) -> None:
        """Send the stack's normaliser statistics to the host (where ``when``, if given)."""
        stats = _statistics(state)
        if not stats:
            return
        if when is None:
            jax.debug.callback(self._mailbox.put, stats)
        else:
            jax.lax.cond(when, lambda s: jax.debug.callback(self._mailbox.put, s), _nothing, stats)

    def _restore_reward_stats(self, state: Any) -> Any:
        """A reset's state with NormalizeReward's moments those last sent: ppo.train's
        ``num_resets_per_eval`` resets the envs, not the training's statistics."""

        def restore(s: NormalizeRewardState) -> NormalizeRewardState:
            rms = self._mailbox.fetch("reward", s.returns.rms)
            return s._replace(returns=s.returns._replace(rms=rms))

        return _replace_state(state, NormalizeRewardState, restore)

    # ------------------------------------------------- after training: deployment
    @property
    def obs_stats(self) -> Any:
        """The last observation statistics the training env sent (NumPy arrays, a
        ``Moments`` tree), or None before any."""
        return self._mailbox.value.get("obs")

    def observation_fn(self, obs_stats: Any = None) -> Callable[[Any], Any]:
        """The evaluation stack's observation pipeline as a function of a batch of raw
        observations: its ``NormalizeObservation`` with ``obs_stats`` (by default
        :attr:`obs_stats`) and the observation maps (``TransformObservation``,
        ``RescaleObservation``...) in the stack's order.

        It is what the evaluation env does to each observation, for a deployed policy.
        A stack whose observations depend on the past (``FrameStackObservation``,
        ``DelayObservation``, ``TimeAwareObservation``) is refused.
        """
        if self._built is None:
            raise RuntimeError(
                "BraxTraining.observation_fn: no stack was built yet; train with "
                "ppo.train(..., eval_env=training.eval_env(env), wrap_env_fn=training) first"
            )
        stats = self.obs_stats if obs_stats is None else obs_stats
        steps: list[Callable[[Any], Any]] = []
        for w in reversed(_chain(self._built)[:-1]):  # innermost first
            name = type(w).__name__
            if isinstance(w, NormalizeObservation):
                if stats is None:
                    raise RuntimeError(
                        "BraxTraining.observation_fn: no statistics were sent by a training "
                        "env; pass obs_stats"
                    )
                steps.append(_normalizer(stats, w.epsilon))
            elif callable(getattr(w, "_map", None)):
                steps.append(w._map)
            elif name not in _OBS_UNCHANGED:
                raise ValueError(
                    f"BraxTraining.observation_fn: {name} changes observations from step to "
                    "step; a deployed policy cannot replay it"
                )

        def observe(obs: Any) -> Any:
            for fn in steps:
                obs = fn(obs)
            return obs

        return observe

    def make_policy(self, make_policy: Callable[..., Any], obs_stats: Any = None) -> Callable:
        """``make_policy`` (from ``ppo.train``) for raw observations: its policies first
        apply :meth:`observation_fn` (the training statistics, frozen)."""
        observe = self.observation_fn(obs_stats)

        def make(params: Any, deterministic: bool = False) -> Callable[..., Any]:
            policy = make_policy(params, deterministic)
            return lambda obs, key: policy(observe(obs), key)

        return make


def _nothing(_: Any) -> None:
    return None


def _statistics(state: Any) -> dict[str, Any]:
    """The normalisers' statistics in a stack's state: what the training env sends."""
    out: dict[str, Any] = {}
    s = state
    while True:
        if isinstance(s, NormalizeObservationState) and "obs" not in out:
            out["obs"] = s.obs_stats
        if isinstance(s, NormalizeRewardState) and "reward" not in out:
            out["reward"] = s.returns.rms
        if not hasattr(s, "inner"):
            return out
        s = s.inner


def _replace_state(state: Any, kind: type, fn: Callable[[Any], Any]) -> Any:
    """``state`` with its outermost ``kind`` state replaced by ``fn`` of it."""
    if isinstance(state, kind):
        return fn(state)
    if not hasattr(state, "inner"):
        return state
    return state._replace(inner=_replace_state(state.inner, kind, fn))


def _normalizer(stats: Any, epsilon: float) -> Callable[[Any], Any]:
    def norm(obs: Any) -> Any:
        return jax.tree.map(
            lambda m, x: normalize(
                Moments(*(jnp.asarray(a) for a in m)), jnp.asarray(x), epsilon, "float32"
            ),
            stats,
            obs,
            is_leaf=_is_moments,
        )

    return norm


def brax_normalizer_params(obs_stats: Any, epsilon: float = 1e-8) -> Any:
    """Brax's ``running_statistics.RunningStatisticsState`` holding anywrap's observation
    statistics, so that Brax's ``running_statistics.normalize(obs, params)`` gives
    what ``NormalizeObservation`` gives: ``(obs - mean) / sqrt(var + epsilon)``.

    Deploys a policy trained on anywrap-normalised observations with Brax's own
    tools: networks made with ``preprocess_observations_fn=running_statistics.normalize``
    (``ppo.train``'s ``normalize_observations=True``), whose
    ``make_policy((brax_normalizer_params(stats), policy_params, value_params))``
    takes raw observations. A clip of the normalised observation is
    ``normalize``'s ``max_abs_value``.

    Example:
        >>> import jax, gymnax
        >>> import numpy as np
        >>> from brax.training.acme import running_statistics
        >>> from anywrap import functional as F
        >>> bare = F.from_gymnax(gymnax.make("Pendulum-v1")[0], num_envs=64)
        >>> env = F.NormalizeObservation(bare)
        >>> raw = bare.reset(jax.random.key(0))[0]
        >>> obs, state = env.reset(jax.random.key(0))
        >>> stats = F.find_state(state, F.NormalizeObservationState).obs_stats
        >>> params = F.brax_normalizer_params(stats)
        >>> brax_obs = running_statistics.normalize(raw, params)
        >>> float(np.abs(np.asarray(brax_obs) - np.asarray(obs)).max()) < 1e-6
        True
    """
    from brax.training import types as brax_types
    from brax.training.acme import running_statistics

    def moments(m: Any) -> Moments:
        return Moments(*(jnp.asarray(a) for a in m))

    def tree(fn: Callable[[Moments], Any]) -> Any:
        return jax.tree.map(lambda m: fn(moments(m)), obs_stats, is_leaf=_is_moments)

    first = moments(jax.tree.leaves(obs_stats, is_leaf=_is_moments)[0])
    count = total_count(first)  # Brax keeps a two-word integer count
    hi = jnp.floor(count / 2.0**32)
    lo = jnp.round(count - hi * 2.0**32)
    return running_statistics.RunningStatisticsState(
        mean=tree(lambda m: m.mean),
        std=tree(lambda m: scale(m, epsilon)),
        count=brax_types.UInt64(hi=hi.astype(jnp.uint32), lo=lo.astype(jnp.uint32)),
        summed_variance=tree(lambda m: m.var * total_count(m)),
        std_eps=0.0,
    )
