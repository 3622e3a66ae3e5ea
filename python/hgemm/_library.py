"""The library's calls that need no PyTorch: version, dispatch tables, explain, errors, and where
the hgemm command is."""

import os
import shutil

from . import _hgemm

LAYOUTS = {"nn": _hgemm.LAYOUT_NN, "tn": _hgemm.LAYOUT_TN}
ACCS = {"f32": _hgemm.ACC_F32, "f16": _hgemm.ACC_F16}


class HgemmError(RuntimeError):
    """A failure reported by libhgemm: `status` is the hgemmStatus_t value, `status_name` its
    name, and the message is hgemmLastErrorMessage()'s."""

    def __init__(self, status, message):
        self.status = status
        self.status_name = _hgemm.status_string(status).split(":", 1)[0]
        super().__init__(f"{self.status_name}: {message}" if message
                         else _hgemm.status_string(status))


def raise_last_error(status):
    # hgemmLastErrorMessage is per thread: read it right after the call that failed.
    raise HgemmError(status, _hgemm.last_error())


def _version_string(packed):
    return f"{packed // 10000}.{packed // 100 % 100}.{packed % 100}"


def library_version():
    """The version of the libhgemm that was loaded, e.g. '0.1.0'."""
    return _version_string(_hgemm.library_version())


def _layout(layout):
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be 'nn' or 'tn', got {layout!r}")
    return LAYOUTS[layout]


def _acc(acc):
    if acc not in ACCS:
        raise ValueError(f"acc must be 'f32' or 'f16', got {acc!r}")
    return ACCS[acc]


def info(acc="f32"):
    """The dispatch tables in use on the current CUDA device for one accumulation: the shipped
    table (path, GPU it was tuned on, entries, whether it is used on this device and why not; a
    GPU without a table of its own uses one tuned on a GPU of its architecture and SM count, and
    then tuned_gpu differs from device_gpu) and the user table that `hgemm.tune` writes, as a
    dict."""
    status, d = _hgemm.dispatch_info(_acc(acc))
    if status != _hgemm.SUCCESS:
        raise_last_error(status)
    d["library_version"] = library_version()
    d["library_path"] = _hgemm.library_path()
    return d


def explain(m, n, k, layout="tn", acc="f32"):
    """Which kernel hgemm runs for an M x N x K product on the current device (for pointers as
    aligned as PyTorch's allocations), which rule chose it and why, as a dict with keys config,
    rule and reason. layout 'tn' is hgemm.linear's (weight [N, K]); 'nn' is hgemm.matmul's with a
    row-major b."""
    for name, value in (("m", m), ("n", n), ("k", k)):
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    status, d = _hgemm.explain(m, n, k, _layout(layout), _acc(acc))
    if status != _hgemm.SUCCESS:
        raise_last_error(status)
    return d


def reload_tables():
    """Read the dispatch tables again on the next call (after a tuning run wrote the user table
    from another process)."""
    _hgemm.reload_tables()


def set_table(path):
    """Dispatch from the tuning table at `path` (written by `hgemm tune --user-table` or
    `hgemm db export --table`) ahead of the shipped table; None restores the default
    ($HGEMM_USER_TABLE, else the user table in the cache directory)."""
    if path is None:
        path = ""
    else:
        path = os.fspath(path)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"set_table: no table file at {path!r}")
        path = os.path.abspath(path)
    status = _hgemm.set_user_table(path)
    if status != _hgemm.SUCCESS:
        raise_last_error(status)


def cli_path():
    """The hgemm command that came with this library: $HGEMM_CLI, else bin/hgemm in the package
    (a wheel), else the one beside the loaded libhgemm (an install prefix or the build tree), else
    the one on PATH."""
    if os.environ.get("HGEMM_CLI"):
        return os.environ["HGEMM_CLI"]
    lib_dir = os.path.dirname(_hgemm.library_path())
    for candidate in (os.path.join(os.path.dirname(__file__), "bin", "hgemm"),
                      os.path.join(lib_dir, os.pardir, "bin", "hgemm"),
                      os.path.join(lib_dir, "hgemm")):
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.normpath(candidate)
    found = shutil.which("hgemm")
    if not found:
        raise FileNotFoundError("no hgemm command beside libhgemm or on PATH (set HGEMM_CLI)")
    return found
