# Host cost per call from Python: hgemm.linear vs F.linear, and the pieces of hgemm's path.
import time, torch, torch.nn.functional as F, hgemm
from hgemm import _ops
x = torch.randn(3, 1408, device="cuda", dtype=torch.half)
w = torch.randn(2048, 1408, device="cuda", dtype=torch.half)
y = torch.empty(3, 2048, device="cuda", dtype=torch.half)
def per_call(fn, n=20000):
    for _ in range(200): fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n): fn()
    host = (time.perf_counter() - t) / n * 1e6
    torch.cuda.synchronize()
    return host
def per_call_sync(fn, n=3000):
    for _ in range(100): fn(); torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n): fn(); torch.cuda.synchronize()
    return (time.perf_counter() - t) / n * 1e6
cases = {
  "F.linear": lambda: F.linear(x, w),
  "hgemm.linear": lambda: hgemm.linear(x, w),
  "torch.matmul(x, w.t())": lambda: torch.matmul(x, w.t()),
  "hgemm.matmul(x, w.t())": lambda: hgemm.matmul(x, w.t()),
  "x.new_empty": lambda: x.new_empty((3, 2048)),
  "_eager_linear_layout": lambda: _ops._eager_linear_layout(x, w, "f32"),
  "_run into y": lambda: _ops._run(x, w.data_ptr(), y, 3, 2048, 1408, "tn", "f32", torch.float16),
  "_hgemm.run raw": lambda: _ops._hgemm.run(x.data_ptr(), w.data_ptr(), y.data_ptr(), 3, 2048, 1408, _ops.LAYOUTS["tn"], _ops.ACCS["f32"], _ops._current_stream(0)),
  "current_stream": lambda: _ops._current_stream(0),
}
for name, fn in cases.items():
    print(f"{name:28s} host {per_call(fn):7.2f} us/call   with sync {per_call_sync(fn):7.2f} us/call")
