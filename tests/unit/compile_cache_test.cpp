// Uncached compile speed and the compile cache's key (issue 15 item 3): the precompiled CUDA
// prelude gives the same PTX as the plain command, is keyed on the user's settings, and a stale one
// is rebuilt; the cache key ignores comments and horizontal whitespace but not line breaks,
// literals or token boundaries.
#include <chrono>
#include <cstdlib>
#include <optional>

#include "api/embed.h"
#include "frontends/compile.h"
#include "frontends/pch.h"
#include "frontends/source_key.h"
#include "test_util.h"

namespace kernsim::frontends {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

// Every test gets its own cache directory (and KERNSIM_PCH unset), restored afterwards.
class CompileCache : public ::testing::Test {
 protected:
  void SetUp() override {
    save("KERNSIM_CACHE_DIR", old_cache_);
    save("KERNSIM_PCH", old_pch_);
    setenv("KERNSIM_CACHE_DIR", cache_.path().c_str(), 1);
    unsetenv("KERNSIM_PCH");
  }
  void TearDown() override {
    restore("KERNSIM_CACHE_DIR", old_cache_);
    restore("KERNSIM_PCH", old_pch_);
  }
  static void save(const char* name, std::optional<std::string>& to) {
    if (const char* v = std::getenv(name)) to = v;
  }
  static void restore(const char* name, const std::optional<std::string>& v) {
    if (v)
      setenv(name, v->c_str(), 1);
    else
      unsetenv(name);
  }
  // The PCH directories under the cache (one per key); the keys marked unusable.
  std::vector<fs::path> pchs(const char* file = "prelude.pch") const {
    std::vector<fs::path> out;
    std::error_code ec;
    for (auto it = fs::directory_iterator(cache_.path() / "pch", ec); !ec && it != fs::directory_iterator();
         it.increment(ec))
      if (fs::exists(it->path() / file)) out.push_back(it->path());
    return out;
  }
  std::vector<fs::path> unusable() const { return pchs("unusable"); }
  DeviceModule compile_cu(const fs::path& src, std::vector<std::string> flags = {}) const {
    return compile(src, {"sm_90a", std::move(flags), true});
  }

  TempDir cache_, work_;
  std::optional<std::string> old_cache_, old_pch_;
};

// Uses the wrapper headers' math (sinf, __expf, rsqrtf) and fp16, so the prelude matters.
const char* kKernel = R"(#include <cuda_fp16.h>
extern "C" __global__ void k(float* x, __half* h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = i; j < n; j += gridDim.x * blockDim.x) {
    x[j] = sinf(x[j]) + __expf(x[j]) * rsqrtf(x[j] + 2.0f);
    h[j] = __float2half(x[j]);
  }
}
)";

TEST_F(CompileCache, PrecompiledPreludeGivesThePtxOfThePlainCommand) {
  const fs::path src = work_.write("k.cu", kKernel);
  const std::string with = compile_cu(src).text;
  ASSERT_EQ(pchs().size(), 1u) << "the first compile builds the prelude";
  fs::remove_all(cache_.path() / "v1");
  EXPECT_EQ(compile_cu(src).text, with) << "and the next one loads it";
  fs::remove_all(cache_.path() / "v1");
  setenv("KERNSIM_PCH", "0", 1);
  EXPECT_EQ(compile_cu(src).text, with) << "KERNSIM_PCH=0 runs the plain command";
  EXPECT_THAT(with, ::testing::HasSubstr(".entry k("));
}

TEST_F(CompileCache, AStalePreludeIsRebuiltAndTheCompileStillSucceeds) {
  // a #define before the #include: no preamble, the prelude alone is in play
  const fs::path src = work_.write("k.cu", std::string("#define STALE 1\n") + kKernel);
  const std::string first = compile_cu(src).text;
  ASSERT_EQ(pchs().size(), 1u);
  // a file the PCH read changes: clang refuses the PCH, the plain command runs, the PCH goes
  const fs::path main = pchs()[0] / "prelude.cu";
  fs::last_write_time(main, fs::last_write_time(main) - std::chrono::hours(1));
  fs::remove_all(cache_.path() / "v1");
  EXPECT_EQ(compile_cu(src).text, first);
  EXPECT_TRUE(pchs().empty());
  fs::remove_all(cache_.path() / "v1");
  EXPECT_EQ(compile_cu(src).text, first);
  EXPECT_EQ(pchs().size(), 1u) << "rebuilt at the next compile";
  EXPECT_TRUE(unusable().empty()) << "a stale PCH is no unusable one";
}

TEST_F(CompileCache, EachSetOfSettingsGetsItsOwnPreludeAtItsSecondCompile) {
  const fs::path src = work_.write("k.cu", R"(extern "C" __global__ void k(float* x) { x[threadIdx.x] *= SCALE; })");
  compile_cu(src, {"-DSCALE=3.0f"});
  EXPECT_TRUE(pchs().empty()) << "a one-off setting builds nothing";
  fs::remove_all(cache_.path() / "v1");
  EXPECT_THAT(compile_cu(src, {"-DSCALE=3.0f"}).text, ::testing::HasSubstr("0f40400000"));
  EXPECT_EQ(pchs().size(), 1u);
  fs::remove_all(cache_.path() / "v1");
  compile_cu(src, {"-DSCALE=5.0f"});
  fs::remove_all(cache_.path() / "v1");
  EXPECT_THAT(compile_cu(src, {"-DSCALE=5.0f"}).text, ::testing::HasSubstr("0f40A00000"));
  EXPECT_EQ(pchs().size(), 2u) << "another -D is another prelude, never the first one's";
  EXPECT_TRUE(unusable().empty());
}

TEST_F(CompileCache, IncludeDirsAndStdWorkThroughTheirPrelude) {
  work_.write("inc/scale.h", "constexpr float kScale = 7.0f;\n");
  const fs::path src = work_.write("k.cu", R"(#include "scale.h"
#if __cplusplus < 202002L
#error needs C++20
#endif
extern "C" __global__ void k(float* x) { x[threadIdx.x] *= kScale; })");
  const std::vector<std::string> flags = {"-I", (work_.path() / "inc").string(), "-std=c++20"};
  for (int i = 0; i < 3; ++i) {  // plain, then building the prelude, then loading it
    fs::remove_all(cache_.path() / "v1");
    EXPECT_THAT(compile_cu(src, flags).text, ::testing::HasSubstr("0f40E00000")) << i;
  }
  EXPECT_EQ(pchs().size(), 1u);
}

TEST_F(CompileCache, SettingsOutsideTheAllowListNeverUseAPrelude) {
  for (const std::vector<std::string>& flags : std::vector<std::vector<std::string>>{
           {"-include", "x.h"}, {"-Xclang", "-foo"}, {"-mllvm", "-x"}, {"-fmodules"}, {"-E"}})
    EXPECT_FALSE(prelude_pch({{"clang++-22", "-S"}, flags, "clang 22", ".cu"}).has_value()) << flags[0];
}

TEST_F(CompileCache, AResubmissionDifferingInCommentsAndIndentationHitsTheCache) {
  const fs::path a = work_.write("a.cu", kKernel);
  std::string edited = kKernel;  // a comment more, a re-indented line: the same lines
  edited.replace(edited.find("\n"), 0, "  // candidate 2 of 64");
  edited.replace(edited.find("  int i"), 2, "\t \t");
  edited.replace(edited.find("h[j]"), 0, "/* store */  ");
  const fs::path b = work_.write("b.cu", edited);
  EXPECT_FALSE(compile_cu(a).from_cache);
  EXPECT_TRUE(compile_cu(b).from_cache);
  std::string moved = kKernel;  // one line break more: __LINE__ and every .loc line move
  moved.replace(moved.find("  int i"), 0, "\n");
  EXPECT_FALSE(compile_cu(work_.write("c.cu", moved)).from_cache);
}

TEST_F(CompileCache, RewritingTheSourceWithTheSameTextHits) {
  const fs::path k = work_.write("candidate.cu", kKernel);
  EXPECT_FALSE(compile_cu(k).from_cache);
  work_.write("candidate.cu", kKernel);  // an RL loop writes its next candidate over the last
  fs::last_write_time(k, fs::last_write_time(k) + std::chrono::hours(1));
  EXPECT_TRUE(compile_cu(k).from_cache) << "the source's own mtime is no dependency: its text is the key";
}

TEST_F(CompileCache, ASecondFileOfTheSameTextHitsAndItsPtxNamesItself) {
  const fs::path a = work_.write("a.cu", kKernel), b = work_.write("b.cu", kKernel);
  const DeviceModule ma = compile_cu(a), mb = compile_cu(b);
  EXPECT_FALSE(ma.from_cache);
  EXPECT_TRUE(mb.from_cache) << "one text in one directory shares an entry";
  const auto file_one = [](const std::string& ptx) {
    const std::size_t at = ptx.find(".file\t1 ");
    return at == std::string::npos ? std::string() : ptx.substr(at, ptx.find('\n', at) - at);
  };
  EXPECT_NE(file_one(ma.text).find("/a.cu\""), std::string::npos) << file_one(ma.text);
  EXPECT_NE(file_one(mb.text).find("/b.cu\""), std::string::npos)
      << "the cached PTX's .file names the file asked for, not the one that made the entry: " << file_one(mb.text);
}

TEST_F(CompileCache, TextSourcesDifferingInCommentsHitThroughSourceFromText) {
  std::string edited = kKernel;
  edited.replace(edited.find("\n"), 0, "   // candidate 7");
  const fs::path a = api::source_from_text(kKernel, ".cu"), b = api::source_from_text(edited, ".cu");
  EXPECT_NE(a, b);
  EXPECT_EQ(a.parent_path(), b.parent_path());
  EXPECT_FALSE(compile_cu(a).from_cache);
  EXPECT_TRUE(compile_cu(b).from_cache);
}

TEST_F(CompileCache, LeadingIncludesJoinThePreludeAtTheirSecondCompile) {
  const fs::path src = work_.write("k.cu", R"(// cooperative groups: ~900 headers, guarded
#include <cooperative_groups.h>

namespace cg = cooperative_groups;
extern "C" __global__ void k(float* x) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  x[threadIdx.x] = tile.shfl_down(x[threadIdx.x], 1);
}
)");
  const std::string first = compile_cu(src).text;
  EXPECT_EQ(pchs().size(), 1u) << "the prelude only, the first time";
  for (int i = 0; i < 2; ++i) {  // builds the prelude + <cooperative_groups.h>, then loads it
    fs::remove_all(cache_.path() / "v1");
    EXPECT_EQ(compile_cu(src).text, first) << i;
  }
  EXPECT_EQ(pchs().size(), 2u);
  EXPECT_TRUE(unusable().empty());
}

TEST_F(CompileCache, AnIncludeItsGuardDoesNotSkipKeepsItsLinesOutOfThePrelude) {
  // <mma.h> is entered again on a second #include (clang does not see its guard as one), so
  // a PCH holding it could change what the source's own #include reads: it is not used
  const fs::path src = work_.write("k.cu", R"(#include <mma.h>
extern "C" __global__ void k(float* x) { x[threadIdx.x] += 1.0f; }
)");
  const std::string first = compile_cu(src).text;
  fs::remove_all(cache_.path() / "v1");
  EXPECT_EQ(compile_cu(src).text, first);
  EXPECT_EQ(unusable().size(), 1u);
  EXPECT_EQ(pchs().size(), 1u) << "the prelude alone serves it";
}

TEST(Preamble, TheLeadingAngleIncludesAreThePreamble) {
  EXPECT_EQ(leading_system_includes(
                "// c\n/* x\n y */\n#include <a.h>\n  #  include <b/c.h>\n#include \"q.h\"\n#include <d.h>\n"),
            "#include <a.h>\n#include <b/c.h>\n");
  EXPECT_EQ(leading_system_includes("#include <a.h>\n#include <b.h> // why\n#include <c.h>\n"), "#include <a.h>\n");
  EXPECT_EQ(leading_system_includes("int x;\n#include <a.h>\n"), "");
  EXPECT_EQ(leading_system_includes("#define X 1\n#include <a.h>\n"), "");
  EXPECT_EQ(leading_system_includes("#include <a.h\n>\n"), "");
}

TEST(SourceKey, CommentsAndHorizontalWhitespaceAreFolded) {
  const auto same = [](const std::string& a, const std::string& b) {
    EXPECT_EQ(normalize_for_cache_key(a), normalize_for_cache_key(b)) << a << "\n----\n" << b;
  };
  same("int  x;\t// count\n  y = 1;", "int x;\ny = 1;");
  same("a /* one */ + /* two */ b;", "a + b;");
  same("#define  TILE  64  // tiles\n", "#define TILE 64\n");
  same("   #  pragma unroll\nfor (;;) {}\r\n", "# pragma unroll\nfor (;;) {}\n");
  same("x = R\"d(a  /* kept */  b)d\";  // c", "x = R\"d(a  /* kept */  b)d\";");
  same("int n = 1'000'000;   char c = 'a';", "int n = 1'000'000; char c = 'a';");
}

TEST(SourceKey, LineBreaksLiteralsAndTokenBoundariesAreKept) {
  const auto differ = [](const std::string& a, const std::string& b) {
    EXPECT_NE(normalize_for_cache_key(a), normalize_for_cache_key(b)) << a << "\n----\n" << b;
  };
  differ("int x;\nint y;", "int x; int y;");            // line numbers (__LINE__, .loc)
  differ("s = \"a  b\";", "s = \"a b\";");              // string contents
  differ("c = '  ';", "c = ' ';");                      // character literal contents
  differ("x = R\"(a  b)\";", "x = R\"(a b)\";");        // raw string contents
  differ("a+ +b", "a++b");                              // whitespace between tokens never goes
  differ("a/**/b", "ab");                               // a comment separates tokens
  differ("#define F (x)", "#define F(x)");              // object-like vs function-like macro
  differ("#include <a  b.h>", "#include <a b.h>");      // header names are kept
  differ("#include <a//b.h>", "#include <a");           // ... even with // in them
  differ("x /*\n*/ #define Y 1", "x\n#define Y 1");     // a newline in a comment ends no line
  differ("s = \"a\\  \n  b\";", "s = \"a\\  \n b\";");  // a string continued by a line splice
  differ("// c \\\nint x;", "// c\nint x;");            // a spliced // comment swallows the line
}

}  // namespace
}  // namespace kernsim::frontends
