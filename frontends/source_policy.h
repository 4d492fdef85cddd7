// What an untrusted kernel source may read of the host: only files under the allowed
// directories (the source's own directory and the -I directories of the launch: the spec's
// `compile.include_dirs`, the CLI's -I, Python's include_dirs=) and the compiler's system
// headers. Checked on the text before any tool runs, so a refused file never reaches a
// compiler's error message:
//  - `#include`/`#include_next`/`#import` of an absolute path or a computed name (a macro) is
//    refused by name; a header found in an allowed directory must resolve inside them (a `..`
//    or a symlink that leaves them is refused), and is read and checked the same way; a name
//    with `..` that no allowed directory holds is refused (it would leave the system ones);
//  - `#embed` and `__has_embed` (C23/clang: a file's bytes as data) are refused;
//  - `.incbin` (the assembler's "copy this file's bytes", reachable from inline asm, `.s` and
//    LLVM IR module asm) is refused wherever the word appears.
// Errors are Error(Compile) naming the file, line and directive.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace kernsim::frontends {

// `text` is the content of `source`; `flags` the extra clang flags (their -I DIR / -IDIR are
// allowed directories). `kind` decides the rules: "c" (CUDA/HIP: preprocessor directives and
// .incbin), "asm" (.s, .ll, .bc, .ptx: .incbin only).
void check_host_reads(const std::filesystem::path& source, std::string_view text, const std::vector<std::string>& flags,
                      std::string_view kind);

}  // namespace kernsim::frontends
