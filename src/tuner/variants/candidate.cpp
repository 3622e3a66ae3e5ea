#include "tuner/variants/candidate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>

#include <cuda_runtime_api.h>

#include "bench/environment.hpp"
#include "core/device.hpp"
#include "core/error.hpp"
#include "launch/sm90_launch.hpp"
#include "tuner/db/json.hpp"
#include "tuner/measure/gpu_measurer.hpp"
#include "verify/device_buffer.hpp"

namespace hgemm::variants {
namespace {

using tuner::json::quote;

std::string num(double v) { return std::isfinite(v) ? tuner::json::number_text(v) : "null"; }
std::string flag(bool b) { return b ? "true" : "false"; }

std::string shape_name(const Shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

std::string report_json(const verify::Report& r) {
  std::string out = "{\"disposition\":" + quote(verify::to_string(r.disposition)) +
                    ",\"summary\":" + quote(r.summary()) + ",\"checks\":[";
  for (size_t i = 0; i < r.checks.size(); ++i) {
    const verify::CheckResult& c = r.checks[i];
    out += std::string(i ? "," : "") + "{\"check\":" + quote(c.check) +
           ",\"disposition\":" + quote(verify::to_string(c.disposition)) +
           ",\"reason\":" + quote(c.reason) + ",\"rel_fro_error\":" + num(c.rel_fro_error) +
           ",\"tol_rel_fro\":" + num(c.tol_rel_fro) + ",\"max_abs_error\":" +
           num(c.max_abs_error) + ",\"tol_max_abs\":" + num(c.tol_max_abs) +
           ",\"worst_row\":" + std::to_string(c.worst_row) +
           ",\"worst_col\":" + std::to_string(c.worst_col) + "}";
  }
  return out + "]}";
}

}  // namespace

verify::GemmFn rewrite_gemm(const KernelConfig& config, const Sm90Kernel* kernel) {
  return [config, kernel](const Problem& p, const void* a, const void* b, void* c,
                          cudaStream_t stream) {
    GemmArgs args{a, b, c, p.m, p.n, p.k, stream};
    if (Status s = sm90_can_implement(p, config, args, current_device()); !s.ok())
      HGEMM_THROW(s.code, s.message);
    sm90_launch(config, *kernel, args);
  };
}

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::kAccepted: return "accepted";
    case Verdict::kCompiled: return "compiled";
    case Verdict::kVerified: return "verified";
    case Verdict::kRejectedByRules: return "rejected_by_rules";
    case Verdict::kCompileFailed: return "compile_failed";
    case Verdict::kVerifyFailed: return "verify_failed";
    case Verdict::kRecheckFailed: return "recheck_failed";
    case Verdict::kError: return "error";
  }
  return "error";
}

int exit_code(Verdict v) {
  switch (v) {
    case Verdict::kAccepted:
    case Verdict::kCompiled:
    case Verdict::kVerified: return 0;
    case Verdict::kRejectedByRules: return 3;
    case Verdict::kCompileFailed: return 4;
    case Verdict::kVerifyFailed:
    case Verdict::kRecheckFailed: return 5;
    case Verdict::kError: return 1;
  }
  return 1;
}

verify::GemmFn fresh_buffer_calls(verify::GemmFn candidate, std::string* mismatch) {
  auto kept = std::make_shared<std::vector<std::unique_ptr<verify::DeviceBuffer>>>();
  return [candidate = std::move(candidate), kept, mismatch](
             const Problem& p, const void* a, const void* b, void* c, cudaStream_t stream) {
    const size_t a_bytes = size_t(p.m) * size_t(p.k) * 2;
    const size_t b_bytes = size_t(p.k) * size_t(p.n) * 2;
    const size_t c_bytes = size_t(p.m) * size_t(p.n) * 2;
    auto padded = [](size_t bytes) { return (bytes + 255) / 256 * 256; };
    // Kept, not freed: a later call's buffers must not reuse these addresses.
    auto buffer = std::make_unique<verify::DeviceBuffer>();
    buffer->reserve(padded(a_bytes) + padded(b_bytes) + padded(c_bytes));
    char* fa = buffer->as<char>();
    char* fb = fa + padded(a_bytes);
    char* fc = fb + padded(b_bytes);
    kept->push_back(std::move(buffer));
    HGEMM_CUDA_CHECK(cudaMemcpyAsync(fa, a, a_bytes, cudaMemcpyDeviceToDevice, stream));
    HGEMM_CUDA_CHECK(cudaMemcpyAsync(fb, b, b_bytes, cudaMemcpyDeviceToDevice, stream));
    std::vector<uint16_t> out[2] = {std::vector<uint16_t>(c_bytes / 2),
                                    std::vector<uint16_t>(c_bytes / 2)};
    for (auto& result : out) {
      // 0xFFFF is a NaN in fp16 and bf16 alike: a call that skips its stores leaves NaN.
      HGEMM_CUDA_CHECK(cudaMemsetAsync(fc, 0xFF, c_bytes, stream));
      candidate(p, fa, fb, fc, stream);
      HGEMM_CUDA_CHECK(cudaGetLastError());
      HGEMM_CUDA_CHECK(
          cudaMemcpyAsync(result.data(), fc, c_bytes, cudaMemcpyDeviceToHost, stream));
      HGEMM_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    if (mismatch && mismatch->empty() && out[0] != out[1]) {
      const auto at = std::mismatch(out[0].begin(), out[0].end(), out[1].begin());
      const size_t i = size_t(at.first - out[0].begin());
      char text[160];
      std::snprintf(text, sizeof text,
                    "two calls on the same inputs in the same buffers differ, first at (%zu,%zu): "
                    "0x%04x, then 0x%04x",
                    i / size_t(p.n), i % size_t(p.n), unsigned(*at.first), unsigned(*at.second));
      *mismatch = text;
    }
    HGEMM_CUDA_CHECK(cudaMemcpyAsync(c, fc, c_bytes, cudaMemcpyDeviceToDevice, stream));
  };
}

TryRecord try_candidate(const TryOptions& o) {
  TryRecord r;
  auto progress = [&](const std::string& line) {
    if (o.progress) o.progress(line);
  };
  auto fail = [&r](Verdict v, std::string reason) {
    r.verdict = v;
    r.reasons.push_back(std::move(reason));
    return r;
  };
  r.config = o.config.name();
  r.family_path = o.family_path;
  r.source_hash = jit::text_hash(o.source);
  r.git_hash = bench::git_hash();
  r.rules_checked = o.source_rules;
  const jit::EmbeddedFile* family = jit::find_embedded(o.family_path);
  if (!family) return fail(Verdict::kError, "no embedded header '" + o.family_path + "'");
  if (o.config.family != Family::kSm90Ws)
    return fail(Verdict::kError, r.config + " is not an sm90 config: only the sm90 family's "
                                            "header can be rewritten");
  if (Status s = o.config.validate(); !s.ok()) return fail(Verdict::kError, s.message);
  if (o.shapes.empty() && o.stop != Stop::kAfterCompile)
    return fail(Verdict::kError, "no shapes to verify and time on");
  r.lines_changed = lines_changed(family->text, o.source);

  progress("stage: rules");
  if (o.source_rules) {
    r.rules = check_source(o.source, o.family_path, family->text);
    if (!r.rules.passed()) {
      r.verdict = Verdict::kRejectedByRules;
      for (const Violation& v : r.rules.violations) r.reasons.push_back(v.text());
      return r;
    }
  }

  progress("stage: compile");
  jit::Options jo = o.jit;
  jo.header_override = jit::HeaderOverride{o.family_path, o.source};
  jo.compile_seconds = o.compile_seconds;
  jo.compile_memory_mib = o.compile_memory_mib;
  jo.jobs = 1;
  const jit::Artifact artifact = jit::build({o.config}, jo).front();
  r.compile_seconds = artifact.seconds;
  r.compile_cached = artifact.cached;
  r.jit_key = artifact.key;
  if (!artifact.status.ok()) return fail(Verdict::kCompileFailed, artifact.status.message);
  r.compiled = true;
  if (o.stop == Stop::kAfterCompile) {
    r.verdict = Verdict::kCompiled;
    return r;
  }

  if (o.recheck_seed) {
    r.recheck_seed = o.recheck_seed;
  } else {
    // In [1, 2^63): a recorded seed is one `--recheck-seed` (a signed 64-bit option) replays.
    std::random_device random;
    r.recheck_seed = (uint64_t(random()) << 32 ^ random()) & 0x7fffffffffffffffull;
    if (r.recheck_seed == 0) r.recheck_seed = 1;
  }
  // Which step an exception interrupts decides whom it blames: the rewrite (a launch failure that
  // left the context unusable) or the pipeline (no device, a reference that cannot run).
  Verdict blame = Verdict::kError;
  std::string where;
  try {
    r.device = current_device().name;
    std::string why;
    const Sm90Kernel* kernel = jit::load(artifact, &why);
    if (!kernel) return fail(Verdict::kVerifyFailed, "cannot load the compiled rewrite: " + why);
    const verify::GemmFn fn = rewrite_gemm(o.config, kernel);
    // A shape's result, its stage announced and named for whatever interrupts it.
    auto begin = [&](const Shape& shape, const std::string& stage) {
      ShapeResult s;
      s.shape = shape;
      s.problem = Problem{shape.m, shape.n, shape.k, o.config.layout, o.config.accum,
                          o.config.dtype};
      progress("stage: " + stage + " " + shape_name(shape));
      blame = Verdict::kVerifyFailed;
      where = shape_name(shape) + ": " + stage + ": ";
      return s;
    };
    if (o.stop == Stop::kAfterVerify) {
      verify::Verifier verifier;
      for (const Shape& shape : o.shapes) {
        ShapeResult s = begin(shape, "verify");
        s.verifier = verifier.check(s.problem, fn);
        r.shapes.push_back(s);
        if (!s.verifier.passed())
          return fail(Verdict::kVerifyFailed, shape_name(shape) + ": " + s.verifier.summary());
      }
      r.verdict = Verdict::kVerified;
      return r;
    }
    tuner::GpuMeasurer measurer;
    // Its workspace is allocated after the measurer's buffers: addresses the timed calls never saw.
    verify::Verifier fresh_verifier;
    verify::Options recheck_options;
    recheck_options.seed = r.recheck_seed;
    double speedups = 0, errors = 0;
    for (const Shape& shape : o.shapes) {
      ShapeResult s = begin(shape, "verify and time");
      s.measurement = measurer.measure(s.problem, o.config, fn);
      s.verifier = measurer.last_report();
      if (!s.measurement.timed()) {
        r.shapes.push_back(s);
        return fail(Verdict::kVerifyFailed,
                    shape_name(shape) + ": " +
                        std::string(tuner::to_string(s.measurement.disposition)) + ": " +
                        s.measurement.detail);
      }
      progress("stage: recheck " + shape_name(shape));
      blame = Verdict::kRecheckFailed;
      where = shape_name(shape) + ": recheck: ";
      s.recheck = fresh_verifier.check(s.problem, fresh_buffer_calls(fn, &s.repeat_mismatch),
                                       recheck_options);
      s.rechecked = true;
      r.shapes.push_back(s);
      if (!s.recheck.passed())
        return fail(Verdict::kRecheckFailed,
                    shape_name(shape) + ": after timing, on fresh inputs in fresh buffers: " +
                        s.recheck.summary());
      if (!s.repeat_mismatch.empty())
        return fail(Verdict::kRecheckFailed, shape_name(shape) + ": " + s.repeat_mismatch);
      speedups += s.measurement.speedup();
      errors += std::isfinite(s.measurement.error_ratio)
                    ? std::clamp(s.measurement.error_ratio, 0.0, 1.0)
                    : 1.0;
    }
    const double n = double(o.shapes.size());
    r.mean_speedup = speedups / n;
    r.error_term = errors / n;
    r.reward = tuner::source_reward(r.mean_speedup, r.error_term, r.lines_changed, r.weights);
    r.verdict = Verdict::kAccepted;
  } catch (const std::exception& e) {
    return fail(blame, where + e.what());
  }
  return r;
}

std::string TryRecord::to_json() const {
  std::string out = "{\"schema\":\"hgemm-variant-try 1\",\"verdict\":" + quote(to_string(verdict)) +
                    ",\"reasons\":[";
  for (size_t i = 0; i < reasons.size(); ++i) {
    if (i) out += ',';
    out += quote(reasons[i]);
  }
  out += "],\"config\":" + quote(config) + ",\"family_path\":" + quote(family_path) +
         ",\"source_hash\":" + quote(source_hash) +
         ",\"lines_changed\":" + std::to_string(lines_changed) + ",\"rules\":{\"checked\":" +
         flag(rules_checked) + ",\"passed\":" + flag(rules_checked && rules.passed()) +
         ",\"violations\":" + rules.violations_json() +
         "},\"compile\":{\"ok\":" + flag(compiled) + ",\"seconds\":" + num(compile_seconds) +
         ",\"cached\":" + flag(compile_cached) + ",\"jit_key\":" + quote(jit_key) +
         "},\"shapes\":[";
  for (size_t i = 0; i < shapes.size(); ++i) {
    const ShapeResult& s = shapes[i];
    const tuner::Measurement& m = s.measurement;
    out += std::string(i ? "," : "") + "{\"shape\":" + quote(shape_name(s.shape)) +
           ",\"problem\":" + quote(s.problem.name()) +
           ",\"disposition\":" + quote(tuner::to_string(m.disposition)) +
           ",\"median_us\":" + num(m.median_us) + ",\"p20_us\":" + num(m.p20_us) +
           ",\"p80_us\":" + num(m.p80_us) + ",\"reference_us\":" + num(m.reference_us) +
           ",\"speedup\":" + num(m.timed() ? m.speedup() : NAN) +
           ",\"error_ratio\":" + num(m.error_ratio) + ",\"detail\":" + quote(m.detail) +
           ",\"verifier\":" + (s.verifier.checks.empty() ? "null" : report_json(s.verifier)) +
           ",\"recheck\":" + (s.rechecked ? report_json(s.recheck) : "null") +
           ",\"repeat_mismatch\":" + quote(s.repeat_mismatch) + "}";
  }
  const bool measured = verdict == Verdict::kAccepted;
  out += "],\"recheck_seed\":" + quote(std::to_string(recheck_seed)) +
         ",\"mean_speedup\":" + num(measured ? mean_speedup : NAN) +
         ",\"error_term\":" + num(measured ? error_term : NAN) +
         ",\"reward\":" + num(measured ? reward : NAN) + ",\"alpha\":" + num(weights.alpha) +
         ",\"beta\":" + num(weights.beta) + ",\"device\":" + quote(device) +
         ",\"git_hash\":" + quote(git_hash) + "}";
  return out;
}

}  // namespace hgemm::variants
