// Offsets of every layout against index formulas written out by hand from the
// buffer shapes, a coverage check (each packed buffer is tiled exactly once),
// names, and validation messages.
#include "plugins/reference/kernels/qkv_layout.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace teplug {
namespace reference {
namespace {

// Distinct, odd-ish extents so that a swapped axis shows up.
constexpr QkvDims kDims{/*batch=*/3, /*max_sq=*/5, /*max_skv=*/7, /*hq=*/4,
                        /*hkv=*/2, /*d_qk=*/6, /*d_v=*/6};
// Packed-QKV layouts need sq == skv and hq == hkv.
constexpr QkvDims kSquareDims{3, 5, 5, 4, 4, 6, 6};
// Separate layouts allow d_qk != d_v.
constexpr QkvDims kRaggedDims{3, 5, 7, 4, 2, 6, 3};

const std::vector<int64_t> kCuQ = {0, 4, 4, 9};       // lengths 4, 0, 5
const std::vector<int64_t> kCuKv = {2, 9, 12, 19};    // lengths 7, 3, 7
const std::vector<int64_t> kCuSquare = {0, 5, 7, 10};  // lengths 5, 2, 3

// The hand-derived offset for one element. Written per layout from the
// shapes in the header, deliberately not sharing code with the library.
int64_t HandOffset(QkvLayout layout, QkvTensor t, const QkvDims& m,
                   const std::vector<int64_t>& cu, int64_t b, int64_t s,
                   int64_t h, int64_t d) {
  const bool q = t == QkvTensor::kQ;
  const int64_t B = m.batch;
  const int64_t S = q ? m.max_sq : m.max_skv;
  const int64_t H = q ? m.hq : m.hkv;
  const int64_t D = t == QkvTensor::kV ? m.d_v : m.d_qk;
  const int64_t i3 = static_cast<int64_t>(t);  // q=0 k=1 v=2
  const int64_t i2 = t == QkvTensor::kV ? 1 : 0;
  const int64_t tok = cu.empty() ? 0 : cu[b] + s;
  switch (layout) {
    case QkvLayout::kSb3hd:  // [S,B,3,H,D]
      return (((s * B + b) * 3 + i3) * H + h) * D + d;
    case QkvLayout::kSbh3d:  // [S,B,H,3,D]
      return (((s * B + b) * H + h) * 3 + i3) * D + d;
    case QkvLayout::kSbhdSb2hd:  // Q [S,B,H,D], KV [S,B,2,H,D]
      return q ? ((s * B + b) * H + h) * D + d
               : (((s * B + b) * 2 + i2) * H + h) * D + d;
    case QkvLayout::kSbhdSbh2d:  // Q [S,B,H,D], KV [S,B,H,2,D]
      return q ? ((s * B + b) * H + h) * D + d
               : (((s * B + b) * H + h) * 2 + i2) * D + d;
    case QkvLayout::kSbhdSbhdSbhd:
      return ((s * B + b) * H + h) * D + d;
    case QkvLayout::kBs3hd:  // [B,S,3,H,D]
      return (((b * S + s) * 3 + i3) * H + h) * D + d;
    case QkvLayout::kBsh3d:  // [B,S,H,3,D]
      return (((b * S + s) * H + h) * 3 + i3) * D + d;
    case QkvLayout::kBshdBs2hd:
      return q ? ((b * S + s) * H + h) * D + d
               : (((b * S + s) * 2 + i2) * H + h) * D + d;
    case QkvLayout::kBshdBsh2d:
      return q ? ((b * S + s) * H + h) * D + d
               : (((b * S + s) * H + h) * 2 + i2) * D + d;
    case QkvLayout::kBshdBshdBshd:
      return ((b * S + s) * H + h) * D + d;
    case QkvLayout::kT3hd:  // [T,3,H,D]
      return ((tok * 3 + i3) * H + h) * D + d;
    case QkvLayout::kTh3d:  // [T,H,3,D]
      return ((tok * H + h) * 3 + i3) * D + d;
    case QkvLayout::kThdT2hd:  // Q [T,H,D], KV [T,2,H,D]
      return q ? (tok * H + h) * D + d : ((tok * 2 + i2) * H + h) * D + d;
    case QkvLayout::kThdTh2d:  // Q [T,H,D], KV [T,H,2,D]
      return q ? (tok * H + h) * D + d : ((tok * H + h) * 2 + i2) * D + d;
    case QkvLayout::kThdThdThd:
      return (tok * H + h) * D + d;
  }
  return -1;
}

// Dims and cu_seqlens that a layout accepts, as general as it allows.
struct LayoutCase {
  QkvDims dims;
  std::vector<int64_t> cu_q;
  std::vector<int64_t> cu_kv;
};

LayoutCase CaseFor(QkvLayout layout) {
  const bool thd = QkvFormatOf(layout) == QkvFormat::kThd;
  switch (QkvPackingOf(layout)) {
    case QkvPacking::kQkvPacked:
      return {kSquareDims, thd ? kCuSquare : std::vector<int64_t>{},
              thd ? kCuSquare : std::vector<int64_t>{}};
    case QkvPacking::kKvPacked:
      return {kDims, thd ? kCuQ : std::vector<int64_t>{},
              thd ? kCuKv : std::vector<int64_t>{}};
    case QkvPacking::kSeparate:
      break;
  }
  return {kRaggedDims, thd ? kCuQ : std::vector<int64_t>{},
          thd ? kCuKv : std::vector<int64_t>{}};
}

// Visits every valid (tensor, b, s, h, d) of a case.
template <typename Visit>
void ForEachElement(QkvLayout layout, const LayoutCase& c, Visit visit) {
  const bool thd = QkvFormatOf(layout) == QkvFormat::kThd;
  for (QkvTensor t : {QkvTensor::kQ, QkvTensor::kK, QkvTensor::kV}) {
    const bool q = t == QkvTensor::kQ;
    const std::vector<int64_t>& cu = q ? c.cu_q : c.cu_kv;
    const int64_t heads = q ? c.dims.hq : c.dims.hkv;
    const int64_t dim = t == QkvTensor::kV ? c.dims.d_v : c.dims.d_qk;
    for (int64_t b = 0; b < c.dims.batch; ++b) {
      const int64_t len = thd ? cu[b + 1] - cu[b]
                              : (q ? c.dims.max_sq : c.dims.max_skv);
      for (int64_t s = 0; s < len; ++s)
        for (int64_t h = 0; h < heads; ++h)
          for (int64_t d = 0; d < dim; ++d) visit(t, cu, b, s, h, d);
    }
  }
}

TEST(QkvLayoutTest, OffsetsMatchHandDerivedFormulas) {
  for (QkvLayout layout : AllQkvLayouts()) {
    const LayoutCase c = CaseFor(layout);
    ASSERT_TRUE(ValidateQkvLayout(layout, c.dims, c.cu_q, c.cu_kv).ok())
        << QkvLayoutName(layout);
    int64_t checked = 0;
    ForEachElement(layout, c, [&](QkvTensor t, const std::vector<int64_t>& cu,
                                  int64_t b, int64_t s, int64_t h, int64_t d) {
      ASSERT_EQ(QkvElementOffset(layout, t, c.dims, cu, b, s, h, d),
                HandOffset(layout, t, c.dims, cu, b, s, h, d))
          << QkvLayoutName(layout) << " tensor " << static_cast<int>(t)
          << " b=" << b << " s=" << s << " h=" << h << " d=" << d;
      ++checked;
    });
    EXPECT_GT(checked, 0) << QkvLayoutName(layout);
  }
}

// Each buffer (Q's, K's, V's; the same one for packed tensors) is covered by
// the offsets of its tensors exactly once, for non-thd layouts and for thd
// layouts whose cu_seqlens start at 0 without gaps.
TEST(QkvLayoutTest, PackedBuffersAreTiledExactlyOnce) {
  for (QkvLayout layout : AllQkvLayouts()) {
    const LayoutCase c = CaseFor(layout);
    if (QkvFormatOf(layout) == QkvFormat::kThd && c.cu_kv[0] != 0) continue;
    // Buffer id: 0 = Q's buffer, 1 = K's, 2 = V's, merged for packed ones.
    auto buffer_of = [&](QkvTensor t) {
      switch (QkvPackingOf(layout)) {
        case QkvPacking::kQkvPacked:
          return 0;
        case QkvPacking::kKvPacked:
          return t == QkvTensor::kQ ? 0 : 1;
        case QkvPacking::kSeparate:
          break;
      }
      return static_cast<int>(t);
    };
    std::set<int64_t> seen[3];
    ForEachElement(layout, c, [&](QkvTensor t, const std::vector<int64_t>& cu,
                                  int64_t b, int64_t s, int64_t h, int64_t d) {
      const int64_t offset = QkvElementOffset(layout, t, c.dims, cu, b, s, h, d);
      EXPECT_TRUE(seen[buffer_of(t)].insert(offset).second)
          << QkvLayoutName(layout) << ": offset " << offset << " used twice";
    });
    for (QkvTensor t : {QkvTensor::kQ, QkvTensor::kK, QkvTensor::kV}) {
      const std::set<int64_t>& offsets = seen[buffer_of(t)];
      const int64_t count = QkvBufferElementCount(
          layout, t, c.dims, t == QkvTensor::kQ ? c.cu_q : c.cu_kv);
      EXPECT_EQ(static_cast<int64_t>(offsets.size()), count)
          << QkvLayoutName(layout) << " tensor " << static_cast<int>(t);
      EXPECT_EQ(*offsets.begin(), 0);
      EXPECT_EQ(*offsets.rbegin(), count - 1);
    }
  }
}

TEST(QkvLayoutTest, NamesRoundTripAndUnknownNameIsRejected) {
  EXPECT_EQ(AllQkvLayouts().size(), 15u);
  for (QkvLayout layout : AllQkvLayouts()) {
    const absl::StatusOr<QkvLayout> parsed = ParseQkvLayout(QkvLayoutName(layout));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, layout);
  }
  EXPECT_STREQ(QkvLayoutName(QkvLayout::kBshdBsh2d), "bshd_bsh2d");
  const absl::StatusOr<QkvLayout> bad = ParseQkvLayout("bhsd");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bhsd"), std::string::npos);
  EXPECT_NE(bad.status().message().find("thd_th2d"), std::string::npos);
}

// Expects an InvalidArgument whose message contains `needle`.
void ExpectRejected(const absl::Status& status, const std::string& needle) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_NE(status.message().find(needle), std::string::npos)
      << "message \"" << status.message() << "\" lacks \"" << needle << "\"";
}

TEST(QkvLayoutTest, ValidationExplainsWhatIsWrong) {
  // Packed QKV with GQA heads.
  ExpectRejected(ValidateQkvLayout(QkvLayout::kBs3hd, kDims, {}, {}),
                 "hq == hkv");
  // Packed KV with different head dims.
  ExpectRejected(ValidateQkvLayout(QkvLayout::kSbhdSb2hd, kRaggedDims, {}, {}),
                 "d_qk == d_v");
  // Separate layouts take anything positive.
  EXPECT_TRUE(ValidateQkvLayout(QkvLayout::kBshdBshdBshd, kRaggedDims, {}, {}).ok());
  QkvDims zero_heads = kDims;
  zero_heads.hkv = 0;
  ExpectRejected(ValidateQkvLayout(QkvLayout::kBshdBshdBshd, zero_heads, {}, {}),
                 "hkv must be positive");
  // thd: wrong entry count, a sequence longer than max, decreasing offsets.
  ExpectRejected(ValidateQkvLayout(QkvLayout::kThdThdThd, kDims, {0, 4}, kCuKv),
                 "batch + 1 = 4 entries");
  ExpectRejected(
      ValidateQkvLayout(QkvLayout::kThdThdThd, kDims, {0, 6, 7, 8}, kCuKv),
      "sequence 0 has length 6");
  ExpectRejected(
      ValidateQkvLayout(QkvLayout::kThdThdThd, kDims, kCuQ, {0, 3, 2, 4}),
      "cu_seqlens_kv: sequence 1 has length -1");
  // Packed thd needs the same token offsets for both sides.
  ExpectRejected(ValidateQkvLayout(QkvLayout::kT3hd, kSquareDims, kCuSquare,
                                   {0, 5, 7, 9}),
                 "cu_seqlens_q must equal cu_seqlens_kv");
}

}  // namespace
}  // namespace reference
}  // namespace teplug
