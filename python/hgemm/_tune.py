"""hgemm.tune: runs the installed `hgemm tune` command on a list of shapes, or on the shapes a model's
Linear layers see, writes the winners into a user table and makes dispatch read it."""

import os
import re
import subprocess
import tempfile

from . import _library


def _cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "hgemm")


def _slug(name):
    return re.sub(r"-+", "-", re.sub(r"[^a-z0-9]", "-", name.lower())).strip("-") or "unknown-gpu"


def _check_shapes(shapes):
    out = []
    for s in shapes:
        try:
            m, n, k = s
        except (TypeError, ValueError):
            raise ValueError(f"tune: a shape is (M, N, K), got {s!r}") from None
        for name, v in (("M", m), ("N", n), ("K", k)):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"tune: {name} of shape {s!r} must be a positive int")
        out.append((m, n, k))
    if not out:
        raise ValueError("tune: no shapes to tune")
    return sorted(set(out))


def model_shapes(model, example_input):
    """The (M, N, K) of every Linear call in one forward pass of model(example_input) (a tensor,
    a tuple of positional arguments or a dict of keyword arguments), recorded by forward hooks;
    the pass runs without grad."""
    import torch

    shapes = set()

    def record(module, args):
        x = args[0]
        m = 1
        for d in x.shape[:-1]:
            m *= d
        if m > 0:
            shapes.add((m, module.out_features, module.in_features))

    handles = [mod.register_forward_pre_hook(record) for mod in model.modules()
               if isinstance(mod, torch.nn.Linear)]
    try:
        with torch.no_grad():
            if isinstance(example_input, dict):
                model(**example_input)
            elif isinstance(example_input, tuple):
                model(*example_input)
            else:
                model(example_input)
    finally:
        for h in handles:
            h.remove()
    return sorted(shapes)


def tune(target, example_input=None, *, layouts=("tn",), acc="f32", budget=64, policy="rl",
         user_table=None, db=None, time_limit=0, extra_args=(), verbose=True):
    """Tunes hgemm for `target`, a list of (M, N, K) shapes or a torch.nn.Module run once on
    `example_input` to record its Linear shapes, with the hgemm command (`hgemm tune`). The
    winners are merged into the user table (`user_table`, default: the command's,
    $HGEMM_USER_TABLE or ~/.cache/hgemm/tables/<gpu>-<acc>.table), which dispatch then reads in
    this process too. Measurements accumulate in `db` (default ~/.cache/hgemm/tuned/<gpu>-<acc>.jsonl),
    so a second run resumes. Layouts: 'tn' is hgemm.linear's, 'nn' hgemm.matmul's with a
    row-major b. Returns the shapes tuned; raises RuntimeError when the command fails."""
    if hasattr(target, "modules") and callable(target):
        if example_input is None:
            raise ValueError("tune(model, example_input): a model needs an example input")
        shapes = _check_shapes(model_shapes(target, example_input))
    else:
        if example_input is not None:
            raise ValueError("tune(shapes): example_input is only for a model")
        shapes = _check_shapes(target)
    if isinstance(layouts, str):
        layouts = (layouts,)
    for layout in layouts:
        if layout not in _library.LAYOUTS:
            raise ValueError(f"tune: layout must be 'nn' or 'tn', got {layout!r}")
    if acc not in _library.ACCS:
        raise ValueError(f"tune: acc must be 'f32' or 'f16', got {acc!r}")
    if not isinstance(budget, int) or budget < 1:
        raise ValueError(f"tune: budget must be a positive int, got {budget!r}")
    gpu = _library.info(acc)["device_gpu"]
    if db is None:
        db = os.path.join(_cache_dir(), "tuned", f"{_slug(gpu)}-{acc}.jsonl")
    os.makedirs(os.path.dirname(os.path.abspath(db)), exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        suite = os.path.join(tmp, "shapes.txt")
        with open(suite, "w") as f:
            f.writelines(f"{m} {n} {k}\n" for m, n, k in shapes)
        cmd = [_library.cli_path(), "tune", "--suite", suite, "--layout", ",".join(layouts),
               "--acc", acc, "--budget", str(budget), "--policy", policy, "--db", db,
               "--resume", "--time-limit", str(time_limit)]
        if user_table is not None:
            cmd += ["--user-table", os.path.abspath(os.fspath(user_table))]
        cmd += list(extra_args)
        result = subprocess.run(cmd, stdout=None if verbose else subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
    if result.returncode not in (0, 3):
        tail = (result.stdout or "")[-2000:]
        raise RuntimeError(f"hgemm tune failed (exit code {result.returncode}): "
                           f"{' '.join(cmd)}\n{tail}")
    if user_table is not None:
        _library.set_table(user_table)
    else:
        _library.reload_tables()
    return shapes
