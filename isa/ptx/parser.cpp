// A recursive-descent parser for the PTX that clang 22, nvcc 13 and Triton emit.
//
// The grammar handled: module directives (.version .target .address_size .file .loc .section
// .pragma), module-scope variables with initialisers, .entry/.func definitions and prototypes
// with their performance directives, and function bodies: declarations, labels, nested { }
// scopes, guarded instructions and every operand form (registers, vectors, immediates of all
// forms, addresses `[base+off]`, symbols, `_`).
#include "isa/ptx/parser.h"

#include <cctype>
#include <cstring>
#include <functional>

#include "base/error.h"

namespace kernsim::isa::ptx {

int type_bytes(const std::string& t) {
  if (t == "pred") return 1;
  if (t.size() < 2) return 0;
  if (t == "f16x2" || t == "bf16x2" || t == "e4m3x2" || t == "e5m2x2") return t[0] == 'e' ? 2 : 4;
  if (t == "f32x2") return 8;
  if (t == "bf16") return 2;
  if (t == "tf32") return 4;
  if (t == "e4m3" || t == "e5m2") return 1;
  char c = t[0];
  if (c != 'b' && c != 'u' && c != 's' && c != 'f') return 0;
  int bits = std::atoi(t.c_str() + 1);
  return bits / 8;
}

std::int64_t ast::Decl::element_bytes() const { return static_cast<std::int64_t>(type_bytes(type)) * vector; }
std::int64_t ast::Decl::total_bytes() const { return element_bytes() * (array > 0 ? array : 1); }

namespace {
using namespace ast;

struct Tok {
  enum Kind { Ident, Number, Punct, End } kind = End;
  std::string_view text;
  int line = 0;
};

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' || c == '.'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.' || c == '%'; }

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& origin) : s_(text), origin_(origin) {}

  std::vector<Tok> run() {
    std::vector<Tok> out;
    while (true) {
      skip_space();
      if (p_ >= s_.size()) break;
      char c = s_[p_];
      std::size_t start = p_;
      if (std::isdigit(static_cast<unsigned char>(c))) {
        ++p_;
        while (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '.' ||
                                  ((s_[p_] == '+' || s_[p_] == '-') && (s_[p_ - 1] == 'e' || s_[p_ - 1] == 'E') &&
                                   !is_hex_prefixed(start))))
          ++p_;
        out.push_back({Tok::Number, s_.substr(start, p_ - start), line_});
      } else if (ident_start(c)) {
        ++p_;
        while (p_ < s_.size()) {
          if (ident_char(s_[p_])) { ++p_; continue; }
          if (s_[p_] == ':' && p_ + 2 < s_.size() && s_[p_ + 1] == ':' && ident_char(s_[p_ + 2])) { p_ += 2; continue; }
          break;
        }
        out.push_back({Tok::Ident, s_.substr(start, p_ - start), line_});
      } else if (std::strchr("{}()[],;:+-<>=|!@", c)) {
        ++p_;
        out.push_back({Tok::Punct, s_.substr(start, 1), line_});
      } else if (c == '"') {
        ++p_;
        while (p_ < s_.size() && s_[p_] != '"') { if (s_[p_] == '\n') ++line_; ++p_; }
        ++p_;
        out.push_back({Tok::Ident, s_.substr(start, p_ - start), line_});
      } else {
        throw Error(ErrorKind::Parse, origin_ + ":" + std::to_string(line_) + ": unexpected character '" + std::string(1, c) + "'");
      }
    }
    out.push_back({Tok::End, "", line_});
    return out;
  }

 private:
  bool is_hex_prefixed(std::size_t start) const {
    return p_ - start >= 2 && s_[start] == '0' && (s_[start + 1] == 'x' || s_[start + 1] == 'X' || s_[start + 1] == 'f' ||
                                                   s_[start + 1] == 'F' || s_[start + 1] == 'd' || s_[start + 1] == 'D');
  }
  void skip_space() {
    while (p_ < s_.size()) {
      char c = s_[p_];
      if (c == '\n') { ++line_; ++p_; }
      else if (std::isspace(static_cast<unsigned char>(c))) ++p_;
      else if (c == '/' && p_ + 1 < s_.size() && s_[p_ + 1] == '/') { while (p_ < s_.size() && s_[p_] != '\n') ++p_; }
      else if (c == '/' && p_ + 1 < s_.size() && s_[p_ + 1] == '*') {
        p_ += 2;
        while (p_ + 1 < s_.size() && !(s_[p_] == '*' && s_[p_ + 1] == '/')) { if (s_[p_] == '\n') ++line_; ++p_; }
        p_ += 2;
      } else break;
    }
  }
  std::string_view s_;
  std::string origin_;
  std::size_t p_ = 0;
  int line_ = 1;
};

std::vector<std::string> split_dots(std::string_view s) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == '.') {
      if (i > start) parts.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

bool is_type_name(std::string_view t) {
  static const char* types[] = {"b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32",
                                "s64", "f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "pred", "tf32", "e4m3", "e5m2", "f32x2"};
  for (const char* x : types)
    if (t == x) return true;
  return false;
}

class Parser {
 public:
  Parser(std::vector<Tok> toks, const std::string& origin) : t_(std::move(toks)), origin_(origin) {}

  Module module() {
    Module m;
    while (!at_end()) {
      const Tok& k = peek();
      if (k.kind == Tok::Ident && k.text == ".version") { next(); m.version = std::string(next().text); continue; }
      if (k.kind == Tok::Ident && k.text == ".target") {
        next();
        m.target = std::string(next().text);
        while (accept(",")) next();  // .target sm_90a, texmode_independent
        continue;
      }
      if (k.kind == Tok::Ident && k.text == ".address_size") { next(); m.address_size = static_cast<int>(integer(next())); continue; }
      if (k.kind == Tok::Ident && k.text == ".file") { file_directive(m); continue; }
      if (k.kind == Tok::Ident && k.text == ".loc") { skip_line(k.line); continue; }  // outside a function: nothing to place
      if (k.kind == Tok::Ident && k.text == ".section") { skip_section(); continue; }
      if (k.kind == Tok::Ident && k.text == ".pragma") { skip_to(";"); continue; }
      top_level(m);
    }
    return m;
  }

 private:
  // ---- token helpers ----
  const Tok& peek(std::size_t k = 0) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  bool at_end() const { return peek().kind == Tok::End; }
  const Tok& next() { const Tok& k = t_[i_]; if (i_ + 1 < t_.size()) ++i_; return k; }
  bool is(std::string_view s, std::size_t k = 0) const { return peek(k).text == s && peek(k).kind != Tok::End; }
  bool accept(std::string_view s) { if (is(s)) { next(); return true; } return false; }
  void expect(std::string_view s) {
    if (!accept(s)) fail(peek(), "expected `" + std::string(s) + "`");
  }
  [[noreturn]] void fail(const Tok& at, const std::string& msg) const {
    throw Error(ErrorKind::Parse, origin_ + ":" + std::to_string(at.line) + ": " + msg + " near `" + std::string(at.text) + "`");
  }
  void skip_line(int line) { while (!at_end() && peek().line == line) next(); }
  // `.file N "path"` (optionally `, timestamp, size`): records N -> path.
  void file_directive(Module& m) {
    const int line = next().line;
    if (peek().kind == Tok::Number && peek(1).text.size() >= 2 && peek(1).text.front() == '"') {
      const int n = static_cast<int>(integer(next()));
      const std::string_view q = next().text;
      m.files[n] = std::string(q.substr(1, q.size() - 2));
    }
    skip_line(line);
  }
  // `.loc FILE LINE COL` (optionally `, function_name ..., inlined_at ...`): the position the
  // following instructions of this function come from.
  void loc_directive() {
    const int line = next().line;
    if (peek().kind == Tok::Number && peek(1).kind == Tok::Number) {
      loc_file_ = static_cast<int>(integer(next()));
      loc_line_ = static_cast<int>(integer(next()));
    }
    skip_line(line);
  }
  void skip_to(std::string_view s) { while (!at_end() && !accept(s)) next(); }
  void skip_section() {
    next();
    next();  // name
    if (accept("{")) {
      int depth = 1;
      while (!at_end() && depth > 0) {
        if (is("{")) ++depth;
        if (is("}")) --depth;
        next();
      }
    }
  }
  // the bits of a 0f/0d literal (hex digits after the prefix)
  std::uint64_t hex_bits(const Tok& k, const std::string& digits) const {
    if (digits.empty() || digits.size() > 16 || digits.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
      fail(k, "bad floating-point bit pattern");
    return std::stoull(digits, nullptr, 16);
  }
  double decimal(const Tok& k, const std::string& s) const {
    try {
      std::size_t pos = 0;
      const double v = std::stod(s, &pos);
      if (pos != s.size()) fail(k, "bad floating-point number");
      return v;
    } catch (const std::out_of_range&) {
      fail(k, "floating-point number out of range");
    } catch (const std::invalid_argument&) {
      fail(k, "bad floating-point number");
    }
  }

  std::int64_t integer(const Tok& k) const {
    std::string s(k.text);
    try {
      std::size_t pos = 0;
      long long v;
      if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        std::string digits = s.substr(2);
        if (!digits.empty() && (digits.back() == 'U' || digits.back() == 'u')) digits.pop_back();
        v = static_cast<long long>(std::stoull(digits, &pos, 16));
        if (pos != digits.size()) throw std::invalid_argument("x");
      } else {
        std::string digits = s;
        if (!digits.empty() && (digits.back() == 'U' || digits.back() == 'u')) digits.pop_back();
        v = static_cast<long long>(std::stoull(digits, &pos, 10));
        if (pos != digits.size()) throw std::invalid_argument("x");
      }
      return v;
    } catch (const std::exception&) {
      fail(k, "bad integer");
    }
  }

  // ---- module scope ----
  void top_level(Module& m) {
    bool is_extern = false, visible = false;
    while (is(".visible") || is(".extern") || is(".weak") || is(".common")) {
      if (is(".extern")) is_extern = true;
      if (is(".visible")) visible = true;
      next();
    }
    (void)visible;
    if (is(".entry") || is(".func")) {
      m.functions.push_back(function());
      return;
    }
    if (is(".global") || is(".shared") || is(".const") || is(".local")) {
      Decl d = decl();
      d.is_extern = d.is_extern || is_extern;
      expect(";");
      m.globals.push_back(std::move(d));
      return;
    }
    fail(peek(), "unexpected token at module scope");
  }

  Function function() {
    Function f;
    f.line = peek().line;
    loc_file_ = loc_line_ = 0;  // a function's instructions take only its own `.loc`s
    f.is_entry = next().text == ".entry";
    if (!f.is_entry && accept("(")) {
      while (!accept(")")) {
        f.returns.push_back(param_decl());
        accept(",");
      }
    }
    f.name = std::string(next().text);
    if (accept("(")) {
      while (!accept(")")) {
        f.params.push_back(param_decl());
        accept(",");
      }
    }
    // performance tuning directives
    while (peek().kind == Tok::Ident && peek().text[0] == '.') {
      std::string d(next().text);
      std::array<int, 3> dims{1, 1, 1};
      int n = 0;
      while (peek().kind == Tok::Number) {
        if (n < 3) dims[n] = static_cast<int>(integer(next()));
        else next();
        ++n;
        accept(",");
      }
      if (d == ".maxntid") f.maxntid = dims;
      if (d == ".reqntid") f.reqntid = dims;
      if (d == ".reqnctapercluster") f.reqnctapercluster = dims;
      if (d == ".explicitcluster") f.explicitcluster = true;
      if (d == ".maxclusterrank") f.maxclusterrank = dims[0];
    }
    if (accept(";")) return f;  // prototype
    f.has_body = true;
    expect("{");
    body(f);
    return f;
  }

  Decl param_decl() {
    Decl d;
    d.line = peek().line;
    if (!accept(".param") && !accept(".reg")) fail(peek(), "expected .param");
    d.space = "param";
    attributes(d);
    d.name = std::string(next().text);
    if (accept("[")) {
      d.array = is("]") ? 0 : integer(next());
      expect("]");
    }
    return d;
  }

  // .align N, .ptr, .v2/.v4, state-space qualifiers, the type
  void attributes(Decl& d) {
    while (peek().kind == Tok::Ident && peek().text[0] == '.') {
      std::string_view a = peek().text;
      if (a == ".align") {  // after .ptr it is the pointee's alignment, not the parameter's
        next();
        int v = static_cast<int>(integer(next()));
        if (!d.is_ptr) d.align = v;
        continue;
      }
      if (a == ".ptr") { next(); d.is_ptr = true; continue; }
      if (a == ".v2") { next(); d.vector = 2; continue; }
      if (a == ".v4") { next(); d.vector = 4; continue; }
      if (a == ".v8") { next(); d.vector = 8; continue; }
      if (a == ".global" || a == ".shared" || a == ".const" || a == ".local") { next(); continue; }  // .ptr .global
      if (is_type_name(a.substr(1))) { d.type = std::string(a.substr(1)); next(); continue; }
      if (a == ".attribute") { next(); expect("("); while (!accept(")")) next(); continue; }
      break;
    }
  }

  Decl decl() {
    Decl d;
    d.line = peek().line;
    d.space = std::string(next().text.substr(1));
    attributes(d);
    d.name = std::string(next().text);
    if (accept("<")) {
      d.range = integer(next());
      expect(">");
    }
    if (accept("[")) {
      d.array = is("]") ? 0 : integer(next());
      expect("]");
      while (accept("[")) {  // multi-dimensional: flatten
        std::int64_t n = integer(next());
        expect("]");
        d.array *= n;
      }
    }
    if (accept("=")) initializer(d);
    return d;
  }

  void push_scalar(Decl& d, const Tok& tk, bool negative) {
    int eb = type_bytes(d.type);
    std::uint64_t bits = 0;
    std::string s(tk.text);
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) bits = hex_bits(tk, s.substr(2));
    else if (s.size() > 2 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D')) bits = hex_bits(tk, s.substr(2));
    else if (s.find('.') != std::string::npos || s.find('e') != std::string::npos) {
      double v = decimal(tk, s) * (negative ? -1 : 1);
      if (eb == 4) { float f = static_cast<float>(v); std::memcpy(&bits, &f, 4); }
      else std::memcpy(&bits, &v, 8);
      negative = false;
    } else {
      bits = static_cast<std::uint64_t>(integer(tk));
    }
    if (negative) bits = 0 - bits;
    for (int b = 0; b < eb; ++b) d.init.push_back(static_cast<std::uint8_t>(bits >> (8 * b)));
  }

  void initializer(Decl& d) {
    auto element = [&]() {
      bool neg = accept("-");
      if (peek().kind == Tok::Number) {
        push_scalar(d, next(), neg);
      } else if (peek().kind == Tok::Ident) {
        // address initialiser: sym, generic(sym), sym+off
        std::string sym(next().text);
        if (sym == "generic" && accept("(")) { sym = std::string(next().text); expect(")"); }
        std::int64_t off = 0;
        if (accept("+")) off = integer(next());
        d.init_symbols.push_back({d.init.size(), sym});
        int eb = type_bytes(d.type);
        for (int b = 0; b < eb; ++b) d.init.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(off) >> (8 * b)));
      } else {
        fail(peek(), "bad initialiser");
      }
    };
    std::function<void()> list = [&]() {
      if (accept("{")) {
        while (!accept("}")) {
          list();
          accept(",");
        }
      } else {
        element();
      }
    };
    list();
  }

  // ---- function bodies ----
  void body(Function& f) {
    int depth = 1;
    while (!at_end()) {
      const Tok& k = peek();
      if (k.text == "}") {
        next();
        if (--depth == 0) return;
        Statement s;
        s.kind = Statement::Kind::ScopeEnd;
        s.line = k.line;
        f.body.push_back(std::move(s));
        continue;
      }
      if (k.text == "{") {
        next();
        ++depth;
        Statement s;
        s.kind = Statement::Kind::ScopeBegin;
        s.line = k.line;
        f.body.push_back(std::move(s));
        continue;
      }
      if (k.kind == Tok::Ident && (k.text == ".reg" || k.text == ".local" || k.text == ".shared" || k.text == ".param" ||
                                   k.text == ".const" || k.text == ".global")) {
        Statement s;
        s.kind = Statement::Kind::Decl;
        s.line = k.line;
        s.decl = decl();
        while (accept(",")) {  // `.reg .u32 a, b, c;`
          Statement more = s;
          more.decl.name = std::string(next().text);
          more.decl.range = -1;
          more.decl.array = -1;
          if (accept("<")) { more.decl.range = integer(next()); expect(">"); }
          if (accept("[")) { more.decl.array = is("]") ? 0 : integer(next()); expect("]"); }
          f.body.push_back(std::move(s));
          s = std::move(more);
        }
        expect(";");
        f.body.push_back(std::move(s));
        continue;
      }
      if (k.kind == Tok::Ident && k.text == ".loc") { loc_directive(); continue; }
      if (k.kind == Tok::Ident && k.text == ".file") { skip_line(k.line); continue; }
      if (k.kind == Tok::Ident && k.text == ".pragma") { skip_to(";"); continue; }
      if (k.kind == Tok::Ident && (k.text == ".maxnreg" || k.text == ".maxntid" || k.text == ".callprototype")) { skip_to(";"); continue; }
      if (k.kind == Tok::Ident && peek(1).text == ":" && k.text[0] != '.' ) {
        Statement s;
        s.kind = Statement::Kind::Label;
        s.label = std::string(next().text);
        s.line = k.line;
        next();
        f.body.push_back(std::move(s));
        if (is(".branchtargets")) {  // `L: .branchtargets a, b, c;` — a table for brx.idx
          next();
          Statement t;
          t.kind = Statement::Kind::Decl;
          t.line = k.line;
          t.decl.space = "branchtargets";
          t.decl.name = f.body.back().label;
          t.decl.line = k.line;
          while (!accept(";")) {
            t.decl.init_symbols.push_back({t.decl.init_symbols.size(), std::string(next().text)});
            accept(",");
          }
          f.body.pop_back();  // the table's name is not a code label
          f.body.push_back(std::move(t));
        }
        continue;
      }
      Statement s;
      s.kind = Statement::Kind::Instr;
      s.line = k.line;
      s.instr = instruction();
      s.instr.src_file = loc_file_;
      s.instr.src_line = loc_line_;
      f.body.push_back(std::move(s));
    }
    fail(peek(), "unterminated function body");
  }

  Instr instruction() {
    Instr in;
    in.line = peek().line;
    if (accept("@")) {
      if (accept("!")) in.guard_negated = true;
      in.guard = std::string(next().text);
    }
    const Tok& op = next();
    if (op.kind != Tok::Ident) fail(op, "expected an instruction");
    in.opcode = std::string(op.text);
    in.parts = split_dots(op.text);
    if (!is(";")) {
      while (true) {
        in.operands.push_back(operand());
        if (accept(",")) continue;
        if (accept("|")) { in.operands.push_back(operand()); if (accept(",")) continue; }  // setp p|q
        break;
      }
    }
    if (!accept(";")) fail(peek(), "expected `;` after `" + in.opcode + "`");
    return in;
  }

  Operand immediate(bool negative) {
    const Tok& k = next();
    Operand o;
    std::string s(k.text);
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F') && s.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos) {
      o.kind = Operand::Kind::F32Imm;
      o.fbits = hex_bits(k, s.substr(2));
      if (negative) o.fbits ^= 0x80000000u;
    } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D')) {
      o.kind = Operand::Kind::F64Imm;
      o.fbits = hex_bits(k, s.substr(2));
      if (negative) o.fbits ^= 0x8000000000000000ull;
    } else if (s.find('.') != std::string::npos || ((s.find('e') != std::string::npos || s.find('E') != std::string::npos) &&
                                                   !(s.size() > 1 && (s[1] == 'x' || s[1] == 'X')))) {
      o.kind = Operand::Kind::F64Imm;  // decimal float literal; narrowed by the instruction type
      double v = decimal(k, s) * (negative ? -1.0 : 1.0);
      std::memcpy(&o.fbits, &v, 8);
      o.name = "decimal";
    } else {
      o.kind = Operand::Kind::Imm;
      o.ival = integer(k);
      if (negative) o.ival = static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(o.ival));  // wraps as PTX's 64-bit immediates do
    }
    return o;
  }

  Operand operand() {
    Operand o;
    if (accept("!")) {
      o = operand();
      o.negate = true;
      return o;
    }
    if (accept("-")) return immediate(true);
    if (peek().kind == Tok::Number) return immediate(false);
    if (accept("(")) {  // call argument lists
      o.kind = Operand::Kind::Vec;
      o.name = "()";
      while (!accept(")")) {
        o.elems.push_back(operand());
        accept(",");
      }
      return o;
    }
    if (accept("{")) {
      o.kind = Operand::Kind::Vec;
      while (!accept("}")) {
        o.elems.push_back(operand());
        accept(",");
      }
      return o;
    }
    if (accept("[")) {
      o.kind = Operand::Kind::Addr;
      if (peek().kind == Tok::Number) {
        o.ival = integer(next());
      } else {
        o.name = std::string(next().text);
        if (is(",")) {  // texture/surface operands: [tex, {coords}]
          while (accept(",")) o.elems.push_back(operand());
          expect("]");
          return o;
        }
        while (is("+") || is("-")) {
          bool neg = next().text == "-";
          if (accept("-")) neg = !neg;
          std::int64_t v = integer(next());
          o.ival += neg ? -v : v;
        }
      }
      expect("]");
      return o;
    }
    const Tok& k = next();
    if (k.kind != Tok::Ident) fail(k, "expected an operand");
    if (k.text == "_") { o.kind = Operand::Kind::Sink; return o; }
    o.name = std::string(k.text);
    o.kind = k.text[0] == '%' ? Operand::Kind::Reg : Operand::Kind::Symbol;
    // `sym+4` as an operand (mov.u64 %rd, sym+4)
    if (o.kind == Operand::Kind::Symbol && is("+") && peek(1).kind == Tok::Number) {
      next();
      o.ival = integer(next());
    }
    return o;
  }

  std::vector<Tok> t_;
  std::string origin_;
  std::size_t i_ = 0;
  int loc_file_ = 0, loc_line_ = 0;  // the last `.loc` of the function being parsed
};

}  // namespace

ast::Module parse_module(std::string_view text, const std::string& origin) {
  Lexer lx(text, origin);
  Parser p(lx.run(), origin);
  return p.module();
}

}  // namespace kernsim::isa::ptx
