// Test support: this test suite's own description of TE's 15 QKV layouts
// (independent of kernels/qkv_layout.cc): buffer shapes and element offsets,
// and moving canonical [B][H][S][D] arrays into and out of layout buffers.
#ifndef TEPLUG_PLUGINS_REFERENCE_PROVIDER_TESTING_QKV_BUFFERS_H_
#define TEPLUG_PLUGINS_REFERENCE_PROVIDER_TESTING_QKV_BUFFERS_H_

#include <cstdint>
#include <vector>

namespace teplug::reference::provider::testing {

// Problem extents; canonical arrays are [B][H][S][D].
struct Dims {
  int64_t b, sq, skv, hq, hkv, dqk, dv;
};

// A layout as format and packing.
struct LayoutSpec {
  char format;       // 's' sbhd, 'b' bshd, 't' thd
  int pack;          // 0 separate, 3 qkv, 2 kv
  bool heads_first;  // h3d / h2d: pack axis after the heads
};

// Parsed from the layout's canonical name.
LayoutSpec SpecOf(int32_t layout);

// Whether tensor `which` (0 q, 1 k, 2 v) lives in a packed buffer.
bool Packed(const LayoutSpec& s, int which);

// The tensor whose buffer holds `which`: 0 for every member of qkv-packed
// layouts, 1 for k and v of kv-packed ones, `which` itself otherwise.
int OwnerOf(const LayoutSpec& s, int which);

// Shape of the buffer passed for `which`; `tokens` is the thd token extent.
std::vector<int64_t> BufferShape(const LayoutSpec& s, const Dims& d, int which, int64_t tokens);

// Element offset of (which, b, i, h, e) in that buffer; cu is that side's cu_seqlens.
int64_t Offset(const LayoutSpec& s, const Dims& d, int which, const std::vector<int64_t>& cu,
               int64_t b, int64_t i, int64_t h, int64_t e);

// Writes positions i < lens[b] of canonical `canon` into `buffer`.
void Scatter(const LayoutSpec& s, const Dims& d, int which, const std::vector<int64_t>& cu,
             const std::vector<int64_t>& lens, const std::vector<double>& canon,
             std::vector<double>* buffer);

// Reads positions i < lens[b] from `buffer` into a canonical array (0 elsewhere).
std::vector<double> Gather(const LayoutSpec& s, const Dims& d, int which,
                           const std::vector<int64_t>& cu, const std::vector<int64_t>& lens,
                           const std::vector<double>& buffer);

}  // namespace teplug::reference::provider::testing

#endif  // TEPLUG_PLUGINS_REFERENCE_PROVIDER_TESTING_QKV_BUFFERS_H_
