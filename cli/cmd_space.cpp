// hgemm space: the search space's vocabulary and legality rules for tools outside the library
// (the LLM proposer in python/hgemm/llm), so that they ask the space instead of re-implementing
// it. Needs no GPU: the device is the nominal H100 SXM the tuner's dry runs use.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "hgemm/hgemm.hpp"
#include "tuner/db/json.hpp"
#include "tuner/space/space.hpp"

namespace hgemm::cli {
namespace {

using namespace hgemm::tuner;

constexpr const char* kHelp = R"(usage: hgemm space <axes|check> [options]

  axes               every family's axes and their values as JSON, one family a line:
                     {"family":"sm90","axes":{"block_m":[64,128,256],...},"runtime":[...]}
  check --shape MxNxK [--layout tn|nn] [--acc f32|f16] [--input FILE]
                     reads configs, one a line (FILE, default stdin): a config name, or a JSON
                     object {"family":"sm90","block_m":128,...} with every axis of its family
                     (runtime axes may be left out); prints one JSON line each: the config's name,
                     whether it is legal for the problem, whether only the JIT is missing
                     (`hgemm tune --jit NAME` builds it), and every rule it breaks with the reason

The device is a nominal H100 SXM (132 SMs, 227 KB of shared memory per block).
)";

struct FamilyWord {
  std::string_view word;
  Family family;
};
constexpr FamilyWord kFamilyWords[] = {
    {"sm90", Family::kSm90Ws}, {"sm80", Family::kSm80Mma}, {"decode", Family::kDecode}};

// Enum axes take words in proposals: a model should not have to know the enums' integers.
struct EnumWord {
  std::string_view axis;
  std::string_view word;
  int value;
};
constexpr EnumWord kEnumWords[] = {
    {"schedule", "cooperative", int(Schedule::kCooperative)},
    {"schedule", "ping_pong", int(Schedule::kPingPong)},
    {"epilogue", "direct", int(Epilogue::kDirect)},
    {"epilogue", "tma_store", int(Epilogue::kTmaStore)},
    {"raster", "along_m", int(Raster::kAlongM)},
    {"raster", "along_n", int(Raster::kAlongN)},
};

bool is_enum_axis(std::string_view axis) {
  return std::any_of(std::begin(kEnumWords), std::end(kEnumWords),
                     [&](const EnumWord& e) { return e.axis == axis; });
}

std::string value_text(std::string_view axis, int value) {
  for (const EnumWord& e : kEnumWords)
    if (e.axis == axis && e.value == value) return json::quote(e.word);
  return std::to_string(value);
}

std::string_view family_word(Family family) {
  for (const FamilyWord& f : kFamilyWords)
    if (f.family == family) return f.word;
  return "?";
}

int print_axes() {
  for (const FamilySpace& fs : families()) {
    std::string line = "{\"family\":" + json::quote(family_word(fs.family)) + ",\"axes\":{";
    std::string runtime;
    for (size_t i = 0; i < fs.axes.size(); ++i) {
      const Axis& a = fs.axes[i];
      line += (i ? "," : "") + json::quote(a.name) + ":[";
      for (size_t j = 0; j < a.values.size(); ++j)
        line += (j ? "," : "") + value_text(a.name, a.values[j]);
      line += "]";
      if (a.runtime) runtime += (runtime.empty() ? "" : ",") + json::quote(a.name);
    }
    line += "},\"runtime\":[" + runtime + "]}";
    std::printf("%s\n", line.c_str());
  }
  return 0;
}

// The config a proposal describes; throws ArgError naming the first thing wrong with it.
KernelConfig config_from_object(const json::Object& object, Layout layout, Accum accum) {
  const auto family_text = object.string("family");
  if (!family_text) throw ArgError("needs \"family\" (sm90, sm80 or decode) as a string");
  const FamilyWord* fw = std::find_if(std::begin(kFamilyWords), std::end(kFamilyWords),
                                      [&](const FamilyWord& f) { return f.word == *family_text; });
  if (fw == std::end(kFamilyWords))
    throw ArgError("unknown family '" + *family_text + "' (sm90, sm80 or decode)");
  const FamilySpace& fs = family_space(fw->family);
  KernelConfig c;
  c.family = fw->family;
  if (c.family == Family::kDecode) {  // fixed fields of the family, not axes
    c.block_m = 16;
    c.warps_m = 1;
  }
  c.layout = layout;
  c.accum = accum;
  for (const auto& [key, value] : object.fields()) {
    if (key == "family") continue;
    const auto axis = std::find_if(fs.axes.begin(), fs.axes.end(),
                                   [&](const Axis& a) { return a.name == key; });
    if (axis == fs.axes.end())
      throw ArgError("unknown key '" + key + "' for family " + *family_text);
    int v = 0;
    if (is_enum_axis(key)) {
      const std::string* word = std::get_if<std::string>(&value);
      const EnumWord* e = nullptr;
      for (const EnumWord& ew : kEnumWords)
        if (word && ew.axis == key && ew.word == *word) e = &ew;
      if (!e) throw ArgError("'" + key + "' must be one of its words (hgemm space axes)");
      v = e->value;
    } else {
      const double* d = std::get_if<double>(&value);
      if (!d || !(std::abs(*d) < 1e9) || *d != std::floor(*d)) throw ArgError("'" + key + "' must be an integer");
      v = int(*d);
    }
    if (std::find(axis->values.begin(), axis->values.end(), v) == axis->values.end())
      throw ArgError("'" + key + "' = " + value_text(key, v) + " is not one of the axis's values");
    axis->set(c, v);
  }
  for (const Axis& a : fs.axes)
    if (!a.runtime && !object.find(a.name))
      throw ArgError("missing '" + std::string(a.name) + "' for family " + *family_text);
  return c;
}

std::string check_line(const std::string& text, size_t line, const Problem& problem,
                       const SearchSpace& space, const std::vector<KernelConfig>& jit_instances) {
  std::string out = "{\"line\":" + std::to_string(line);
  KernelConfig config;
  try {
    if (!text.empty() && text.front() == '{') {
      config = config_from_object(json::parse(text), problem.layout, problem.accum);
    } else {
      const auto parsed = KernelConfig::parse(text);
      if (!parsed) throw ArgError("not a config name: '" + text + "'");
      config = *parsed;
    }
  } catch (const std::exception& e) {
    return out + ",\"error\":" + json::quote(e.what()) + "}";
  }
  const std::vector<Violation> broken = space.check(config, &problem);
  const bool only_compiled =
      !broken.empty() && std::all_of(broken.begin(), broken.end(),
                                     [](const Violation& v) { return v.rule == "compiled"; });
  const bool jit = only_compiled && std::find(jit_instances.begin(), jit_instances.end(),
                                              config.instance()) != jit_instances.end();
  out += ",\"name\":" + json::quote(config.name()) +
         ",\"legal\":" + (broken.empty() ? "true" : "false") + ",\"jit\":" +
         (jit ? "true" : "false") + ",\"violations\":[";
  for (size_t i = 0; i < broken.size(); ++i)
    out += std::string(i ? "," : "") + "{\"rule\":" + json::quote(broken[i].rule) +
           ",\"message\":" + json::quote(broken[i].message) + "}";
  return out + "]}";
}

int check(const ParsedArgs& args) {
  const auto shape = args.get("shape");
  if (!shape) throw ArgError("check needs --shape MxNxK");
  const std::vector<Shape> shapes = parse_shapes(*shape);
  if (shapes.size() != 1) throw ArgError("check takes one --shape");
  const auto layout = parse_layout(args.get_or("layout", "tn"));
  const auto accum = parse_accum(args.get_or("acc", "f32"));
  if (!layout) throw ArgError("--layout is tn or nn");
  if (!accum) throw ArgError("--acc is f32 or f16");
  const Problem problem{shapes[0].m, shapes[0].n, shapes[0].k, *layout, *accum};
  if (Status s = problem.validate(); !s.ok()) throw ArgError(s.message);

  std::ifstream file;
  const std::string input = args.get_or("input", "-");
  if (input != "-") {
    file.open(input);
    if (!file) throw ArgError("--input: cannot read '" + input + "'");
  }
  std::istream& in = input == "-" ? std::cin : file;
  const SearchSpace space = SearchSpace::from_catalog(nominal_device());
  const std::vector<KernelConfig> jit_instances = space.declared_instances({"all"});
  std::string text;
  size_t line = 0;
  while (std::getline(in, text)) {
    ++line;
    while (!text.empty() && (text.back() == '\r' || text.back() == ' ')) text.pop_back();
    if (text.empty()) continue;
    std::printf("%s\n", check_line(text, line, problem, space, jit_instances).c_str());
  }
  return 0;
}

}  // namespace

int cmd_space(const Args& argv) {
  if (const std::optional<int> code = subcommand_usage(argv, kHelp)) return *code;
  const std::string sub = argv[0];
  const ParsedArgs args(Args(argv.begin() + 1, argv.end()), {"shape", "layout", "acc", "input"},
                        {"help"});
  if (args.flag("help")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (!args.positional().empty())
    throw ArgError("unexpected argument '" + args.positional().front() + "'");
  if (sub == "axes") return print_axes();
  if (sub == "check") return check(args);
  throw ArgError("unknown space subcommand '" + sub + "' (axes or check)");
}

}  // namespace hgemm::cli
