"""Bad input that used to get past the checks (issue 12's table, row by row): each
case raises an error that names the wrapper, what it expected and what it got,
before the wrapper changes anything: its ``state_dict()``, dtypes included, is
as it was. (Wrappers below it may have learned from the parts of the step that
were valid for them, as they would from any step.)

The README's table "Bad input, tested" lists these cases."""

from __future__ import annotations

import re
import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space
from helpers import assert_same_state, flat_state

import anywrap

N = 4


class ScriptedVectorEnv(gym.vector.VectorEnv):
    """A vector env whose next step returns whatever the test put in ``self.next``."""

    def __init__(self, space: gym.Space, num_envs: int = N, mode=AutoresetMode.NEXT_STEP):
        self.num_envs = num_envs
        self.single_observation_space = space
        self.observation_space = batch_space(space, num_envs)
        self.single_action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.metadata = {"autoreset_mode": mode}
        self.next: dict[str, Any] = {}

    def _obs(self) -> Any:
        return self.observation_space.sample()

    def reset(self, *, seed=None, options=None):
        self.observation_space.seed(0 if seed is None else seed)
        return self._obs(), {}

    def step(self, actions):
        out = {
            "obs": self._obs(),
            "reward": np.linspace(-1.0, 1.0, self.num_envs),
            "terminated": np.zeros(self.num_envs, bool),
            "truncated": np.zeros(self.num_envs, bool),
            "info": {},
        }
        out.update(self.next)
        return out["obs"], out["reward"], out["terminated"], out["truncated"], out["info"]


class ScriptedEnv(gym.Env):
    """A single env whose next step returns whatever the test put in ``self.next``."""

    observation_space = gym.spaces.Box(-1.0, 1.0, (3,), np.float32)
    action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)

    def __init__(self) -> None:
        self.next: dict[str, Any] = {}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return np.zeros(3, np.float32), {}

    def step(self, action):
        out = {
            "obs": np.full(3, 0.5, np.float32),
            "reward": 1.0,
            "terminated": False,
            "truncated": False,
            "info": {},
        }
        out.update(self.next)
        return out["obs"], out["reward"], out["terminated"], out["truncated"], out["info"]


BOX = gym.spaces.Box(-1.0, 1.0, (3,), np.float32)


def vector_stack(env):
    env = anywrap.vector.RecordEpisodeStatistics(env)
    env = anywrap.vector.NormalizeObservation(env)
    return anywrap.vector.NormalizeReward(env)


def single_stack(env):
    env = anywrap.RecordEpisodeStatistics(env)
    env = anywrap.NormalizeObservation(env)
    return anywrap.NormalizeReward(env)


def started(stack, env, steps=3):
    stack.reset(seed=0)
    for _ in range(steps):
        stack.step(np.zeros(stack.action_space.shape, np.float32))
    return stack


def refused(stack, call, exc, *patterns):
    """``call()`` raises ``exc`` matching every pattern, and no state changed."""
    before = flat_state(stack)
    dtypes = {k: v.dtype for k, v in before.items()}
    with pytest.raises(exc) as info:
        call()
    for p in patterns:
        assert re.search(p, str(info.value)), f"{p!r} not in {str(info.value)!r}"
    after = flat_state(stack)
    assert_same_state(after, before)
    assert {k: v.dtype for k, v in after.items()} == dtypes
    return str(info.value)


@pytest.mark.parametrize(
    ("reward", "shape"), [(np.zeros((N, 1)), r"\(4, 1\)"), (np.zeros(1), r"\(1,\)")]
)
def test_vector_reward_of_another_shape(reward, shape):
    env = ScriptedVectorEnv(BOX)
    stack = started(vector_stack(env), env)
    env.next = {"reward": reward}
    refused(
        stack,
        lambda: stack.step(np.zeros((N, 1), np.float32)),
        ValueError,
        r"anywrap\.vector\.\w+: expected reward of shape \(4,\)",
        shape,
    )
    env.next = {}
    stack.step(np.zeros((N, 1), np.float32))  # and the stack goes on
    assert stack.return_rms.var.shape == ()


def test_vector_flags_of_another_shape():
    env = ScriptedVectorEnv(BOX)
    stack = started(vector_stack(env), env)
    env.next = {"terminated": np.zeros((N, 1), bool)}
    refused(
        stack,
        lambda: stack.step(np.zeros((N, 1), np.float32)),
        ValueError,
        r"expected terminated of shape \(4,\)",
    )


@pytest.mark.parametrize(
    ("shape", "got"), [((N + 1, 3), r"\(5, 3\)"), ((N - 1, 3), r"\(3, 3\)"), ((N, 5), r"\(4, 5\)")]
)
def test_vector_observations_must_be_num_envs_rows_of_the_space(shape, got):
    env = ScriptedVectorEnv(BOX)
    stack = started(anywrap.vector.NormalizeObservation(env), env)
    env.next = {"obs": np.zeros(shape, np.float32)}
    refused(
        stack,
        lambda: stack.step(np.zeros((N, 1), np.float32)),
        ValueError,
        r"anywrap\.vector\.NormalizeObservation: expected observations of shape \(4, 3\)",
        rf"shape={got}",
    )


@pytest.mark.parametrize("change", ["missing", "extra"])
def test_dict_observation_keys_must_be_the_spaces(change):
    space = gym.spaces.Dict({"pos": BOX, "vel": gym.spaces.Box(-1.0, 1.0, (2,), np.float32)})
    env = ScriptedVectorEnv(space)
    stack = started(anywrap.vector.NormalizeObservation(env), env)
    obs = dict(space.sample())
    obs = {k: np.stack([v] * N) for k, v in obs.items()}
    if change == "missing":
        del obs["vel"]
        expect = r"missing \['vel'\]"
    else:
        obs["spin"] = np.zeros((N, 1), np.float32)
        expect = r"unexpected \['spin'\]"
    env.next = {"obs": obs}
    refused(
        stack,
        lambda: stack.step(np.zeros((N, 1), np.float32)),
        ValueError,
        r"NormalizeObservation: expected the observation to have the keys \['pos', 'vel'\]",
        expect,
    )


def test_single_reward_of_one_element_is_a_number_and_others_are_refused(tmp_path):
    env = ScriptedEnv()
    stack = started(single_stack(env), env)
    env.next = {"reward": np.array([2.0])}
    _, reward, *_ = stack.step(np.zeros(1, np.float32))
    assert np.shape(reward) == (1,)  # given back in the env's shape
    for layer in (stack, stack.env.env):
        assert all(
            np.shape(v) in ((), (0,)) or k.startswith("recent")
            for k, v in layer.state_dict().items()
            if k != "prev_done"
        ), layer.state_dict()
    path = tmp_path / "stats.safetensors"
    anywrap.save_state(stack, path)
    anywrap.load_state(single_stack(ScriptedEnv()), path)  # loads into a fresh stack
    env.next = {"reward": np.array([1.0, 2.0])}
    refused(
        stack,
        lambda: stack.step(np.zeros(1, np.float32)),
        ValueError,
        r"anywrap\.\w+: expected a scalar reward \(one env\), got numpy\.ndarray\(shape=\(2,\)",
    )


def ending_episode_stats(vector: bool, info: Any) -> tuple[Any, Any]:
    """A started RecordEpisodeStatistics whose env's next step ends every episode and
    returns ``info``; and the action for that step."""
    env = ScriptedVectorEnv(BOX) if vector else ScriptedEnv()
    wrapper = anywrap.vector.RecordEpisodeStatistics if vector else anywrap.RecordEpisodeStatistics
    stack = started(wrapper(env), env)
    env.next = {"terminated": np.ones(N, bool) if vector else True, "info": info}
    return stack, np.zeros((N, 1) if vector else (1,), np.float32)


@pytest.mark.parametrize("vector", [False, True])
def test_an_info_that_already_holds_the_stats_key_is_refused_before_any_update(vector):
    stack, action = ending_episode_stats(vector, {"episode": "the env's own"})
    refused(
        stack,
        lambda: stack.step(action),
        ValueError,
        r"RecordEpisodeStatistics: expected an info without the key",
        r"'episode'",
    )


@pytest.mark.parametrize("vector", [False, True])
@pytest.mark.parametrize("info", [None, ["episode"]])
def test_an_info_that_is_not_a_dict_is_refused_before_any_update(vector, info):
    stack, action = ending_episode_stats(vector, info)
    refused(
        stack,
        lambda: stack.step(action),
        TypeError,
        r"RecordEpisodeStatistics: expected `info` to be a dict, got <class '(NoneType|list)'>",
    )


class TorchScriptedVectorEnv(ScriptedVectorEnv):
    """:class:`ScriptedVectorEnv` stepping torch tensors: its wrappers run as one program."""

    def reset(self, *, seed=None, options=None):
        import torch

        obs, info = super().reset(seed=seed, options=options)
        return torch.as_tensor(obs), info

    def step(self, actions):
        import torch

        *arrays, info = super().step(actions)
        return (*(torch.as_tensor(np.asarray(a)) for a in arrays), info)


@pytest.mark.parametrize("library", ["numpy", "torch"])
@pytest.mark.parametrize(
    ("wrappers", "named"),
    [
        (("RecordEpisodeStatistics", "NormalizeObservation"), "RecordEpisodeStatistics"),
        (("NormalizeObservation",), "NormalizeObservation"),
        (("NormalizeObservation", "NormalizeReward"), "NormalizeObservation"),
    ],
)
@pytest.mark.parametrize("info", [None, ["episode"]])
def test_a_run_of_vector_wrappers_refuses_an_info_that_is_not_a_dict_by_name(
    library, wrappers, named, info
):
    """Whatever the run (one program on a device, wrapper by wrapper on the host), an
    ``info`` that is not a dict gets the innermost wrapper's error, with no state changed."""
    if library == "torch":
        pytest.importorskip("torch")
    env = TorchScriptedVectorEnv(BOX) if library == "torch" else ScriptedVectorEnv(BOX)
    stack = env
    for name in wrappers:
        stack = getattr(anywrap.vector, name)(stack)
    started(stack, env)
    env.next = {"terminated": np.ones(N, bool), "info": info}
    refused(
        stack,
        lambda: stack.step(np.zeros((N, 1), np.float32)),
        TypeError,
        rf"vector\.{named}: expected `info` to be a dict, got <class '(NoneType|list)'>",
    )


SAME_STEP_READERS = {
    "DelayObservation": lambda env: anywrap.vector.DelayObservation(env, 2),
    "FrameStackObservation": lambda env: anywrap.vector.FrameStackObservation(env, 3),
    "TimeAwareObservation": lambda env: anywrap.vector.TimeAwareObservation(env, max_timesteps=10),
    "MaxAndSkipObservation": lambda env: anywrap.vector.MaxAndSkipObservation(env, 2),
    "TimeLimit": lambda env: anywrap.vector.TimeLimit(env, 4),
}


@pytest.mark.parametrize("name", sorted(SAME_STEP_READERS))
@pytest.mark.parametrize("info", [None, ["final_obs"]])
def test_the_wrappers_that_read_final_obs_refuse_an_info_that_is_not_a_dict(name, info):
    """DelayObservation turned its ring, then failed on ``in``; TimeLimit reset the sub-envs
    its limit ended, then failed; the others raised Python's errors, naming no wrapper."""
    env = ScriptedVectorEnv(BOX, mode=AutoresetMode.SAME_STEP)
    resets = []
    env.reset = lambda *, seed=None, options=None, reset=env.reset: (
        resets.append(options) or reset(seed=seed, options=options)
    )
    stack = started(SAME_STEP_READERS[name](env), env)
    env.next, resets[:] = {"info": info}, []
    refused(
        stack,
        lambda: stack.step(np.zeros((N, 1), np.float32)),
        TypeError,
        rf"anywrap\.vector\.{name}: expected `info` to be a dict, got <class '(NoneType|list)'>",
    )
    assert resets == []  # TimeLimit's step 4 ends every sub-env: none was reset


FINAL_OBS_READERS = {
    "NormalizeObservation": anywrap.vector.NormalizeObservation,
    # DelayObservation replaces info["final_obs"] by its own delayed rows, never reading them
    **{k: v for k, v in SAME_STEP_READERS.items() if k not in ("TimeLimit", "DelayObservation")},
}


@pytest.mark.parametrize("name", sorted(FINAL_OBS_READERS))
@pytest.mark.parametrize("layout", ["packed", "dense"])
def test_final_obs_rows_that_do_not_fit_the_space_are_refused_by_name(name, layout):
    """Gymnasium's object array with a row of 4 values failed in NumPy's concatenate, naming
    no wrapper; TimeAwareObservation did not check a dense batch (NumPy's reshape error)."""
    env = ScriptedVectorEnv(BOX, mode=AutoresetMode.SAME_STEP)
    stack = started(FINAL_OBS_READERS[name](env), env)
    done = np.zeros(N, bool)
    done[0] = True
    final: Any = np.zeros((N, 4), np.float32)
    if layout == "packed":
        final = np.full(N, None, dtype=object)
        final[0] = np.zeros(4, np.float32)
    env.next = {"terminated": done, "info": {"final_obs": final, "_final_obs": done}}
    refused(
        stack,
        lambda: stack.step(np.zeros((N, 1), np.float32)),
        ValueError,
        rf"anywrap\.vector\.{name}: expected ",
        r"final_obs|final observations|observations of shape",
    )


def test_same_step_final_obs_without_its_mask():
    env = ScriptedVectorEnv(BOX, mode=AutoresetMode.SAME_STEP)
    stack = started(anywrap.vector.NormalizeObservation(env), env)
    env.next = {"info": {"final_obs": np.zeros((N, 3), np.float32)}}
    refused(
        stack,
        lambda: stack.step(np.zeros((N, 1), np.float32)),
        ValueError,
        r"holds 'final_obs' but not its mask '_final_obs'",
    )


@pytest.mark.parametrize("vector", [False, True])
@pytest.mark.parametrize(
    ("action", "got"),
    [
        (None, "None"),
        ("x", "str 'x'"),  # a string was read as a library's name: "unknown array library"
        ("abc", "str 'abc'"),
        (b"\x00", "bytes b'\\x00'"),
        ({"a": 1}, "builtins.dict"),
    ],
)
def test_an_action_that_is_no_array_is_refused_naming_the_space(vector, action, got):
    env = ScriptedVectorEnv(BOX) if vector else ScriptedEnv()
    clip = anywrap.vector.ClipAction(env) if vector else anywrap.ClipAction(env)
    clip.reset(seed=0)
    with pytest.raises(
        TypeError,
        match=r"anywrap\.(vector\.)?ClipAction: expected an action of "
        r"shape .* \(action space Box\(.*\)\), got " + re.escape(got) + "$",
    ):
        clip.step(action)


@pytest.mark.filterwarnings("ignore:The given buffer is not writable:UserWarning")
def test_a_step_that_fails_on_another_librarys_data_changes_nothing():
    torch = pytest.importorskip("torch")
    jnp = pytest.importorskip("jax.numpy")
    env = ScriptedEnv()
    stack = anywrap.NormalizeReward(env)  # float64 statistics on NumPy
    started(stack, env)
    assert stack.return_rms.var.dtype == np.float64
    # a torch reward with JAX flags: the state would move to torch, then the
    # transform fails on the mix
    env.next = {"reward": torch.tensor(1.0), "terminated": jnp.asarray(False)}
    refused(stack, lambda: stack.step(np.zeros(1, np.float32)), (TypeError, ValueError))
    assert type(stack.return_rms.var) is np.float64 or stack.return_rms.var.dtype == np.float64


def test_float16_observations_are_accumulated_in_at_least_float32():
    space = gym.spaces.Box(0.0, 600.0, (3,), np.float16)
    env = ScriptedVectorEnv(space, num_envs=256)
    rng = np.random.default_rng(0)
    batches = [rng.uniform(250.0, 350.0, (256, 3)).astype(np.float16) for _ in range(4)]
    feed = iter(batches)
    env._obs = lambda: next(feed)  # type: ignore[method-assign]
    stack = anywrap.vector.NormalizeObservation(env)
    stack.reset(seed=0)
    for _ in range(3):
        stack.step(np.zeros((256, 1), np.float32))
    seen = np.concatenate(batches).astype(np.float64)
    np.testing.assert_allclose(stack.obs_rms.mean, seen.mean(0), rtol=1e-5)
    np.testing.assert_allclose(stack.obs_rms.var, seen.var(0), rtol=1e-3)
    # Gymnasium's mean stays finite too (np.mean sums float16 in float32); its
    # variance overflows (np.var sums the float16 squares in float16)
    theirs = gym.wrappers.vector.NormalizeObservation(ScriptedVectorEnv(space, num_envs=256))
    again = iter(batches)
    theirs.env._obs = lambda: next(again)  # type: ignore[method-assign]
    with np.errstate(over="ignore"):
        theirs.reset(seed=0)
        for _ in range(3):
            theirs.step(np.zeros((256, 1), np.float32))
    np.testing.assert_allclose(stack.obs_rms.mean, theirs.obs_rms.mean, rtol=1e-3)
    assert np.all(np.isfinite(stack.obs_rms.var)) and not np.all(np.isfinite(theirs.obs_rms.var))


def test_conversions_refuse_an_unknown_library_a_missing_device_and_a_third_library():
    torch = pytest.importorskip("torch")
    jnp = pytest.importorskip("jax.numpy")
    with pytest.raises(
        ValueError,
        match=r"anywrap\.ArrayConversion: unknown array library "
        r"'bogus': expected one of \[.*'torch'",
    ):
        anywrap.ArrayConversion(gym.make("CartPole-v1"), to="bogus")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match=r"anywrap\.ToTorch: device 'cuda:0': .* 0 CUDA GPU"):
            anywrap.ToTorch(gym.make("CartPole-v1"), device="cuda:0")
    env = anywrap.ToTorch(gym.make("Pendulum-v1"))
    env.reset(seed=0)
    with pytest.raises(
        TypeError,
        match=r"anywrap\.ToTorch: expected arrays of numpy or torch "
        r".*got jax",
    ):
        env.step(jnp.zeros(1))
    env.step(torch.zeros(1))  # and the wrapper goes on


@pytest.mark.parametrize("gamma", [np.float32(0.99), np.array(0.99), "torch", "jax"])
def test_hyperparameters_accept_any_real_scalar(gamma):
    if gamma == "torch":
        gamma = pytest.importorskip("torch").tensor(0.99)
    elif gamma == "jax":
        gamma = pytest.importorskip("jax.numpy").asarray(0.99)
    env = anywrap.NormalizeReward(gym.make("CartPole-v1"), gamma=gamma)
    assert isinstance(env.gamma, float) and abs(env.gamma - 0.99) < 1e-6


def test_a_string_hyperparameter_says_the_type_is_wrong():
    with pytest.raises(
        TypeError,
        match=r"anywrap\.NormalizeReward: expected `gamma` to be a "
        r"real number .* got str '0.99'",
    ):
        anywrap.NormalizeReward(gym.make("CartPole-v1"), gamma="0.99")


def test_vector_transform_observation_warns_when_its_spaces_disagree():
    """In Gymnasium's words, so that a filter written for Gymnasium's warning catches it."""
    space = gym.spaces.Box(-2.0, 2.0, (N, 3), np.float32)
    words = r"the observation space and the batched single observation space don't match"
    with pytest.warns(UserWarning, match=r"TransformObservation: for .*" + words):
        anywrap.vector.TransformObservation(ScriptedVectorEnv(BOX), lambda o: o, space)
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        gym.wrappers.vector.TransformObservation(ScriptedVectorEnv(BOX), lambda o: o, space)
    assert any(re.search(words, str(w.message)) for w in theirs)


def test_vector_transform_observation_maps_discrete_final_observations():
    envs = gym.make_vec(
        "FrozenLake-v1",
        num_envs=3,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
    )
    bare = gym.make_vec(
        "FrozenLake-v1",
        num_envs=3,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
    )
    env = anywrap.vector.TransformObservation(envs, lambda o: np.asarray(o) + 100)
    env.reset(seed=5)
    bare.reset(seed=5)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(200):
        actions = rng.integers(0, 4, 3)
        obs, *_, info = env.step(actions)
        ref, *_, ref_info = bare.step(actions)
        np.testing.assert_array_equal(obs, ref + 100)
        if "final_obs" in ref_info:
            for got, want, m in zip(
                info["final_obs"], ref_info["final_obs"], ref_info["_final_obs"]
            ):
                if m:
                    ended += 1
                    assert got == want + 100
    assert ended > 5


# --- The second look (issue 26's probe): paths that take data from an env, a user or a
# file, each a case that failed with a raw error, or silently, before.


@pytest.mark.parametrize(
    "reward", [None, "1.0", [1.0], 1 + 2j, np.array([1 + 2j]), np.array(["1.0"])]
)
def test_a_single_reward_that_is_no_real_number_is_refused(reward):
    """(A complex reward lost its imaginary part in the statistics before.)"""
    env = ScriptedEnv()
    stack = started(single_stack(env), env)
    env.next = {"reward": reward}
    got = r"numpy\.ndarray" if isinstance(reward, np.ndarray) else re.escape(repr(reward))
    refused(
        stack,
        lambda: stack.step(np.zeros(1, np.float32)),
        TypeError,
        r"anywrap\.RecordEpisodeStatistics: expected reward to hold real numbers, got " + got,
    )


def test_save_state_onto_a_folder_says_so_and_writes_nothing(tmp_path):
    env = ScriptedEnv()
    stack = started(single_stack(env), env)
    with pytest.raises(IsADirectoryError, match=r"anywrap\.save_state: expected a file path"):
        anywrap.save_state(stack, tmp_path)
    assert list(tmp_path.iterdir()) == []  # no temporary file left


def test_record_html_into_a_file_is_refused_at_construction(tmp_path):
    pytest.importorskip("PIL")
    path = tmp_path / "not-a-folder"
    path.write_text("x")
    with pytest.raises(NotADirectoryError, match=r"anywrap\.RecordHTML: expected a folder"):
        anywrap.RecordHTML(ScriptedEnv(), path, frames=False)


@pytest.mark.parametrize("vector", [False, True])
def test_flatten_names_the_missing_dict_key(vector):
    space = gym.spaces.Dict({"pos": BOX, "vel": gym.spaces.Box(-1.0, 1.0, (2,), np.float32)})
    if vector:
        env = ScriptedVectorEnv(space)
        stack = anywrap.vector.FlattenObservation(env)
        stack.reset(seed=0)
        env.next = {"obs": {"pos": np.zeros((N, 3), np.float32)}}

        def call():
            return stack.step(np.zeros((N, 1), np.float32))
    else:
        env = ScriptedEnv()
        env.observation_space = space
        stack = anywrap.FlattenObservation(env)

        def call():
            return stack.observation({"pos": np.zeros(3, np.float32)})

    with pytest.raises(
        ValueError,
        match=r"FlattenObservation: expected the observation to have "
        r"the keys \['pos', 'vel'\], got \['pos'\] \(missing \['vel'\]",
    ):
        call()


@pytest.mark.parametrize("to", ["torch", "jax"])
def test_a_big_endian_array_converts_to_its_values(to):
    lib = pytest.importorskip(to)
    big = np.arange(6, dtype=">f4").reshape(2, 3) * 1.5  # as read from a FITS or HDF5 file
    out = anywrap.convert.convert(big, to)
    assert np.array_equal(np.asarray(out.tolist()), big.astype("<f4"))
    assert str(out.dtype).endswith("float32"), (lib.__name__, out.dtype)


@pytest.mark.parametrize(
    ("array", "kind"),
    [
        (np.array(["a", "b"]), "strings"),
        (np.array([b"a"]), "bytes"),
        (np.array(["2026-01-01"], dtype="datetime64[D]"), "datetimes"),
    ],
)
def test_arrays_no_other_library_holds_are_refused_with_a_reason(array, kind):
    pytest.importorskip("torch")
    with pytest.raises(TypeError, match=rf"convert: cannot convert .* to torch: NumPy {kind}"):
        anywrap.convert.convert(array, "torch")
    env = ScriptedEnv()
    stack = anywrap.ToTorch(env)
    stack.reset(seed=0)
    env.next = {"obs": array}
    with pytest.raises(TypeError, match=rf"anywrap\.ToTorch: cannot convert .* NumPy {kind}"):
        stack.step(np.zeros(1, np.float32))


@pytest.mark.parametrize("vector", [False, True])
def test_sticky_action_refused_by_the_env_is_not_kept(vector):
    """The env refuses an action (CartPole asserts it is in Discrete(2)): the wrapper's
    state is as before (it kept the bad one as its last action, and with a repeat
    probability above 0 sent it again and again). ``p = 0`` sends the bad one."""
    if vector:
        env = anywrap.vector.StickyAction(
            gym.make_vec("CartPole-v1", 2, vectorization_mode="sync"), 0.0
        )
        good, bad = np.array([0, 1]), np.array([0, 7])
    else:
        env = anywrap.StickyAction(gym.make("CartPole-v1"), 0.0)
        good, bad = 0, 5
    env.reset(seed=0)
    env.step(good)

    def machine():  # the random stream has moved on by the one draw made
        return {k: v for k, v in flat_state(env).items() if not k.endswith(".key")}

    before = machine()
    with pytest.raises(AssertionError):
        env.step(bad)
    assert_same_state(machine(), before)
    for _ in range(10):
        env.step(good)


def test_vector_sticky_action_takes_seeds_with_none():
    """Gymnasium's vector reset takes ``seed=[1, None]``; the sticky stream is seeded
    from the seeds given, so two such resets draw the same choices."""
    runs = []
    for _ in range(2):
        env = anywrap.vector.StickyAction(
            gym.make_vec("CartPole-v1", 2, vectorization_mode="sync"), 0.5
        )
        env.reset(seed=[1, None])
        runs.append([env.actions(np.array([i % 2, 1 - i % 2])).tolist() for i in range(20)])
    assert runs[0] == runs[1]
    asked = [[i % 2, 1 - i % 2] for i in range(20)]
    assert runs[0] != asked  # some actions were repeated: the stream was drawn from


def _pendulum(vector: bool) -> Any:
    return (
        gym.make_vec("Pendulum-v1", 2, vectorization_mode="sync")
        if vector
        else gym.make("Pendulum-v1")
    )


def _shell(vector: bool, name: str) -> Any:
    return getattr(anywrap.vector if vector else anywrap, name)


@pytest.mark.parametrize("vector", [False, True])
@pytest.mark.parametrize("name", ["NormalizeObservation", "NormalizeReward"])
@pytest.mark.parametrize("bad", ["int32", np.int64, "bool", "foo", np.uint8])
def test_a_stats_dtype_that_is_no_float_is_refused(vector, name, bad):
    """An integer dtype held the statistics truncated (a reward of -8560 for -1.3)."""
    prefix = "anywrap.vector." if vector else "anywrap."
    with pytest.raises(ValueError, match=re.escape(f"{prefix}{name}: expected `stats_dtype`")):
        _shell(vector, name)(_pendulum(vector), stats_dtype=bad)


@pytest.mark.parametrize("vector", [False, True])
@pytest.mark.parametrize(
    ("value", "error"),
    [("5", TypeError), (2.5, TypeError), (True, TypeError), (-1, ValueError)],
)
def test_buffer_length_is_checked(vector, value, error):
    prefix = "anywrap.vector." if vector else "anywrap."
    with pytest.raises(
        error, match=re.escape(f"{prefix}RecordEpisodeStatistics: expected `buffer_length`")
    ):
        _shell(vector, "RecordEpisodeStatistics")(_pendulum(vector), buffer_length=value)
    with pytest.raises(TypeError, match="expected `stats_key` to be a non-empty str"):
        _shell(vector, "RecordEpisodeStatistics")(_pendulum(vector), stats_key=5)
    env = _shell(vector, "RecordEpisodeStatistics")(_pendulum(vector), buffer_length=np.int64(3))
    assert env.buffer_length == 3


@pytest.mark.parametrize("vector", [False, True])
@pytest.mark.parametrize(
    ("value", "error"),
    [
        (0, ValueError),
        (-1, ValueError),
        ("5", TypeError),
        (2.5, TypeError),
        (float("nan"), TypeError),
    ],
)
def test_max_timesteps_is_checked(vector, value, error):
    """``max_timesteps=0`` gave NaN and inf observations; "5" and 2.5 were taken."""
    prefix = "anywrap.vector." if vector else "anywrap."
    with pytest.raises(
        error, match=re.escape(f"{prefix}TimeAwareObservation: expected `max_timesteps`")
    ):
        _shell(vector, "TimeAwareObservation")(
            _pendulum(vector), normalize_time=True, max_timesteps=value
        )


@pytest.mark.parametrize(
    "name",
    ["ClipAction", "NormalizeObservation", "RecordEpisodeStatistics", "TimeLimit", "ToTorch"],
)
def test_one_env_into_a_vector_wrapper_and_the_reverse_name_the_other_family(name):
    """A vector wrapper read ``single_action_space`` off one env (an AttributeError from
    inside); the single one gave Gymnasium's message, which names neither wrapper."""
    if name == "ToTorch":
        pytest.importorskip("torch")
    args = {"TimeLimit": (5,)}.get(name, ())
    with pytest.raises(
        TypeError,
        match=rf"anywrap\.vector\.{name}: expected a vector env .* "
        rf"got TimeLimit; for one env use anywrap\.{name}$",
    ):
        getattr(anywrap.vector, name)(gym.make("Pendulum-v1"), *args)
    with pytest.raises(
        TypeError,
        match=rf"anywrap\.{name}: expected one env .* got the vector "
        rf"env SyncVectorEnv; for a vector env use anywrap\.vector\.{name}$",
    ):
        getattr(anywrap, name)(gym.make_vec("Pendulum-v1", 2, vectorization_mode="sync"), *args)


@pytest.mark.parametrize("family", ["single", "vector", "functional"])
@pytest.mark.parametrize(
    ("bound", "error"),
    [(float("nan"), gym.error.InvalidBound), (1j, TypeError), ("0", TypeError)],
)
def test_clip_reward_refuses_a_bound_that_is_no_real_number(family, bound, error):
    """A NaN bound made every reward NaN, a complex one complex rewards, a string
    failed at the first step inside NumPy."""
    if family == "functional":
        F = pytest.importorskip("anywrap.functional")
        gymnax = pytest.importorskip("gymnax")
        env, wrap = F.from_gymnax(gymnax.make("Pendulum-v1")[0]), F.ClipReward
    else:
        env, wrap = _pendulum(family == "vector"), _shell(family == "vector", "ClipReward")
    with pytest.raises(error, match=r"anywrap\.(vector\.|functional\.)?ClipReward: .*min_reward"):
        wrap(env, bound, 2.0)


@pytest.mark.parametrize("vector", [False, True])
@pytest.mark.parametrize("name", ["ClipAction", "RescaleAction"])
@pytest.mark.parametrize("dtype", [np.complex128, object])
def test_an_action_of_no_real_dtype_is_refused(vector, name, dtype):
    """A complex action went into the env (a complex reward), an object one failed
    inside NumPy's comparisons."""
    args = (-1.0, 1.0) if name == "RescaleAction" else ()
    env = _shell(vector, name)(_pendulum(vector), *args)
    env.reset(seed=0)
    before = flat_state(env)
    action = np.zeros(env.action_space.shape, dtype=dtype)
    with pytest.raises(TypeError, match=rf"{name}: expected an action of a real dtype .* got "):
        env.step(action)
    assert_same_state(flat_state(env), before)
    env.step(np.zeros(env.action_space.shape, dtype=np.float32))


def test_a_complex_tensor_action_is_refused():
    torch = pytest.importorskip("torch")
    env = anywrap.vector.ClipAction(anywrap.vector.ToTorch(_pendulum(True)))
    env.reset(seed=0)
    with pytest.raises(TypeError, match=r"a real dtype .* dtype=complex64"):
        env.step(torch.zeros((2, 1), dtype=torch.complex64))


@pytest.mark.parametrize("vector", [False, True])
def test_sticky_action_takes_numpy_numbers_as_gymnasium_does(vector):
    """Gymnasium compares the probability, so a NumPy scalar or a 0-d array passes;
    anywrap refused them with 'should be in [0, 1), got np.float32(0.25)'."""
    cls = _shell(vector, "StickyAction")
    env = (
        gym.make_vec("CartPole-v1", 2, vectorization_mode="sync")
        if vector
        else gym.make("CartPole-v1")
    )
    for p in (np.float32(0.25), np.array(0.25), 0.25):
        assert cls(env, p, np.int64(2)).repeat_action_probability == p
    for bad in (np.float32(1.0), "0.25", np.array([0.25])):
        with pytest.raises(gym.error.InvalidProbability, match="StickyAction: "):
            cls(env, bad)
    for bad in ((1, "3"), (1, float("inf")), (1.5, 2.7), True):
        with pytest.raises(ValueError, match="StickyAction: `repeat_action_duration` should be"):
            cls(env, 0.25, bad)


@pytest.mark.parametrize("vector", [False, True])
@pytest.mark.parametrize("name", ["TransformObservation", "TransformReward"])
def test_a_func_that_cannot_be_called_is_refused_at_construction(vector, name):
    """It was taken, and the first reset or step failed with 'NoneType' object is not
    callable."""
    args = (None,) if name == "TransformReward" or vector else (None, None)
    with pytest.raises(TypeError, match=rf"{name}: expected `func` to be callable, got None"):
        _shell(vector, name)(_pendulum(vector), *args)


# --- The third look (the lean-core issue's probe): a step's flags and reward of the wrong
# kind, taken in silence before ("False" ended an episode, 0.5 counted as True, a complex
# reward lost its imaginary part, a flag array of two turned one env's statistics into two).

SINGLE_FLAG_READERS = {
    "NormalizeReward": anywrap.NormalizeReward,
    "RecordEpisodeStatistics": anywrap.RecordEpisodeStatistics,
    "TimeLimit": lambda env: anywrap.TimeLimit(env, 50),
    "MaxAndSkipObservation": lambda env: anywrap.MaxAndSkipObservation(env, 2),
    "RepeatAction": lambda env: anywrap.RepeatAction(env, 2),
}


@pytest.mark.parametrize("name", sorted(SINGLE_FLAG_READERS))
@pytest.mark.parametrize(
    ("flag", "exc"),
    [
        ("False", TypeError),
        (None, TypeError),
        (0.5, TypeError),
        (1, TypeError),
        (np.array([True, False]), ValueError),
        (np.array([True]), ValueError),
    ],
    ids=["str", "None", "float", "int", "two", "one"],
)
@pytest.mark.parametrize("key", ["terminated", "truncated"])
def test_a_single_env_flag_that_is_no_bool_is_refused(name, flag, exc, key):
    env = ScriptedEnv()
    stack = started(SINGLE_FLAG_READERS[name](env), env)
    env.next = {key: flag}
    refused(
        stack,
        lambda: stack.step(np.zeros(1, np.float32)),
        exc,
        rf"anywrap\.{name}: expected (a scalar )?{key}",
        r"got "
        + re.escape(repr(flag) if np.ndim(flag) == 0 else f"numpy.ndarray(shape={flag.shape}"),
    )


def _time_aware(env):
    env.spec = gym.envs.registration.EnvSpec("anywrap-test/Scripted-v0", max_episode_steps=50)
    return anywrap.vector.TimeAwareObservation(env)


VECTOR_FLAG_READERS = {
    "NormalizeReward": anywrap.vector.NormalizeReward,
    "RecordEpisodeStatistics": anywrap.vector.RecordEpisodeStatistics,
    "TimeLimit": lambda env: anywrap.vector.TimeLimit(env, 50),
    "FrameStackObservation": lambda env: anywrap.vector.FrameStackObservation(env, 2),
    "DelayObservation": lambda env: anywrap.vector.DelayObservation(env, 1),
    "TimeAwareObservation": _time_aware,
    "MaxAndSkipObservation": lambda env: anywrap.vector.MaxAndSkipObservation(env, 2),
    "StickyAction": lambda env: anywrap.vector.StickyAction(env, 0.5),
}


@pytest.mark.parametrize("name", sorted(VECTOR_FLAG_READERS))
@pytest.mark.parametrize(
    "flags",
    [np.array(["False"] * N), np.full(N, 0.5), np.zeros(N, np.int64)],
    ids=["str", "float", "int"],
)
@pytest.mark.parametrize("key", ["terminated", "truncated"])
def test_vector_flags_that_are_no_bools_are_refused(name, flags, key):
    env = ScriptedVectorEnv(BOX)
    stack = started(VECTOR_FLAG_READERS[name](env), env)
    env.next = {key: flags}
    refused(
        stack,
        lambda: stack.step(np.zeros((N, 1), np.float32)),
        TypeError,
        rf"anywrap\.vector\.{name}: expected {key} to hold bools, got numpy\.ndarray\(shape="
        rf"\(4,\), dtype={flags.dtype.name}",
    )


@pytest.mark.parametrize(
    "name", ["NormalizeReward", "RecordEpisodeStatistics", "MaxAndSkipObservation"]
)
@pytest.mark.parametrize(
    "reward", [np.full(N, 1 + 5j), np.array(["7"] * N)], ids=["complex", "str"]
)
def test_vector_rewards_that_are_not_real_are_refused(name, reward):
    env = ScriptedVectorEnv(BOX)
    stack = started(VECTOR_FLAG_READERS[name](env), env)
    env.next = {"reward": reward}
    refused(
        stack,
        lambda: stack.step(np.zeros((N, 1), np.float32)),
        TypeError,
        rf"anywrap\.vector\.{name}: expected reward to hold real numbers, got numpy\.ndarray",
    )


@pytest.mark.parametrize("vector", [False, True], ids=["single", "vector"])
def test_a_step_the_env_refuses_leaves_sticky_actions_random_stream_as_it_was(vector):
    """The draw made before the env's step is taken back with the state (the live
    generator had moved on, and so had the saved key)."""

    def refuse(*_):
        raise RuntimeError("the env refuses this step")

    env = ScriptedVectorEnv(BOX) if vector else ScriptedEnv()
    wrapper = anywrap.vector.StickyAction if vector else anywrap.StickyAction
    stack = started(wrapper(env, 0.5), env)
    env.step = refuse
    refused(stack, lambda: stack.step(stack.action_space.sample()), RuntimeError, "refuses")


OBSERVATION_READERS = {
    "NormalizeObservation": lambda m, env: m.NormalizeObservation(env),
    "FrameStackObservation": lambda m, env: m.FrameStackObservation(env, 2),
    "DelayObservation": lambda m, env: m.DelayObservation(env, 1),
}


@pytest.mark.parametrize("name", sorted(OBSERVATION_READERS))
@pytest.mark.parametrize("vector", [False, True], ids=["single", "vector"])
@pytest.mark.parametrize("dtype", [np.complex64, object, np.str_])
def test_observations_that_are_not_real_are_refused(name, vector, dtype):
    """Of the right shape, but complex (its imaginary part was dropped in silence), objects
    or strings: refused by name before the statistics, frames or queue take them."""
    env = ScriptedVectorEnv(BOX) if vector else ScriptedEnv()
    stack = started(OBSERVATION_READERS[name](anywrap.vector if vector else anywrap, env), env)
    env.next = {"obs": np.full((N, 3) if vector else (3,), 1, dtype)}
    refused(
        stack,
        lambda: stack.step(stack.action_space.sample()),
        TypeError,
        rf"anywrap\.{'vector.' if vector else ''}{name}: expected (an )?observations? .*real "
        r"numbers or bools.*, got numpy\.ndarray\(shape=" + (r"\(4, 3\)" if vector else r"\(3,\)"),
        rf"dtype={np.dtype(dtype).name.rstrip('0')}",
    )


class ScriptedFrames(ScriptedEnv):
    """:class:`ScriptedEnv` with uint8 frames."""

    observation_space = gym.spaces.Box(0, 255, (3,), np.uint8)

    def reset(self, *, seed=None, options=None):
        self.next = {"obs": np.ones(3, np.uint8)}
        return np.zeros(3, np.uint8), {}


@pytest.mark.parametrize("vector", [False, True], ids=["single", "vector"])
def test_frames_that_do_not_cast_to_the_spaces_dtype_by_kind_are_refused(vector):
    """Float frames into a uint8 stack were wrapped (300.7 became 44) where Gymnasium's
    stacking refuses them by NumPy's ``same_kind`` rule."""
    frames = np.full((N, 3) if vector else (3,), 300.7)
    if not vector:  # Gymnasium's wrapper refuses the same frames
        reference = gym.wrappers.FrameStackObservation(ScriptedFrames(), 2)
        reference.reset(seed=0)
        reference.env.unwrapped.next = {"obs": frames}
        with pytest.raises(TypeError, match="same_kind"):
            reference.step(np.zeros(1, np.float32))
    space = gym.spaces.Box(0, 255, (3,), np.uint8)
    env = ScriptedVectorEnv(space) if vector else ScriptedFrames()
    stack = started((anywrap.vector if vector else anywrap).FrameStackObservation(env, 2), env)
    env.next = {"obs": frames}
    refused(
        stack,
        lambda: stack.step(stack.action_space.sample()),
        TypeError,
        rf"anywrap\.{'vector.' if vector else ''}FrameStackObservation: expected an observation "
        r"of shape .*that cast to uint8 by kind\), got numpy\.ndarray\(.*dtype=float64",
    )


@pytest.mark.parametrize(("dtype", "got"), [(np.float64, np.float32), (np.int16, np.uint8)])
def test_frames_that_cast_to_the_spaces_dtype_by_kind_are_stacked_as_gymnasium_does(dtype, got):
    space = gym.spaces.Box(0, 1, (3,), dtype)

    class Env(ScriptedFrames):
        observation_space = space

        def reset(self, *, seed=None, options=None):
            self.next = {"obs": np.ones(3, got)}
            return np.zeros(3, got), {}

    ours, theirs = (
        wrapper(Env(), 2)
        for wrapper in (anywrap.FrameStackObservation, gym.wrappers.FrameStackObservation)
    )
    for stack in (ours, theirs):
        stack.reset(seed=0)
    want, stacked = (stack.step(np.zeros(1, np.float32))[0] for stack in (theirs, ours))
    assert stacked.dtype == want.dtype == dtype
    np.testing.assert_array_equal(stacked, want)
    vector = anywrap.vector.FrameStackObservation(ScriptedVectorEnv(space), 2)
    vector.env.next = {"obs": np.ones((N, 3), got)}
    vector.reset(seed=0)
    assert vector.step(vector.action_space.sample())[0].dtype == dtype


@pytest.mark.parametrize("vector", [False, True], ids=["single", "vector"])
def test_gymnasiums_statistics_of_another_shape_are_refused_by_name(vector):
    """``obs_rms`` and ``return_rms`` set to Gymnasium's ``RunningMeanStd`` of another shape:
    NumPy's broadcast error named no wrapper."""
    from gymnasium.wrappers.utils import RunningMeanStd

    env = ScriptedVectorEnv(BOX) if vector else ScriptedEnv()
    stack = started(vector_stack(env) if vector else single_stack(env), env)
    prefix = r"anywrap\." + ("vector\\." if vector else "")
    for layer, name, shape in ((stack.env, "obs_rms", (4,)), (stack, "return_rms", (3,))):
        refused(
            stack,
            lambda layer=layer, name=name, shape=shape: setattr(
                layer, name, RunningMeanStd(shape=shape)
            ),
            ValueError,
            prefix + rf"Normalize\w+: expected `{name}` with a mean and a var of shape ",
        )


@pytest.mark.parametrize("vector", [False, True], ids=["single", "vector"])
@pytest.mark.parametrize("dtype", [np.complex128, object])
def test_sticky_actions_that_are_not_real_are_refused(vector, dtype):
    """Complex or object actions were kept as the sticky action (its dtype changed, and a
    checkpoint then failed on it), where ClipAction and RescaleAction refuse them."""
    env = ScriptedVectorEnv(BOX) if vector else ScriptedEnv()
    wrapper = anywrap.vector.StickyAction if vector else anywrap.StickyAction
    stack = started(wrapper(env, 0.5), env)
    action = np.full(stack.action_space.shape, 0.5, dtype)
    refused(
        stack,
        lambda: stack.step(action),
        TypeError,
        r"anywrap\." + ("vector\\." if vector else "") + "StickyAction: expected an action of "
        rf"real numbers or bools .*dtype={np.dtype(dtype).name}",
    )


@pytest.mark.parametrize(("word", "value"), [(4, 2), (4, 2**32), (5, 2**40)])
def test_a_sticky_key_no_generator_can_take_is_refused_on_load(word, value):
    """PCG64's has_uint32 and uinteger words out of range loaded, and every later step
    failed with NumPy's OverflowError."""
    env = ScriptedEnv()
    stack = started(anywrap.StickyAction(env, 0.5), env)
    state = {k: np.array(v) for k, v in stack.state_dict().items()}
    state["key"][word] = value
    refused(
        stack,
        lambda: stack.load_state_dict(state),
        ValueError,
        r"anywrap\.StickyAction\.load_state_dict: 'key' holds no generator's state",
    )


@pytest.mark.parametrize("vector", [False, True], ids=["single", "vector"])
@pytest.mark.parametrize("reward", ["x", 1 + 1j], ids=["str", "complex"])
def test_clip_reward_refuses_a_reward_that_is_not_real_by_name(vector, reward):
    env = ScriptedVectorEnv(BOX) if vector else ScriptedEnv()
    wrapper = anywrap.vector.ClipReward if vector else anywrap.ClipReward
    stack = started(wrapper(env, -0.5, 0.5), env)
    env.next = {"reward": np.full(N, reward) if vector else reward}
    refused(
        stack,
        lambda: stack.step(stack.action_space.sample()),
        TypeError,
        r"anywrap\." + ("vector\\." if vector else "") + "ClipReward: expected reward to hold real",
    )


def test_observations_of_no_array_or_another_shape_are_refused_by_name():
    """``None`` into DelayObservation, a short observation into FlattenObservation: the
    errors came from the library (no attribute 'device', cannot reshape)."""
    for wrapper, obs in (
        (lambda e: anywrap.DelayObservation(e, 1), None),
        (anywrap.FlattenObservation, np.zeros(2, np.float32)),
    ):
        env = ScriptedEnv()
        stack = started(wrapper(env), env)
        env.next = {"obs": obs}
        refused(
            stack,
            lambda stack=stack: stack.step(np.zeros(1, np.float32)),
            ValueError,
            r"anywrap\.\w+Observation: expected observations of shape \(3,\)",
        )


@pytest.mark.parametrize(
    "bad", ["list", "None entry"], ids=["a list of pairs", "an entry that is None"]
)
def test_a_state_dict_of_the_wrong_form_is_refused_by_name(bad):
    env = ScriptedEnv()
    stack = started(anywrap.StickyAction(env, 0.5, (1, 3)), env)
    state = {k: np.array(v) for k, v in stack.state_dict().items()}
    if bad == "list":
        given: Any = list(state.items())
        exc, pattern = TypeError, "expected a dict of arrays, got list"
    else:
        given = {**state, "machine.length": None}
        exc, pattern = ValueError, "'machine.length' holds object values"
    refused(
        stack,
        lambda: stack.load_state_dict(given),
        exc,
        r"anywrap\.StickyAction\.load_state_dict: " + re.escape(pattern),
    )


@pytest.mark.parametrize(
    ("mask", "exc"),
    [(np.zeros(N + 1, bool), ValueError), (np.zeros(N, np.int64), TypeError)],
    ids=["another shape", "ints"],
)
def test_a_final_obs_mask_that_is_no_bool_per_sub_env_is_refused(mask, exc):
    """NormalizeObservation learns from the final observations the mask selects: a mask of
    another shape failed in NumPy's broadcasting, an int mask was taken."""
    env = ScriptedVectorEnv(BOX, mode=AutoresetMode.SAME_STEP)
    stack = started(anywrap.vector.NormalizeObservation(env, learn_final_obs=True), env)
    env.next = {"info": {"final_obs": np.zeros((N, 3), np.float32), "_final_obs": mask}}
    refused(
        stack,
        lambda: stack.step(np.zeros((N, 1), np.float32)),
        exc,
        r"anywrap\.vector\.NormalizeObservation: expected info\['_final_obs'\] ",
    )


def _images(vector=False):
    import render_envs

    return gym.vector.SyncVectorEnv([render_envs.make] * 2) if vector else render_envs.make()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: anywrap.GrayscaleObservation(_images(), keep_dim="no"), "GrayscaleObservation"),
        (
            lambda: anywrap.vector.GrayscaleObservation(_images(True), keep_dim="no"),
            "vector.GrayscaleObservation",
        ),
        (lambda: anywrap.AddRenderObservation(_images(), render_only="no"), "AddRenderObservation"),
        (lambda: anywrap.ToTorch(gym.make("CartPole-v1"), scalars=0), "ToTorch"),
        (lambda: anywrap.ToTorch(gym.make("CartPole-v1"), writable="yes"), "ToTorch"),
    ],
)
def test_bool_arguments_of_another_type_are_refused_by_name(make, message):
    """ "no" counted as True (a channel axis kept, the frame alone), 0 as scalars=True."""
    if "ToTorch" in message:
        pytest.importorskip("torch")
    with pytest.raises(TypeError, match=rf"anywrap\.{message}: expected `\w+` to be a bool, got"):
        make()


@pytest.mark.parametrize("wrapper", ["TransformAction", "TransformReward"])
def test_vectorize_refuses_a_func_that_is_not_callable_before_the_env_steps(wrapper):
    """func=3 was taken, then the step failed in Python after the sub-envs had stepped."""
    extra = {"action_space": None} if wrapper == "TransformAction" else {}
    with pytest.raises(TypeError, match=rf"vector\.Vectorize{wrapper}: expected `func` to be"):
        getattr(anywrap.vector, f"Vectorize{wrapper}")(
            gym.make_vec("Pendulum-v1", 2), getattr(gym.wrappers, wrapper), func=3, **extra
        )


@pytest.mark.parametrize("vector", [False, True])
@pytest.mark.parametrize("shape", [(3, -1), (-1, -1)])
def test_a_reshape_no_observation_fits_is_refused_by_name(vector, shape):
    """(3, -1) of 4 values and two -1 passed the check and failed in NumPy's reshape."""
    env = gym.make_vec("CartPole-v1", 2) if vector else gym.make("CartPole-v1")
    make = (anywrap.vector if vector else anywrap).ReshapeObservation
    with pytest.raises(ValueError, match=r"ReshapeObservation: `shape` .* holds no whole number"):
        make(env, shape)
