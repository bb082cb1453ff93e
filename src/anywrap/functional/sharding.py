"""Where each part of a functional stack's state lives when the batch is split over devices,
read from each wrapper's declarations: for ``shard_map`` and for the checkpoints."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import PartitionSpec

from .core import AxisName, FunctionalEnv, Wrapper, batch_ndim

__all__ = ["shard_specs"]

_PER_ENV = ""  # the label of a leaf with one row per env; a global leaf's is its key


def _state_types(cls: type[Wrapper] = Wrapper) -> set[type]:
    """The state types of ``cls`` and of every subclass of it defined so far."""
    found = set() if cls.state_type is None else {cls.state_type}
    return found.union(*map(_state_types, cls.__subclasses__()))


def _labels(owner: str, env: Any, state: Any, depth: int = 0) -> Any:
    """A tree shaped like ``state``: each global leaf's checkpoint key, ``""`` for the rest."""
    if isinstance(env, Wrapper):
        if batch_ndim(env) and not batch_ndim(env.env):
            return jax.tree.map(lambda _: _PER_ENV, state)  # VmapWrapper: rows below
        kind: Any = env.state_type
        if kind is None:  # a wrapper without state passes its env's state through
            return _labels(owner, env.env, state, depth + 1)
        if not isinstance(state, kind):
            raise ValueError(
                f"{owner}: expected the state of wrapper {depth} (counting from the "
                f"outermost), {type(env).__name__}, to be a {kind.__name__}, got "
                f"{type(state).__name__}: a state of another stack?"
            )
        inner = _labels(owner, env.env, state.inner, depth + 1)

        def label(path: Any, _: Any) -> str:  # by the instance's declarations
            full = jax.tree_util.keystr(path, simple=True, separator=".")
            hits = [
                is_global
                for is_global, declared in ((True, env.global_fields), (False, env.per_env_fields))
                for d in declared
                if full == d or full.startswith(d + ".")
            ]
            if len(hits) != 1:
                raise TypeError(
                    f"{owner}: expected {type(env).__qualname__}.global_fields or .per_env_fields "
                    f"to place {kind.__name__}.{full} exactly once, got {len(hits)} places "
                    f"(global_fields={env.global_fields}, per_env_fields={env.per_env_fields}); "
                    "declare it"
                )
            return f"{depth}.{type(env).__name__}.{full}" if hits[0] else _PER_ENV

        own = jax.tree_util.tree_map_with_path(label, state._replace(inner=None))
        return own._replace(inner=inner)
    # Not an anywrap wrapper: statistics below it would be taken as per env, silently.
    kinds = tuple(_state_types())
    hidden = [
        type(x).__name__
        for x in jax.tree.leaves(state, is_leaf=lambda x: isinstance(x, kinds))
        if isinstance(x, kinds)
    ]
    if hidden:
        raise ValueError(
            f"{owner}: expected anywrap.functional wrappers down to the env, got "
            f"{type(env).__qualname__} (not an anywrap.functional.Wrapper) above the "
            f"states {hidden}; derive it from anywrap.functional.Wrapper"
        )
    return jax.tree.map(lambda _: _PER_ENV, state)


def shard_specs(env: FunctionalEnv, state: Any, axis_name: AxisName) -> Any:
    """The ``PartitionSpec`` of every leaf of ``state`` for a batch split over ``axis_name``.

    ``P()`` (replicated) for the statistics of the whole batch (each wrapper's
    ``global_fields``), ``P(axis_name)`` for the rest, which has one row per env.
    With ``shard_map``, give the statistics wrappers ``axis_name`` too.

    Args:
        env: A batched functional stack (``num_envs`` set).
        state: Its state, or the shape of it (``jax.eval_shape(env.reset, key)[1]``).
        axis_name: The mesh axis (or tuple of axes) the batch is split over.

    Example:
        >>> import jax, gymnax
        >>> from jax.sharding import PartitionSpec as P
        >>> from anywrap import functional as F
        >>> def make(axis_name=None):
        ...     env = F.VmapWrapper(F.from_gymnax(gymnax.make("Pendulum-v1")[0]), 8)
        ...     env = F.RecordEpisodeStatistics(env, axis_name=axis_name)
        ...     return F.NormalizeObservation(env, axis_name=axis_name)
        >>> state = jax.eval_shape(make().reset, jax.random.key(0))[1]  # shard_map binds "d"
        >>> specs = F.shard_specs(make("d"), state, "d")
        >>> specs.obs_stats.mean == P(), specs.inner.last.returns == P("d")
        (True, True)
    """
    owner = "anywrap.functional.shard_specs"
    if not batch_ndim(env):
        raise ValueError(
            f"{owner}: expected a batched env (num_envs set: from_gymnax(..., num_envs=n) or "
            f"VmapWrapper), got {env!r} with num_envs=None"
        )
    labels = _labels(owner, env, state)
    n = env.num_envs
    if n is None:  # its reset keys set it (from_brax): read it off the state
        leaves = zip(jax.tree.leaves(state), jax.tree.leaves(labels), strict=True)
        n = next((x.shape[0] for x, label in leaves if not label and np.ndim(x)), None)

    def spec(path: tuple[Any, ...], label: str, leaf: Any) -> PartitionSpec:
        if label:
            return PartitionSpec()
        shape = tuple(getattr(leaf, "shape", ()))
        if not shape or shape[0] != n:
            raise ValueError(
                f"{owner}: expected each per-env part of the state to hold the batch of {n} "
                f"envs on axis 0, got shape {shape} at state{jax.tree_util.keystr(path)} (one "
                "value for the whole batch cannot be split; build that part below a "
                "VmapWrapper, e.g. VmapWrapper(from_gymnax(env), n))"
            )
        return PartitionSpec(axis_name)

    return jax.tree_util.tree_map_with_path(spec, labels, state)


def writes_checkpoints() -> bool:
    """Whether this process writes a functional stack's checkpoint (process 0 does)."""
    return bool(jax.process_index() == 0)


def global_entries(owner: str, env: Any, state: Any) -> dict[str, Any]:
    """The statistics of the whole batch in ``state`` by checkpoint key, outermost first."""
    labels = jax.tree.leaves(_labels(owner, env, state))
    found = [(k, v) for k, v in zip(labels, jax.tree.leaves(state)) if k]
    return dict(sorted(found, key=lambda kv: int(kv[0].partition(".")[0])))


def with_global_entries(owner: str, env: Any, state: Any, values: dict[str, np.ndarray]) -> Any:
    """``state`` with its statistics replaced by ``values`` (host arrays by checkpoint key)."""

    def put(label: str, leaf: Any) -> Any:
        if not label:
            return leaf
        host = values[label]
        sharding = getattr(leaf, "sharding", None)  # a jax.Array's, or a ShapeDtypeStruct's
        if sharding is None:
            return jnp.asarray(host, dtype=leaf.dtype)
        return jax.make_array_from_callback(
            host.shape, sharding, lambda index: np.asarray(host[index])
        )

    return jax.tree.map(put, _labels(owner, env, state), state)
