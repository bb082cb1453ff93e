"""Contract 1, drop-in: Gymnasium's names, arguments, defaults, spaces and specs,
for every public wrapper (single and vector), and one anywrap class under each."""

from __future__ import annotations

import inspect

import gymnasium as gym
import pytest
from contracts.case import Case, all_cases, cases_where

import anywrap


def _public() -> dict[str, type]:
    found = {}
    for prefix, module in (("", anywrap), ("vector.", anywrap.vector)):
        for name in module.__all__:
            if not name[0].isupper():
                continue
            obj = getattr(module, name)
            if isinstance(obj, type) and issubclass(obj, (gym.Wrapper, gym.vector.VectorWrapper)):
                found[prefix + name] = obj
    return found


def test_every_public_wrapper_has_a_case() -> None:
    public = _public()
    assert len(public) > 40  # the listing itself works
    covered = {f"{'vector.' if c.vector else ''}{c.name}" for c in all_cases()}
    assert sorted(set(public) - covered) == []


@pytest.mark.parametrize("case", cases_where(lambda c: True))
def test_one_anywrap_class_under_the_wrapper(case: Case) -> None:
    """Between a wrapper (or the public wrapper it specialises, as ``ToTorch`` does
    ``ArrayConversion``) and Gymnasium's classes sit only the shells' shared bases
    (``anywrap.shell``: ``Shell``, a map base, one shared part) and at most one class
    that the single and vector wrappers share (in the single wrapper's module), at most
    three in all, besides the vector step's ``FusedStep`` (stack fusion)."""
    from anywrap.shell.fusion import FusedStep

    public = set(_public().values()) | {FusedStep}
    cls = case.anywrap_class()
    inner = [k for k in cls.__mro__[1:] if k.__module__.startswith("anywrap") and k not in public]
    assert len(inner) <= 3, inner
    own = getattr(anywrap.wrappers, case.name, cls).__module__  # the single wrapper's module
    pair = [k for k in inner if k.__module__ == own]
    others = [k for k in inner if k not in pair]
    assert len(pair) <= 1, pair
    assert len(inner) <= 1 or all(k.__module__.startswith("anywrap.shell.") for k in others)


def _parameters(cls: type) -> list[inspect.Parameter]:
    return [p for p in inspect.signature(cls.__init__).parameters.values() if p.name != "self"]


@pytest.mark.parametrize("case", cases_where(lambda c: c.reference))
def test_the_constructor_takes_gymnasiums_arguments(case: Case) -> None:
    """Each of Gymnasium's parameters, under its name, in its place, with its default;
    anywrap's own extras come after them, with defaults."""
    ours = {p.name: p for p in _parameters(case.anywrap_class())}
    theirs = _parameters(case.gymnasium_class())
    for p in theirs:
        assert p.name in ours, (p.name, list(ours))
        if p.default is not p.empty:  # (anywrap may give a default where Gymnasium has none)
            assert ours[p.name].default == p.default, (p.name, ours[p.name].default, p.default)
    positional = [
        p.name for p in _parameters(case.anywrap_class()) if p.kind in (p.POSITIONAL_OR_KEYWORD,)
    ]
    theirs_positional = [p.name for p in theirs if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert positional[: len(theirs_positional)] == theirs_positional
    names = {p.name for p in theirs}
    for name, p in ours.items():
        if name not in names:
            assert p.default is not p.empty or p.kind is p.VAR_KEYWORD, name


_SPACES = ("observation_space", "action_space", "single_observation_space", "single_action_space")


@pytest.mark.parametrize("case", cases_where(lambda c: c.reference))
def test_the_spaces_are_gymnasiums(case: Case) -> None:
    ours, theirs = case.wrap(case.make_env()), case.wrap_reference(case.make_env())
    for name in _SPACES:
        if hasattr(theirs, name):
            assert getattr(ours, name) == getattr(theirs, name), name


_SPEC_FIELDS = ("TimeLimit", "OrderEnforcing", "PassiveEnvChecker")


@pytest.mark.parametrize("case", cases_where(lambda c: not c.vector and c.name not in _SPEC_FIELDS))
def test_the_spec_rebuilds_the_wrapper_with_every_argument(case: Case) -> None:
    """(TimeLimit, OrderEnforcing and PassiveEnvChecker sit in the spec's fields
    ``max_episode_steps``, ``order_enforce``, ``disable_env_checker``, as Gymnasium's do:
    tests/wrappers/test_time_limit.py and tests/wrappers/test_common.py.)"""
    env = case.wrap(case.make_env())
    recorded = env.spec.additional_wrappers[-1]
    expected = {p.name for p in _parameters(type(env)) if p.kind is not p.VAR_KEYWORD} - {"env"}
    assert set(recorded.kwargs) >= expected
    rebuilt = gym.make(env.spec)
    assert type(rebuilt) is type(env)
    assert rebuilt.spec.additional_wrappers[-1].kwargs.keys() == recorded.kwargs.keys()
    # Gymnasium's own tools see the arguments as they see their wrappers'.
    assert isinstance(env, gym.utils.RecordConstructorArgs)
