"""The functional package's surface: wrappers refuse what is not a functional env or not
their space, by name; the guide's table shows the real signatures."""

from __future__ import annotations

import inspect
from pathlib import Path

import gymnasium as gym
import pytest

jax = pytest.importorskip("jax")
gymnax = pytest.importorskip("gymnax")
from functional_envs import pendulum  # noqa: E402

from anywrap import functional as F  # noqa: E402


def test_bad_envs_and_arguments_fail_loudly():
    with pytest.raises(TypeError, match="ClipAction: expected a Box"):
        F.ClipAction(F.VmapWrapper(F.from_gymnax(gymnax.make("CartPole-v1")[0]), 2))
    with pytest.raises(ValueError, match=r"anywrap\.functional\.VmapWrapper: the env is already"):
        F.VmapWrapper(pendulum(), 2)
    with pytest.raises(ValueError, match=r"functional\.VmapWrapper: expected `num_envs` >= 1"):
        F.VmapWrapper(pendulum(None), 0)
    for n in (True, 2.0):  # True was taken as one env
        with pytest.raises(TypeError, match=r"VmapWrapper: expected `num_envs` to be an int"):
            F.VmapWrapper(pendulum(None), n)
    with pytest.raises(
        TypeError, match=r"anywrap\.functional\.TimeLimit: expected a functional env"
    ):
        F.TimeLimit(gym.make("Pendulum-v1"), 5)  # type: ignore[arg-type]
    # A Gymnasium vector env has the protocol's names (it was taken, then failed in reset)
    vector = gym.make_vec("Pendulum-v1", 2, vectorization_mode="sync")
    for wrap in (F.NormalizeReward, F.ClipReward, F.TransformReward):
        args = {F.ClipReward: (-1.0, 1.0), F.TransformReward: (abs,)}.get(wrap, ())
        with pytest.raises(TypeError, match=r"anywrap\.functional\.\w+: expected a functional env"):
            wrap(vector, *args)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="already resets itself"):
        F.AutoReset(pendulum(None))
    with pytest.raises(TypeError, match="expected `func` to be callable"):
        F.TransformReward(pendulum(), 3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expected `func` to be callable"):
        F.TransformObservation(pendulum(), None)  # type: ignore[arg-type]


def test_find_state_names_what_it_did_not_find():
    _, state = F.NormalizeReward(pendulum()).reset(jax.random.key(0))
    assert F.find_state(state, F.NormalizeRewardState) is state
    with pytest.raises(LookupError, match="no EpisodeStatisticsState"):
        F.find_state(state, F.EpisodeStatisticsState)


def test_the_guide_shows_the_functional_signatures():
    """The guide's table of the functional wrappers gives each one's real signature."""
    guide = Path(__file__).resolve().parents[2] / "docs" / "guide" / "functional.md"
    text = guide.read_text()
    for cls in (F.RecordEpisodeStatistics, F.NormalizeObservation, F.NormalizeReward):
        parts, star = [], False
        for p in inspect.signature(cls).parameters.values():
            if p.kind is p.KEYWORD_ONLY and not star:
                parts.append("*")
                star = True
            default = p.default
            shown = f'"{default}"' if isinstance(default, str) else repr(default)
            shown = shown.replace("e-0", "e-")  # 1e-8, as written
            parts.append(p.name if default is p.empty else f"{p.name}={shown}")
        row = f"| `{cls.__name__}({', '.join(parts)})` |"
        assert row in text, row


ACTION_WRAPPERS = {
    "ClipAction": lambda env: F.ClipAction(env),
    "RescaleAction": lambda env: F.RescaleAction(env, -1.0, 1.0),
    "StickyAction": lambda env: F.StickyAction(env, 0.5),
}


@pytest.mark.parametrize("name", sorted(ACTION_WRAPPERS))
@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_actions_that_do_not_fit_the_space_are_refused_by_name(name, jit):
    """An action without its batch axis was broadcast to every env (StickyAction), or failed
    in JAX with an error that named no wrapper; a torch tensor was taken; a complex one too."""
    import jax.numpy as jnp
    import numpy as np

    env = ACTION_WRAPPERS[name](pendulum(4))
    _, state = env.reset(jax.random.key(0))
    step = jax.jit(env.step) if jit else env.step
    bad = [jnp.full((1,), 0.5), jnp.asarray(0.5), jnp.full((4, 2), 0.5), np.full((4, 1), 1j)]
    for action in bad:
        with pytest.raises(ValueError, match=rf"anywrap\.functional\.{name}: expected actions "):
            step(state, action)
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match=rf"anywrap\.functional\.{name}: expected the action "):
        env.step(state, torch.zeros(4, 1))
    assert np.shape(step(state, jnp.zeros((4, 1))).reward) == (4,)  # the right one passes


class _BadValues:
    """Pendulum x4 whose step's reward or flags are changed by ``bend``."""

    def __init__(self, bend):
        self.env, self.bend = pendulum(4), bend
        self.num_envs = 4
        for attr in ("observation_space", "action_space", "autoreset_mode"):
            setattr(self, attr, getattr(self.env, attr))

    def reset(self, key):
        return self.env.reset(key)

    def step(self, state, action):
        return self.bend(self.env.step(state, action))


STATISTICS_WRAPPERS = {
    "NormalizeReward": lambda env: F.NormalizeReward(env),
    "RecordEpisodeStatistics": lambda env: F.RecordEpisodeStatistics(env, 4),
}


@pytest.mark.parametrize("name", sorted(STATISTICS_WRAPPERS))
@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
def test_rewards_and_flags_that_do_not_fit_the_batch_are_refused_by_name(name, jit):
    """A reward of shape (4, 1) made RecordEpisodeStatistics' running sums (4, 4) without a
    word, and NormalizeReward fail in a reshape; float flags were taken as bools."""
    import jax.numpy as jnp
    import numpy as np

    bends = {
        "reward of shape \\(4,\\)": lambda s: s._replace(reward=s.reward[:, None]),
        "truncated of shape \\(4,\\)": lambda s: s._replace(truncated=s.truncated[:2]),
        "terminated to hold bools": lambda s: s._replace(terminated=s.terminated * 1.0),
    }
    for want, bend in bends.items():
        env = STATISTICS_WRAPPERS[name](_BadValues(bend))
        _, state = env.reset(jax.random.key(0))
        step = jax.jit(env.step) if jit else env.step
        with pytest.raises((ValueError, TypeError), match=rf"functional\.{name}: expected {want}"):
            step(state, jnp.zeros((4, 1)))
    env = STATISTICS_WRAPPERS[name](_BadValues(lambda s: s))
    _, state = env.reset(jax.random.key(0))
    assert np.shape((jax.jit(env.step) if jit else env.step)(state, jnp.zeros((4, 1))).reward) == (
        4,
    )
