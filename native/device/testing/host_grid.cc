#include "native/device/testing/host_grid.h"

#include <ucontext.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <vector>

namespace teplug::native::host_grid {
namespace {

// Stack of one kernel thread: the kernels keep a few small arrays on it;
// room for sanitizer redzones.
constexpr size_t kStackBytes = 256 * 1024;

// A reusable barrier over `parties` fibers.
struct Barrier {
  Barrier(int parties, const char* what) : parties(parties), what(what) {}
  const int parties;
  const char* const what;
  int arrived = 0;
  uint64_t generation = 0;
};

// One warp's exchange slots and barrier. Shuffles alternate between two sets
// of slots: a lane writes a set again only two shuffles later, after every
// lane has passed the barrier in between and so has read it.
struct Warp {
  explicit Warp(int lanes) : barrier(lanes, "a warp barrier") {}
  Barrier barrier;
  uint64_t slots[2][32] = {};
};

struct Fiber {
  ucontext_t context;
  char* stack = nullptr;
  uint3 thread;
  Warp* warp = nullptr;
  int lane = 0;
  const Barrier* waiting_at = nullptr;  // for the divergence message
  bool returned = false;
};

// The launch in progress (one at a time).
struct Launch {
  const std::function<void()>* body = nullptr;
  std::vector<Fiber> fibers;
  Fiber* running = nullptr;
  size_t live = 0;       // fibers of the block that have not returned
  ucontext_t scheduler;  // resumed when the block's last fiber returns
  Barrier* block_barrier = nullptr;
  size_t idle_turns = 0;  // fibers resumed in a row whose barrier was still closed
};
Launch* launch = nullptr;

std::mutex launch_mu;
int64_t launches = 0;  // guarded by launch_mu
// Fiber stacks, kept from launch to launch (guarded by launch_mu).
std::vector<std::unique_ptr<char[]>> stacks;

[[noreturn]] void Divergent() {
  int at_block = 0, at_warp = 0, returned = 0;
  for (const Fiber& f : launch->fibers) {
    if (f.returned) {
      ++returned;
    } else if (f.waiting_at == launch->block_barrier) {
      ++at_block;
    } else {
      ++at_warp;
    }
  }
  std::fprintf(stderr,
               "host grid: block (%u, %u, %u) cannot go on: %d threads wait at __syncthreads(), "
               "%d at a warp barrier (__syncwarp() or a shuffle), %d have returned (divergent "
               "control flow around a barrier)\n",
               blockIdx.x, blockIdx.y, blockIdx.z, at_block, at_warp, returned);
  std::abort();
}

// The next fiber after the running one that has not returned (round robin).
Fiber& NextLive() {
  Launch& l = *launch;
  size_t i = static_cast<size_t>(l.running - l.fibers.data());
  do {
    i = (i + 1) % l.fibers.size();
  } while (l.fibers[i].returned);
  return l.fibers[i];
}

void MakeRunning(Fiber& f) {
  launch->running = &f;
  threadIdx = f.thread;
}

// Passes the turn straight to the next live fiber (one context switch, no
// trip through a scheduler).
void Yield() {
  Fiber& self = *launch->running;
  Fiber& next = NextLive();
  if (&next == &self) return;
  MakeRunning(next);
  swapcontext(&self.context, &next.context);
}

void Wait(Barrier& b) {
  const uint64_t generation = b.generation;
  if (++b.arrived == b.parties) {
    b.arrived = 0;
    ++b.generation;
    launch->idle_turns = 0;
    return;
  }
  launch->running->waiting_at = &b;
  while (true) {
    Yield();
    if (b.generation != generation) break;
    // Every live fiber has had a turn since the last release: none can move.
    if (++launch->idle_turns > launch->live) Divergent();
  }
  launch->idle_turns = 0;
  launch->running->waiting_at = nullptr;
}

void FiberEntry() {
  Launch& l = *launch;
  (*l.body)();
  Fiber& self = *l.running;
  self.returned = true;
  l.idle_turns = 0;
  if (--l.live == 0) setcontext(&l.scheduler);
  Fiber& next = NextLive();
  MakeRunning(next);
  setcontext(&next.context);
}

// Runs every fiber of the current block to its end.
void RunBlock() {
  Launch& l = *launch;
  for (Fiber& f : l.fibers) {
    f.returned = false;
    f.waiting_at = nullptr;
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = f.stack;
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = nullptr;  // FiberEntry never returns
    makecontext(&f.context, &FiberEntry, 0);
  }
  l.live = l.fibers.size();
  l.idle_turns = 0;
  MakeRunning(l.fibers.front());
  swapcontext(&l.scheduler, &l.fibers.front().context);
}

}  // namespace

cudaError_t Run(dim3 grid, dim3 block, const std::function<void()>& body) {
  const uint64_t threads = uint64_t{block.x} * block.y * block.z;
  if (threads == 0 || threads > 1024 || block.z > 64 || grid.x == 0 || grid.y == 0 || grid.z == 0 ||
      grid.x > 0x7FFFFFFFu || grid.y > 65535 || grid.z > 65535) {
    return cudaErrorInvalidConfiguration;
  }
  std::lock_guard<std::mutex> lock(launch_mu);
  ++launches;
  const int n = static_cast<int>(threads);
  Barrier block_barrier(n, "__syncthreads()");
  std::vector<std::unique_ptr<Warp>> warps;
  for (int first = 0; first < n; first += 32) {
    warps.push_back(std::make_unique<Warp>(n - first < 32 ? n - first : 32));
  }
  Launch l;
  l.body = &body;
  l.block_barrier = &block_barrier;
  l.fibers.resize(static_cast<size_t>(n));
  while (stacks.size() < l.fibers.size()) stacks.emplace_back(new char[kStackBytes]);
  for (int t = 0; t < n; ++t) {
    Fiber& f = l.fibers[static_cast<size_t>(t)];
    f.stack = stacks[static_cast<size_t>(t)].get();
    f.thread = uint3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
    f.warp = warps[static_cast<size_t>(t / 32)].get();
    f.lane = t % 32;
  }
  launch = &l;
  blockDim = block;
  gridDim = grid;
  const uint64_t blocks = uint64_t{grid.x} * grid.y * grid.z;
  for (uint64_t b = 0; b < blocks; ++b) {
    blockIdx =
        uint3{static_cast<unsigned>(b % grid.x), static_cast<unsigned>((b / grid.x) % grid.y),
              static_cast<unsigned>(b / (uint64_t{grid.x} * grid.y))};
    RunBlock();
  }
  launch = nullptr;
  return cudaSuccess;
}

void SyncThreads() { Wait(*launch->block_barrier); }

void SyncWarp() { Wait(launch->running->warp->barrier); }

uint64_t ShuffleXor(uint64_t bits, int lane_mask) {
  Fiber& self = *launch->running;
  Warp& w = *self.warp;
  uint64_t* slots = w.slots[w.barrier.generation & 1];
  slots[self.lane] = bits;
  Wait(w.barrier);
  return slots[(self.lane ^ lane_mask) & 31];
}

int64_t Launches() {
  std::lock_guard<std::mutex> lock(launch_mu);
  return launches;
}

void RequireAligned(const void* p, size_t bytes, const char* file, int line) {
  if (reinterpret_cast<uintptr_t>(p) % bytes == 0) return;
  std::fprintf(stderr,
               "host grid: %s:%d: a %zu-byte vector access at %p, which is not %zu-byte aligned "
               "(a GPU would fault), in block (%u, %u, %u) thread (%u, %u, %u)\n",
               file, line, bytes, p, bytes, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x,
               threadIdx.y, threadIdx.z);
  std::abort();
}

}  // namespace teplug::native::host_grid

cudaError_t cudaMemsetAsync(void* p, int value, size_t bytes, cudaStream_t) {
  if (p == nullptr && bytes > 0) return cudaErrorInvalidValue;
  if (bytes > 0) std::memset(p, value, bytes);
  return cudaSuccess;
}

cudaError_t cudaMallocAsync(void** p, size_t bytes, cudaStream_t) {
  if (p == nullptr) return cudaErrorInvalidValue;
  *p = std::malloc(bytes < 1 ? 1 : bytes);
  return *p == nullptr ? cudaErrorMemoryAllocation : cudaSuccess;
}

cudaError_t cudaFreeAsync(void* p, cudaStream_t) {
  std::free(p);
  return cudaSuccess;
}
