#include "dispatch/padded_c.hpp"

#include "core/decode_variant.hpp"
#include "launch/workspace.hpp"

namespace hgemm::dispatch {

PaddedC padded_c(const Problem& problem, const GemmArgs& args) {
  if (problem.layout != Layout::kTN || problem.n % 8 == 0 || problem.k % 8 != 0 ||
      problem.m <= kDecodeMaxM)
    return {};
  if (args.batch_count != 1 || args.a_col_major || !args.epilogue.plain() ||
      !args.packed(problem.layout) || args.workspace)
    return {};
  const int64_t row_bytes = padded_c_ld(problem.n) * 2;
  const int64_t fit = int64_t(kMaxWorkspaceBytes) / row_bytes;
  if (fit >= problem.m) return {problem.m};
  // Rows so wide that not even kPaddedCBlockAlign fit: blocks of whole 16-row groups.
  const int64_t align = fit >= kPaddedCBlockAlign ? kPaddedCBlockAlign : 16;
  return {fit / align * align};
}

Problem padded_c_problem(const Problem& problem, int64_t rows) {
  Problem p = problem;
  p.m = rows;
  p.n = padded_c_ld(problem.n);
  return p;
}

Problem padded_c_decided(const Problem& problem) {
  const PaddedC pad = padded_c(problem, stand_in_args(problem));
  return pad ? padded_c_problem(problem, pad.block_rows) : problem;
}

std::string padded_c_reason(const Problem& problem, PaddedC pad) {
  const int64_t blocks = (problem.m + pad.block_rows - 1) / pad.block_rows;
  return "N=" + std::to_string(problem.n) +
         " is no multiple of 8: C computed in a copy with rows of " +
         std::to_string(padded_c_ld(problem.n)) + " columns" +
         (blocks > 1 ? ", " + std::to_string(blocks) + " blocks of " +
                           std::to_string(pad.block_rows) + " rows"
                     : std::string()) +
         ", then copied into C";
}

GemmArgs padded_c_block(const GemmArgs& args, void* copy, int64_t m0, int64_t rows) {
  GemmArgs block = args;
  block.a = static_cast<const uint16_t*>(args.a) + m0 * args.row_stride_a();
  block.c = copy;
  block.m = rows;
  block.lda = args.row_stride_a();
  block.ldb = args.row_stride_b(Layout::kTN);
  block.ldc = padded_c_ld(args.n);
  block.c_rows_padded = true;
  return block;
}

}  // namespace hgemm::dispatch
