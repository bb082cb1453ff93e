"""Every public class of the installed Gymnasium's ``gymnasium.wrappers`` and
``gymnasium.wrappers.vector`` resolves under the same name in ``anywrap`` and
``anywrap.vector`` (issue 33): ``import anywrap as wrappers`` stands where
``from gymnasium import wrappers`` stood."""

from __future__ import annotations

import gymnasium as gym
import pytest

import anywrap


def _public_classes(module: object) -> list[str]:
    # Gymnasium loads some names lazily (the JAX and torch conversions): getattr loads them,
    # and a name whose optional library is missing is still a name anywrap must have.
    names = []
    for name in module.__all__:  # type: ignore[attr-defined]
        try:
            obj = getattr(module, name)
        except (ImportError, gym.error.DependencyNotInstalled):
            names.append(name)
            continue
        if isinstance(obj, type):
            names.append(name)
    return names


@pytest.mark.parametrize(
    ("prefix", "theirs", "ours"),
    [
        ("", gym.wrappers, anywrap),
        ("vector.", gym.wrappers.vector, anywrap.vector),
    ],
    ids=["wrappers", "vector"],
)
def test_every_gymnasium_wrapper_has_an_anywrap_name(
    prefix: str, theirs: object, ours: object
) -> None:
    names = _public_classes(theirs)
    assert len(names) > 10  # the walk itself works
    missing = sorted(n for n in names if n not in ours.__all__ or not hasattr(ours, n))  # type: ignore[attr-defined]
    assert missing == [], f"anywrap.{prefix} lacks"


@pytest.mark.parametrize(
    ("theirs", "ours"), [(gym.wrappers, anywrap), (gym.wrappers.vector, anywrap.vector)]
)
def test_each_name_is_a_wrapper_class_of_the_same_family(theirs: object, ours: object) -> None:
    """A name that resolves must be a wrapper class of the family Gymnasium's is (one env
    or vector), so that a script moving from Gymnasium builds the same kind of stack."""
    for name in _public_classes(theirs):
        if not hasattr(ours, name):
            continue
        try:
            reference = getattr(theirs, name)
        except (ImportError, gym.error.DependencyNotInstalled):
            continue
        cls = getattr(ours, name)
        assert isinstance(cls, type), name
        for family in (gym.Wrapper, gym.vector.VectorWrapper):
            assert issubclass(cls, family) == issubclass(reference, family), (name, family)
