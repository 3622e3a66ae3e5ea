#include "tuner/variants/source_rules.hpp"

#include <algorithm>
#include <set>

#include "launch/sm90_jit.hpp"
#include "tuner/db/json.hpp"

namespace hgemm::variants {
namespace {

constexpr std::string_view kSm90Header = "kernels/sm90/sm90_ws.cuh";

const std::set<std::string, std::less<>> kSystemHeaders = {
    "cstdint",     "cstddef", "cstdio", "climits",      "cfloat",       "cmath",
    "limits",      "type_traits", "utility", "cuda.h", "cuda_fp16.h", "cuda_bf16.h"};

const std::set<std::string, std::less<>> kFiles = {
    "fopen",  "freopen", "fdopen", "fclose",   "fread",    "fwrite",  "fputs",  "fputc",
    "fgets",  "fgetc",   "getc",   "putc",     "fscanf",   "fprintf", "vfprintf", "fflush",
    "fseek",  "ftell",   "rewind", "tmpfile",  "tmpnam",   "remove",  "rename", "FILE",
    "stdin",  "stdout",  "stderr", "ofstream", "ifstream", "fstream", "filebuf", "filesystem",
    "popen",  "pclose",  "system", "getenv",   "setenv",   "putenv",  "unlink", "mmap",
    "open",   "openat",  "creat",  "execl",    "execlp",   "execv",   "execve", "execvp"};

const std::set<std::string, std::less<>> kHeap = {
    "malloc", "calloc", "realloc", "free", "aligned_alloc", "alloca", "__builtin_alloca",
    "__builtin_malloc", "new", "delete"};

const std::set<std::string, std::less<>> kThreads = {"fork", "vfork", "clone"};

constexpr std::string_view kLibraryPrefixes[] = {"cublas", "cudnn",  "cufft",     "curand",
                                                 "cusolver", "cusparse", "nccl", "nvrtc",
                                                 "nvjitlink", "cutlass", "thrust"};
const std::set<std::string, std::less<>> kLibraryNames = {"cute",  "cub",    "dlopen", "dlsym",
                                                          "dlclose", "dlmopen", "dlvsym"};

enum class Kind { kIdent, kNumber, kString, kPunct, kHeaderName };

struct Token {
  Kind kind;
  std::string text;
  int line;
  bool directive;
};

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }
bool digit(char c) { return c >= '0' && c <= '9'; }

class Checker {
 public:
  Checker(std::string_view family_path, std::string_view family_text)
      : family_path_(family_path), family_text_(family_text) {}

  void run(std::string_view source) {
    if (source.size() > kMaxBytes) {
      add("size", 0, "the source has " + std::to_string(source.size()) + " bytes, at most " +
                         std::to_string(kMaxBytes) + " are accepted");
      return;
    }
    const auto lines = std::count(source.begin(), source.end(), '\n') + 1;
    if (lines > kMaxLines) {
      add("size", 0, "the source has " + std::to_string(lines) + " lines, at most " +
                         std::to_string(kMaxLines) + " are accepted");
      return;
    }
    if (family_path_ != kSm90Header) {
      add("interface", 0, "only " + std::string(kSm90Header) +
                              " can be rewritten (its launcher runs the rewrite), not " +
                              std::string(family_path_));
      return;
    }
    if (!lex(source, tokens_)) return;
    directives();
    identifiers();
    structure();
    interface();
  }

  std::vector<Violation> violations;

 private:
  void add(std::string rule, int line, std::string message) {
    for (const Violation& v : violations)
      if (v.rule == rule && v.line == line) return;
    violations.push_back({std::move(rule), line, std::move(message)});
  }

  // Splices backslash-newlines (as the compiler does first) and lexes into `out`. Returns false
  // when the text cannot be lexed (an unterminated comment or literal, a raw string).
  bool lex(std::string_view source, std::vector<Token>& out) {
    std::string text;
    std::vector<int> line_of;
    int line = 1;
    for (size_t i = 0; i < source.size(); ++i) {
      if (source[i] == '\\') {
        size_t j = i + 1;
        if (j < source.size() && source[j] == '\r') ++j;
        if (j < source.size() && source[j] == '\n') {
          i = j;
          ++line;
          continue;
        }
      }
      text += source[i];
      line_of.push_back(line);
      if (source[i] == '\n') ++line;
    }
    size_t pos = 0;
    bool line_start = true, directive = false, header_next = false;
    auto at = [&](size_t p) { return p < text.size() ? text[p] : '\0'; };
    auto emit = [&](Kind kind, std::string t, size_t p) {
      out.push_back({kind, std::move(t), line_of[p], directive});
      line_start = false;
    };
    while (pos < text.size()) {
      const char c = text[pos];
      const int here = line_of[pos];
      if (c == '\n') {
        line_start = true;
        directive = header_next = false;
        ++pos;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++pos;
      } else if (c == '/' && at(pos + 1) == '/') {
        while (pos < text.size() && text[pos] != '\n') ++pos;
      } else if (c == '/' && at(pos + 1) == '*') {
        const size_t end = text.find("*/", pos + 2);
        if (end == std::string::npos) {
          add("encoding", here, "unterminated /* comment");
          return false;
        }
        pos = end + 2;
      } else if (c == '#' && line_start) {
        directive = true;
        emit(Kind::kPunct, "#", pos++);
        size_t p = pos;
        while (at(p) == ' ' || at(p) == '\t') ++p;
        header_next = text.compare(p, 7, "include") == 0;
      } else if (header_next && c == '<') {
        const size_t end = text.find('>', pos);
        const size_t eol = text.find('\n', pos);
        if (end == std::string::npos || end > eol) {
          add("include", here, "unterminated <header> name");
          return false;
        }
        emit(Kind::kHeaderName, text.substr(pos + 1, end - pos - 1), pos);
        pos = end + 1;
        header_next = false;
      } else if (c == '"' || c == '\'') {
        size_t p = pos + 1;
        while (p < text.size() && text[p] != c && text[p] != '\n') p += text[p] == '\\' ? 2 : 1;
        if (at(p) != c) {
          add("encoding", here, std::string("unterminated ") + (c == '"' ? "string" : "character") +
                                    " literal");
          return false;
        }
        emit(Kind::kString, text.substr(pos + 1, p - pos - 1), pos);
        pos = p + 1;
        header_next = false;
      } else if (digit(c) || (c == '.' && digit(at(pos + 1)))) {
        size_t p = pos;
        while (p < text.size() && (ident_char(text[p]) || text[p] == '.' || text[p] == '\'' ||
                                   ((text[p] == '+' || text[p] == '-') &&
                                    std::string_view("eEpP").find(text[p - 1]) !=
                                        std::string_view::npos)))
          ++p;
        emit(Kind::kNumber, text.substr(pos, p - pos), pos);
        pos = p;
      } else if (ident_start(c)) {
        size_t p = pos;
        while (p < text.size() && ident_char(text[p])) ++p;
        std::string word = text.substr(pos, p - pos);
        if (at(p) == '"' && (word == "R" || word == "u8R" || word == "uR" || word == "UR" ||
                             word == "LR")) {
          add("encoding", here, "raw string literals are not accepted");
          return false;
        }
        emit(Kind::kIdent, std::move(word), pos);
        pos = p;
      } else if (c == '\\') {
        add("encoding", here,
            "a backslash outside a literal (a universal character name could spell any name)");
        ++pos;
      } else if (static_cast<unsigned char>(c) >= 0x80) {
        add("encoding", here, "a non-ASCII byte outside comments and literals");
        ++pos;
      } else {
        std::string op(1, c);
        if (c == '<' && at(pos + 1) == '<' && at(pos + 2) == '<') op = "<<<";
        else if (c == '#' && at(pos + 1) == '#') op = "##";
        else if (c == ':' && at(pos + 1) == ':') op = "::";
        emit(Kind::kPunct, op, pos);
        pos += op.size();
      }
    }
    return true;
  }

  // The directive name after the `#` at tokens_[i] (on its line), or nullptr.
  const Token* directive_name(size_t i) const {
    const Token& t = tokens_[i];
    if (!t.directive || t.text != "#" || t.kind != Kind::kPunct || i + 1 >= tokens_.size())
      return nullptr;
    const Token& next = tokens_[i + 1];
    return next.directive && next.line == t.line ? &next : nullptr;
  }

  void directives() {
    int last_include = 0;
    for (size_t i = 0; i < tokens_.size(); ++i)
      if (const Token* name = directive_name(i); name && name->text == "include")
        last_include = tokens_[i].line;
    for (size_t i = 0; i < tokens_.size(); ++i) {
      const Token& t = tokens_[i];
      if (t.text == "##")
        add("preprocessor", t.line, "token pasting (##) builds names no rule can see");
      const Token* name = directive_name(i);
      if (!name) continue;
      const Token* arg = i + 2 < tokens_.size() && tokens_[i + 2].directive &&
                                 tokens_[i + 2].line == t.line
                             ? &tokens_[i + 2]
                             : nullptr;
      const std::string& d = name->text;
      if (d == "include") {
        include(t.line, arg);
      } else if (d == "pragma") {
        if (!arg || (arg->text != "once" && arg->text != "unroll"))
          add("preprocessor", t.line,
              "#pragma " + (arg ? arg->text : std::string()) +
                  ": only once and unroll are accepted");
      } else if ((d == "define" || d == "undef") && t.line < last_include) {
        // The library's headers are the rules' premise: a macro in force when they are included
        // rewrites them (`#define volatile` strips their asm of it).
        add("preprocessor", t.line,
            "#" + d + " before an #include: macros come after the includes, so that none can "
            "change the library's headers");
      } else if (d == "line" || d == "include_next" || d == "import" || d == "embed" ||
                 d == "ident" || d == "sccs" || d == "assert") {
        add("preprocessor", t.line, "#" + d + " is not accepted");
      }
    }
  }

  void include(int line, const Token* arg) {
    if (!arg || (arg->kind != Kind::kString && arg->kind != Kind::kHeaderName)) {
      add("include", line, "#include needs a literal header name");
      return;
    }
    if (arg->kind == Kind::kHeaderName) {
      if (!kSystemHeaders.count(arg->text))
        add("include", line, "<" + arg->text + "> is not an accepted header (accepted: " + [] {
              std::string s;
              for (const auto& h : kSystemHeaders) s += (s.empty() ? "" : ", ") + h;
              return s;
            }() + ")");
      return;
    }
    if (arg->text == family_path_)
      add("include", line, "\"" + arg->text + "\" is the file this source replaces");
    else if (starts_with(arg->text, "kernels/sm90/variants/"))
      add("include", line, "\"" + arg->text + "\" is another rewrite of this file");
    else if (!jit::find_embedded(arg->text))
      add("include", line, "\"" + arg->text +
                               "\" is not one of the library's kernel headers (kernels/, ptx/, "
                               "core/, hgemm/ as embedded for the JIT)");
  }

  const Token* prev(size_t i, size_t back) const {
    return i >= back ? &tokens_[i - back] : nullptr;
  }

  void identifiers() {
    for (size_t i = 0; i < tokens_.size(); ++i) {
      const Token& tok = tokens_[i];
      if (tok.kind == Kind::kPunct && tok.text == "<<<" && !tok.directive)
        add("streams", tok.line, "a kernel launch (<<< >>>): the harness launches the kernel");
      if (tok.kind != Kind::kIdent) continue;
      const std::string& t = tok.text;
      const int line = tok.line;
      const Token* p1 = prev(i, 1);
      const Token* p2 = prev(i, 2);
      const Token* next = i + 1 < tokens_.size() ? &tokens_[i + 1] : nullptr;
      const bool api = (starts_with(t, "cuda") && t.size() > 4 && t[4] >= 'A' && t[4] <= 'Z') ||
                       (starts_with(t, "cu") && t.size() > 2 && t[2] >= 'A' && t[2] <= 'Z');
      const bool stream = starts_with(t, "cudaStream") || starts_with(t, "cudaLaunch") ||
                          starts_with(t, "cudaEvent") || starts_with(t, "cudaGraph") ||
                          starts_with(t, "cuStream") || starts_with(t, "cuLaunch") ||
                          starts_with(t, "cuEvent") || starts_with(t, "cuGraph");
      const bool library =
          kLibraryNames.count(t) ||
          std::any_of(std::begin(kLibraryPrefixes), std::end(kLibraryPrefixes),
                      [&](std::string_view p) { return starts_with(t, p); });
      const bool std_member = p1 && p1->text == "::" && p2 && p2->text == "std";
      if (t == "asm" || t == "__asm__" || t == "__asm")
        add("asm", line, "inline assembly: PTX belongs in src/ptx, which the source includes");
      else if (stream)
        add("streams", line, t + ": streams, events, graphs and launches belong to the harness");
      else if (api)
        add("host-api", line, t + ": a CUDA runtime or driver call");
      else if (library)
        add("libraries", line, t + ": no library but the kernel's own headers");
      else if (kFiles.count(t))
        add("files", line, t + ": no files, environment or shell");
      else if (kThreads.count(t) || starts_with(t, "pthread_") || starts_with(t, "thrd_") ||
               (std_member && (t == "thread" || t == "jthread" || t == "async")))
        add("threads", line, t + ": no threads or processes");
      else if (kHeap.count(t) && !(t == "delete" && p1 && p1->text == "="))
        add("heap", line, t + ": device-heap memory outlives the call");
      else if (t.find("atomic") != std::string::npos)
        add("atomics", line,
            t + ": no atomics (a global counter is what a cross-call cache is made of)");
      else if (t == "__managed__" || t == "__constant__")
        add("global-state", line, t + " memory persists across calls");
      else if (t == "extern" && !(next && (next->text == "__shared__" || next->text == "template")))
        add("global-state", line, "extern: only `extern __shared__` is accepted");
      else if (t == "__host__")
        add("host-code", line, "__host__: the source holds device code only");
      else if (t == "main" && next && next->text == "(")
        add("host-code", line, "main: the source holds device code only");
      else if (t == "_Pragma" || t == "__pragma")
        add("preprocessor", line, t + " is not accepted");
    }
  }

  enum class Scope { kNamespace, kClass, kFunction, kOther };

  static bool has(const std::vector<const Token*>& d, std::string_view word) {
    return std::any_of(d.begin(), d.end(), [&](const Token* t) { return t->text == word; });
  }
  static size_t find(const std::vector<const Token*>& d, std::string_view word) {
    for (size_t i = 0; i < d.size(); ++i)
      if (d[i]->text == word && !(word == "=" && i > 0 && d[i - 1]->text == "operator")) return i;
    return d.size();
  }
  // A declaration without its leading template headers and [[attributes]].
  static std::vector<const Token*> strip(const std::vector<const Token*>& d) {
    size_t i = 0;
    while (i < d.size()) {
      if (d[i]->text == "template" && i + 1 < d.size() && d[i + 1]->text == "<") {
        int angle = 0, paren = 0;
        size_t j = i + 1;
        for (; j < d.size(); ++j) {
          const std::string& x = d[j]->text;
          if (x == "(") ++paren;
          if (x == ")") --paren;
          if (paren == 0 && x == "<") ++angle;
          if (paren == 0 && x == ">" && --angle == 0) break;
        }
        i = j + 1;
      } else if (d[i]->text == "[" && i + 1 < d.size() && d[i + 1]->text == "[") {
        while (i + 1 < d.size() && !(d[i]->text == "]" && d[i + 1]->text == "]")) ++i;
        i += 2;
      } else {
        break;
      }
    }
    return {d.begin() + std::min(i, d.size()), d.end()};
  }
  static bool function_like(const std::vector<const Token*>& d) {
    const size_t paren = find(d, "(");
    return paren < d.size() && paren < find(d, "=");
  }
  static std::string name_of(const std::vector<const Token*>& d) {
    const size_t paren = find(d, "(");
    return paren > 0 && paren <= d.size() ? d[paren - 1]->text : std::string();
  }
  static bool device_qualified(const std::vector<const Token*>& d) {
    return has(d, "__device__") || has(d, "__global__") || has(d, "constexpr") ||
           has(d, "consteval");
  }

  void check_static(const std::vector<const Token*>& d, Scope scope) {
    const size_t s = find(d, "static");
    if (s == d.size() || has(d, "constexpr")) return;
    if (scope != Scope::kFunction && function_like(d)) return;  // a static function
    add("static-state", d[s]->line,
        "a static variable persists across calls (only static constexpr is accepted)");
  }

  void open_brace(const std::vector<const Token*>& decl, std::vector<Scope>& stack) {
    const Scope scope = stack.back();
    if (scope == Scope::kFunction) {
      check_static(decl, scope);
      stack.push_back(Scope::kFunction);
      return;
    }
    if (scope == Scope::kOther) {
      stack.push_back(Scope::kOther);
      return;
    }
    const auto d = strip(decl);
    if (d.empty()) {
      stack.push_back(Scope::kOther);
      return;
    }
    if (has(d, "namespace")) {
      stack.push_back(Scope::kNamespace);
      return;
    }
    const size_t head = std::min({find(d, "struct"), find(d, "class"), find(d, "union")});
    if (has(d, "enum")) {
      stack.push_back(Scope::kOther);
    } else if (head < d.size() && head < find(d, "(") && head < find(d, "=")) {
      stack.push_back(Scope::kClass);
    } else if (function_like(d)) {
      if (!device_qualified(d))
        add("host-code", d.front()->line,
            "function " + name_of(d) + " is neither __device__, __global__ nor constexpr: host "
            "code");
      stack.push_back(Scope::kFunction);
    } else {
      variable(d, scope);
      stack.push_back(Scope::kOther);
    }
  }

  void variable(const std::vector<const Token*>& d, Scope scope) {
    if (scope == Scope::kNamespace) {
      if (has(d, "__device__") || has(d, "__shared__"))
        add("global-state", d.front()->line,
            "a __device__ declaration at namespace scope: device globals persist across calls "
            "(a device function must be defined where it is declared)");
      else if (!has(d, "constexpr"))
        add("global-state", d.front()->line,
            "a variable at namespace scope persists across calls (only constexpr constants are "
            "accepted)");
    } else {
      check_static(d, scope);
    }
  }

  void semicolon(const std::vector<const Token*>& decl, Scope scope) {
    if (scope == Scope::kOther || decl.empty()) return;
    if (scope != Scope::kNamespace) {
      check_static(decl, scope);
      return;
    }
    const auto d = strip(decl);
    if (d.empty()) return;
    const std::string& first = d.front()->text;
    if (first == "using" || first == "typedef" || first == "static_assert" ||
        first == "template" || first == "namespace" ||
        (first == "extern" && d.size() > 1 && d[1]->text == "template"))
      return;
    if ((first == "struct" || first == "class" || first == "union" || first == "enum") &&
        find(d, "=") == d.size() && find(d, "(") == d.size() && d.size() <= 4)
      return;  // a forward declaration
    if (has(d, "__device__") || has(d, "__shared__") || !function_like(d)) {
      variable(d, scope);
    } else if (!device_qualified(d)) {
      add("host-code", d.front()->line, "a host function declaration (" + name_of(d) + ")");
    }
  }

  void structure() {
    std::vector<Scope> stack{Scope::kNamespace};
    std::vector<const Token*> decl;
    for (const Token& t : tokens_) {
      if (t.directive) continue;
      if (t.kind == Kind::kPunct && t.text == "{") {
        open_brace(decl, stack);
        decl.clear();
      } else if (t.kind == Kind::kPunct && t.text == "}") {
        if (stack.size() == 1) {
          add("interface", t.line, "an unmatched }");
          return;
        }
        stack.pop_back();
        decl.clear();
      } else if (t.kind == Kind::kPunct && t.text == ";") {
        semicolon(decl, stack.back());
        decl.clear();
      } else {
        decl.push_back(&t);
      }
    }
    if (stack.size() != 1) add("interface", 0, "an unclosed {");
  }

  // The tokens of `struct Params { ... }` (from `struct` to its closing brace), or empty.
  static std::vector<const Token*> params_of(const std::vector<Token>& tokens) {
    for (size_t i = 0; i + 2 < tokens.size(); ++i) {
      if (tokens[i].text != "struct" || tokens[i + 1].text != "Params" || tokens[i + 2].text != "{")
        continue;
      std::vector<const Token*> out;
      int depth = 0;
      for (size_t j = i; j < tokens.size(); ++j) {
        out.push_back(&tokens[j]);
        if (tokens[j].text == "{") ++depth;
        if (tokens[j].text == "}" && --depth == 0) return out;
      }
      return {};
    }
    return {};
  }

  void interface() {
    bool ns = false, traits = false, kernel = false;
    for (size_t i = 0; i < tokens_.size(); ++i) {
      const std::string& t = tokens_[i].text;
      if (t == "namespace" && i + 3 < tokens_.size() && tokens_[i + 1].text == "hgemm" &&
          tokens_[i + 2].text == "::" && tokens_[i + 3].text == "sm90")
        ns = true;
      if (t == "struct" && i + 1 < tokens_.size() && tokens_[i + 1].text == "Traits") traits = true;
      if (t == "sm90_ws_gemm_kernel") kernel = true;
    }
    if (!ns) add("interface", 0, "no `namespace hgemm::sm90`: the launcher looks there");
    if (!traits) add("interface", 0, "no `struct Traits`: the JIT instantiates Traits<variant>");
    if (!kernel)
      add("interface", 0, "no sm90_ws_gemm_kernel: the JIT instantiates that kernel template");
    std::vector<Token> stock;
    Checker quiet(family_path_, {});
    if (!quiet.lex(family_text_, stock)) return;
    const auto want = params_of(stock);
    const auto got = params_of(tokens_);
    if (got.empty()) {
      add("interface", 0, "no `struct Params { ... }`: the launcher fills the family's Params");
      return;
    }
    for (size_t i = 0; i < std::max(want.size(), got.size()); ++i) {
      if (i < want.size() && i < got.size() && want[i]->text == got[i]->text) continue;
      const int line = i < got.size() ? got[i]->line : got.back()->line;
      add("interface", line,
          "struct Params differs from " + std::string(family_path_) +
              "'s at '" + (i < got.size() ? got[i]->text : std::string("}")) +
              "': the launcher fills that layout, token for token");
      return;
    }
  }

  std::string_view family_path_;
  std::string_view family_text_;
  std::vector<Token> tokens_;
};

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      if (start < text.size()) out.push_back(text.substr(start));
      break;
    }
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string Violation::text() const {
  return rule + (line > 0 ? " (line " + std::to_string(line) + ")" : "") + ": " + message;
}

std::string RulesReport::summary() const {
  if (passed()) return "passed";
  std::string out;
  for (const Violation& v : violations) out += (out.empty() ? "" : "; ") + v.text();
  return out;
}

std::string RulesReport::violations_json() const {
  std::string out = "[";
  for (size_t i = 0; i < violations.size(); ++i) {
    const Violation& v = violations[i];
    out += std::string(i ? "," : "") + "{\"rule\":" + tuner::json::quote(v.rule) +
           ",\"line\":" + std::to_string(v.line) +
           ",\"message\":" + tuner::json::quote(v.message) + "}";
  }
  return out + "]";
}

RulesReport check_source(std::string_view source, std::string_view family_path,
                         std::string_view family_text) {
  Checker checker(family_path, family_text);
  checker.run(source);
  RulesReport report{std::move(checker.violations)};
  std::stable_sort(report.violations.begin(), report.violations.end(),
                   [](const Violation& a, const Violation& b) { return a.line < b.line; });
  return report;
}

int lines_changed(std::string_view before, std::string_view after) {
  const auto a = split_lines(before);
  const auto b = split_lines(after);
  // Beyond this the quadratic table costs seconds; such a pair counts as wholly rewritten,
  // which the size term's cap at 1000 lines makes no different anyway.
  if (double(a.size()) * double(b.size()) > 1e8) return int(a.size() + b.size());
  std::vector<int> row(b.size() + 1, 0), next(b.size() + 1, 0);
  for (size_t i = a.size(); i-- > 0;) {
    for (size_t j = b.size(); j-- > 0;)
      next[j] = a[i] == b[j] ? row[j + 1] + 1 : std::max(row[j], next[j + 1]);
    std::swap(row, next);
  }
  const int common = row[0];
  return int(a.size() + b.size()) - 2 * common;
}

}  // namespace hgemm::variants
