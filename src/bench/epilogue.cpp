#include "bench/epilogue.hpp"

namespace hgemm::bench {

std::string_view to_string(EpilogueOp op) {
  switch (op) {
    case EpilogueOp::kNone: return "none";
    case EpilogueOp::kBias: return "bias";
    case EpilogueOp::kBiasRelu: return "bias_relu";
    case EpilogueOp::kBiasGelu: return "bias_gelu";
    case EpilogueOp::kRelu: return "relu";
    case EpilogueOp::kGelu: return "gelu";
  }
  return "?";
}

std::optional<EpilogueOp> parse_epilogue(std::string_view text) {
  for (EpilogueOp op : kAllEpilogueOps)
    if (text == to_string(op)) return op;
  return std::nullopt;
}

bool has_bias(EpilogueOp op) {
  return op == EpilogueOp::kBias || op == EpilogueOp::kBiasRelu || op == EpilogueOp::kBiasGelu;
}

Activation activation_of(EpilogueOp op) {
  switch (op) {
    case EpilogueOp::kBiasRelu:
    case EpilogueOp::kRelu: return Activation::kRelu;
    case EpilogueOp::kBiasGelu:
    case EpilogueOp::kGelu: return Activation::kGeluTanh;
    case EpilogueOp::kNone:
    case EpilogueOp::kBias: return Activation::kNone;
  }
  return Activation::kNone;
}

GemmDesc general_call(const Problem& problem, const verify::Epilogue& epilogue,
                      const verify::Batch& batch) {
  GemmDesc d;
  d.m = problem.m;
  d.n = problem.n;
  d.k = problem.k;
  d.order_a = Order::kRow;
  d.order_b = problem.layout == Layout::kNN ? Order::kRow : Order::kCol;
  d.order_c = Order::kRow;
  d.dtype = problem.dtype;
  d.accum = problem.accum;
  d.alpha = epilogue.alpha;
  d.bias = epilogue.bias;
  d.activation = epilogue.activation;
  if (batch.batched()) {
    d.batch_count = batch.count;
    d.stride_a = batch.stride_a;
    d.stride_b = batch.stride_b;
    d.stride_c = batch.stride_c;
  }
  return d;
}

GemmDesc general_call_a_col(const Problem& problem) {
  GemmDesc d = general_call(problem, {});
  d.order_a = Order::kCol;
  return d;
}

std::string formula(EpilogueOp op) {
  const std::string sum = has_bias(op) ? "A*B + bias" : "A*B";
  const Activation activation = activation_of(op);
  if (activation == Activation::kNone) return sum;
  return std::string(to_string(activation)) + "(" + sum + ")";
}

}  // namespace hgemm::bench
