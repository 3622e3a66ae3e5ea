// KernelConfig: naming, parsing, validation and the derived sizes. The legality rules here are
// the ones each family's kernel static_asserts; the search space (tuner) builds on them.
#include <charconv>
#include <string>
#include <vector>

#include "core/decode_variant.hpp"
#include "core/kernel_variant.hpp"
#include "core/promoted.hpp"
#include "core/smem_budget.hpp"
#include "hgemm/hgemm.hpp"

namespace hgemm {
namespace {

// Between a config's name and its source's: '-' never appears in either, so the tag is found
// whatever the source's name holds.
constexpr std::string_view kSourceTag = "_src-";

std::vector<std::string_view> split_tokens(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t end = text.find(sep, start);
    out.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

bool parse_int(std::string_view text, int& out) {
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && ptr == text.data() + text.size();
}

// "AxB" or "AxBxC" into ints.
bool parse_dims(std::string_view text, int* out, int count) {
  auto parts = split_tokens(text, 'x');
  if (int(parts.size()) != count) return false;
  for (int i = 0; i < count; ++i)
    if (!parse_int(parts[i], out[i])) return false;
  return true;
}

bool parse_prefixed(std::string_view token, std::string_view prefix, int& out) {
  return token.substr(0, prefix.size()) == prefix && parse_int(token.substr(prefix.size()), out);
}

bool is_pow2(int x) { return x > 0 && (x & (x - 1)) == 0; }

Status invalid(const KernelConfig& c, const std::string& why) {
  return Status::failure(HGEMM_ERROR_NOT_SUPPORTED, c.name() + ": " + why);
}

Status validate_sm80(const KernelConfig& c) {
  auto tile_ok = [](int x) { return x == 32 || x == 64 || x == 128 || x == 256; };
  if (!tile_ok(c.block_m) || !tile_ok(c.block_n))
    return invalid(c, "sm80 block_m and block_n must be 32, 64, 128 or 256");
  if (c.block_k != 32 && c.block_k != 64) return invalid(c, "sm80 block_k must be 32 or 64");
  if (c.num_stages < 2 || c.num_stages > 6) return invalid(c, "sm80 needs 2 to 6 stages");
  const int warps = c.warps_m * c.warps_n;
  if (c.warps_m < 1 || c.warps_n < 1 || !is_pow2(warps) || warps > 8)
    return invalid(c, "sm80 warp grid must hold 1, 2, 4 or 8 warps");
  // Each warp tiles its share with m16n8k16 atoms and 16-column ldmatrix loads of B.
  if (c.block_m % (16 * c.warps_m) != 0) return invalid(c, "block_m must be a multiple of 16*warps_m");
  if (c.block_n % (16 * c.warps_n) != 0) return invalid(c, "block_n must be a multiple of 16*warps_n");
  // More than 128 accumulator registers per thread spills with the fragments on top.
  if (c.block_m * c.block_n / (32 * warps) > 128)
    return invalid(c, "more than 128 accumulators per thread");
  if (c.num_consumer_wgs != 1 || c.cluster_m != 1 || c.cluster_n != 1 ||
      c.schedule != Schedule::kCooperative)
    return invalid(c, "sm80 has no warpgroups or clusters (w1, c1x1)");
  if (c.split_k < 1 || c.split_k > kMaxSplitK) return invalid(c, "split_k must be 1 to 64");
  if (c.epilogue != Epilogue::kDirect) return invalid(c, "sm80 stores C directly");
  if (c.raster != Raster::kAlongM || c.group_size != 8)
    return invalid(c, "sm80 has no persistent scheduler (raster m8)");
  return Status::success();
}

Status validate_sm90(const KernelConfig& c) {
  // The kernel's own tile (swap-AB, C^T = B^T A^T, tiles M with wgmma's N and N with its M).
  const Sm90Variant v = sm90_variant(c);
  const int rows = v.block_m;  // along wgmma's M
  const int cols = v.block_n;  // along wgmma's N
  if (rows != 64 && rows != 128 && rows != 192 && rows != 256)
    return invalid(c, c.swap_ab
                          ? "sm90 swap-AB block_n must be 64, 128, 192 or 256 (N is wgmma's M)"
                          : "sm90 block_m must be 64, 128, 192 or 256 (wgmma M is 64)");
  // wgmma's N goes down to 8; only swap-AB uses it, for decode-sized M (8 tokens, not 16 of
  // padding), where cuBLASLt runs 64-384 x 8 tiles.
  if (cols < (c.swap_ab ? 8 : 16) || cols > 256 || cols % 8 != 0)
    return invalid(c, c.swap_ab ? "sm90 swap-AB block_m must be a multiple of 8 from 8 to 256 "
                                  "(M is wgmma's N)"
                                : "sm90 block_n must be a multiple of 8 from 16 to 256 (wgmma N "
                                  "steps)");
  // stmatrix stores and N-major B chunks come in 16 columns; a K-major B tile of 8 mod 16 rows
  // still fills whole 1 KiB swizzle periods with BK = 64. A swap-AB TMA store stages such a
  // tile's columns (C's rows) 8 at a time (stmatrix .x2 .trans, sm90_geometry's c_chunk).
  const bool b_k_major = sm90_b_k_major(v);
  if (cols % 16 != 0 &&
      (!b_k_major || (c.epilogue != Epilogue::kDirect && !c.swap_ab) || c.block_k != 64))
    return invalid(c, c.swap_ab ? "sm90 swap-AB block_m of 8 mod 16 needs block_k 64"
                                : "sm90 block_n of 8 mod 16 needs tn, direct stores (st) and "
                                  "block_k 64");
  // NN's swapped A is the problem's K x N B, which TMA loads M-major in 64-row chunks of BK
  // k-rows of 128 bytes.
  if (c.swap_ab && c.layout == Layout::kNN && c.block_k != 64)
    return invalid(c, "swap-AB in nn reads B M-major: block_k 64");
  if (c.block_k != 32 && c.block_k != 64)
    return invalid(c, "sm90 block_k must be 32 or 64 (one 64B or 128B swizzle span)");
  if (c.num_stages < 2 || c.num_stages > 16) return invalid(c, "sm90 needs 2 to 16 stages");
  if (c.num_consumer_wgs < 1 || c.num_consumer_wgs > 3)
    return invalid(c, "sm90 has 1 to 3 consumer warpgroups");
  const bool ping_pong = c.schedule == Schedule::kPingPong;
  if (ping_pong && c.num_consumer_wgs != 2)
    return invalid(c, "ping-pong alternates two consumer warpgroups");
  // Ping-pong: each warpgroup computes the whole tile; cooperative: a band of its rows, or on a
  // 64-row tile with two warpgroups every other k-block (sm90_splits_k_blocks).
  const int rows_per_wg = ping_pong || sm90_splits_k_blocks(v) ? rows : rows / c.num_consumer_wgs;
  if (rows_per_wg != 64 && rows_per_wg != 128)
    return invalid(c, "each consumer warpgroup must own 64 or 128 rows");
  if (!sm90_cluster_dim_ok(c.cluster_m) || !sm90_cluster_dim_ok(c.cluster_n) ||
      c.cluster_m * c.cluster_n > kSm90MaxClusterSize)
    return invalid(c, "sm90 cluster sides are 1, 2 or 4, at most 8 CTAs");
  if (!sm90_cluster_parts_ok(v.block_m, v.block_n, v.block_k, v.cluster_m, v.cluster_n,
                             sm90_a_k_major(v), b_k_major))
    return invalid(c, "sm90 cluster: each CTA multicasts a multiple of 8 rows of the tile it "
                      "shares (the kernel's block_m or, M-major, block_k over cluster_n, and "
                      "block_n / cluster_m in tn or block_k / cluster_m in nn)");
  if (!is_pow2(c.group_size) || c.group_size > 16)
    return invalid(c, "group_size must be 1, 2, 4, 8 or 16");
  if (c.split_k < 0 || c.split_k > kMaxSplitK)
    return invalid(c, "sm90 split_k must be 0 (the last round split) or 1 to 64");
  if (c.warps_m != 2 || c.warps_n != 2) return invalid(c, "sm90 does not use warps_m/warps_n");
  const int acc_regs = rows_per_wg * cols / 128 / (c.accum == Accum::kF16 ? 2 : 1);
  if (const int most = sm90_max_acc_regs(c.num_consumer_wgs); acc_regs > most) {
    std::string why = "more than " + std::to_string(most) +
                      " accumulator registers per consumer thread";
    if (c.num_consumer_wgs == 3)
      why += " (three consumer warpgroups have " +
             std::to_string(sm90_register_split(3).consumer) + " registers each)";
    return invalid(c, why);
  }
  return Status::success();
}

// The decode kernel (kernels/sm80/sm80_decode.cuh) static_asserts the same rules.
Status validate_decode(const KernelConfig& c) {
  if (c.block_m != kDecodeMaxM)
    return invalid(c, "decode computes up to 16 rows of C (block_m 16): A's rows are the mma's "
                      "two n8 column blocks");
  if (c.block_n != 8 && c.block_n != 16 && c.block_n != 32 && c.block_n != 64 &&
      c.block_n != 128)
    return invalid(c, "decode block_n must be 8, 16, 32, 64 or 128 (B rows fill m16 tiles)");
  if (c.layout == Layout::kNN && c.block_n % 64 != 0)
    return invalid(c, "decode NN needs block_n 64 or 128: B is transposed in registers, a "
                      "lane's 16-byte piece of a B row holds 8 columns and a warp's 8 lane "
                      "groups 64");
  if (c.block_k != 32 && c.block_k != 64 && c.block_k != 128 && c.block_k != 256)
    return invalid(c, "decode block_k must be 32, 64, 128 or 256 (k32 chunks: 4 lanes x 8 "
                      "halves of each row)");
  if (c.num_stages < 2 || c.num_stages > 8) return invalid(c, "decode needs 2 to 8 stages");
  if (c.warps_m != 1 || (c.warps_n != 1 && c.warps_n != 2 && c.warps_n != 4 && c.warps_n != 8))
    return invalid(c, "decode splits K over 1, 2, 4 or 8 warps (warps_n; warps_m is 1)");
  if (c.split_k != 1)
    return invalid(c, "decode does not split K across CTAs (sk1): its warps reduce in shared "
                      "memory");
  if (c.num_consumer_wgs != 1 || c.cluster_m != 1 || c.cluster_n != 1 ||
      c.schedule != Schedule::kCooperative || c.epilogue != Epilogue::kDirect)
    return invalid(c, "decode has no warpgroups, clusters or TMA (w1, c1x1, st)");
  if (c.raster != Raster::kAlongM || c.group_size != 8)
    return invalid(c, "decode has no persistent scheduler (raster m8)");
  return Status::success();
}

}  // namespace

std::string KernelConfig::name() const {
  // The element type, then the source: the family header's kernels keep the names they had.
  std::string suffix = dtype == DType::kBF16 ? "_bf16" : "";
  if (!source.empty()) suffix.append(kSourceTag).append(source.view());
  if (family == Family::kDecode)
    return "decode_n" + std::to_string(block_n) + "_k" + std::to_string(block_k) + "_s" +
           std::to_string(num_stages) + "_w" + std::to_string(warps_n) + "_" +
           std::string(to_string(accum)) + "_" + std::string(to_string(layout)) + suffix;
  std::string tile = std::to_string(block_m) + "x" + std::to_string(block_n) + "x" +
                     std::to_string(block_k);
  std::string tail = "_sk" + std::to_string(split_k) + "_" + std::string(to_string(accum)) + "_" +
                     std::string(to_string(layout));
  if (family == Family::kSm80Mma) {
    return "sm80_mma_" + tile + "_s" + std::to_string(num_stages) + "_w" + std::to_string(warps_m) +
           "x" + std::to_string(warps_n) + tail + suffix;
  }
  const char* prefix = schedule == Schedule::kPingPong ? "sm90_pp_" : "sm90_ws_";
  return prefix + tile + "_s" + std::to_string(num_stages) + "_c" + std::to_string(cluster_m) +
         "x" + std::to_string(cluster_n) + "_w" + std::to_string(num_consumer_wgs) + "_" +
         (raster == Raster::kAlongM ? "m" : "n") + std::to_string(group_size) + "_" +
         (epilogue == Epilogue::kTmaStore ? "tma" : "st") + tail + (swap_ab ? "_swap" : "") +
         suffix;
}

std::optional<KernelConfig> KernelConfig::parse(std::string_view full) {
  // A source's name may hold '_', so it is cut off before the tokens.
  SourceName source;
  const size_t tag = full.rfind(kSourceTag);
  if (tag != std::string_view::npos) {
    const auto parsed = SourceName::from(full.substr(tag + kSourceTag.size()));
    if (!parsed || parsed->empty()) return std::nullopt;
    source = *parsed;
  }
  const std::string_view name = full.substr(0, tag);
  auto t = split_tokens(name, '_');
  // The element type is the last token when it is not fp16; name() below checks the spelling.
  const bool bf16 = t.size() > 1 && t.back() == "bf16";
  if (bf16) t.pop_back();
  KernelConfig c;
  c.dtype = bf16 ? DType::kBF16 : DType::kF16;
  c.source = source;
  if (t.size() == 7 && t[0] == "decode") {
    DecodeVariant v;
    auto accum = parse_accum(t[5]);
    auto layout = parse_layout(t[6]);
    if (!parse_prefixed(t[1], "n", v.block_n) || !parse_prefixed(t[2], "k", v.block_k) ||
        !parse_prefixed(t[3], "s", v.num_stages) || !parse_prefixed(t[4], "w", v.num_warps) ||
        !accum || !layout)
      return std::nullopt;
    v.accum = *accum;
    v.layout = *layout;
    v.dtype = c.dtype;
    c = to_config(v);
    c.source = source;
    if (c.name() != full) return std::nullopt;
    return c;
  }
  size_t i = 0;
  int tile[3];
  if (t.size() == 8 && t[0] == "sm80" && t[1] == "mma") {
    c.family = Family::kSm80Mma;
    int warps[2];
    if (!parse_dims(t[2], tile, 3) || !parse_prefixed(t[3], "s", c.num_stages) ||
        t[4].substr(0, 1) != "w" || !parse_dims(t[4].substr(1), warps, 2))
      return std::nullopt;
    c.warps_m = warps[0];
    c.warps_n = warps[1];
    i = 5;
  } else if ((t.size() == 11 || (t.size() == 12 && t[11] == "swap")) && t[0] == "sm90" &&
             (t[1] == "ws" || t[1] == "pp")) {
    c.family = Family::kSm90Ws;
    c.swap_ab = t.size() == 12;
    c.schedule = t[1] == "pp" ? Schedule::kPingPong : Schedule::kCooperative;
    int cluster[2];
    if (!parse_dims(t[2], tile, 3) || !parse_prefixed(t[3], "s", c.num_stages) ||
        t[4].substr(0, 1) != "c" || !parse_dims(t[4].substr(1), cluster, 2) ||
        !parse_prefixed(t[5], "w", c.num_consumer_wgs) || t[6].empty())
      return std::nullopt;
    c.cluster_m = cluster[0];
    c.cluster_n = cluster[1];
    if (t[6][0] == 'm') c.raster = Raster::kAlongM;
    else if (t[6][0] == 'n') c.raster = Raster::kAlongN;
    else return std::nullopt;
    if (!parse_int(t[6].substr(1), c.group_size)) return std::nullopt;
    if (t[7] == "tma") c.epilogue = Epilogue::kTmaStore;
    else if (t[7] == "st") c.epilogue = Epilogue::kDirect;
    else return std::nullopt;
    i = 8;
  } else {
    return std::nullopt;
  }
  c.block_m = tile[0];
  c.block_n = tile[1];
  c.block_k = tile[2];
  auto accum = parse_accum(t[i + 1]);
  auto layout = parse_layout(t[i + 2]);
  if (!parse_prefixed(t[i], "sk", c.split_k) || !accum || !layout) return std::nullopt;
  c.accum = *accum;
  c.layout = *layout;
  // Only the canonical spelling parses, so name() and parse() are exact inverses.
  if (c.name() != full) return std::nullopt;
  return c;
}

Status KernelConfig::validate() const {
  if (!source.empty()) {
    const std::string_view src = source.view();
    if (family != Family::kSm90Ws)
      return Status::failure(HGEMM_ERROR_NOT_SUPPORTED,
                             name() + ": only the sm90 family has promoted sources (src-)");
    if (!SourceName::from(src)) {
      // Appended piece by piece: "'" + std::string&& trips gcc 12's -Wrestrict (a false
      // positive in its inlined memcpy).
      std::string why = "'";
      why.append(src).append("' is not a promoted source name");
      return Status::failure(HGEMM_ERROR_NOT_SUPPORTED, why);
    }
    if (!find_promoted_source(src))
      return Status::failure(HGEMM_ERROR_NOT_SUPPORTED,
                             name() + ": this build has no promoted source '" + std::string(src) +
                                 "' (src/kernels/sm90/variants/promoted.list)");
  }
  if (swap_ab && family != Family::kSm90Ws)
    return Status::failure(HGEMM_ERROR_NOT_SUPPORTED,
                           name() + ": only the sm90 family swaps A and B (swap)");
  if (dtype != DType::kF16 && dtype != DType::kBF16)
    return Status::failure(HGEMM_ERROR_INVALID_ENUM,
                           "unknown element type value " + std::to_string(int(dtype)));
  if (dtype == DType::kBF16 && accum != Accum::kF32)
    return Status::failure(HGEMM_ERROR_NOT_SUPPORTED,
                           name() + ": bf16 accumulates in fp32 only (f32)");
  if (dtype == DType::kBF16 && family == Family::kSm80Mma)
    return Status::failure(HGEMM_ERROR_NOT_SUPPORTED,
                           name() + ": the sm80 catalog is fp16 only (bf16 runs on sm90 and decode)");
  Status s = family == Family::kSm80Mma  ? validate_sm80(*this)
             : family == Family::kDecode ? validate_decode(*this)
                                         : validate_sm90(*this);
  if (!s.ok()) return s;
  if (smem_bytes() > kMaxSmemPerBlock)
    return invalid(*this, "needs " + std::to_string(smem_bytes()) + " B of shared memory, over " +
                              std::to_string(kMaxSmemPerBlock));
  return s;
}

uint64_t KernelConfig::hash() const {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the canonical name
  for (char ch : name()) {
    h ^= static_cast<unsigned char>(ch);
    h *= 1099511628211ull;
  }
  return h;
}

int KernelConfig::num_threads() const {
  if (family == Family::kSm80Mma) return sm80_geometry(sm80_variant(*this)).num_threads;
  if (family == Family::kDecode) return decode_geometry(decode_variant(*this)).num_threads;
  return sm90_geometry(sm90_variant(*this)).num_threads;
}

KernelConfig KernelConfig::instance() const {
  KernelConfig x = *this;
  const KernelConfig defaults;
  x.raster = defaults.raster;
  x.group_size = defaults.group_size;
  x.split_k = defaults.split_k;
  return x;
}

int KernelConfig::smem_bytes() const {
  if (family == Family::kSm80Mma) return sm80_geometry(sm80_variant(*this)).smem_bytes;
  if (family == Family::kDecode) return decode_geometry(decode_variant(*this)).smem_bytes;
  return sm90_geometry(sm90_variant(*this)).smem_bytes;
}

}  // namespace hgemm
