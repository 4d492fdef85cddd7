// normalize_for_cache_key (source_key.h): one pass over the source that copies tokens and
// literals and folds comments and whitespace.
#include "frontends/source_key.h"

#include <cctype>

namespace kernsim::frontends {

namespace {

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

constexpr char kCommentNewline = '\x01';  // a newline inside a comment (not in C++ source text)

class Normalizer {
 public:
  explicit Normalizer(std::string_view s) : s_(s) { out_.reserve(s.size()); }

  std::string run() {
    while (i_ < s_.size()) step();
    return std::move(out_);
  }

 private:
  void step() {
    const char c = s_[i_];
    if (c == '\n') return newline();
    if (blank(c)) return ++i_, separate();
    if (c == '\\' && splice()) return;
    if (c == '/' && next(1) == '/') return line_comment();
    if (c == '/' && next(1) == '*') return block_comment();
    if (c == '#' && line_start_) return directive();
    line_start_ = false;
    if (c == '"' || c == '\'') return literal();
    if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && std::isdigit(static_cast<unsigned char>(next(1)))))
      return number();
    if (ident_char(c)) return identifier();
    emit(c);
    ++i_;
  }

  // Whitespace or a comment: one space before the next kept character, unless nothing but
  // whitespace came before it on its line (a newline already separates).
  void separate() { space_ = space_ || !line_start_; }

  // A backslash with only blanks after it on its line joins the next line to this one: kept as
  // "\\\n"; the joined line goes on the same logical line (its leading whitespace separates).
  bool splice() {
    std::size_t e = i_ + 1;
    while (e < s_.size() && blank(s_[e])) ++e;
    if (e >= s_.size() || s_[e] != '\n') return false;
    if (space_) out_ += ' ';
    space_ = false;
    out_ += "\\\n";
    i_ = e + 1;
    return true;
  }

  char next(std::size_t k) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }

  // Text that is kept: one pending space first, when whitespace came before it.
  void emit(char c) {
    if (space_) out_ += ' ';
    space_ = false;
    out_ += c;
  }
  void copy(std::size_t end) {
    if (space_) out_ += ' ';
    space_ = false;
    out_.append(s_.substr(i_, end - i_));
    i_ = end;
  }

  void newline() {
    space_ = false;
    out_ += '\n';
    line_start_ = true;
    ++i_;
  }

  // The newlines inside comments are kept as kCommentNewline, not '\n': they count lines, but
  // unlike a newline they do not end the logical line (`x /*\n*/ #define` is no directive).
  void line_comment() {
    bool spliced = false;  // the last non-blank character before the newline is a backslash
    for (i_ += 2; i_ < s_.size() && (s_[i_] != '\n' || spliced); ++i_) {
      if (s_[i_] == '\n') out_ += kCommentNewline;
      if (!blank(s_[i_])) spliced = s_[i_] == '\\';
    }
    separate();
  }

  void block_comment() {
    for (i_ += 2; i_ < s_.size() && !(s_[i_] == '*' && next(1) == '/'); ++i_)
      if (s_[i_] == '\n') out_ += kCommentNewline;
    i_ = std::min(i_ + 2, s_.size());
    separate();
  }

  // `#include <name>` (and include_next, import, embed): the header name is kept byte for byte,
  // `//` and `/*` in it included.
  void directive() {
    emit('#');
    ++i_;
    line_start_ = false;
    while (i_ < s_.size() && blank(s_[i_])) ++i_, separate();
    std::size_t j = i_;
    while (j < s_.size() && ident_char(s_[j])) ++j;
    const std::string_view word = s_.substr(i_, j - i_);
    copy(j);
    if (word != "include" && word != "include_next" && word != "import" && word != "embed") return;
    while (i_ < s_.size() && blank(s_[i_])) ++i_, separate();
    if (i_ >= s_.size() || s_[i_] != '<') return;
    std::size_t e = i_ + 1;
    while (e < s_.size() && s_[e] != '>' && s_[e] != '\n') ++e;
    copy(e < s_.size() && s_[e] == '>' ? e + 1 : e);
  }

  // A string or character literal, kept whole; it ends at its closing quote or (unterminated,
  // which clang rejects) at the end of the line. A raw string (prefix R, LR, uR, UR, u8R) ends at
  // its )delimiter".
  void literal() {
    const char q = s_[i_];
    if (q == '"' && raw_prefix_) return raw_string();
    std::size_t e = i_ + 1;
    while (e < s_.size() && s_[e] != q && s_[e] != '\n') {
      if (s_[e] != '\\') {
        ++e;
        continue;
      }
      std::size_t k = e + 1;  // an escape, or a line splice (backslash, blanks, newline)
      while (k < s_.size() && blank(s_[k])) ++k;
      e = k < s_.size() && s_[k] == '\n' ? k + 1 : e + 2;
    }
    copy(std::min(e + 1, s_.size()));
  }

  void raw_string() {
    const std::size_t open = s_.find('(', i_);
    const std::size_t limit = i_ + 1 + 16;
    if (open == std::string_view::npos || open > limit) {
      raw_prefix_ = false;
      return literal();
    }
    const std::string close = ")" + std::string(s_.substr(i_ + 1, open - i_ - 1)) + "\"";
    const std::size_t end = s_.find(close, open);
    copy(end == std::string_view::npos ? s_.size() : end + close.size());
  }

  // A pp-number: digits, letters, `.`, `'` digit separators, and a sign after e/E/p/P.
  void number() {
    std::size_t e = i_ + 1;
    while (e < s_.size()) {
      const char c = s_[e];
      const char p = s_[e - 1];
      if (ident_char(c) || c == '.')
        ++e;
      else if (c == '\'' && e + 1 < s_.size() && ident_char(s_[e + 1]))
        e += 2;
      else if ((c == '+' || c == '-') && (p == 'e' || p == 'E' || p == 'p' || p == 'P'))
        ++e;
      else
        break;
    }
    copy(e);
  }

  void identifier() {
    std::size_t e = i_;
    while (e < s_.size() && ident_char(s_[e])) ++e;
    const std::string_view w = s_.substr(i_, e - i_);
    copy(e);
    if (i_ < s_.size() && (s_[i_] == '"' || s_[i_] == '\'')) {
      raw_prefix_ = s_[i_] == '"' && (w == "R" || w == "LR" || w == "uR" || w == "UR" || w == "u8R");
      literal();  // an encoding prefix (u8"..", L'..') or a raw string, directly after its prefix
      raw_prefix_ = false;
    }
  }

  std::string_view s_;
  std::string out_;
  std::size_t i_ = 0;
  bool space_ = false;       // whitespace or a comment since the last kept character
  bool line_start_ = true;   // only whitespace and comments so far on this line
  bool raw_prefix_ = false;  // the literal being read is a raw string
};

}  // namespace

std::string normalize_for_cache_key(std::string_view source) {
  return Normalizer(source).run();
}

}  // namespace kernsim::frontends
