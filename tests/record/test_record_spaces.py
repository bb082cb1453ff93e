"""RecordHTML on Gymnasium spaces whose values are not arrays of numbers (issue 35):
a Text observation made ``reset`` fail (it asked to register ``builtins.str`` as an
array library), a Graph one the first step (a raw reshape error). Their leaves are
left out of the charts, with a note on the page; the numbers beside them stay."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from record_envs import read_report

import anywrap


class _Env(gym.Env):
    action_space = gym.spaces.Discrete(2)

    def __init__(self, space: gym.Space, values: list) -> None:
        self.observation_space, self.values, self.t = space, values, 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self.values[0], {}

    def step(self, action):
        self.t += 1
        return self.values[self.t], float(self.t), self.t == len(self.values) - 1, False, {}


def _graph(nodes: int) -> gym.spaces.GraphInstance:
    links = np.array([[i, (i + 1) % nodes] for i in range(nodes)])
    return gym.spaces.GraphInstance(np.ones((nodes, 3), np.float32), np.zeros(nodes), links)


GRAPH = gym.spaces.Graph(gym.spaces.Box(-1.0, 1.0, (3,)), gym.spaces.Discrete(2))
CASES = {
    "text": (gym.spaces.Text(8), ["hello", "world", "done"], ["obs"]),
    "graph": (GRAPH, [_graph(3), _graph(5), _graph(2)], ["obs"]),
    "dict": (
        gym.spaces.Dict({"name": gym.spaces.Text(8), "pos": gym.spaces.Box(-9, 9, (2,))}),
        [{"name": s, "pos": np.full(2, t, np.float32)} for t, s in enumerate("abc")],
        ["obs.name"],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_text_and_graph_leaves_are_left_out_with_a_note(case, tmp_path):
    space, values, left_out = CASES[case]
    env = anywrap.RecordHTML(_Env(space, values), tmp_path)
    env.reset(seed=0)
    for _ in range(len(values) - 1):
        env.step(0)
    env.close()
    (page,) = tmp_path.glob("*.html")
    data = read_report(page)
    assert any(f"not charted (not numbers): {', '.join(left_out)}" == n for n in data["notes"])
    if case == "dict":  # the Box beside the text is charted
        assert data["labels"]["obs"] == ["obs.pos[0]", "obs.pos[1]"]
