"""Gradients through the wrappers (docs/guide/gradients.md), against closed forms and
finite differences, never against the code under test.

The rule: statistics learn from the values of the data and are a constant of the
gradient (``stats_gradient=True`` lets it through this step's update); no wrapper
state keeps a graph; the transforms themselves (normalisation, clips, rescaling,
the newest frame of a stack) pass the gradient on.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from differentiable_envs import (  # noqa: E402
    ACT,
    DIM,
    B,
    LinearEnv,
    LinearFunctionalEnv,
    LinearVectorEnv,
    reference_moments,
)

import anywrap  # noqa: E402
from anywrap import xp  # noqa: E402

V = anywrap.vector
EPS = 1e-8


@pytest.fixture(autouse=True)
def _eager():
    previous = xp.set_compile(False)
    yield
    xp.set_compile(previous)


def _graph_nodes(t: torch.Tensor) -> int:
    """How many autograd nodes ``t``'s graph holds."""
    seen, todo = set(), [t.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        todo.extend(n for n, _ in node.next_functions)
    return len(seen)


def _assert_no_graph(env, what):
    """No state leaf of any wrapper of the stack has a graph."""
    checked = 0
    while hasattr(env, "env"):
        if hasattr(env, "state_dict"):
            for key, value in env.state_dict().items():
                if isinstance(value, torch.Tensor):
                    checked += 1
                    assert not value.requires_grad and value.grad_fn is None, f"{what}: {key}"
        env = env.env
    assert checked, what


def _cleanrl(env, vector=True, **kw):
    """CleanRL's continuous-control stack, on PyTorch."""
    ns = V if vector else anywrap
    env = ns.RecordEpisodeStatistics(env)
    env = ns.ClipAction(env)
    env = ns.NormalizeObservation(env, **kw)
    env = ns.TransformObservation(env, lambda o: torch.clamp(o, -5.0, 5.0), env.observation_space)
    env = ns.NormalizeReward(env, gamma=0.99, **kw)
    return ns.TransformReward(env, lambda r: torch.clamp(r, -5.0, 5.0))


STATEFUL_VECTOR = {
    "cleanrl": _cleanrl,
    "cleanrl_stats_gradient": lambda e: _cleanrl(e, stats_gradient=True),
    "frame_stack": lambda e: V.FrameStackObservation(e, 3),
    "frame_stack_zero": lambda e: V.FrameStackObservation(e, 3, padding_type="zero"),
    "delay": lambda e: V.DelayObservation(e, 2),
    "sticky": lambda e: V.StickyAction(e, 0.5),
    "max_and_skip": lambda e: V.MaxAndSkipObservation(e, 2),
    "time_aware": lambda e: V.TimeAwareObservation(V.TimeLimit(e, 50)),
}
STATEFUL_SINGLE = {
    "cleanrl": lambda e: _cleanrl(e, vector=False),
    "cleanrl_stats_gradient": lambda e: _cleanrl(e, vector=False, stats_gradient=True),
    "frame_stack": lambda e: anywrap.FrameStackObservation(e, 3),
    "delay": lambda e: anywrap.DelayObservation(e, 2),
    "sticky": lambda e: anywrap.StickyAction(e, 0.5),
    "max_and_skip": lambda e: anywrap.MaxAndSkipObservation(e, 2),
    "time_aware": lambda e: anywrap.TimeAwareObservation(anywrap.TimeLimit(e, 50)),
}


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("name", sorted(STATEFUL_VECTOR))
def test_vector_state_keeps_no_graph_and_the_step_graph_stays_one_step(name, compiled):
    """A large batch, differentiable actions and observations: after every step no
    state leaf has a graph, and the output's graph is as large at step 12 as at step
    3 (a graph kept in the state grows each step: the leak was 2 nodes a step)."""
    xp.set_compile(compiled, after_calls=2)
    env = STATEFUL_VECTOR[name](LinearVectorEnv(2048))
    env.reset(seed=0)
    policy = torch.zeros(2048, ACT, requires_grad=True)
    sizes = {}
    for t in range(12):
        obs, reward, *_ = env.step(0.5 * torch.tanh(policy + 0.01 * t))
        _assert_no_graph(env, name)
        sizes[t] = _graph_nodes(obs) + _graph_nodes(reward)
    # The delayed observation is an earlier step's, held as a value: no gradient.
    assert obs.requires_grad is (name != "delay") and reward.requires_grad
    assert sizes[11] == sizes[2], sizes


@pytest.mark.parametrize("name", sorted(STATEFUL_SINGLE))
def test_single_state_keeps_no_graph(name):
    env = STATEFUL_SINGLE[name](LinearEnv())
    env.reset(seed=0)
    policy = torch.zeros(ACT, requires_grad=True)
    sizes = {}
    for t in range(10):
        obs, reward, *_ = env.step(0.5 * torch.tanh(policy + 0.01 * t))
        _assert_no_graph(env, name)
        sizes[t] = _graph_nodes(obs) + _graph_nodes(torch.as_tensor(reward))
    assert sizes[9] == sizes[2], sizes


def _closed_form(seen: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """d(sum(weights * normalised obs)) / d(action) for obs = ... + action @ B, the
    statistics a constant: weights / sqrt(var + eps), through B."""
    _, var = reference_moments(seen)
    return (weights / np.sqrt(var + EPS)) @ B.T


def test_vector_normalised_obs_gradient_is_one_over_sqrt_var_plus_eps():
    n = 5
    env = V.NormalizeObservation(LinearVectorEnv(n))
    raw, _ = LinearVectorEnv(n).reset(seed=0)
    env.reset(seed=0)
    weights = np.random.default_rng(1).normal(size=(n, DIM))
    action = torch.full((n, ACT), 0.3, dtype=torch.float64, requires_grad=True)
    obs, *_ = env.step(action)
    (obs * torch.as_tensor(weights)).sum().backward()
    seen = np.concatenate([raw.numpy(), obs_raw(raw.numpy(), 0.3)])
    np.testing.assert_allclose(action.grad.numpy(), _closed_form(seen, weights), rtol=1e-6)


def obs_raw(state: np.ndarray, action: float) -> np.ndarray:
    """The linear env's next observation, in float64 (the test's own formula)."""
    from differentiable_envs import DECAY

    return DECAY * state + np.full((state.shape[0], ACT), action) @ B


def test_single_normalised_obs_gradient_is_one_over_sqrt_var_plus_eps():
    env = anywrap.NormalizeObservation(LinearEnv())
    raw, _ = LinearEnv().reset(seed=0)
    env.reset(seed=0)
    weights = np.random.default_rng(1).normal(size=DIM)
    action = torch.full((ACT,), 0.3, dtype=torch.float64, requires_grad=True)
    obs, *_ = env.step(action)
    (obs * torch.as_tensor(weights)).sum().backward()
    seen = np.stack([raw.numpy(), obs_raw(raw.numpy()[None], 0.3)[0]])
    np.testing.assert_allclose(action.grad.numpy(), _closed_form(seen, weights[None])[0], rtol=1e-6)


def test_normalised_reward_gradient_is_one_over_sqrt_var_plus_eps():
    """The scaled reward's gradient is the reward's over sqrt(Var[G] + eps), Var[G]
    the moments of the returns (here one step: G is the reward)."""
    n = 6
    env = V.NormalizeReward(LinearVectorEnv(n), gamma=0.99)
    env.reset(seed=0)
    action = torch.full((n, ACT), 0.3, dtype=torch.float64, requires_grad=True)
    _, reward, *_ = env.step(action)
    reward.sum().backward()
    raw = LinearVectorEnv(n)
    raw.reset(seed=0)
    a = torch.full((n, ACT), 0.3, dtype=torch.float64, requires_grad=True)
    _, r, *_ = raw.step(a)
    r.sum().backward()  # d(raw reward)/d(action), the env's own
    g = r.detach().numpy().astype(np.float32).astype(np.float64)  # the float32 accumulator
    _, var = reference_moments(g[:, None])
    np.testing.assert_allclose(action.grad.numpy(), a.grad.numpy() / np.sqrt(var + EPS), rtol=1e-5)


def test_stats_gradient_goes_through_this_steps_update():
    """With the switch, the gradient of the normalised observation counts this step's
    statistics too: it is the derivative of the whole map, checked by finite
    differences (where the default's is not)."""
    n = 3

    def normalised(action: torch.Tensor, **kw) -> torch.Tensor:
        env = V.NormalizeObservation(LinearVectorEnv(n), **kw)
        env.reset(seed=0)
        return env.step(action)[0]

    weights = torch.as_tensor(np.random.default_rng(2).normal(size=(n, DIM)))
    a0 = torch.full((n, ACT), 0.2, dtype=torch.float64)
    grads = {}
    for switch in (False, True):
        a = a0.clone().requires_grad_(True)
        (normalised(a, stats_gradient=switch).double() * weights).sum().backward()
        grads[switch] = a.grad.numpy()
    fd = _finite_differences(lambda a: float((normalised(a).double() * weights).sum()), a0, h=1e-3)
    np.testing.assert_allclose(grads[True], fd, rtol=2e-3, atol=2e-4)
    assert np.abs(grads[False] - fd).max() > 1e-2  # the default holds the update constant


@pytest.mark.parametrize("name", ["NormalizeObservation", "NormalizeReward"])
def test_the_switch_is_recorded_for_the_spec_and_checked(name):
    import gymnasium as gym

    env = getattr(anywrap, name)(gym.make("Pendulum-v1"), stats_gradient=True)
    assert env.spec.additional_wrappers[-1].kwargs["stats_gradient"] is True
    assert gym.make(env.spec).stats_gradient is True
    for ns in (anywrap, V):
        inner = gym.make("Pendulum-v1") if ns is anywrap else LinearVectorEnv(2)
        with pytest.raises(TypeError, match=f"{name}: expected `stats_gradient` to be a bool"):
            getattr(ns, name)(inner, stats_gradient="yes")


def _finite_differences(f, x0: torch.Tensor, h: float) -> np.ndarray:
    out = np.zeros(tuple(x0.shape))
    for i in np.ndindex(*x0.shape):
        up, down = x0.clone(), x0.clone()
        up[i] += h
        down[i] -= h
        out[i] = (f(up) - f(down)) / (2 * h)
    return out


def _find(env, name):
    while not hasattr(env, name):
        env = env.env
    return getattr(env, name)


def test_finite_differences_through_the_whole_cleanrl_stack():
    """CleanRL's stack with frozen, non-trivial statistics over a differentiable env
    whose state carries the graph from step to step: autograd's gradient of a loss
    over three steps equals central finite differences (actions inside the clip)."""
    n, steps = 2, 3
    rng = np.random.default_rng(3)
    w_obs = torch.as_tensor(rng.normal(size=(steps, n, DIM)))
    w_rew = torch.as_tensor(rng.normal(size=(steps, n)))

    def loss(actions: torch.Tensor) -> torch.Tensor:
        env = _cleanrl(LinearVectorEnv(n, detach_state=False), update_running_mean=False)
        obs_rms, return_rms = _find(env, "obs_rms"), _find(env, "return_rms")
        obs_rms.mean, obs_rms.var = np.array([0.3, -0.2, 0.1]), np.array([2.0, 0.5, 1.5])
        return_rms.var = np.array(3.0)
        env.reset(seed=0)
        total = torch.zeros((), dtype=torch.float64)
        for t in range(steps):
            obs, reward, *_ = env.step(actions[t])
            total = total + (obs.double() * w_obs[t]).sum() + (reward.double() * w_rew[t]).sum()
        return total

    a0 = torch.as_tensor(rng.uniform(-0.8, 0.8, size=(steps, n, ACT)))
    a = a0.clone().requires_grad_(True)
    loss(a).backward()
    # Steps of 3e-3: the outputs are float32 (the wrapper's observation space), whose
    # rounding a smaller step would amplify past the tolerance.
    fd = _finite_differences(lambda x: float(loss(x)), a0, h=3e-3)
    np.testing.assert_allclose(a.grad.numpy(), fd, rtol=1e-3, atol=1e-4)
    # The normaliser's scale is in the gradient: not the raw env's
    assert np.abs(a.grad.numpy()).max() > 0.1


def test_finite_differences_with_stats_gradient_through_the_cleanrl_stack():
    """With ``stats_gradient=True`` both normalisers' updates are in the gradient: one
    step from reset (the stateful shells differentiate through this step's update)
    matches finite differences of the whole learning stack."""
    n = 3
    rng = np.random.default_rng(4)
    w_obs = torch.as_tensor(rng.normal(size=(n, DIM)))
    w_rew = torch.as_tensor(rng.normal(size=n))

    def loss(action: torch.Tensor) -> torch.Tensor:
        env = _cleanrl(LinearVectorEnv(n), stats_gradient=True)
        env.reset(seed=0)
        obs, reward, *_ = env.step(action)
        return (obs.double() * w_obs).sum() + (reward.double() * w_rew).sum()

    a0 = torch.as_tensor(rng.uniform(-0.8, 0.8, size=(n, ACT)))
    a = a0.clone().requires_grad_(True)
    loss(a).backward()
    fd = _finite_differences(lambda x: float(loss(x)), a0, h=3e-3)
    np.testing.assert_allclose(a.grad.numpy(), fd, rtol=2e-3, atol=2e-4)


# ---------------------------------------------------------------- JAX against PyTorch
def _jax_cleanrl(env, **kw):
    import jax.numpy as jnp

    from anywrap import functional as F

    env = F.RecordEpisodeStatistics(env)
    env = F.ClipAction(env)
    env = F.NormalizeObservation(env, **kw)
    env = F.TransformObservation(env, lambda o: jnp.clip(o, -5.0, 5.0))
    env = F.NormalizeReward(env, gamma=0.99, **kw)
    return F.TransformReward(env, lambda r: jnp.clip(r, -5.0, 5.0))


def _jax_grad(env, actions: np.ndarray, w_obs: np.ndarray, w_rew: np.ndarray) -> np.ndarray:
    import jax
    import jax.numpy as jnp

    def loss(acts):
        _, state = env.reset(jax.random.key(0))
        total = 0.0
        for t in range(acts.shape[0]):
            s = env.step(state, acts[t])
            total = total + (s.obs * w_obs[t]).sum() + (s.reward * w_rew[t]).sum()
            state = s.state
        return total

    return np.asarray(jax.jit(jax.grad(loss))(jnp.asarray(actions, jnp.float32)))


def _torch_grad(env, actions: np.ndarray, w_obs: np.ndarray, w_rew: np.ndarray) -> np.ndarray:
    env.reset(seed=0)
    a = torch.tensor(actions, dtype=torch.float32, requires_grad=True)
    total = torch.zeros(())
    for t in range(actions.shape[0]):
        obs, reward, *_ = env.step(a[t])
        total = total + (obs * torch.as_tensor(w_obs[t])).sum()
        total = total + (reward * torch.as_tensor(w_rew[t])).sum()
    total.backward()
    return a.grad.numpy()


@pytest.mark.parametrize("stats_gradient", [False, True], ids=["stats_constant", "stats_gradient"])
def test_jax_grad_and_torch_autograd_agree_on_the_cleanrl_stack(stats_gradient):
    """The same stack on the same data, through ``jax.grad`` of ``anywrap.functional``
    and through ``torch.autograd`` of ``anywrap.vector``: the same gradients (float32
    on both sides; the env's state carries the graph across the four steps)."""
    pytest.importorskip("jax")
    n, steps = 4, 4
    rng = np.random.default_rng(5)
    actions = rng.uniform(-0.8, 0.8, size=(steps, n, ACT)).astype(np.float32)
    w_obs = rng.normal(size=(steps, n, DIM)).astype(np.float32)
    w_rew = rng.normal(size=(steps, n)).astype(np.float32)
    kw = {"stats_gradient": stats_gradient}
    on_jax = _jax_grad(_jax_cleanrl(LinearFunctionalEnv(n), **kw), actions, w_obs, w_rew)
    vec = LinearVectorEnv(n, dtype=torch.float32, detach_state=False)
    on_torch = _torch_grad(_cleanrl(vec, **kw), actions, w_obs, w_rew)
    np.testing.assert_allclose(on_jax, on_torch, rtol=2e-4, atol=2e-5)
    assert np.abs(on_jax).max() > 0.1


def test_jax_grad_of_the_normalised_obs_is_one_over_sqrt_var_plus_eps():
    """The issue's probe: under ``jax.grad`` the functional normaliser's gradient was
    off 1/sqrt(var + eps) by 0.04 (it went through this step's update)."""
    pytest.importorskip("jax")
    from anywrap import functional as F

    n = 5
    rng = np.random.default_rng(1)
    weights = rng.normal(size=(1, n, DIM)).astype(np.float32)
    grad = _jax_grad(
        F.NormalizeObservation(LinearFunctionalEnv(n)),
        np.full((1, n, ACT), 0.3, np.float32),
        weights,
        np.zeros((1, n), np.float32),
    )
    raw, _ = LinearFunctionalEnv(n).reset(None)
    raw = np.asarray(raw, np.float64)
    seen = np.concatenate([raw, obs_raw(raw, 0.3)])
    np.testing.assert_allclose(grad[0], _closed_form(seen, weights[0]), rtol=1e-5)


def test_jax_and_torch_frame_stacks_pass_the_gradient_to_the_newest_frame():
    pytest.importorskip("jax")
    from anywrap import functional as F

    n, steps = 3, 4
    rng = np.random.default_rng(6)
    actions = rng.uniform(-0.8, 0.8, size=(steps, n, ACT)).astype(np.float32)
    w_obs = rng.normal(size=(steps, n, 3, DIM)).astype(np.float32)
    w_rew = np.zeros((steps, n), np.float32)
    on_jax = _jax_grad(F.FrameStackObservation(LinearFunctionalEnv(n), 3), actions, w_obs, w_rew)
    vec = LinearVectorEnv(n, dtype=torch.float32, detach_state=False)
    on_torch = _torch_grad(V.FrameStackObservation(vec, 3), actions, w_obs, w_rew)
    np.testing.assert_allclose(on_jax, on_torch, rtol=1e-5, atol=1e-6)
    # Closed form for the last action: only the newest frame depends on it, as ``a @ B``.
    np.testing.assert_allclose(on_torch[-1], w_obs[-1, :, -1] @ B.T, rtol=1e-5)


def test_a_conversion_within_torch_keeps_the_graph_and_across_libraries_cuts_it():
    """``ToTorch`` over an env that already speaks PyTorch hands the tensors on as they
    are, graph included; DLPack carries values only, so a tensor sent to JAX leaves its
    graph behind (docs/guide/gradients.md says so)."""
    env = anywrap.ToTorch(LinearEnv())
    env.reset(seed=0)
    action = torch.full((ACT,), 0.3, dtype=torch.float64, requires_grad=True)
    obs, *_ = env.step(action)
    obs.sum().backward()
    np.testing.assert_allclose(action.grad.numpy(), B.sum(1))  # d(sum(a @ B))/da
    pytest.importorskip("jax")
    moved = xp.to_library(obs, "jax")
    assert type(moved).__module__.startswith("jax") and obs.requires_grad
