"""A run of vector wrappers as one program a step: each :class:`FusedStep` wrapper gives
its work after the env's step as a :class:`Piece`, a pure function of its state and the
step's arrays, and the outermost one steps the env below the run and calls the pieces as
one compiled program (on NumPy, or for a wrapper with no piece this step, each runs on its
own). A piece checks shapes and dtypes only; the states change after the whole program
returns, so bad data from the env leaves every wrapper of the run as it was.

Example:
    >>> import gymnasium as gym, anywrap
    >>> envs = anywrap.vector.NormalizeReward(
    ...     anywrap.vector.NormalizeObservation(gym.make_vec("Pendulum-v1", 2))
    ... )
    >>> [type(w).__name__ for w in fused_run(envs)[0]]
    ['NormalizeObservation', 'NormalizeReward']
"""

from __future__ import annotations

import functools
import types
import weakref
from collections.abc import Callable
from typing import Any, NamedTuple

from anywrap import xp
from anywrap.shell.checks import step_info, wrapper_name
from anywrap.tree import first_leaf

Step = tuple[Any, Any, Any, Any, dict[str, Any]]


class Piece(NamedTuple):
    """``fn`` on the observations or rewards (``on``), after ``check(x, term, trunc)``:
    ``fn(state, x, *extra) -> (state, x)`` where ``stateful``, else ``fn(x, *extra)``;
    ``flags``: the flags follow ``x``; ``report``: the output is ``(state, report)`` and
    ``x`` passes unchanged. Compared by fields, so a stack finds its program each step."""

    fn: Callable[..., Any]
    on: str = "obs"
    check: Callable[..., Any] | None = None
    stateful: bool = True
    flags: bool = False
    report: bool = False

    def __call__(
        self, state: Any, obs: Any, reward: Any, term: Any, trunc: Any, *extra: Any
    ) -> tuple[Any, tuple[Any, Any], Any]:
        x = obs if self.on == "obs" else reward
        if self.check is not None:
            self.check(x, term, trunc)
        args = (x, term, trunc, *extra) if self.flags else (x, *extra)
        state, y = self.fn(state, *args) if self.stateful else (state, self.fn(*args))
        out, y = (y, x) if self.report else (None, y)
        return state, (y, reward) if self.on == "obs" else (obs, y), out


class Part(NamedTuple):
    """A wrapper's piece this step, its host arguments, and ``finish(info, report)``
    (writing the keys ``writes``)."""

    piece: Piece
    extra: tuple[Any, ...] = ()
    finish: Callable[[dict[str, Any], Any], None] | None = None
    writes: tuple[str, ...] = ()


class _Stack:
    """A run's pieces (inner first) as one function; equal for the same work (checks aside)."""

    def __init__(self, pieces: tuple[Piece, ...]) -> None:
        self.pieces = pieces
        self.__name__ = "stack(" + "+".join(_name(p.fn) for p in pieces) + ")"
        self._key = tuple((_work(p.fn), p.on, p.stateful, p.flags, p.report) for p in pieces)

    def __eq__(self, other: object) -> bool:
        try:
            return self is other or (isinstance(other, _Stack) and bool(self._key == other._key))
        except Exception:  # a closure over arrays, which compare element by element
            return False

    def __hash__(self) -> int:
        try:
            return hash(self._key)
        except TypeError:  # a closure over something unhashable: this stack's own
            return id(self)

    def __call__(
        self, states: tuple, obs: Any, reward: Any, term: Any, trunc: Any, extras: tuple
    ) -> tuple[tuple, Any, Any, tuple]:
        new, reports = [], []
        for piece, state, extra in zip(self.pieces, states, extras):
            state, (obs, reward), report = piece(state, obs, reward, term, trunc, *extra)
            new.append(state)
            reports.append(report)
        return tuple(new), obs, reward, tuple(reports)


def _work(fn: Any) -> Any:
    """What ``fn`` computes, as a key: a partial by its parts, a closure by code and cells."""
    if isinstance(fn, functools.partial):
        keywords = tuple(sorted((k, _work(v)) for k, v in fn.keywords.items()))
        return ("partial", _work(fn.func), tuple(map(_work, fn.args)), keywords)
    if isinstance(fn, types.FunctionType):
        try:
            cells = tuple(_work(c.cell_contents) for c in fn.__closure__ or ())
        except ValueError:  # a cell not yet filled
            return fn
        return ("function", fn.__code__, cells, fn.__defaults__)
    return fn


def _name(fn: Any) -> str:
    while hasattr(fn, "func"):
        fn = fn.func
    return getattr(fn, "__name__", type(fn).__name__)


class FusedStep:
    """A vector wrapper whose work after the step (:meth:`_after_step`, or as a :class:`Part`
    by :meth:`_part`) may join its neighbours'; an action wrapper's, :meth:`_before_step`."""

    env: Any

    def step(self, actions: Any) -> Step:
        """Step the env, then the work of this wrapper and of the fused run below it."""
        chain, env = fused_run(self)
        for w in reversed(chain):
            actions = w._before_step(actions)
        return after_steps(chain, env.step(actions), PROGRAMS.setdefault(self, {}))

    def _before_step(self, actions: Any) -> Any:
        return actions

    def _after_step(self, out: Step) -> Step:
        return out

    def _part(self, out: Step) -> Part | bool | None:
        """This step's part of ``out``; ``None``: not in a program; ``True``: no work."""
        return None


PROGRAMS: weakref.WeakKeyDictionary[Any, dict[tuple[Piece, ...], xp.Compiled | None]] = (
    weakref.WeakKeyDictionary()
)
"""Each outermost wrapper's programs by pieces (``None``: wrapper by wrapper); held beside
the wrapper, so that copies and pickles leave them out."""


def fused_run(top: Any) -> tuple[list[Any], Any]:
    """The run of fusable wrappers from ``top`` down (inner first), and the env below."""
    chain, env = [top], top.env
    while isinstance(env, FusedStep) and type(env).step is FusedStep.step:
        chain.append(env)
        env = env.env
    return chain[::-1], env


def after_steps(chain: list[Any], out: Step, programs: dict) -> Step:
    """Each wrapper's work after the step ``out``, inner first; on a device, runs of two
    pieces or more as one program."""
    step_info(wrapper_name(chain[0]), out[4])  # read by every run's parts: before any work
    if xp.is_host(first_leaf(out[0])) or xp.is_host(out[1]):
        for w in chain:
            out = w._after_step(out)
        return out
    i = 0
    while i < len(chain):
        run, parts, seen = 0, [], out  # seen: out, and the info keys the run writes
        for w in chain[i:]:
            part = w._part(seen)
            if part is None:
                break
            run += 1
            if part is not True:
                parts.append((w, part))
                if part.writes:
                    seen = (*out[:4], {**seen[4], **dict.fromkeys(part.writes)})
        key = tuple([p.piece for _, p in parts])
        program = programs.get(key, True) if len(parts) > 1 else None
        if program is None:
            run = max(run, 1)
            for w in chain[i : i + run]:
                out = w._after_step(out)
            i += run
            continue
        if program is True:
            program = programs[key] = xp.Compiled(_Stack(key), dispatch_arg=1)
        try:
            out = _run_fused(parts, out, program)
        except Exception:
            # Eagerly (pure: if it fails too, the error is the data's); if it works, the
            # program cannot stand in for it (a host read): wrapper by wrapper from now on.
            out = _run_fused(parts, out, program.fn)
            programs[key] = None
        i += run
    return out


def _run_fused(parts: list[tuple[Any, Part]], out: Step, run: Callable[..., Any]) -> Step:
    obs, reward, terminated, truncated, info = out
    likes = [obs if p.piece.on == "obs" else reward for _, p in parts]
    states = tuple(
        [w._state_for(like) if p.piece.stateful else () for (w, p), like in zip(parts, likes)]
    )
    extras = tuple([p.extra for _, p in parts])
    new, obs, reward, reports = run(states, obs, reward, terminated, truncated, extras)
    for (w, p), state, like, report in zip(parts, new, likes, reports):
        if p.piece.stateful:
            w._commit(state, like)
        if p.finish is not None:
            p.finish(info, report)
    return obs, reward, terminated, truncated, info
