"""RecordHTML and vector.RecordHTML: what they record, on every backend, without host syncs."""

from __future__ import annotations

import base64
import functools
import io
import pickle
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from helpers import Backend, jax_no_host_sync, make_backend, torch_no_host_sync
from record_envs import ArrayEnv, ArrayVectorEnv, column, grid, read_report

import anywrap

LENGTHS = (7, 5)


def _actions(n: int, seed: int = 0, shape: tuple[int, ...] = (2,)) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1, 1, (n, *shape)).astype(np.float32)


def _guard(backend: Backend) -> Any:
    return {"jax": jax_no_host_sync, "torch": torch_no_host_sync}[backend.name]()


# ---------------------------------------------------------------- single env
def test_single_env_report_holds_what_the_env_returned(backend: Backend, tmp_path: Path) -> None:
    env = ArrayEnv(backend.to_backend, lengths=LENGTHS)
    rec = anywrap.RecordHTML(env, tmp_path, episode_trigger=lambda k: True)
    acts = _actions(12)
    seen: list[tuple[Any, ...]] = []
    k = 0
    for _episode in range(2):
        obs, _ = rec.reset(seed=4)
        seen.append(("reset", obs))
        done = False
        while not done:
            action = backend.to_backend(acts[k])
            k += 1
            out = rec.step(action)
            seen.append(("step", action, *out))
            done = bool(backend.to_numpy(out[2])) or bool(backend.to_numpy(out[3]))
    rec.close()
    assert [p.name for p in rec.report_paths] == [
        "rl-report-episode-0.html",
        "rl-report-episode-1.html",
    ]
    first = read_report(rec.report_paths[0])
    assert first["env_id"] == "ArrayEnv" and first["seed"] == "4"
    assert first["wrappers"][0] == "anywrap.RecordHTML"
    e = first["envs"][0]
    rows = seen[: LENGTHS[0] + 1]
    assert e["rows"] == len(rows) and e["kind"] == [1] + [0] * LENGTHS[0]
    obs = np.stack([backend.to_numpy(r[1] if r[0] == "reset" else r[2]) for r in rows])
    np.testing.assert_allclose(grid(e["obs"]).T, obs, rtol=1e-6)
    act = np.stack([backend.to_numpy(r[1]) for r in rows[1:]])
    np.testing.assert_allclose(grid(e["action"]).T[1:], act, rtol=1e-6)
    rew = np.array([float(backend.to_numpy(r[3])) for r in rows[1:]], np.float64)
    np.testing.assert_allclose(column(e["reward"])[1:], rew, rtol=1e-6)
    assert e["reward"][0] is None and all(col[0] is None for col in e["action"])
    # The return, a float64 sum written here.
    np.testing.assert_allclose(
        column(e["return"]), np.concatenate([[0], np.cumsum(rew)]), rtol=1e-6
    )
    assert e["terminated"] == [0] * LENGTHS[0] + [1]  # episode 0 ends in terminated
    assert e["episodes"] == [
        {
            "first": 0,
            "last": LENGTHS[0],
            "return": pytest.approx(rew.sum(), rel=1e-6),
            "length": LENGTHS[0],
            "end": "terminated",
        }
    ]
    second = read_report(rec.report_paths[1])
    assert second["envs"][0]["episodes"][0]["end"] == "truncated"
    assert second["seed"] == "4"
    # info: numbers are charted, strings are shown per row.
    labels = second["labels"]
    t_col = second["envs"][0]["info"][labels["info"].index("info.t")]
    assert t_col == [None, 1, 2, 3, 4, 5]
    assert second["envs"][0]["text"][labels["text"].index("info.note")][:2] == [
        "step reset",
        "step 1",
    ]


def test_single_env_returns_the_envs_own_values(backend: Backend, tmp_path: Path) -> None:
    class Remember(gym.Wrapper):
        def step(self, action: Any) -> Any:
            self.last = self.env.step(action)
            return self.last

    inner = Remember(ArrayEnv(backend.to_backend))
    rec = anywrap.RecordHTML(inner, tmp_path)
    rec.reset(seed=0)
    out = rec.step(backend.to_backend(_actions(1)[0]))
    assert all(a is b for a, b in zip(out[:4], inner.last[:4]))
    assert type(out[0]) is type(backend.to_backend(np.zeros(3, np.float32)))


@pytest.mark.parametrize("name", ["jax", "torch"])
def test_single_env_steps_do_not_read_the_device(name: str, tmp_path: Path) -> None:
    backend = make_backend(name)
    rec = anywrap.RecordHTML(ArrayEnv(backend.to_backend, lengths=(9,)), tmp_path)
    actions = [backend.to_backend(a) for a in _actions(9)]
    rec.reset(seed=0)
    with _guard(backend):
        for a in actions:  # the whole episode, its last step included
            rec.step(a)
    rec.close()  # the one transfer, outside the guard
    e = read_report(rec.report_paths[0])["envs"][0]
    assert e["rows"] == 10 and e["episodes"][0]["end"] == "terminated"
    np.testing.assert_allclose(grid(e["action"]).T[1:], _actions(9), rtol=1e-6)


# ---------------------------------------------------------------- vector env
def _run_vector(envs: Any, actions: np.ndarray, to_backend: Any, guard: Any = None) -> None:
    envs.reset(seed=1)
    batch = [to_backend(a) for a in actions]
    if guard is None:
        for a in batch:
            envs.step(a)
    else:
        with guard:
            for a in batch:
                envs.step(a)
    envs.close()


def _vector_reports(
    backend: Backend, mode: AutoresetMode, folder: Path, guard: bool = False, **kwargs: Any
) -> tuple[list[dict[str, Any]], ArrayVectorEnv]:
    env = ArrayVectorEnv(backend.to_backend, num_envs=3, mode=mode)
    envs = anywrap.vector.RecordHTML(env, folder, **kwargs)
    acts = _actions(40, seed=3, shape=(3, 1))
    _run_vector(envs, acts, backend.to_backend, _guard(backend) if guard else None)
    return [read_report(p) for p in envs.report_paths], env


@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_vector_report_holds_what_each_sub_env_did(mode: AutoresetMode, tmp_path: Path) -> None:
    """NumPy sub-envs, checked row by row against what the env returned."""
    reports, env = _vector_reports(
        make_backend("numpy"), mode, tmp_path, step_trigger=lambda t: t == 0, report_length=30
    )
    (data,) = reports
    assert data["kind"] == "vector" and data["num_envs"] == 3
    assert data["autoreset_mode"] == mode.value
    acts = _actions(40, seed=3, shape=(3, 1))
    steps = [entry for entry in env.log if entry[0] == "step"]
    # The rows: one per step, 31 steps (report_length 30 after the first);
    # under SAME_STEP, where sub-env 0 ends an episode inside the report, also a
    # row with the next episode's first observation (not counted in the length).
    expected: list[tuple[int, bool]] = []  # (step index, opening row)
    for t in range(31):
        expected.append((t, False))
        if t < 30 and mode is AutoresetMode.SAME_STEP and (steps[t][3][0] or steps[t][4][0]):
            expected.append((t, True))
    for j, e in enumerate(data["envs"]):
        assert e["index"] == j and e["rows"] == len(expected)
        kind = np.array(e["kind"])
        obs_rows = grid(e["obs"])
        for r, (s, opening) in enumerate(expected):
            _, obs, scale, term, trunc, final = steps[s]
            if opening:  # the next episode's first obs; the others wait
                done = term[j] or trunc[j]
                assert kind[r] == (1 if done else 2)
                np.testing.assert_allclose(obs_rows[:, r], obs[j], rtol=1e-6)
                assert e["reward"][r] is None
                continue
            previous = steps[s - 1] if s > 0 else None
            resetting = (
                mode is AutoresetMode.NEXT_STEP
                and previous is not None
                and (previous[3][j] or previous[4][j])
            )
            assert kind[r] == (1 if resetting else 0), (j, r)
            # The observation the action led to: SAME_STEP's final one where done.
            shown = final if mode is AutoresetMode.SAME_STEP else obs
            np.testing.assert_allclose(obs_rows[:, r], shown[j], rtol=1e-6)
            if resetting:
                assert e["reward"][r] is None and e["action"][0][r] is None
            else:
                assert e["reward"][r] == pytest.approx(acts[s, j, 0] * scale[j], rel=1e-6)
                assert e["action"][0][r] == pytest.approx(acts[s, j, 0], rel=1e-6)
            assert e["terminated"][r] == term[j] and e["truncated"][r] == trunc[j]
        lengths = [p["length"] for p in e["episodes"] if p["end"] != "running"]
        if mode is not AutoresetMode.DISABLED:
            assert lengths and set(lengths) == {env.lengths[j]}


def test_vector_same_step_splits_the_episodes_of_sub_env_0(tmp_path: Path) -> None:
    """The step where sub-env 0 ends closes its report with the final observation;
    the next report opens with the next episode's first observation."""
    reports, env = _vector_reports(
        make_backend("numpy"), AutoresetMode.SAME_STEP, tmp_path, episode_trigger=lambda k: k < 3
    )
    assert [d["title"] for d in reports] == [f"rl-report-episode-{k}" for k in range(3)]
    steps = [entry for entry in env.log if entry[0] == "step"]
    for k, data in enumerate(reports[:2]):
        e0 = data["envs"][0]
        assert e0["episodes"][-1]["end"] == "terminated" and e0["kind"][0] == 1
        assert e0["rows"] == env.lengths[0] + 1
        last = k * env.lengths[0] + env.lengths[0] - 1  # the step that ended it
        np.testing.assert_allclose(grid(e0["obs"])[:, -1], steps[last][5][0], rtol=1e-6)
        nxt = reports[k + 1]["envs"][0]
        np.testing.assert_allclose(grid(nxt["obs"])[:, 0], steps[last][1][0], rtol=1e-6)
        # Sub-env 1 did not restart there: it waits on the opening row.
        assert reports[k + 1]["envs"][1]["kind"][0] == 2


def test_vector_disabled_reset_mask_restarts_only_the_masked(tmp_path: Path) -> None:
    env = ArrayVectorEnv(np.asarray, num_envs=3, mode=AutoresetMode.DISABLED)
    envs = anywrap.vector.RecordHTML(env, tmp_path, step_trigger=lambda t: t == 0, report_length=12)
    envs.reset(seed=0)
    for t in range(8):
        _, _, term, trunc, _ = envs.step(_actions(1, seed=t, shape=(3, 1))[0])
        if (term | trunc).any():
            envs.reset(options={"reset_mask": term | trunc})
    envs.close()
    data = read_report(envs.report_paths[0])
    # Row 3 is the 4th step, where sub-env 0 ends (terminated); the reset row
    # after it restarts sub-env 0 only, sub-env 1 waits.
    e0, e1 = data["envs"][0], data["envs"][1]
    assert e0["kind"][3:5] == [0, 1] and e1["kind"][3:5] == [0, 2]
    assert e0["episodes"][0] == {
        "first": 0,
        "last": 3,
        "return": pytest.approx(e0["return"][3]),
        "length": 4,
        "end": "terminated",
    }
    assert e0["return"][4] == 0 and e1["return"][4] == e1["return"][3]


@pytest.mark.parametrize("name", ["jax", "torch"])
@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_vector_device_steps_do_not_read_the_device(
    name: str, mode: AutoresetMode, tmp_path: Path
) -> None:
    """Without frames, no step reads a device value, the steps that end episodes
    included; the rows come over at close(), and the reports are those of a
    NumPy run of the same env (which decides as it goes)."""
    backend = make_backend(name)
    kwargs = {"episode_trigger": lambda k: k in (0, 2, 3), "flush_every": 1000}
    ours, _ = _vector_reports(backend, mode, tmp_path / name, guard=True, **kwargs)
    reference, _ = _vector_reports(make_backend("numpy"), mode, tmp_path / "numpy", **kwargs)
    assert [d["title"] for d in ours] == [d["title"] for d in reference] and len(ours) == 3
    for a, b in zip(ours, reference):
        for ea, eb in zip(a["envs"], b["envs"]):
            for key in ("kind", "terminated", "truncated", "episodes"):
                assert ea[key] == eb[key], key
            for key in ("obs", "action", "reward", "return", "info"):
                np.testing.assert_allclose(
                    column(np.ravel(ea[key])), column(np.ravel(eb[key])), rtol=1e-6
                )


def test_vector_lazy_reports_come_at_each_transfer(tmp_path: Path) -> None:
    backend = make_backend("jax")
    env = ArrayVectorEnv(backend.to_backend, num_envs=2, mode=AutoresetMode.NEXT_STEP)
    envs = anywrap.vector.RecordHTML(env, tmp_path, episode_trigger=lambda k: k == 0, flush_every=8)
    envs.reset(seed=0)
    acts = [backend.to_backend(a) for a in _actions(12, shape=(2, 1))]
    for a in acts[:7]:
        envs.step(a)
    assert envs.report_paths == [] and envs.step_id == -1  # nothing read yet
    envs.step(acts[7])  # the 8th step: one transfer; episode 0 (4 steps) is over
    assert envs.step_id == 7 and [p.name for p in envs.report_paths] == ["rl-report-episode-0.html"]
    assert read_report(envs.report_paths[0])["envs"][0]["rows"] == 5
    envs.close()


@pytest.mark.parametrize("pick", [[2, 0], np.array([2, 0])], ids=["list", "array"])
def test_sub_envs_selects_what_the_report_holds(pick: Any, tmp_path: Path) -> None:
    reports, env = _vector_reports(
        make_backend("numpy"),
        AutoresetMode.NEXT_STEP,
        tmp_path,
        step_trigger=lambda t: t == 0,
        report_length=10,
        sub_envs=pick,
    )
    (data,) = reports
    assert [e["index"] for e in data["envs"]] == [0, 2]
    steps = [entry for entry in env.log if entry[0] == "step"]
    np.testing.assert_allclose(grid(data["envs"][1]["obs"])[:, 1], steps[1][1][2], rtol=1e-6)


# ---------------------------------------------------------------- frames
def test_frames_line_up_with_rows(tmp_path: Path) -> None:
    from PIL import Image

    rec = anywrap.RecordHTML(ArrayEnv(render_mode="rgb_array", lengths=(6,)), tmp_path)
    rec.reset(seed=0)
    for a in _actions(6):
        rec.step(a)
    rec.close()
    data = read_report(rec.report_paths[0])
    assert data["fps"] == 15
    reds = [
        np.asarray(Image.open(io.BytesIO(base64.b64decode(f))).convert("RGB"))[..., 0].mean()
        for f in data["envs"][0]["frames"]
    ]
    np.testing.assert_allclose(reds, [10 * t for t in range(7)], atol=4)  # ArrayEnv paints 10 t


def test_vector_frames_of_each_sub_env(tmp_path: Path) -> None:
    from PIL import Image

    fns = [functools.partial(ArrayEnv, render_mode="rgb_array", lengths=(3 + i,)) for i in range(3)]
    envs = gym.vector.SyncVectorEnv(fns)
    envs = anywrap.vector.RecordHTML(envs, tmp_path, step_trigger=lambda t: t == 0, report_length=5)
    envs.reset(seed=0)
    for a in _actions(6, shape=(3, 2)):
        envs.step(a)
    envs.close()
    data = read_report(envs.report_paths[0])
    for e in data["envs"]:
        reds = [
            np.asarray(Image.open(io.BytesIO(base64.b64decode(f))).convert("RGB"))[..., 0].mean()
            for f in e["frames"]
        ]
        # Each sub-env's own clock: frames restart where that sub-env resets.
        t = np.array(data["envs"][e["index"]]["obs"][0])
        np.testing.assert_allclose(reds, 10 * t, atol=4)


def test_envs_that_cannot_render_get_charts(tmp_path: Path) -> None:
    rec = anywrap.RecordHTML(gym.make("CartPole-v1"), tmp_path)  # render_mode None
    rec.reset(seed=0)
    rec.step(0)
    rec.close()
    data = read_report(rec.report_paths[0])
    assert data["envs"][0]["frames"] is None and data["labels"]["obs"] == [
        f"obs[{i}]" for i in range(4)
    ]
    assert any("render_mode is None" in n for n in data["notes"])


# ---------------------------------------------------------------- observations and info
def test_dict_observations_and_images_are_flattened(tmp_path: Path) -> None:
    class DictEnv(gym.Env):
        observation_space = gym.spaces.Dict(
            {"pos": gym.spaces.Box(-1, 1, (2,)), "img": gym.spaces.Box(0, 255, (8, 8, 3), np.uint8)}
        )
        action_space = gym.spaces.Discrete(3)

        def reset(self, *, seed: Any = None, options: Any = None) -> Any:
            return self.obs(0), {}

        def step(self, action: Any) -> Any:
            return self.obs(int(action) + 1), 1.0, False, False, {}

        def obs(self, k: int) -> dict[str, np.ndarray]:
            img = (np.arange(192).reshape(8, 8, 3) * k % 256).astype(np.uint8)
            return {"pos": np.array([k, -k], np.float32), "img": img}

    rec = anywrap.RecordHTML(DictEnv(), tmp_path, max_dims=16)
    rec.reset(seed=0)
    rec.step(2)
    rec.close()
    data = read_report(rec.report_paths[0])
    assert data["labels"]["obs"] == [
        "obs.img mean",
        "obs.img min",
        "obs.img max",
        "obs.pos[0]",
        "obs.pos[1]",
    ] or data["labels"]["obs"] == [
        "obs.pos[0]",
        "obs.pos[1]",
        "obs.img mean",
        "obs.img min",
        "obs.img max",
    ]
    labels = data["labels"]["obs"]
    img = DictEnv().obs(3)["img"].astype(np.float64)
    got = {lab: data["envs"][0]["obs"][i][1] for i, lab in enumerate(labels)}
    assert got["obs.img mean"] == pytest.approx(img.mean(), rel=1e-6)
    assert (got["obs.img min"], got["obs.img max"]) == (img.min(), img.max())
    assert (got["obs.pos[0]"], got["obs.pos[1]"]) == (3.0, -3.0)
    assert data["labels"]["action"] == ["action"] and data["envs"][0]["action"][0] == [None, 2]


def test_vector_info_masks_blank_absent_values(tmp_path: Path) -> None:
    envs = gym.make_vec("CartPole-v1", num_envs=2, vectorization_mode="sync")
    envs = anywrap.vector.RecordEpisodeStatistics(envs)
    envs = anywrap.vector.RecordHTML(
        envs, tmp_path, step_trigger=lambda t: t == 0, report_length=60
    )
    envs.reset(seed=0)
    masks = []
    for _ in range(60):
        *_, info = envs.step(np.array([0, 0]))  # always left: episodes of about 10 steps
        masks.append(info.get("_episode", np.zeros(2, bool)).copy())
    envs.close()
    data = read_report(envs.report_paths[0])
    col = data["labels"]["info"].index("info.episode.l")
    for j in range(2):
        lengths = column(data["envs"][j]["info"][col])
        shown = ~np.isnan(lengths)
        np.testing.assert_array_equal(shown, [m[j] for m in masks])
        ends = [p for p in data["envs"][j]["episodes"] if p["end"] != "running"]
        assert [int(v) for v in lengths[shown]] == [p["length"] for p in ends][: shown.sum()]


# ---------------------------------------------------------------- errors and safety
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"report_length": -1}, "report_length must be an int >= 0, got -1"),
        ({"episode_trigger": 3}, "episode_trigger must be callable or None, got 3"),
        ({"fps": 0}, "fps must be None or a finite positive number, got 0"),
        ({"fps": float("inf")}, "fps must be None or a finite positive number, got inf"),
        ({"name_prefix": "a\x00b"}, "name_prefix must be a non-empty file name prefix"),
        ({"report_folder": None}, "expected `report_folder` as a str or os.PathLike, got None"),
        ({"frame_format": "gif"}, "frame_format must be one of"),
        ({"frame_quality": 0}, "frame_quality must be an int in [1, 100], got 0"),
        ({"max_dims": 0}, "max_dims must be an int >= 1, got 0"),
        ({"name_prefix": "a/b"}, "name_prefix must be a non-empty file name prefix"),
        ({"name_prefix": "x" * 300}, "name_prefix must leave room"),  # issue 34
    ],
)
def test_bad_arguments_name_the_wrapper(
    kwargs: dict[str, Any], message: str, tmp_path: Path
) -> None:
    env = ArrayEnv(render_mode="rgb_array")
    kwargs = {"report_folder": tmp_path / "r", **kwargs}
    with pytest.raises((ValueError, TypeError)) as err:
        anywrap.RecordHTML(env, **kwargs)
    assert message in str(err.value)
    assert "anywrap.RecordHTML" in str(err.value)
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("render_mode", [None, "rgb_array"])
@pytest.mark.parametrize(
    "kwargs",
    [
        {"frame_format": "gif"},
        {"frame_format": 3},
        {"frame_quality": 101},
        {"frame_quality": True},
        {"max_frame_side": 8},
    ],
)
def test_frame_options_are_checked_at_construction_whether_or_not_the_env_renders(
    kwargs: dict[str, Any], render_mode: str | None, tmp_path: Path
) -> None:
    """Issue 34: with an env that does not render (yet), bad frame options got through."""
    name = next(iter(kwargs))
    for wrap, env in (
        (anywrap.RecordHTML, ArrayEnv(render_mode=render_mode)),
        (anywrap.vector.RecordHTML, ArrayVectorEnv(np.asarray)),
    ):
        with pytest.raises(ValueError, match=rf"anywrap\.(vector\.)?RecordHTML: {name} must"):
            wrap(env, tmp_path / "r", **kwargs)
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    "sub_envs, message",
    [
        (5, "sub_envs must be between 1 and num_envs=3, got 5"),
        ([0, 0], "sub_envs must be distinct indices in [0, 3)"),
        ([3], "sub_envs must be distinct indices in [0, 3), got [3]"),
        # issue 32's audit: these were truncated by int() or parsed from the string
        ([1.7, 2.9], "sub_envs must be ints, got [1.7, 2.9]"),
        ("03", "sub_envs must be ints, got ['0', '3']"),
        ([True], "sub_envs must be ints, got [True]"),
    ],
)
def test_bad_sub_envs(sub_envs: Any, message: str, tmp_path: Path) -> None:
    with pytest.raises((ValueError, TypeError), match=r"anywrap\.vector\.RecordHTML") as err:
        anywrap.vector.RecordHTML(ArrayVectorEnv(np.asarray), tmp_path, sub_envs=sub_envs)
    assert message in str(err.value)


def test_a_report_folder_under_a_file_is_refused_at_construction(tmp_path: Path) -> None:
    """Every report was lost, each with a warning at its write (Gymnasium's RecordVideo makes
    the folder at once, and fails there)."""
    (tmp_path / "afile").write_text("")
    with pytest.raises(
        NotADirectoryError, match=r"anywrap\.RecordHTML: .* where '.*afile' is a file"
    ):
        anywrap.RecordHTML(ArrayEnv(render_mode="rgb_array"), tmp_path / "afile" / "sub")


def test_bad_reset_mask_fails_before_anything_is_recorded(tmp_path: Path) -> None:
    env = ArrayVectorEnv(np.asarray, mode=AutoresetMode.DISABLED)
    envs = anywrap.vector.RecordHTML(env, tmp_path, episode_trigger=lambda k: True)
    envs.reset(seed=0)
    with pytest.raises(
        ValueError, match=r"anywrap.vector.RecordHTML: expected options\['reset_mask'\]"
    ):
        envs.reset(options={"reset_mask": np.array([1, 0, 1])})
    assert envs.episode_id == 0 and len(env.log) == 1
    envs.close()
    assert read_report(envs.report_paths[0])["envs"][0]["rows"] == 1


def test_nothing_is_unpickled(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("RecordHTML unpickled something")

    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "Unpickler", refuse)
    rec = anywrap.RecordHTML(ArrayEnv(render_mode="rgb_array"), tmp_path)
    rec.reset(seed=0)
    for a in _actions(7):
        rec.step(a)
    rec.close()
    assert rec.report_paths
    import anywrap.record as package

    for source in Path(package.__file__).parent.glob("*.py"):
        assert "pickle" not in source.read_text(), source


def test_vector_reports_are_the_same_on_every_backend(backend: Backend, tmp_path: Path) -> None:
    """The NumPy run is checked against the env above; the others must agree with it."""
    kwargs = {"episode_trigger": lambda k: k in (1, 2), "flush_every": 16}
    ours, _ = _vector_reports(backend, AutoresetMode.SAME_STEP, tmp_path / "b", **kwargs)
    reference, _ = _vector_reports(
        make_backend("numpy"), AutoresetMode.SAME_STEP, tmp_path / "n", **kwargs
    )
    assert [d["title"] for d in ours] == [d["title"] for d in reference] and len(ours) == 2
    for a, b in zip(ours, reference):
        for ea, eb in zip(a["envs"], b["envs"]):
            assert ea["kind"] == eb["kind"] and ea["episodes"] == eb["episodes"]
            for key in ("obs", "action", "reward", "info"):
                np.testing.assert_allclose(
                    column(np.ravel(ea[key])), column(np.ravel(eb[key])), rtol=1e-6
                )
