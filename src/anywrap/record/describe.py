"""What a report says the env is: its id and the wrapper stack around it.

Example:
    >>> import gymnasium as gym
    >>> describe_env(gym.make("CartPole-v1"))
    ('CartPole-v1', ['TimeLimit', 'OrderEnforcing', 'PassiveEnvChecker', 'CartPoleEnv'])
"""

from __future__ import annotations

from typing import Any

__all__ = ["describe_env"]


def _name(obj: Any) -> str:
    if type(obj).__module__.startswith("anywrap"):
        from anywrap.shell.checks import wrapper_name

        return wrapper_name(obj)
    return type(obj).__name__


def describe_env(env: Any) -> tuple[str, list[str]]:
    """``(env id, the wrapper stack from outside in)`` of a single or vector env."""
    spec = getattr(env, "spec", None)
    env_id = getattr(spec, "id", None)
    if env_id is None:
        base = env
        for _ in range(64):  # the innermost env
            inner = getattr(base, "env", None)
            if inner is None or inner is base:
                break
            base = inner
        subs = getattr(base, "envs", None)
        name = getattr(base, "name", None)  # gymnax envs name themselves
        if isinstance(subs, (list, tuple)) and subs:  # a vector env made by hand
            env_id = describe_env(subs[0])[0]
        elif isinstance(name, str) and name:
            env_id = name
        else:
            env_id = type(base).__name__
    stack: list[str] = []
    e = env
    for _ in range(64):
        subs = getattr(e, "envs", None)
        if isinstance(subs, (list, tuple)) and subs and not hasattr(e, "env"):
            inner = describe_env(subs[0])[1]
            stack.append(f"{_name(e)}({len(subs)} x [{', '.join(inner)}])")
            break
        stack.append(_name(e))
        nxt = getattr(e, "env", None)
        if nxt is None or nxt is e:
            break
        e = nxt
    return str(env_id), stack
