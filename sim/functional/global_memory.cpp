// Device memory: allocation, lookup and fault descriptions.
#include "sim/functional/global_memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <new>

#include "base/error.h"
#include "isa/ptx/program.h"

namespace kernsim::sim {

namespace {
constexpr std::uint64_t kBufferBase = isa::ptx::kGlobalBase + 0x0000001000000000ull;  // statics live below
constexpr std::uint64_t kGuard = 64 * 1024;

std::string hex(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kMapAtLeast = std::size_t{4} << 20;  // smaller buffers come from malloc

// `size` bytes (at least one), zeroed or left as they come (mapped ones are always zero); throws
// std::bad_alloc as new does.
std::unique_ptr<std::uint8_t[], HostBytes> host_bytes(std::uint64_t size, bool zeroed) {
  const std::size_t n = static_cast<std::size_t>(std::max<std::uint64_t>(size, 1));
  if (n < kMapAtLeast) {
    void* p = zeroed ? std::calloc(n, 1) : std::malloc(n);
    if (!p) throw std::bad_alloc();
    return std::unique_ptr<std::uint8_t[], HostBytes>(static_cast<std::uint8_t*>(p));
  }
  // one huge page more than needed, so that the bytes can start on a huge-page boundary
  const std::size_t len = (n + 2 * kHugePage - 1) / kHugePage * kHugePage;
  void* map = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) throw std::bad_alloc();
  const std::uintptr_t at = (reinterpret_cast<std::uintptr_t>(map) + kHugePage - 1) / kHugePage * kHugePage;
#ifdef MADV_HUGEPAGE
  madvise(reinterpret_cast<void*>(at), len - (at - reinterpret_cast<std::uintptr_t>(map)), MADV_HUGEPAGE);  // a hint: no error matters
#endif
  return std::unique_ptr<std::uint8_t[], HostBytes>(reinterpret_cast<std::uint8_t*>(at), HostBytes{len, map});
}
}  // namespace

void HostBytes::operator()(std::uint8_t* p) const {
  if (mapped)
    munmap(map, mapped);
  else
    std::free(p);
}

GlobalMemory::GlobalMemory() : next_(kBufferBase) {}

std::uint64_t GlobalMemory::allocate(std::uint64_t size, std::string label, bool read_only) {
  std::uint64_t base = (next_ + 255) & ~std::uint64_t{255};
  map_at(base, size, std::move(label), read_only);
  next_ = (base + size + kGuard + 0xffff) & ~std::uint64_t{0xffff};
  return base;
}

std::uint64_t GlobalMemory::allocate_lazy(std::uint64_t size, std::string label,
                                          std::function<void(std::uint64_t, std::uint64_t, std::uint8_t*)> fill, std::uint64_t page) {
  const std::uint64_t base = allocate(0, std::move(label));
  Allocation* a = by_base(base);
  // left uninitialised (a large block is fresh pages from the system, touched only when filled)
  a->bytes = host_bytes(size, false);
  a->size = size;
  a->fill = std::move(fill);
  if (page == 0 || (page & (page - 1)) != 0)
    throw Error(ErrorKind::Internal, "kernsim bug: lazy allocation page of " + std::to_string(page) + " bytes (a power of two is needed)");
  a->page = page;
  a->page_shift = static_cast<std::uint32_t>(std::countr_zero(page));
  a->unfilled = (size + page - 1) / page;
  a->filled.assign(a->unfilled, 0);
  next_ = (base + size + kGuard + 0xffff) & ~std::uint64_t{0xffff};
  return base;
}

std::uint64_t GlobalMemory::allocate_filled(std::uint64_t size, std::string label, const std::function<void(std::uint8_t*)>& fill) {
  const std::uint64_t base = allocate(0, std::move(label));
  Allocation* a = by_base(base);
  a->bytes = host_bytes(size, false);
  a->size = size;
  fill(a->data());
  next_ = (base + size + kGuard + 0xffff) & ~std::uint64_t{0xffff};
  return base;
}

void Allocation::fill_pages(std::uint64_t offset, std::uint64_t n) {
  const std::uint64_t end = std::min(size, offset + std::max<std::uint64_t>(n, 1));
  for (std::uint64_t p = offset >> page_shift; p << page_shift < end; ++p) {
    if (filled[p]) continue;
    const std::uint64_t from = p << page_shift, len = std::min(page, size - from);
    fill(from, len, bytes.get() + from);
    filled[p] = 1;
    --unfilled;
  }
  if (unfilled == 0) {  // every page filled: an eager allocation from now on
    fill = nullptr;
    filled.clear();
    filled.shrink_to_fit();
  }
}

void GlobalMemory::map_at(std::uint64_t base, std::uint64_t size, std::string label, bool read_only) {
  auto a = std::make_unique<Allocation>();
  a->base = base;
  a->size = size;
  a->label = std::move(label);
  a->read_only = read_only;
  a->bytes = host_bytes(size, true);  // zeros (calloc: a large block is fresh zero pages, nothing written)
  auto pos = std::lower_bound(allocs_.begin(), allocs_.end(), base, [](const auto& x, std::uint64_t b) { return x->base < b; });
  if (pos != allocs_.end() && (*pos)->base < base + size)
    throw Error(ErrorKind::Internal, "kernsim bug: overlapping device allocations at " + hex(base));
  allocs_.insert(pos, std::move(a));
  last_ = nullptr;
}

Allocation* GlobalMemory::find_slow(std::uint64_t addr, std::uint64_t size) {
  auto pos = std::upper_bound(allocs_.begin(), allocs_.end(), addr, [](std::uint64_t a, const auto& x) { return a < x->base; });
  if (pos == allocs_.begin()) return nullptr;
  Allocation* a = (pos - 1)->get();
  if (addr - a->base < a->size && addr + size - a->base <= a->size) {
    last_ = a;
    return a;
  }
  return nullptr;
}

Allocation* GlobalMemory::by_base(std::uint64_t base) {
  for (auto& a : allocs_)
    if (a->base == base) return a.get();
  return nullptr;
}

std::string GlobalMemory::describe(std::uint64_t addr, std::uint64_t size) const {
  if (allocs_.empty()) return "no device memory is allocated";
  const Allocation* best = nullptr;
  std::uint64_t best_d = ~std::uint64_t{0};
  std::string rel;
  for (const auto& a : allocs_) {
    std::uint64_t end = a->base + a->size;
    std::uint64_t d;
    std::string r;
    if (addr >= a->base && addr < end) {
      d = 0;
      r = "crosses the end of";
    } else if (addr >= end) {
      d = addr - end;
      r = std::to_string(d) + " bytes past the end of";
    } else {
      d = a->base - addr;
      r = std::to_string(d) + " bytes before the start of";
    }
    if (d < best_d) { best_d = d; best = a.get(); rel = r; }
  }
  (void)size;
  return rel + " " + best->label + " at " + hex(best->base) + " (" + std::to_string(best->size) + " bytes)";
}

}  // namespace kernsim::sim
