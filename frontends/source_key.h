// The form of a C/C++ (CUDA, HIP) source that the compile cache hashes: the same for sources that
// differ only in comments and in how much horizontal whitespace separates tokens, so that an RL
// loop's or an editor's resubmission with a changed comment or re-indented line hits the cache.
//
// What it changes, and why that cannot change the compiled code:
//   - a comment becomes one space (C++ [lex.phases] phase 3 replaces each comment by one space);
//     the newlines inside a block comment are kept, and a `//` comment whose line ends in a
//     backslash goes on over the next line, as the line splice makes it;
//   - a run of spaces, tabs, \v, \f and \r (and comments) becomes one space, and is dropped before a
//     newline: whitespace only separates tokens (and `#x` stringification collapses it the same
//     way), and is never removed between two tokens, so `a+ +b` and `#define F (x)` keep it;
//   - nothing else: newlines stay where they are, so every line number (`__LINE__`, assert's
//     message, the PTX's `.loc` line info, the report's by_line) is the same; string and
//     character literals (raw strings too), header names in `#include <...>`, numbers (with
//     `'` digit separators) and identifiers are kept byte for byte.
// Columns can move, which only the `.loc` column numbers and their comments in PTX show (kernsim
// reads lines, not columns): a cache hit gives the first submission's PTX, instruction for
// instruction and line for line what the resubmission compiles to.
#pragma once

#include <string>
#include <string_view>

namespace kernsim::frontends {

std::string normalize_for_cache_key(std::string_view source);

}  // namespace kernsim::frontends
