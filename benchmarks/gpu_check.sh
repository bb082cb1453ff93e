#!/usr/bin/env bash
# GPU check for anywrap: no host sync on CUDA / JAX-GPU (PyTorch's stack compiled by
# torch.compile, and eager), then `python -m benchmarks --device cuda`,
# `benchmarks/device_ops.py --device cuda` (B5 is PyTorch on CUDA: the compiled stack, the
# eager one and TorchRL's, each with the time it adds per step) and
# `benchmarks/shell_overhead.py --jax` (the JAX stack's step over the bare env's, x4096), and
# `benchmarks/device_ops.py --jax` at 16 and 4096 envs (is the stack's extra a cost per step?).
#
# Usage (from the repository root, on a machine with an NVIDIA GPU):
#     bash benchmarks/gpu_check.sh [--install] [--wheels DIR] [--quick]
#
#   --install   pip-install what is missing (anywrap itself, editable, without deps;
#               and, if $ANYWRAP_JAX_CUDA is set, that pip requirement, e.g. "jax[cuda12]").
#               Without it nothing is installed: a missing GPU backend is reported as SKIP.
#   --wheels DIR  for a host with no network that has its own torch and JAX: install every
#               wheel in DIR (see benchmarks/gpu-wheels.txt) without an index or their
#               dependencies, into a temporary folder (removed at exit) put on PYTHONPATH
#               after src/; nothing of the host's own Python changes.
#   --quick     pass --quick to `python -m benchmarks` (sizes as on CPU).
#
# Environment: PYTHON (default: .venv/bin/python if present, else python3),
#              OUT (default: bench-results/gpu), STEP_TIMEOUT (seconds for each check,
#              default 60), BENCH_TIMEOUT (seconds for the benchmarks, default 180).
# Output format: see benchmarks/README.md. Exit status: 0 when no step FAILed.
# The whole script is sized to finish in under 5 minutes on one GPU.

set -u
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-}
if [ -z "$PYTHON" ]; then
    if [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
OUT=${OUT:-bench-results/gpu}
STEP_TIMEOUT=${STEP_TIMEOUT:-60}
BENCH_TIMEOUT=${BENCH_TIMEOUT:-180}
INSTALL=0
QUICK=""
WHEELS=""
while [ $# -gt 0 ]; do
    case "$1" in
        --install) INSTALL=1 ;;
        --quick) QUICK="--quick" ;;
        --wheels)
            if [ $# -lt 2 ] || [ ! -d "$2" ]; then
                echo "gpu_check: --wheels expects a folder of .whl files, got '${2:-}'" >&2; exit 2
            fi
            WHEELS=$2; shift ;;
        *) echo "gpu_check: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
mkdir -p "$OUT"

PASS=0; FAIL=0; SKIP=0
result() {  # result STATUS NAME [DETAIL]
    printf '[%s] %s%s\n' "$1" "$2" "${3:+: $3}"
    case "$1" in PASS) PASS=$((PASS + 1)) ;; FAIL) FAIL=$((FAIL + 1)) ;; SKIP) SKIP=$((SKIP + 1)) ;; esac
}

echo "== anywrap gpu_check $(date -u +%Y-%m-%dT%H:%M:%SZ) =="

# ---------------------------------------------------------------- 1. install
if [ -n "$WHEELS" ]; then
    SITE=$(mktemp -d "${TMPDIR:-/tmp}/anywrap-gpu-site.XXXXXX")
    trap 'rm -rf "$SITE"' EXIT
    set -- "$WHEELS"/*.whl
    if [ ! -e "$1" ]; then echo "gpu_check: no .whl file in $WHEELS" >&2; exit 2; fi
    "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target "$SITE" "$@" || { echo "gpu_check: installing the wheels of $WHEELS failed" >&2; exit 2; }
    echo "[info] install: $# wheel(s) from $WHEELS into $SITE"
    export PYTHONPATH="$PWD/src:$SITE${PYTHONPATH#"$PWD/src"}"
fi
if [ "$INSTALL" = 1 ]; then
    "$PYTHON" -c "import anywrap" 2>/dev/null || "$PYTHON" -m pip install -q --no-deps -e . \
        && echo "[info] install: anywrap importable"
    if [ -n "${ANYWRAP_JAX_CUDA:-}" ]; then
        "$PYTHON" -m pip install -q "$ANYWRAP_JAX_CUDA" && echo "[info] install: $ANYWRAP_JAX_CUDA"
    fi
fi

# ---------------------------------------------------------------- 2. environment
"$PYTHON" - <<'PY'
import importlib
for name in ("anywrap", "numpy", "gymnasium", "jax", "torch", "torchrl"):
    try:
        mod = importlib.import_module(name)
        print(f"[info] {name} {getattr(mod, '__version__', '?')}")
    except Exception as exc:
        print(f"[info] {name} missing ({type(exc).__name__})")
try:
    import torch
    print(f"[info] torch.cuda.is_available()={torch.cuda.is_available()}"
          + (f" device={torch.cuda.get_device_name(0)}" if torch.cuda.is_available() else ""))
except Exception:
    pass
try:
    import jax
    print(f"[info] jax backend={jax.default_backend()} devices={jax.devices()}")
except Exception:
    pass
PY
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null \
    | sed 's/^/[info] nvidia-smi: /'

# ---------------------------------------------------------------- 3. no-sync checks
# Each line the snippet prints is "STATUS<TAB>name<TAB>detail".
NOSYNC=$(timeout "$STEP_TIMEOUT" "$PYTHON" - <<'PY' 2>"$OUT/nosync.stderr"
import warnings
warnings.simplefilter("ignore")

def report(status, name, detail=""):
    print(f"{status}\t{name}\t{detail}", flush=True)

def clip_stack(env, clip):
    from anywrap.demo import cleanrl_stack
    import anywrap
    return cleanrl_stack(env, anywrap.vector, clip)

# -- PyTorch on CUDA, under torch.cuda.set_sync_debug_mode("error"): the compiled stack
#    (each transform compiled by torch.compile, TorchInductor's kernels), a second
#    stack of the same shapes (its programs shared: no new compile), then the eager one
#    (compilation off), which must agree with it.
try:
    import torch
    from anywrap import xp
    if not torch.cuda.is_available():
        for name in ("compiled", "eager"):
            report("SKIP", f"torch-cuda six-wrapper vector stack, {name}",
                   "torch.cuda.is_available() is False")
    else:
        from anywrap.demo import torch_pendulum_vector_env
        n, dev = 4096, torch.device("cuda")
        gen = torch.Generator(device=dev).manual_seed(0)
        actions = [torch.rand(n, 1, generator=gen, device=dev) * 6 - 3 for _ in range(215)]

        def guarded_run(compile_on):
            xp.set_compile(compile_on, after_calls=2)
            start = len(xp.compile_log())
            env = clip_stack(torch_pendulum_vector_env(n, dev), torch.clamp)
            env.reset(seed=0)
            for a in actions[:190]:  # warm-up outside the guard: compilation
                env.step(a)
            torch.cuda.synchronize()
            outs = []
            try:
                torch.cuda.set_sync_debug_mode("error")
                for a in actions[190:]:  # crosses the truncation at step 200 and the autoreset
                    obs, rew, term, trunc, info = env.step(a)
                    outs.append((obs, rew))
            finally:
                torch.cuda.set_sync_debug_mode("default")
            torch.cuda.synchronize()
            assert obs.is_cuda and rew.is_cuda, (obs.device, rew.device)
            return outs, xp.compile_log()[start:]

        try:
            compiled_outs, records = guarded_run(True)
            refused = [f"{r.function}: {r.reason}" for r in records
                       if not r.compiled and "cheaper eagerly" not in (r.reason or "")]
            done = sorted({r.function for r in records if r.compiled and "cuda" in r.signature})
            assert not refused, refused
            assert {"step_episodes", "normalize_observation", "normalize_reward"} <= set(done), done
            secs = sum(r.seconds for r in records if r.compiled)
            report("PASS", "torch-cuda six-wrapper vector stack, compiled",
                   f"25 steps x {n} envs under set_sync_debug_mode('error'); compiled and "
                   f"captured {', '.join(done)} in {secs:.1f} s")
        except Exception as exc:
            compiled_outs = None
            report("FAIL", "torch-cuda six-wrapper vector stack, compiled",
                   f"{type(exc).__name__}: {exc}"[:400])
        if compiled_outs is not None:  # a second stack, the same shapes: the programs are shared
            try:
                again, records = guarded_run(True)
                sources = sorted({(r.function, r.source) for r in records if r.compiled})
                assert sources and all(src == "shared" for _, src in sources), sources
                for (o1, _), (o2, _) in zip(compiled_outs, again):
                    torch.testing.assert_close(o1, o2, rtol=0, atol=0)
                report("PASS", "torch-cuda second stack, the same shapes",
                       f"no new compile ({len(sources)} programs shared), the same outputs, "
                       "no sync")
            except Exception as exc:
                report("FAIL", "torch-cuda second stack, the same shapes",
                       f"{type(exc).__name__}: {exc}"[:400])
        try:
            eager_outs, _ = guarded_run(False)
            detail = f"25 steps x {n} envs under set_sync_debug_mode('error')"
            if compiled_outs is not None:
                worst = 0.0
                for (o1, r1), (o2, r2) in zip(compiled_outs, eager_outs):
                    torch.testing.assert_close(o1, o2, rtol=1e-5, atol=1e-5)
                    torch.testing.assert_close(r1, r2, rtol=1e-5, atol=1e-6)
                    worst = max(worst, float((o1 - o2).abs().max()))
                detail += f"; the compiled stack agrees (max |obs difference| {worst:.1e})"
            report("PASS", "torch-cuda six-wrapper vector stack, eager", detail)
        except Exception as exc:
            report("FAIL", "torch-cuda six-wrapper vector stack, eager",
                   f"{type(exc).__name__}: {exc}"[:400])
        xp.set_compile(True, after_calls=xp.switch.AFTER_CALLS)
except Exception as exc:
    report("FAIL", "torch-cuda six-wrapper vector stack", f"{type(exc).__name__}: {exc}"[:400])

# -- JAX on GPU, under jax.transfer_guard_device_to_host("disallow")
import importlib.util
try:
    if importlib.util.find_spec("jax") is None:
        raise ModuleNotFoundError("jax")
except ModuleNotFoundError:
    report("SKIP", "jax-gpu six-wrapper vector stack", "JAX is not installed")
else:
  try:
    import jax
    import jax.numpy as jnp
    import gymnasium as gym
    try:
        gpu = jax.devices("gpu")[0]
    except RuntimeError as exc:
        gpu = None
        report("SKIP", "jax-gpu six-wrapper vector stack", f"no JAX GPU backend ({exc})"[:300])
    if gpu is not None:
        with jax.default_device(gpu):
            n = 4096
            keys = jax.random.split(jax.random.key(0), 30)
            actions = [jax.random.uniform(k, (n, 1), minval=-3.0, maxval=3.0) for k in keys]

            def guarded(env):
                env.reset(seed=0)
                for a in actions[:5]:
                    out = env.step(a)
                jax.block_until_ready(out[:2])
                with jax.transfer_guard_device_to_host("disallow"):
                    for a in actions[5:]:
                        out = env.step(a)
                    jax.block_until_ready(out[:2])
                return out

            bare_ok = True
            try:
                guarded(gym.make_vec("phys2d/Pendulum-v0", num_envs=n))
            except Exception as exc:
                bare_ok = False
                report("SKIP", "jax-gpu six-wrapper vector stack",
                       f"the bare phys2d env itself transfers to host: {type(exc).__name__}"[:300])
            if bare_ok:
                out = guarded(clip_stack(gym.make_vec("phys2d/Pendulum-v0", num_envs=n), jnp.clip))
                devs = {str(d) for d in out[0].devices()}
                report("PASS", "jax-gpu six-wrapper vector stack",
                       f"25 steps x {n} envs under transfer_guard_device_to_host('disallow'), "
                       f"outputs on {','.join(sorted(devs))}")
  except Exception as exc:
    report("FAIL", "jax-gpu six-wrapper vector stack", f"{type(exc).__name__}: {exc}"[:400])
PY
)
rc=$?
if [ -z "$NOSYNC" ]; then
    result FAIL "no-sync snippet" "exit $rc, no output; see $OUT/nosync.stderr"
else
    while IFS=$'\t' read -r status name detail; do result "$status" "$name" "$detail"; done <<<"$NOSYNC"
fi

# ---------------------------------------------------------------- 4. no-sync test file
# tests/contracts/test_no_sync_stacks.py: JAX cases run on the default (GPU) device when jax has one.
if timeout "$((STEP_TIMEOUT * 3 / 2))" "$PYTHON" -m pytest -q -p no:cacheprovider tests/contracts/test_no_sync_stacks.py \
        >"$OUT/pytest_no_sync.txt" 2>&1; then
    result PASS "pytest tests/contracts/test_no_sync_stacks.py" "$(tail -n 1 "$OUT/pytest_no_sync.txt")"
else
    result FAIL "pytest tests/contracts/test_no_sync_stacks.py" "$(tail -n 1 "$OUT/pytest_no_sync.txt"); see $OUT/pytest_no_sync.txt"
fi

# ---------------------------------------------------------------- 5. benchmarks on the GPU
echo "== python -m benchmarks --device cuda --only B3,B4,B5,B8 $QUICK =="
timeout "$BENCH_TIMEOUT" "$PYTHON" -m benchmarks --device cuda --only B3,B4,B5,B8 $QUICK \
    --no-progress --json "$OUT/results.json" --plot "$OUT/throughput.png" 2>"$OUT/bench.stderr"
rc=$?
if [ "$rc" = 0 ]; then
    result PASS "python -m benchmarks --device cuda" "$OUT/results.json"
else
    result FAIL "python -m benchmarks --device cuda" "exit $rc; $(tail -n 1 "$OUT/bench.stderr")"
fi

# ---------------------------------------------------------------- 6. what the GPU sees
# ATen ops (CUDA kernel launches) and host time per step of the CleanRL stack, eager and
# compiled, beside the hand-written normaliser (docs/performance.md's table, on CUDA).
echo "== python benchmarks/device_ops.py --device cuda =="
if ! "$PYTHON" -c "import torch, sys; sys.exit(not torch.cuda.is_available())" 2>/dev/null; then
    result SKIP "benchmarks/device_ops.py --device cuda" "no CUDA device for PyTorch"
elif timeout "$BENCH_TIMEOUT" "$PYTHON" benchmarks/device_ops.py --device cuda --rounds 5 \
        --no-torchrl --json "$OUT/device_ops.json" --plot "$OUT/device_ops.png" \
        >"$OUT/device_ops.txt" 2>"$OUT/device_ops.stderr"; then
    sed -n '1,12p' "$OUT/device_ops.txt"
    result PASS "benchmarks/device_ops.py --device cuda" "$OUT/device_ops.txt"
else
    result FAIL "benchmarks/device_ops.py --device cuda" "$(tail -n 1 "$OUT/device_ops.stderr")"
fi

# ---------------------------------------------------------------- 7. JAX stack over the bare env
# The lean-core target: the stateful JAX vector stack at 4096 envs takes at most 1.05x the
# bare env's step on a GPU (docs/performance.md). Reported, not judged: one shared run.
echo "== python benchmarks/shell_overhead.py --jax 4096 50 9 =="
if ! "$PYTHON" -c "import jax, sys; sys.exit(jax.default_backend() != 'gpu')" 2>/dev/null; then
    result SKIP "benchmarks/shell_overhead.py --jax" "no JAX GPU backend"
elif timeout "$BENCH_TIMEOUT" "$PYTHON" benchmarks/shell_overhead.py --jax 4096 50 9 \
        >"$OUT/jax_stack.txt" 2>"$OUT/jax_stack.stderr"; then
    cat "$OUT/jax_stack.txt"
    result PASS "benchmarks/shell_overhead.py --jax" "$(tail -n 1 "$OUT/jax_stack.txt")"
else
    result FAIL "benchmarks/shell_overhead.py --jax" "$(tail -n 1 "$OUT/jax_stack.stderr")"
fi
# On the CPU the stack's extra is a cost per step, the same at 16 envs as at 4096
# (docs/performance.md): whether a GPU keeps it is what these two runs show.
for n in 16 4096; do
    echo "== python benchmarks/device_ops.py --jax --rounds 5 --envs $n =="
    if ! "$PYTHON" -c "import jax, sys; sys.exit(jax.default_backend() != 'gpu')" 2>/dev/null; then
        result SKIP "benchmarks/device_ops.py --jax --envs $n" "no JAX GPU backend"
    elif ! "$PYTHON" -c "import torch" 2>/dev/null; then  # the script imports PyTorch too
        result SKIP "benchmarks/device_ops.py --jax --envs $n" "PyTorch is not installed"
    elif timeout "$BENCH_TIMEOUT" "$PYTHON" benchmarks/device_ops.py --jax --rounds 5 --envs "$n" \
            >"$OUT/jax_ops_$n.txt" 2>"$OUT/jax_ops_$n.stderr"; then
        grep '^|\|^N=' "$OUT/jax_ops_$n.txt"
        result PASS "benchmarks/device_ops.py --jax --envs $n" "$OUT/jax_ops_$n.txt"
    else
        result FAIL "benchmarks/device_ops.py --jax --envs $n" "$(tail -n 1 "$OUT/jax_ops_$n.stderr")"
    fi
done

echo "== summary: $PASS passed, $FAIL failed, $SKIP skipped =="
[ "$FAIL" = 0 ]
