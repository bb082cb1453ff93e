"""Tests of anywrap.convert and anywrap.vector.convert (zero-copy conversion wrappers)."""

from __future__ import annotations

import collections
import contextlib
import inspect

import gymnasium as gym
import numpy as np
import pytest

from anywrap import convert as C
from anywrap import xp as axp
from anywrap.vector import convert as VC

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
torch = pytest.importorskip("torch")

Point = collections.namedtuple("Point", "x y")


def aligned(shape: tuple[int, ...], dtype: object = np.float32) -> np.ndarray:
    """A NumPy array on a 64-byte boundary (JAX shares only such buffers)."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape)) * dt.itemsize
    raw = np.empty(n + 64, dtype=np.uint8)
    off = -raw.ctypes.data % 64
    a = raw[off : off + n].view(dt).reshape(shape)
    a[...] = np.arange(a.size).reshape(shape) % 7
    return a


def pointer(x: object) -> int:
    if isinstance(x, np.ndarray):
        return int(x.ctypes.data)
    if isinstance(x, torch.Tensor):
        return int(x.data_ptr())
    return int(x.unsafe_buffer_pointer())  # type: ignore[attr-defined]


def make(lib: str, dtype: object = np.float32, shape: tuple[int, ...] = (256, 128)) -> object:
    a = aligned(shape, dtype)
    if lib == "numpy":
        return a
    if lib == "torch":
        return torch.from_numpy(aligned(shape, dtype))
    return jnp.asarray(a)


LIBS = ["numpy", "jax", "torch"]
PAIRS = [(a, b) for a in LIBS for b in LIBS if a != b]


@pytest.mark.parametrize(("src", "dst"), PAIRS)
def test_zero_copy_between_every_pair(src: str, dst: str) -> None:
    x = make(src)
    y = C.to_library(x, dst)
    assert C.library_of(y) == dst
    assert pointer(y) == pointer(x), f"{src} -> {dst} copied"
    np.testing.assert_array_equal(np.asarray(C.to_library(y, "numpy")), np.asarray(make("numpy")))


@pytest.mark.parametrize(("src", "dst"), PAIRS)
@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int32, np.float32])
def test_dtype_preserved(src: str, dst: str, dtype: object) -> None:
    y = C.to_library(make(src, dtype, (5,)), dst)
    assert np.dtype(str(y.dtype).replace("torch.", "")) == np.dtype(dtype)


@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_wide_dtypes_preserved_between_numpy_and_torch(dtype: object) -> None:
    a = aligned((4,), dtype)
    t = C.to_library(a, torch)
    assert t.dtype == getattr(torch, np.dtype(dtype).name)
    assert C.to_library(t, np).dtype == np.dtype(dtype)


def test_same_library_is_identity_and_device_moves_once() -> None:
    t = torch.zeros(3)
    assert C.to_library(t, "torch") is t
    assert C.to_library(t, "torch", device="cpu") is t
    j = C.to_library(t, "jax", device="cpu")
    assert str(axp.device(j)) == str(jax.devices("cpu")[0])
    with pytest.raises(ValueError, match="host"):
        C.to_library(t, "numpy", device="cuda:0")


def test_tensor_requiring_grad_is_shared_detached() -> None:
    t = torch.ones(4, requires_grad=True)
    a = C.to_library(t, "numpy")
    assert pointer(a) == t.data_ptr()


def test_convert_keeps_structure() -> None:
    final_obs = np.empty(2, dtype=object)
    final_obs[0], final_obs[1] = jnp.ones(3), None
    tree = {
        "a": jnp.zeros(2),
        "t": (jnp.ones(1, dtype=bool), [jnp.int32(3)]),
        "p": Point(jnp.zeros(1), 1.5),
        "s": "text",
        "n": None,
        "final_obs": final_obs,
    }
    out = C.convert(tree, "torch")
    assert isinstance(out["a"], torch.Tensor)
    assert out["t"][0].dtype == torch.bool and isinstance(out["t"][1], list)
    assert out["t"][1][0].dtype == torch.int32
    assert type(out["p"]) is Point and out["p"].y.dtype == torch.float64
    assert out["s"] == "text" and out["n"] is None
    assert out["final_obs"].dtype == object and isinstance(out["final_obs"][0], torch.Tensor)
    assert out["final_obs"][1] is None


@pytest.mark.parametrize(("to", "error"), [("bogus", ValueError), (5, TypeError)])
def test_a_target_that_is_no_library_is_refused_with_the_callers_name(to, error) -> None:
    """convert(..., who=...) and converter(...) dropped the caller's name for a bad `to`."""
    with pytest.raises(error, match=r"^MyLib: (unknown array library|expected a library)"):
        C.convert(np.zeros(2), to, who="MyLib")
    with pytest.raises(error, match=r"^MyLib: "):
        C.converter(to, who="MyLib")
    with pytest.raises(error, match=r"^convert: "):  # the default name
        C.convert(np.zeros(2), to)


def test_unknown_array_type_error_names_type_and_registration() -> None:
    class Strange:
        shape = (2,)
        dtype = "float32"

    env = TinyJaxEnv()
    env.info_extra = Strange()
    w = C.ToTorch(env)
    with pytest.raises(axp.UnknownArrayTypeError) as err:
        w.reset(seed=0)
    msg = str(err.value)
    assert "Strange" in msg and "ToTorch" in msg
    assert "anywrap.xp.register_namespace(" in msg


def test_resolve_library_accepts_names_and_modules() -> None:
    assert C.resolve_library(jnp) == "jax"
    assert C.resolve_library(torch) == "torch"
    assert C.resolve_library("tf") == "tensorflow"
    assert C.resolve_library(np) == "numpy"


# --------------------------------------------------------------- single env
class TinyJaxEnv(gym.Env):  # type: ignore[type-arg]
    """A hand-made JAX environment that remembers what it returned and received."""

    observation_space = gym.spaces.Box(-np.inf, np.inf, (4,), np.float32)
    action_space = gym.spaces.Discrete(2)
    metadata = {"render_modes": ["rgb_array"]}
    render_mode = "rgb_array"

    def __init__(self) -> None:
        self.info_extra: object = None
        self.t = 0

    def reset(self, *, seed: int | None = None, options: dict | None = None):  # type: ignore[no-untyped-def]
        super().reset(seed=seed)
        self.options = options
        self.t = 0
        self.obs = jnp.asarray(aligned((4,)))
        info = {"mask": jnp.array([True, False]), "p": Point(jnp.int32(1), 2.0)}
        if self.info_extra is not None:
            info["extra"] = self.info_extra
        return self.obs, info

    def step(self, action):  # type: ignore[no-untyped-def]
        self.action = action
        self.t += 1
        self.obs = self.obs + 1.0
        info = {"final": {"nested": (jnp.ones(2, dtype=jnp.int32),)}}
        return self.obs, jnp.float32(3.0), jnp.bool_(self.t >= 3), jnp.bool_(False), info

    def render(self):  # type: ignore[no-untyped-def]
        return jnp.zeros((4, 4, 3), dtype=jnp.uint8)


def test_to_torch_single_env_round_trip() -> None:
    env = TinyJaxEnv()
    w = C.ToTorch(env)
    obs, info = w.reset(seed=0, options={"level": 1})
    assert isinstance(obs, torch.Tensor) and pointer(obs) == pointer(env.obs)
    assert info["mask"].dtype == torch.bool and type(info["p"]) is Point
    obs, rew, term, trunc, info = w.step(torch.tensor(1))
    assert isinstance(env.action, jax.Array)  # the action went back to JAX
    assert pointer(obs) == pointer(env.obs)
    assert type(rew) is float and rew == 3.0
    assert type(term) is bool and type(trunc) is bool
    assert info["final"]["nested"][0].dtype == torch.int32
    frame = w.render()
    assert isinstance(frame, torch.Tensor) and frame.dtype == torch.uint8
    assert w.observation_space == env.observation_space  # spaces unchanged, as in Gymnasium
    w.reset(options={"level": jnp.int32(2)})
    assert isinstance(env.options["level"], jax.Array)


def test_scalars_false_keeps_arrays() -> None:
    w = C.ToTorch(TinyJaxEnv(), scalars=False)
    w.reset(seed=0)
    _, rew, term, trunc, _ = w.step(torch.tensor(0))
    assert isinstance(rew, torch.Tensor) and rew.dtype == torch.float32 and rew.ndim == 0
    assert term.dtype == torch.bool and trunc.dtype == torch.bool


def test_generic_array_conversion_both_spellings() -> None:
    a = C.ArrayConversion(TinyJaxEnv(), to="numpy")
    b = C.ArrayConversion(TinyJaxEnv(), jnp, np)
    for w in (a, b):
        obs, _ = w.reset(seed=0)
        assert isinstance(obs, np.ndarray)
        assert isinstance(w.step(np.int64(1))[0], np.ndarray)
    with pytest.raises(TypeError, match="ArrayConversion"):
        C.ArrayConversion(TinyJaxEnv())


def test_to_jax_from_numpy_env() -> None:
    w = C.ToJax(gym.make("CartPole-v1"))
    obs, _ = w.reset(seed=0)
    assert isinstance(obs, jax.Array) and obs.dtype == jnp.float32
    obs, rew, *_ = w.step(jnp.int32(1))
    assert isinstance(obs, jax.Array) and rew == 1.0


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (C.JaxToTorch, "gymnasium.wrappers.JaxToTorch"),
        (C.JaxToNumpy, "gymnasium.wrappers.JaxToNumpy"),
        (C.NumpyToTorch, "gymnasium.wrappers.NumpyToTorch"),
        (VC.JaxToTorch, "gymnasium.wrappers.vector.JaxToTorch"),
        (VC.JaxToNumpy, "gymnasium.wrappers.vector.JaxToNumpy"),
        (VC.NumpyToTorch, "gymnasium.wrappers.vector.NumpyToTorch"),
    ],
)
def test_gymnasium_aliases_have_gymnasium_signatures(ours: type, theirs: str) -> None:
    module, _, name = theirs.rpartition(".")
    ref = getattr(__import__(module, fromlist=[name]), name)
    assert list(inspect.signature(ours).parameters) == list(inspect.signature(ref).parameters)


def test_numpy_to_torch_alias_behaves_like_gymnasium() -> None:
    ours = C.NumpyToTorch(gym.make("CartPole-v1"))
    ref = gym.wrappers.NumpyToTorch(gym.make("CartPole-v1"))
    (o1, _), (o2, _) = ours.reset(seed=3), ref.reset(seed=3)
    torch.testing.assert_close(o1, o2)
    s1, s2 = ours.step(torch.tensor(1)), ref.step(torch.tensor(1))
    torch.testing.assert_close(s1[0], s2[0])
    assert s1[1:4] == s2[1:4] and [type(v) for v in s1[1:4]] == [type(v) for v in s2[1:4]]


# ------------------------------------------ read-only views and Gymnasium wrappers
def test_gymnasium_single_env_wrappers_run_on_read_only_views_without_copy() -> None:
    """Gymnasium's single-env ClipReward and FlattenObservation never write in place."""
    env = TinyJaxEnv()
    w = C.ToNumpy(env)
    obs, _ = w.reset(seed=0)
    assert not obs.flags.writeable and pointer(obs) == pointer(env.obs)  # a view, no copy
    clipped = gym.wrappers.ClipReward(C.ToNumpy(TinyJaxEnv(), scalars=False), 0.0, 1.0)
    clipped.reset(seed=0)
    assert float(clipped.step(np.int64(1))[1]) == 1.0
    flat = gym.wrappers.FlattenObservation(C.ToNumpy(TinyJaxEnv()))
    flat.reset(seed=0)
    assert flat.step(np.int64(0))[0].shape == (4,)


def test_gymnasium_stack_on_phys2d_cartpole() -> None:
    pytest.importorskip("flax")
    env = gym.make("phys2d/CartPole-v1")
    env = gym.wrappers.FlattenObservation(gym.wrappers.ClipReward(C.ToNumpy(env), -0.5, 0.5))
    obs, _ = env.reset(seed=0)
    obs, rew, *_ = env.step(env.action_space.sample())
    assert isinstance(obs, np.ndarray) and rew == 0.5


@pytest.fixture
def jax_vector_env() -> gym.vector.VectorEnv:  # type: ignore[type-arg]
    pytest.importorskip("flax")
    return gym.make_vec("phys2d/CartPole-v1", num_envs=3, vectorization_mode="vector_entry_point")


def test_gymnasium_vector_clip_reward_after_to_numpy(jax_vector_env: gym.vector.VectorEnv) -> None:  # type: ignore[type-arg]
    """Gymnasium's vector ClipReward writes ``rewards[i] = ...``: rewards come writable."""
    envs = gym.wrappers.vector.ClipReward(VC.ToNumpy(jax_vector_env), -0.5, 0.5)
    obs, _ = envs.reset(seed=0)
    obs, rew, term, trunc, _ = envs.step(envs.action_space.sample())
    np.testing.assert_array_equal(rew, 0.5)
    assert not obs.flags.writeable  # the observation is still a zero-copy view
    assert term.flags.writeable and trunc.flags.writeable


def test_gymnasium_vector_flatten_after_to_numpy(jax_vector_env: gym.vector.VectorEnv) -> None:  # type: ignore[type-arg]
    """Flattening a 1-D Box is the identity, so Gymnasium stacks back into the input."""
    envs = gym.wrappers.vector.FlattenObservation(VC.ToNumpy(jax_vector_env, writable=True))
    envs.reset(seed=0)
    obs = envs.step(envs.action_space.sample())[0]
    assert obs.shape == (3, 4) and obs.flags.writeable


def test_vector_to_torch_keeps_arrays(jax_vector_env: gym.vector.VectorEnv) -> None:  # type: ignore[type-arg]
    envs = VC.ToTorch(jax_vector_env)
    obs, _ = envs.reset(seed=0)
    assert isinstance(obs, torch.Tensor) and obs.shape == (3, 4)
    obs, rew, term, trunc, _info = envs.step(torch.ones(3, dtype=torch.int32))
    assert rew.shape == (3,) and term.dtype == torch.bool and trunc.dtype == torch.bool


def test_vector_numpy_env_to_jax_with_final_obs(monkeypatch) -> None:
    from anywrap.backends import jax as jax_backend

    # The narrowing warning is said once per process: another test on this worker may
    # have said it already.
    monkeypatch.setattr(jax_backend, "_warned", set())
    envs = gym.make_vec(
        "CartPole-v1",
        num_envs=2,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP},
    )
    envs = VC.ToJax(envs)
    envs.reset(seed=0)
    # CartPole's float64 rewards are narrowed when x64 is off, and the wrapper says so
    narrowed = (
        pytest.warns(UserWarning, match="holds float64 as float32")
        if not jax.config.read("jax_enable_x64")
        else contextlib.nullcontext()
    )
    with narrowed:
        for _ in range(60):
            _obs, _rew, _term, _trunc, info = envs.step(jnp.zeros(2, dtype=jnp.int32))
            if "final_obs" in info:
                break
    assert "final_obs" in info and isinstance(info["_final_obs"], jax.Array)
    kept = [o for o, m in zip(info["final_obs"], np.asarray(info["_final_obs"])) if m]
    assert kept and all(isinstance(o, jax.Array) for o in kept)


# ------------------------------------------- the per-step (compiled) converter
@pytest.mark.parametrize(("src", "dst"), PAIRS)
def test_converter_is_zero_copy_between_every_pair(src: str, dst: str) -> None:
    """The wrappers' fast leaves share buffers as ``to_library`` does."""
    x = make(src)
    conv = C.converter(dst)
    for _ in range(2):  # the first call classifies the type, the second uses the cache
        y = conv({"obs": x})["obs"]
        assert C.library_of(y) == dst
        assert pointer(y) == pointer(x), f"{src} -> {dst} copied"


@pytest.mark.parametrize(("src", "dst"), PAIRS)
@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int32, np.float32])
@pytest.mark.parametrize("shape", [(), (5,)])
def test_converter_preserves_dtype_and_values(
    src: str, dst: str, dtype: object, shape: tuple[int, ...]
) -> None:
    x = make(src, dtype, shape)
    conv = C.converter(dst)
    for _ in range(2):
        y = conv(x)
        assert np.dtype(str(y.dtype).replace("torch.", "")) == np.dtype(dtype)
        np.testing.assert_array_equal(np.asarray(C.to_library(y, "numpy")), aligned(shape, dtype))


def test_converter_treats_read_only_numpy_as_to_library_does() -> None:
    """Shared through DLPack, without the warning ``torch.from_numpy`` gives for it."""
    import warnings

    ro = aligned((4,))
    ro.flags.writeable = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = C.converter("torch")(ro)
    assert pointer(t) == pointer(ro)
    assert pointer(C.to_library(ro, "torch")) == pointer(ro)
    np.testing.assert_array_equal(t.numpy(), ro)


def test_converter_writable_copies_only_read_only_leaves() -> None:
    conv = C.converter("numpy", writable=True)
    j, n = jnp.asarray(aligned((4,))), aligned((4,))
    out = conv({"j": j, "n": n})
    assert out["j"].flags.writeable and pointer(out["j"]) != pointer(j)
    assert out["n"] is n


@pytest.mark.parametrize(
    ("action", "dtype"),
    [
        (np.int64(1), jnp.int32),  # narrowed: jax_enable_x64 is off
        (np.uint8(1), jnp.uint8),
        (np.bool_(True), jnp.bool_),
        (np.array(1, dtype=np.int32), jnp.int32),
        (1, jnp.int32),
        (True, jnp.bool_),
        ("torch", jnp.int32),
        ("torch-int16", jnp.int16),
        ("torch-bool", jnp.bool_),
    ],
)
def test_integer_actions_to_jax_are_reused_with_the_right_dtype(
    action: object, dtype: object
) -> None:
    def fresh(value: int) -> object:
        if action == "torch":
            return torch.tensor(value)
        if action == "torch-int16":
            return torch.tensor(value, dtype=torch.int16)
        if action == "torch-bool":
            return torch.tensor(bool(value))
        if isinstance(action, (bool, np.bool_)):
            return type(action)(bool(value))
        if isinstance(action, np.ndarray):
            return np.array(value, dtype=action.dtype)
        return type(action)(value)  # type: ignore[call-arg]

    conv = C.converter("jax")
    one, zero = conv(fresh(1)), conv(fresh(0))
    assert isinstance(one, jax.Array) and one.dtype == dtype and one.shape == ()
    assert int(one) == 1 and int(zero) == 0 and zero.dtype == dtype
    assert conv(fresh(1)) is one  # converted once, then reused
    one.delete()  # as a jitted step that donates its action would
    again = conv(fresh(1))
    assert again is not one and not again.is_deleted() and int(again) == 1


def test_integer_action_reuse_is_bounded_and_follows_x64() -> None:
    conv = C.converter("jax")
    big = np.int64(1 << 20)
    assert int(conv(big)) == 1 << 20 and conv(big) is not conv(big)  # outside the kept range
    if not callable(getattr(jax, "enable_x64", None)):
        pytest.skip("this JAX has no jax.enable_x64 context")
    narrow = conv(np.int64(3))
    with jax.enable_x64(True):  # type: ignore[operator]
        wide = conv(np.int64(3))
    assert narrow.dtype == jnp.int32 and wide.dtype == jnp.int64


def test_small_host_tensor_actions_reach_jax_with_values() -> None:
    w = C.JaxToTorch(TinyJaxEnv())
    w.reset(seed=0)
    env = w.env
    for a in (torch.tensor([0.25, -1.0]), torch.tensor([1, 0], dtype=torch.int32)):
        w.step(a)
        assert (
            isinstance(env.action, jax.Array) and env.action.dtype == jnp.asarray(a.numpy()).dtype
        )
        np.testing.assert_array_equal(np.asarray(env.action), a.numpy())


def test_wrappers_pickle_and_keep_converting() -> None:
    import pickle

    w = C.NumpyToTorch(gym.make("CartPole-v1"))
    w.reset(seed=0)
    w.step(torch.tensor(0))
    w2 = pickle.loads(pickle.dumps(w))
    obs, rew, *_ = w2.step(torch.tensor(1))
    assert isinstance(obs, torch.Tensor) and rew == 1.0


NEGATIVE_STRIDES = """
import numpy as np, gymnasium as gym, anywrap
from anywrap.convert import convert

x = np.arange(24.0).reshape(4, 6)[::-1]
assert (convert(x, "torch").numpy() == x).all()
assert (convert(x[:, ::-2], "torch").numpy() == x[:, ::-2]).all()


class Flipped(gym.ObservationWrapper):
    def __init__(self, env):
        super().__init__(env)
        self.observation_space = gym.spaces.Box(-np.inf, np.inf, (2, 3), np.float32)

    def observation(self, obs):
        return np.flipud(np.stack([obs, 2 * obs]))


env = anywrap.ToTorch(Flipped(gym.make("Pendulum-v1")))
obs, _ = env.reset(seed=0)
raw = Flipped(gym.make("Pendulum-v1")).reset(seed=0)[0]
assert (obs.numpy() == raw).all()
print("ok")
"""


def test_a_view_with_negative_strides_converts_by_one_copy() -> None:
    """A flipped image (``np.flipud``) has negative strides, which PyTorch's DLPack import
    turns into a process abort (SIGABRT): anywrap copies it once instead. Run in a
    child process, which the abort would kill."""
    import subprocess
    import sys

    pytest.importorskip("torch")
    proc = subprocess.run(
        [sys.executable, "-c", NEGATIVE_STRIDES], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]


def test_bfloat16_tensors_reach_numpy_as_ml_dtypes_bfloat16_and_come_back() -> None:
    """NumPy has no bfloat16 of its own: a bfloat16 tensor becomes ml_dtypes' bfloat16
    (the dtype JAX gives NumPy), its bits viewed without rounding, and back."""
    torch = pytest.importorskip("torch")
    ml_dtypes = pytest.importorskip("ml_dtypes")
    t = torch.tensor([1.5, -2.25, 3e38, float("nan")], dtype=torch.bfloat16)
    a = C.convert(t, "numpy")
    assert a.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(a.view(np.int16), t.view(torch.int16).numpy())
    back = C.convert(a, "torch")
    assert back.dtype == torch.bfloat16
    assert torch.equal(back.view(torch.int16), t.view(torch.int16))


def test_int64_values_that_jax_without_x64_would_wrap_are_refused() -> None:
    """JAX without x64 holds int64 as int32: values past int32 would wrap ([5, 2**33 + 7]
    became [5, 7]); anywrap refuses them, naming the switch, and converts the rest."""
    jax = pytest.importorskip("jax")
    assert not jax.config.jax_enable_x64
    fits = C.convert(np.array([5, -(2**31), 2**31 - 1]), "jax")
    assert fits.tolist() == [5, -(2**31), 2**31 - 1]
    with pytest.raises(OverflowError, match=r"from 5 to 8589934599.*jax_enable_x64"):
        C.convert(np.array([5, 2**33 + 7]), "jax")
    with pytest.raises(OverflowError, match="wrap"):
        C.convert(np.array([2**40] * 100_000), "jax")  # the large path too


def test_numpy_into_jax_shares_exactly_where_the_docs_say() -> None:
    """Over 64 KiB: shared when 64-byte aligned, one copy otherwise (docs: conversion)."""
    pytest.importorskip("jax")
    from anywrap.backends.jax import SMALL_HOST_COPY

    n = 2 * SMALL_HOST_COPY // 4
    shared = aligned((n,), np.float32)
    assert pointer(C.to_library(shared, "jax")) == pointer(shared)
    buf = aligned((n + 16,), np.float32)
    unaligned = buf[4 : 4 + n]  # 16 bytes past a 64-byte boundary
    unaligned[:] = np.arange(n, dtype=np.float32)
    y = C.to_library(unaligned, "jax")
    assert pointer(y) != pointer(unaligned)
    np.testing.assert_array_equal(np.asarray(y), unaligned)
