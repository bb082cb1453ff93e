"""The conversion wrappers, written once for single envs and vector envs.

:class:`Conversions` holds what every conversion wrapper does: learn the
env's library and device from the first observation, convert the env's
outputs to the target library and the user's inputs (actions, reset options)
back. :func:`conversion_family` then defines the whole family, the generic
``ArrayConversion`` and its seven named forms, over one Gymnasium base class:
``anywrap.ArrayConversion`` and friends over :class:`gymnasium.Wrapper`, and
``anywrap.vector.ArrayConversion`` and friends over
:class:`gymnasium.vector.VectorWrapper`.

Example:
    >>> import gymnasium as gym
    >>> import anywrap
    >>> env = anywrap.ToNumpy(gym.make("CartPole-v1"))
    >>> type(env.reset(seed=0)[0]).__name__
    'ndarray'
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from types import ModuleType
from typing import Any

import gymnasium as gym
import numpy as np

from anywrap import xp as axp
from anywrap.convert.converter import Converter
from anywrap.convert.ladder import check_known, resolve_library
from anywrap.tree import leaves

__all__ = ["CONVERSION_NAMES", "Conversions", "conversion_family", "target_of"]

CONVERSION_NAMES = (
    "ArrayConversion",
    "JaxToNumpy",
    "JaxToTorch",
    "NumpyToTorch",
    "ToJax",
    "ToNumpy",
    "ToTensorFlow",
    "ToTorch",
)
"""The family, in the order of ``__all__`` lists: defined once per base class."""


def target_of(
    owner: str, to: Any, target_xp: Any, device: Any, target_device: Any
) -> tuple[Any, Any]:
    """The target library and device from anywrap's (``to=``, ``device=``) or
    Gymnasium's (``target_xp``, ``target_device``) spelling, never both."""
    if to is not None and target_xp is not None:
        raise TypeError(f"{owner}: give `to=` or `target_xp`, not both")
    if device is not None and target_device is not None:
        raise TypeError(f"{owner}: give `device=` or `target_device`, not both")
    target = to if to is not None else target_xp
    if target is None:
        raise TypeError(f"{owner}: give the target library as `to=` (or target_xp)")
    return target, device if device is not None else target_device


def _first_array(tree: Any) -> Any:
    for leaf in leaves(tree):
        if isinstance(leaf, np.ndarray) and leaf.dtype.kind == "O":
            continue  # Gymnasium's packed final_obs says nothing of the env's library
        if isinstance(leaf, (np.generic, numbers.Number)):
            return np.asarray(leaf)
        if hasattr(leaf, "__dlpack__") or (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
            return leaf
    return None


_HOST_VIEWS: dict[type, Callable[[Any], Any]] = {}
"""Per array type, its backend's host view (found once: this runs three times a step)."""


def _as_python(x: Any, cast: type) -> Any:
    """``float(x)`` or ``bool(x)`` of a 0-d array (a host sync for device arrays),
    through its NumPy view (several times cheaper than JAX's own ``float``)."""
    view = _HOST_VIEWS.get(type(x))
    if view is None:
        if axp.is_host(x):
            return cast(x)
        view = _HOST_VIEWS[type(x)] = axp.backend_of(x).host_array
    host = view(x)
    return cast(host) if host.ndim == 0 else cast(x)


class Conversions:
    """What every conversion wrapper does, single or vector.

    ``self._out`` converts the env's outputs to the target library;
    ``self._in`` the user's inputs (actions, reset options) back to the env's
    library and device, learnt from the first observation unless given.
    """

    env: Any
    vector: bool = False
    """Whether the wrapped env is a vector env."""
    wrapper_base: type = gym.Wrapper
    """The Gymnasium wrapper class this family is built over."""

    def __init__(
        self,
        env: Any,
        env_xp: str | ModuleType | None = None,
        target_xp: str | ModuleType | None = None,
        env_device: Any = None,
        target_device: Any = None,
        *,
        to: str | ModuleType | None = None,
        device: Any = None,
        writable: bool = False,
        scalars: bool | None = None,
    ) -> None:
        name = ("anywrap.vector." if self.vector else "anywrap.") + type(self).__name__
        if self.vector and scalars is not None:
            raise TypeError(f"{name}: vector envs always return arrays; `scalars` is for one env")
        target, device = target_of(name, to, target_xp, device, target_device)
        gym.utils.RecordConstructorArgs.__init__(
            self,  # type: ignore[arg-type]
            _disable_deepcopy=True,
            env_xp=None if env_xp is None else resolve_library(env_xp),
            to=resolve_library(target),
            env_device=env_device,
            device=device,
            writable=writable,
            **({} if self.vector else {"scalars": True if scalars is None else scalars}),
        )
        base: Any = self.wrapper_base
        base.__init__(self, env)
        self._name = name
        self._target = resolve_library(target)
        self._target_device = device
        self._env_lib: str | None = None if env_xp is None else resolve_library(env_xp)
        self._env_device = env_device
        self._writable = writable
        self._scalars = not self.vector and scalars is not False
        self._out = Converter(self._target, device, writable, name)
        # Gymnasium's vector reward wrappers write into rewards: always writable.
        self._out_flags = Converter(self._target, device, self.vector or writable, name)
        self._to_env: Converter | None = None

    def _learn_env_library(self, obs: Any) -> None:
        if self._env_lib is not None:
            return
        leaf = _first_array(obs)
        if leaf is None:
            self._env_lib = "numpy"
            return
        self._env_lib = check_known(leaf, self._name).name
        if self._env_device is None and not axp.is_host(leaf):
            dev = axp.device(leaf)
            # Host devices need no move; a device array's actions go back to its device.
            self._env_device = None if "cpu" in str(dev).lower() else dev

    def _in(self, tree: Any) -> Any:
        conv = self._to_env
        if conv is None:
            if self._env_lib is None:
                raise RuntimeError(f"{self._name}: call reset() before step()")
            # The user speaks the target library, or passes host values.
            accept = frozenset({self._target, self._env_lib, "numpy"})
            conv = self._to_env = Converter(
                self._env_lib, self._env_device, who=self._name, accept=accept
            )
        return conv(tree)

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset (options converted to the env's library) and convert obs and info."""
        if options and self._env_lib is not None:
            options = self._in(options)
        obs, info = self.env.reset(seed=seed, options=options)
        self._learn_env_library(obs)
        return self._out(obs), self._out(info)

    def step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Convert the action to the env's library, step, and convert the results."""
        obs, reward, terminated, truncated, info = self.env.step(self._in(action))
        if self._scalars:
            reward = _as_python(reward, float)
            terminated, truncated = _as_python(terminated, bool), _as_python(truncated, bool)
        else:
            flags = self._out_flags
            reward, terminated, truncated = flags(reward), flags(terminated), flags(truncated)
        return self._out(obs), reward, terminated, truncated, self._out(info)

    def render(self) -> Any:
        """The env's render output, converted to the target library."""
        return self._out(self.env.render())


_ARRAY_CONVERSION_DOC = """Convert {an_env}'s outputs to another array library, and its inputs back.

    Observations, rewards, terminations, truncations, infos (nested,
    ``final_obs`` included) and render frames go to the target library;
    actions and reset options go back to the env's library and device. Spaces
    are unchanged, as in Gymnasium's conversion wrappers. Conversion is
    zero-copy through DLPack wherever the source allows (see
    :mod:`anywrap.convert`).

    Two spellings are accepted: Gymnasium's ``ArrayConversion(env, env_xp,
    target_xp, env_device=None, target_device=None)`` and anywrap's
    ``ArrayConversion(env, to=..., device=...)``, where the env's library and
    device are read from the first observation. ``writable=True`` (NumPy
    target) copies read-only leaves, the views of JAX or TensorFlow arrays,
    for code that writes in place.
{scalars}
    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.{prefix}ArrayConversion({make}, to="torch")
        >>> obs, info = env.reset(seed=0)
        >>> type(obs).__name__, obs.dtype, tuple(obs.shape)
        ('Tensor', torch.float32, {obs_shape})

    Change logs:
     * v0.1.0 - Initially added.
    """

_SCALARS_DOC = {
    False: """
    Rewards, terminations and truncations: by default (``scalars=True``) they
    are Python ``float`` / ``bool``, as Gymnasium returns them (reading the
    value is a host sync for device arrays); ``scalars=False`` keeps them as
    0-d arrays of the target library, with no sync.
""",
    True: """
    Rewards, terminations and truncations stay arrays, and are always
    writable (Gymnasium's vector reward wrappers write into them in place; a
    read-only view is copied, ``num_envs`` values).
""",
}


def conversion_family(base: type, *, vector: bool, module: str) -> dict[str, type]:
    """The conversion wrappers (:data:`CONVERSION_NAMES`) over the Gymnasium
    wrapper class ``base``, as the module ``module`` exports them."""
    prefix = "vector." if vector else ""
    make = (
        'gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")'
        if vector
        else 'gym.make("CartPole-v1")'
    )
    shape = "(2, 4)" if vector else "(4,)"
    an_env = "a vector env" if vector else "an env"
    jax_make = make.replace('"CartPole-v1"', '"phys2d/CartPole-v1"')  # a JAX env (Gymnasium's)

    def define(name: str, bases: tuple[type, ...], doc: str, init: Any = None) -> type:
        attrs: dict[str, Any] = {"__doc__": doc, "__module__": module, "__qualname__": name}
        if init is not None:
            init.__qualname__ = f"{name}.__init__"
            attrs["__init__"] = init
        if name == "ArrayConversion":
            attrs.update(vector=vector, wrapper_base=base)
        return type(name, bases, attrs)

    array_conversion = define(
        "ArrayConversion",
        (Conversions, base, gym.utils.RecordConstructorArgs),
        _ARRAY_CONVERSION_DOC.format(
            an_env=an_env,
            scalars=_SCALARS_DOC[vector],
            prefix=prefix,
            make=make,
            obs_shape=shape,
        ),
    )
    family: dict[str, type] = {"ArrayConversion": array_conversion}

    def fixed_target(target: str) -> Callable[..., None]:
        def __init__(
            self: Any,
            env: Any,
            device: Any = None,
            *,
            env_xp: str | ModuleType | None = None,
            env_device: Any = None,
            **options: Any,
        ) -> None:
            """Wrap ``env``; arrays go to ``device`` if given (default: where they are).

            ``options``: ``writable``, and ``scalars`` for single envs (see
            :class:`ArrayConversion`).
            """
            gym.utils.RecordConstructorArgs.__init__(
                self, device=device, env_xp=env_xp, env_device=env_device, **options
            )
            Conversions.__init__(
                self, env, env_xp, env_device=env_device, to=target, device=device, **options
            )

        return __init__

    family["ToNumpy"] = define(
        "ToNumpy",
        (array_conversion,),
        f"""Convert {an_env}'s arrays to NumPy (views where possible).

    ``writable=True`` copies the read-only leaves (views of JAX or TensorFlow
    arrays) for code that writes in place.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.{prefix}ToNumpy({make})
        >>> type(env.reset(seed=0)[0]).__name__
        'ndarray'
    """,
        fixed_target("numpy"),
    )
    for name, target, lib in (
        ("ToTorch", "torch", "PyTorch tensors"),
        ("ToJax", "jax", "JAX arrays"),
        ("ToTensorFlow", "tensorflow", "TensorFlow tensors"),
    ):
        family[name] = define(
            name,
            (array_conversion,),
            f"""Convert {an_env}'s arrays to {lib}, on ``device`` if given.

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.{prefix}{name}({make})
        >>> anywrap.xp.library_name(env.reset(seed=0)[0])
        '{target}'
    """,
            fixed_target(target),
        )

    def gymnasium_form(name: str, source: str, target: str, takes_device: bool) -> type:
        if takes_device:

            def __init__(self: Any, env: Any, device: Any = None) -> None:
                """Wrap ``env``; tensors go to ``device`` if given."""
                gym.utils.RecordConstructorArgs.__init__(self, device=device)
                Conversions.__init__(self, env, env_xp=source, to=target, device=device)

        else:

            def __init__(self: Any, env: Any) -> None:  # type: ignore[misc]
                """Wrap ``env``."""
                gym.utils.RecordConstructorArgs.__init__(self)
                Conversions.__init__(self, env, env_xp=source, to=target)

        env_make = jax_make if source == "jax" else make
        out = "'torch'" if target == "torch" else "'numpy'"
        doc = f"""Gymnasium's ``{prefix}{name}``: a {source} env seen through {target}.

    Same arguments as Gymnasium's (and the same spec, so ``gym.make(env.spec)``
    rebuilds it).

    Example:
        >>> import gymnasium as gym, anywrap
        >>> env = anywrap.{prefix}{name}({env_make})
        >>> anywrap.xp.library_name(env.reset(seed=0)[0])
        {out}
    """
        return define(name, (array_conversion,), doc, __init__)

    family["JaxToNumpy"] = gymnasium_form("JaxToNumpy", "jax", "numpy", False)
    family["JaxToTorch"] = gymnasium_form("JaxToTorch", "jax", "torch", True)
    family["NumpyToTorch"] = gymnasium_form("NumpyToTorch", "numpy", "torch", True)
    assert tuple(sorted(family)) == CONVERSION_NAMES
    return family
