"""The contract suite's table: one :class:`Case` per public wrapper, single and vector.

Each family of wrappers lists its cases in a ``cases_<family>.py`` module of
this folder (``CASES: list[Case]``); :func:`all_cases` collects them, and each
contract test (``test_drop_in.py``, ``test_same_numbers.py``,
``test_no_sync.py``, ``test_bad_input.py``) runs over every case it applies to.
A public wrapper without a case fails ``test_every_public_wrapper_has_a_case``.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym

__all__ = ["Case", "all_cases", "cases_where"]


@dataclass(frozen=True)
class Case:
    """How to build one wrapper, and which contracts it takes part in.

    Attributes:
        name: The class name, as in ``anywrap.__all__`` / ``anywrap.vector.__all__``.
        vector: ``anywrap.vector.<name>`` (True) or ``anywrap.<name>`` (False).
        make_env: A fresh NumPy env (a ``gym.Env``, or a ``VectorEnv`` for a vector case).
        kwargs: Constructor arguments besides the env (keywords).
        args: Positional constructor arguments besides the env (a callable for a
            Transform wrapper, say).
        reference: Gymnasium has ``gym.wrappers[.vector].<name>`` taking the same
            arguments: the drop-in and same-numbers contracts run side by side with it.
        rtol: The same-numbers tolerance against Gymnasium (0: bit for bit, dtype included).
        steps: Steps of the same-numbers and no-sync runs.
        replay: The no-sync contract replays a recorded Pendulum run in JAX and
            PyTorch arrays through the wrapper (Box observations and actions,
            float rewards); False where the wrapper needs another env (give
            ``array_env``) or takes no device arrays (say why in ``note``).
        array_env: ``library name -> env`` whose arrays live in that library, for
            the no-sync contract, where a replayed Pendulum does not fit; its
            ``unwrapped.sample_action()`` gives an action in that library.
        consumes: What the wrapper reads and checks from the env or the user:
            ``"obs"``, ``"reward"``, ``"action"``. The bad-input contract feeds each
            a value of the wrong shape and expects an error naming the wrapper,
            raised before any state changes.
        note: Why a contract does not apply, where one does not.
        label: Tells apart two cases of one wrapper (in the test id).
    """

    name: str
    vector: bool
    make_env: Callable[[], Any]
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    args: tuple[Any, ...] = ()
    reference: bool = True
    rtol: float = 0.0
    steps: int = 40
    replay: bool = True
    array_env: Callable[[str], Any] | None = None
    consumes: frozenset[str] = frozenset()
    note: str = ""
    label: str = ""

    @property
    def id(self) -> str:
        name = ("vector." if self.vector else "") + self.name
        return f"{name}[{self.label}]" if self.label else name

    def anywrap_class(self) -> type:
        import anywrap

        return getattr(anywrap.vector if self.vector else anywrap, self.name)  # type: ignore[no-any-return]

    def gymnasium_class(self) -> type:
        module = gym.wrappers.vector if self.vector else gym.wrappers
        return getattr(module, self.name)  # type: ignore[no-any-return]

    def wrap(self, env: Any) -> Any:
        return self.anywrap_class()(env, *self.args, **self.kwargs)

    def wrap_reference(self, env: Any) -> Any:
        return self.gymnasium_class()(env, *self.args, **self.kwargs)


def all_cases() -> list[Case]:
    """Every family's cases (the ``cases_*.py`` modules beside this one)."""
    here = Path(__file__).parent
    cases: list[Case] = []
    for info in sorted(pkgutil.iter_modules([str(here)]), key=lambda m: m.name):
        if info.name.startswith("cases_"):
            spec = importlib.util.spec_from_file_location(info.name, here / f"{info.name}.py")
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            cases.extend(module.CASES)
    return cases


def cases_where(predicate: Callable[[Case], bool]) -> list[Any]:
    """``pytest.param`` of each case that ``predicate`` keeps, with the case's id."""
    import pytest

    return [pytest.param(c, id=c.id) for c in all_cases() if predicate(c) and _in_gymnasium(c)]


def _in_gymnasium(case: Case) -> bool:
    """Whether the installed Gymnasium has the wrapper a case compares with (an older one
    lacks the newest: DiscretizeAction before 1.4, the vector RecordVideo before 1.3);
    cases without a reference always run."""
    module = gym.wrappers.vector if case.vector else gym.wrappers
    return not case.reference or hasattr(module, case.name)
