"""Every part of every functional wrapper's state is placed: global (replicated over a
split batch) or per env (split with it), from each wrapper's own declaration.

A wrapper whose state gains a field its declaration does not place fails here, as
does a new wrapper missing from BUILD. The placement itself is checked against
behaviour: under ``vmap`` with ``axis_name`` the global parts are the same on every
shard and the per-env parts hold the shard's rows (and the 4-device stack under
``shard_map`` in _sharded_stack_script.py uses the specs against an unsharded run).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np
import pytest
from array_envs import functional_counter

jax = pytest.importorskip("jax")
pytest.importorskip("gymnax")
import jax.numpy as jnp  # noqa: E402
from functional_envs import cleanrl_stack, pendulum  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

from anywrap import functional as F  # noqa: E402
from anywrap.functional.sharding import _labels  # noqa: E402


class Pixels:
    """4 envs of 6x5 RGB frames (for the image wrappers); SAME_STEP."""

    observation_space = gym.spaces.Box(0, 255, (6, 5, 3), np.uint8)
    action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
    num_envs, autoreset_mode = 4, gym.vector.AutoresetMode.SAME_STEP

    def reset(self, key: Any) -> Any:
        return jnp.zeros((4, 6, 5, 3), jnp.uint8), jnp.zeros(4, jnp.int32)

    def step(self, t: Any, action: Any) -> F.Step:
        no = jnp.zeros(4, bool)
        return F.Step(jnp.zeros((4, 6, 5, 3), jnp.uint8), t + 1, jnp.zeros(4), no, no, {})


def counter() -> Any:
    return functional_counter((2, 3, 4, 5))  # batched, DISABLED


# One stack per functional wrapper, the wrapper outermost, over a batch of 4.
BUILD = {
    F.AddWhiteNoise: lambda: F.AddWhiteNoise(Pixels(), 0.5),
    F.AutoReset: lambda: F.AutoReset(counter()),
    F.ClipAction: lambda: F.ClipAction(pendulum()),
    F.ClipReward: lambda: F.ClipReward(pendulum(), 0.0, 1.0),
    F.DelayObservation: lambda: F.DelayObservation(pendulum(), 2),
    F.DiscretizeAction: lambda: F.DiscretizeAction(pendulum(), 5),
    F.DiscretizeObservation: lambda: F.DiscretizeObservation(pendulum(), 4),
    F.DtypeObservation: lambda: F.DtypeObservation(pendulum(), np.float32),
    F.FilterObservation: lambda: F.FilterObservation(
        F.TimeAwareObservation(pendulum(), flatten=False, max_timesteps=9), ["obs"]
    ),
    F.FlattenObservation: lambda: F.FlattenObservation(pendulum()),
    F.FrameStackObservation: lambda: F.FrameStackObservation(pendulum(), 3),
    F.GrayscaleObservation: lambda: F.GrayscaleObservation(Pixels()),
    F.NormalizeObservation: lambda: F.NormalizeObservation(pendulum()),
    F.NormalizeReward: lambda: F.NormalizeReward(pendulum()),
    F.ObstructView: lambda: F.ObstructView(Pixels(), 0.3, 2),
    F.RecordEpisodeStatistics: lambda: F.RecordEpisodeStatistics(pendulum(), buffer_length=3),
    F.RecordTrajectory: lambda: F.RecordTrajectory(pendulum()),
    F.RepeatAction: lambda: F.RepeatAction(pendulum(None), 3),
    F.RescaleAction: lambda: F.RescaleAction(pendulum(), -1.0, 1.0),
    F.RescaleObservation: lambda: F.RescaleObservation(pendulum(), -1.0, 1.0),
    F.ReshapeObservation: lambda: F.ReshapeObservation(pendulum(), (3, 1)),
    F.ResizeObservation: lambda: F.ResizeObservation(Pixels(), (3, 2)),
    F.StickyAction: lambda: F.StickyAction(pendulum(), 0.5),
    F.TimeAwareObservation: lambda: F.TimeAwareObservation(pendulum(), max_timesteps=9),
    F.TimeLimit: lambda: F.AutoReset(F.TimeLimit(counter(), 3)).env,
    F.TransformAction: lambda: F.TransformAction(pendulum(), lambda a: a * 2),
    F.TransformObservation: lambda: F.TransformObservation(pendulum(), lambda o: o * 2),
    F.TransformReward: lambda: F.TransformReward(pendulum(), lambda r: r * 2),
    F.VmapWrapper: lambda: F.VmapWrapper(pendulum(None), 4),
}


def test_every_functional_wrapper_is_built_here():
    wrappers = {
        obj
        for name in F.__all__
        if isinstance(obj := getattr(F, name), type) and issubclass(obj, F.Wrapper)
    } - {F.Wrapper}
    assert set(BUILD) == wrappers


def _paths(tree: Any) -> list[str]:
    return [
        ".".join(str(getattr(k, "name", getattr(k, "key", getattr(k, "idx", k)))) for k in p)
        for p, _ in jax.tree_util.tree_leaves_with_path(tree)
    ]


@pytest.mark.parametrize("kind", list(BUILD), ids=lambda k: k.__name__)
def test_each_wrapper_declares_its_state_and_places_every_part(kind):
    env = BUILD[kind]()
    assert type(env) is kind
    key = jax.random.key(0)
    state = jax.eval_shape(env.reset, key)[1]
    inner = jax.eval_shape(env.env.reset, key)[1]
    if type(state) is type(inner):  # the wrapper passes its env's state through
        assert kind.state_type is None and not kind.global_fields + kind.per_env_fields
        return
    assert kind.state_type is type(state) and state.inner is not None
    labels = _labels("test", env, state)  # a TypeError names any part not placed
    own = {f: getattr(state, f) for f in state._fields if f != "inner"}
    paths = _paths(own)
    assert paths, state
    for declared in kind.global_fields + kind.per_env_fields:  # no stale declaration
        assert any(p == declared or p.startswith(declared + ".") for p in paths), declared
    own_labels = jax.tree.leaves({f: getattr(labels, f) for f in own})
    assert len(own_labels) == len(paths)
    for label, path in zip(own_labels, paths):
        is_global = any(path == d or path.startswith(d + ".") for d in kind.global_fields)
        assert label == (f"0.{kind.__name__}.{path}" if is_global else ""), (path, label)


class WithExtra(NamedTuple):
    inner: Any
    obs_stats: Any
    extra: Any


class Extra(F.NormalizeObservation):
    """A NormalizeObservation whose state gained a field it does not declare."""

    state_type = WithExtra

    def reset(self, key):
        obs, s = super().reset(key)
        return obs, WithExtra(s.inner, s.obs_stats, jnp.zeros(4))


class Undeclared(F.Wrapper):
    """A wrapper that keeps state and declares nothing."""

    def reset(self, key):
        obs, s = self.env.reset(key)
        return obs, WithExtra(s, 0.0, jnp.zeros(4))


class Foreign:
    """A wrapper that is no anywrap.functional.Wrapper, over anywrap wrappers."""

    def __init__(self, env):
        self.env, self.num_envs = env, env.num_envs
        self.observation_space, self.action_space = env.observation_space, env.action_space
        self.autoreset_mode = env.autoreset_mode

    def reset(self, key):
        return self.env.reset(key)

    def step(self, state, action):
        return self.env.step(state, action)


def shape_of_state(env):
    return jax.eval_shape(env.reset, jax.random.key(0))[1]


def test_a_field_or_a_state_that_is_not_declared_is_refused_by_name():
    env = Extra(pendulum())
    with pytest.raises(TypeError, match=r"Extra.global_fields or .per_env_fields.*WithExtra.extra"):
        F.shard_specs(env, shape_of_state(env), "d")
    env = F.NormalizeObservation(Undeclared(F.NormalizeObservation(pendulum())))
    with pytest.raises(ValueError, match="NormalizeObservationState, got WithExtra"):
        F.shard_specs(env, shape_of_state(env), "d")
    env = F.ClipAction(Foreign(F.NormalizeObservation(pendulum())))
    with pytest.raises(ValueError, match=r"Foreign .*NormalizeObservationState"):
        F.shard_specs(env, shape_of_state(env), "d")


def test_parts_without_a_batch_axis_or_an_unbatched_env_are_refused():
    env = F.NormalizeObservation(pendulum(vmap=False))  # one key for the whole batch
    with pytest.raises(ValueError, match=r"shape \(\) at state.inner.key"):
        F.shard_specs(env, shape_of_state(env), "d")
    env = F.FrameStackObservation(pendulum(), 3)  # one ring for the whole batch
    with pytest.raises(ValueError, match=r"shape \(13, 3\) at state.frames.frames"):
        F.shard_specs(env, shape_of_state(env), "d")
    one = F.NormalizeObservation(pendulum(None))
    with pytest.raises(ValueError, match="expected a batched env"):
        F.shard_specs(one, shape_of_state(one), "d")
    # the same wrapper below a VmapWrapper: every part is per env, split
    env = F.VmapWrapper(F.FrameStackObservation(pendulum(None), 3), 4)
    specs = F.shard_specs(env, shape_of_state(env), ("a", "b"))
    assert set(jax.tree.leaves(specs)) == {P(("a", "b"))}


def test_global_parts_are_the_same_on_every_shard_and_per_env_parts_hold_its_rows():
    """Behaviour, not the declarations: 2 shards of 3 envs under vmap with axis_name."""
    env = cleanrl_stack(pendulum(3, max_steps=4), buffer_length=4, axis_name="i")
    keys = jax.random.split(jax.random.key(0), 6).reshape(2, 3)
    actions = jax.random.uniform(jax.random.key(1), (9, 2, 3, 1), minval=-2.0, maxval=2.0)

    @jax.jit
    def run(keys, actions):
        _, state = jax.vmap(env.reset, axis_name="i")(keys)
        step = jax.vmap(env.step, axis_name="i")
        return jax.lax.scan(lambda s, a: (step(s, a).state, None), state, actions)[0]

    state = run(keys, actions)
    shard = jax.tree.map(lambda x: x[0], state)
    specs = F.shard_specs(env, shard, "d")
    seen = {"global": 0, "split": 0}
    for (path, spec), leaf in zip(
        jax.tree_util.tree_leaves_with_path(specs), jax.tree.leaves(state), strict=True
    ):
        if jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):
            leaf = jax.random.key_data(leaf)
        leaf = np.asarray(leaf)
        where = jax.tree_util.keystr(path)
        if spec == P():
            seen["global"] += 1
            np.testing.assert_array_equal(leaf[0], leaf[1], err_msg=where)
        else:
            assert spec == P("d") and leaf.shape[1] == 3, where
            seen["split"] += 1
    assert seen["global"] == 14 and seen["split"] > 10, seen
    # the shards' own statistics differ: the equality above can fail
    solo = cleanrl_stack(pendulum(3, max_steps=4), buffer_length=4)
    _, own = jax.jit(jax.vmap(solo.reset))(keys)
    mean = np.asarray(F.find_state(own, F.NormalizeObservationState).obs_stats.mean)
    assert not np.allclose(mean[0], mean[1])


def test_autoreset_with_a_cached_first_state_is_placed_per_env():
    """``AutoReset(full_reset=False)`` keeps another state (its first obs and state):
    every part of it has one row per env."""
    env = F.AutoReset(F.TimeLimit(counter(), 3), full_reset=False)
    state = jax.eval_shape(env.reset, jax.random.key(0))[1]
    assert type(state) is F.CachedResetState
    labels = _labels("test", env, state)
    assert set(jax.tree.leaves(labels)) == {""}
    assert len(jax.tree.leaves(labels)) == len(jax.tree.leaves(state))
