// Attention forward against an independent naive computation written the
// way TransformerEngine's unfused path does it (materialize the full boolean
// mask with get_full_mask's window arithmetic and the full bias matrix with
// get_alibi's formula, expand KV heads, softmax in long double), on random
// inputs of several shapes for every mask type, bias type (and broadcast),
// window, GQA, dropout and variable lengths. Plus semantic spot checks.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/reference/kernels/attention_reference.h"
#include "plugins/reference/kernels/attention_test_inputs.h"
#include "plugins/reference/kernels/dropout_mask.h"

namespace teplug {
namespace reference {
namespace {

using testing::AttentionProblem;
using testing::MakeProblem;

struct NaiveResult {
  std::vector<double> o;
  std::vector<double> lse;
};

// The oracle. Deliberately does not use AttentionScoreRules; only the
// separately tested dropout mapping is shared.
NaiveResult NaiveAttention(const AttentionProblem& p) {
  const AttentionShape& s = p.shape;
  const AttentionOptions& opt = p.options;
  const std::string mask = AttnMaskTypeName(opt.mask_type);
  const bool padding = mask.find("padding") != std::string::npos;
  const bool causal = mask.find("causal") != std::string::npos;
  const bool bottom_right = mask != "causal" && mask != "padding_causal";
  const int64_t B = s.batch, H = s.hq, SQ = s.max_sq, SK = s.max_skv;

  std::vector<int64_t> len_q(B, SQ), len_kv(B, SK);
  if (padding && !opt.seqlens_q.empty()) len_q = opt.seqlens_q;
  if (padding && !opt.seqlens_kv.empty()) len_kv = opt.seqlens_kv;

  // Window as in get_full_mask (causal -> right 0), except that -1 becomes
  // SQ + SK, which is unbounded for every alignment. (get_full_mask uses
  // max_skv for the left side, which still cuts keys off top-left aligned rows
  // i > max_skv when max_sq > max_skv, contrary to TE's documented meaning of
  // -1; the reference follows the documentation.)
  int64_t left = opt.window_left;
  int64_t right = causal ? 0 : opt.window_right;
  if (left == -1) left = SQ + SK;
  if (right == -1) right = SQ + SK;

  // Full mask [B][SQ][SK], true = masked out.
  std::vector<bool> masked(B * SQ * SK);
  for (int64_t b = 0; b < B; ++b) {
    const int64_t shift = bottom_right ? len_kv[b] - len_q[b] : 0;
    for (int64_t i = 0; i < SQ; ++i)
      for (int64_t j = 0; j < SK; ++j) {
        const int64_t swa_left = (i - j) + shift - left;
        const int64_t swa_right = (i - j) + shift + right;
        const bool in_window = swa_left <= 0 && swa_right >= 0;
        const bool pad = i >= len_q[b] || j >= len_kv[b];
        masked[(b * SQ + i) * SK + j] = pad || !in_window;
      }
  }

  // Full bias [B][H][SQ][SK].
  std::vector<long double> bias(B * H * SQ * SK, 0.0L);
  std::vector<long double> slopes(H);
  if (!opt.alibi_slopes.empty()) {
    for (int64_t h = 0; h < H; ++h) slopes[h] = opt.alibi_slopes[h];
  } else {
    const int64_t n = static_cast<int64_t>(1) << static_cast<int>(std::floor(std::log2(H)));
    const long double m0 = std::pow(2.0L, -8.0L / n);
    for (int64_t h = 0; h < n; ++h) slopes[h] = std::pow(m0, h + 1);
    const long double m_hat0 = std::pow(2.0L, -4.0L / n);
    for (int64_t e = 1, h = n; h < H; e += 2, ++h) slopes[h] = std::pow(m_hat0, e);
  }
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < SQ; ++i)
        for (int64_t j = 0; j < SK; ++j) {
          long double value = 0;
          if (!opt.bias.empty()) {
            const int64_t bb = opt.bias_batch == B ? b : 0;
            const int64_t bh = opt.bias_heads == H ? h : 0;
            value = opt.bias[((bb * opt.bias_heads + bh) * SQ + i) * SK + j];
          } else if (opt.bias_type == AttnBiasType::kAlibi) {
            const int64_t shift = bottom_right ? len_kv[b] - len_q[b] : 0;
            value = -slopes[h] * std::fabs(static_cast<long double>(i - j + shift));
          }
          bias[((b * H + h) * SQ + i) * SK + j] = value;
        }

  // KV heads repeated to H heads.
  const int64_t group = H / s.hkv;
  std::vector<double> k_full(B * H * SK * s.d_qk), v_full(B * H * SK * s.d_v);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t j = 0; j < SK; ++j) {
        for (int64_t d = 0; d < s.d_qk; ++d)
          k_full[((b * H + h) * SK + j) * s.d_qk + d] =
              p.k[((b * s.hkv + h / group) * SK + j) * s.d_qk + d];
        for (int64_t d = 0; d < s.d_v; ++d)
          v_full[((b * H + h) * SK + j) * s.d_v + d] =
              p.v[((b * s.hkv + h / group) * SK + j) * s.d_v + d];
      }

  const DropoutGrid grid{B, H, SQ, SK};
  const DropoutStream stream{opt.dropout_seed, opt.dropout_offset};
  const bool dropout = opt.is_training && opt.dropout_p > 0;
  NaiveResult out;
  out.o.assign(B * H * SQ * s.d_v, 0.0);
  out.lse.assign(B * H * SQ, -std::numeric_limits<double>::infinity());
  const long double scale = opt.softmax_scale;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < SQ; ++i) {
        std::vector<long double> score(SK, -INFINITY);
        long double top = -INFINITY;
        for (int64_t j = 0; j < SK; ++j) {
          if (masked[(b * SQ + i) * SK + j]) continue;
          long double qk = 0;
          for (int64_t d = 0; d < s.d_qk; ++d)
            qk += static_cast<long double>(p.q[((b * H + h) * SQ + i) * s.d_qk + d]) *
                  k_full[((b * H + h) * SK + j) * s.d_qk + d];
          const long double bij = bias[((b * H + h) * SQ + i) * SK + j];
          score[j] = opt.bias_type == AttnBiasType::kPreScale
                         ? (qk + bij) * scale
                         : qk * scale + bij;
          top = std::max(top, score[j]);
        }
        if (std::isinf(top)) continue;
        long double denom = 0;
        for (int64_t j = 0; j < SK; ++j) denom += std::exp(score[j] - top);
        out.lse[(b * H + h) * SQ + i] = static_cast<double>(top + std::log(denom));
        for (int64_t d = 0; d < s.d_v; ++d) {
          long double acc = 0;
          for (int64_t j = 0; j < SK; ++j) {
            long double prob = std::exp(score[j] - top) / denom;
            if (dropout) {
              prob *= DropoutKeep(stream, grid, opt.dropout_p, b, h, i, j)
                          ? 1.0L / (1.0L - opt.dropout_p)
                          : 0.0L;
            }
            acc += prob * v_full[((b * H + h) * SK + j) * s.d_v + d];
          }
          out.o[((b * H + h) * SQ + i) * s.d_v + d] = static_cast<double>(acc);
        }
      }
  return out;
}

// |got - want| <= 1e-12 * (1 + |want|); equal infinities accepted.
void ExpectClose(const std::vector<double>& got, const std::vector<double>& want,
                 const std::string& what, const std::string& name) {
  ASSERT_EQ(got.size(), want.size()) << what << " " << name;
  for (size_t n = 0; n < got.size(); ++n) {
    if (std::isinf(want[n])) {
      ASSERT_EQ(got[n], want[n]) << what << "[" << n << "] " << name;
      continue;
    }
    ASSERT_NEAR(got[n], want[n], 1e-12 * (1 + std::fabs(want[n])))
        << what << "[" << n << "] " << name;
  }
}

const AttentionShape kShapes[] = {
    // B, hq, hkv, max_sq, max_skv, d_qk, d_v
    {2, 4, 2, 5, 7, 8, 6},  // GQA, sq < skv
    {3, 3, 3, 6, 4, 4, 5},  // MHA, sq > skv
    {2, 6, 1, 4, 4, 5, 3},  // MQA, square, non-power-of-two heads
};
const int64_t kWindows[][2] = {{-1, -1}, {2, 1}, {0, 0}, {3, -1}, {-1, 2}};

TEST(AttentionForwardTest, MatchesNaiveOracleForEveryOption) {
  std::mt19937_64 rng(12345);
  int cases = 0, rows_fully_masked = 0, rows_visible = 0;
  for (const AttentionShape& shape : kShapes)
    for (AttnMaskType mask : testing::kAllMaskTypes)
      for (AttnBiasType bias : testing::kAllBiasTypes)
        for (const auto& window : kWindows)
          for (double dropout : {0.0, 0.3}) {
            const AttentionProblem p = MakeProblem(rng, shape, mask, bias,
                                                   cases % 4, window[0],
                                                   window[1], dropout);
            const absl::StatusOr<AttentionForwardResult> got =
                AttentionForward(p.shape, p.options, p.q, p.k, p.v);
            ASSERT_TRUE(got.ok()) << got.status() << " " << p.name;
            const NaiveResult want = NaiveAttention(p);
            ExpectClose(got->o, want.o, "O", p.name);
            ExpectClose(got->lse, want.lse, "LSE", p.name);
            for (double l : want.lse) (std::isinf(l) ? rows_fully_masked : rows_visible)++;
            ++cases;
          }
  EXPECT_EQ(cases, 3 * 6 * 4 * 5 * 2);
  // The sweep exercises both kinds of rows.
  EXPECT_GT(rows_fully_masked, 0);
  EXPECT_GT(rows_visible, 0);
}

// TransformerEngine's get_full_mask docstring example: max lengths 4/4,
// padding mask, actual q lengths (2, 4) and kv lengths (3, 1). With V one-hot
// per key (d_v = skv), O_i[j] = P_ij, so its nonzeros are the visible keys.
TEST(AttentionForwardTest, PaddingMaskMatchesTransformerEngineExample) {
  const AttentionShape shape{2, 1, 1, 4, 4, 3, 4};
  AttentionOptions options;
  options.mask_type = AttnMaskType::kPadding;
  options.seqlens_q = {2, 4};
  options.seqlens_kv = {3, 1};
  std::mt19937_64 rng(7);
  const std::vector<double> q = testing::RandomValues(rng, 2 * 4 * 3, 1.0);
  const std::vector<double> k = testing::RandomValues(rng, 2 * 4 * 3, 1.0);
  std::vector<double> v(2 * 4 * 4, 0.0);
  for (int b = 0; b < 2; ++b)
    for (int j = 0; j < 4; ++j) v[(b * 4 + j) * 4 + j] = 1.0;
  const absl::StatusOr<AttentionForwardResult> got =
      AttentionForward(shape, options, q, k, v);
  ASSERT_TRUE(got.ok()) << got.status();
  // TE's expected mask (true = masked), copied from the docstring.
  const bool te_masked[2][4][4] = {
      {{false, false, false, true},
       {false, false, false, true},
       {true, true, true, true},
       {true, true, true, true}},
      {{false, true, true, true},
       {false, true, true, true},
       {false, true, true, true},
       {false, true, true, true}}};
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 4; ++i) {
      double row_sum = 0;
      for (int j = 0; j < 4; ++j) {
        const double p_ij = got->o[(b * 4 + i) * 4 + j];
        EXPECT_EQ(p_ij > 0, !te_masked[b][i][j]) << "b=" << b << " i=" << i << " j=" << j;
        row_sum += p_ij;
      }
      const bool row_visible = !te_masked[b][i][0];
      EXPECT_NEAR(row_sum, row_visible ? 1.0 : 0.0, 1e-14);
      EXPECT_EQ(std::isinf(got->lse[b * 4 + i]), !row_visible);
    }
}

// Causal alignment on a 2x4 problem without padding: top-left lets row 0 see
// key 0 only; bottom-right lets row 0 see keys 0..2.
TEST(AttentionForwardTest, CausalDiagonalAlignment) {
  const AttentionShape shape{1, 1, 1, 2, 4, 2, 4};
  std::mt19937_64 rng(3);
  const std::vector<double> q = testing::RandomValues(rng, 4, 1.0);
  const std::vector<double> k = testing::RandomValues(rng, 8, 1.0);
  std::vector<double> v(16, 0.0);
  for (int j = 0; j < 4; ++j) v[j * 4 + j] = 1.0;
  const int expected_visible[2][2] = {{1, 2}, {3, 4}};  // [top-left|bottom-right][row]
  const AttnMaskType masks[2] = {AttnMaskType::kCausal,
                                 AttnMaskType::kCausalBottomRight};
  for (int m = 0; m < 2; ++m) {
    AttentionOptions options;
    options.mask_type = masks[m];
    const absl::StatusOr<AttentionForwardResult> got =
        AttentionForward(shape, options, q, k, v);
    ASSERT_TRUE(got.ok()) << got.status();
    for (int i = 0; i < 2; ++i) {
      int visible = 0;
      for (int j = 0; j < 4; ++j) visible += got->o[i * 4 + j] > 0;
      EXPECT_EQ(visible, expected_visible[m][i]) << AttnMaskTypeName(masks[m]) << " row " << i;
    }
  }
}

// Values of TE's get_alibi default slopes, computed by hand from its code:
// n = largest power of two <= H, m = (2^(-8/n))^(1..n), then
// (2^(-4/n))^(1, 3, 5, ...) for the remaining heads.
TEST(AttentionForwardTest, DefaultAlibiSlopesFollowTransformerEngine) {
  const std::vector<double> eight = DefaultAlibiSlopes(8);
  ASSERT_EQ(eight.size(), 8u);
  for (int h = 0; h < 8; ++h) EXPECT_DOUBLE_EQ(eight[h], std::ldexp(1.0, -(h + 1)));
  const std::vector<double> six = DefaultAlibiSlopes(6);
  const double want_six[] = {0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125};
  ASSERT_EQ(six.size(), 6u);
  for (int h = 0; h < 6; ++h) EXPECT_DOUBLE_EQ(six[h], want_six[h]) << h;
  const std::vector<double> twelve = DefaultAlibiSlopes(12);
  ASSERT_EQ(twelve.size(), 12u);
  EXPECT_DOUBLE_EQ(twelve[7], 1.0 / 256);
  EXPECT_DOUBLE_EQ(twelve[8], std::sqrt(0.5));
  EXPECT_DOUBLE_EQ(twelve[11], std::pow(2.0, -3.5));
}

TEST(AttentionForwardTest, DropoutOnlyInTraining) {
  std::mt19937_64 rng(99);
  AttentionProblem p = MakeProblem(rng, kShapes[0], AttnMaskType::kNone,
                                   AttnBiasType::kNone, 0, -1, -1, 0.4);
  const absl::StatusOr<AttentionForwardResult> train =
      AttentionForward(p.shape, p.options, p.q, p.k, p.v);
  p.options.is_training = false;
  const absl::StatusOr<AttentionForwardResult> eval =
      AttentionForward(p.shape, p.options, p.q, p.k, p.v);
  p.options.dropout_p = 0.0;
  const absl::StatusOr<AttentionForwardResult> no_dropout =
      AttentionForward(p.shape, p.options, p.q, p.k, p.v);
  ASSERT_TRUE(train.ok() && eval.ok() && no_dropout.ok());
  EXPECT_EQ(eval->o, no_dropout->o);
  EXPECT_NE(train->o, eval->o);
  EXPECT_EQ(train->lse, eval->lse);  // LSE is taken before dropout
}

// Expects an InvalidArgument naming `needle`.
void ExpectRejected(const AttentionProblem& p, const std::string& needle) {
  const absl::StatusOr<AttentionForwardResult> got =
      AttentionForward(p.shape, p.options, p.q, p.k, p.v);
  ASSERT_FALSE(got.ok()) << "accepted, expected error about " << needle;
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(got.status().message().find(needle), std::string::npos)
      << got.status().message();
}

TEST(AttentionForwardTest, InvalidInputsAreRejectedWithAReason) {
  std::mt19937_64 rng(5);
  const AttentionProblem base = MakeProblem(rng, kShapes[0], AttnMaskType::kPadding,
                                            AttnBiasType::kPostScale, 3, -1, -1, 0.1);
  AttentionProblem p = base;
  p.shape.hkv = 3;
  ExpectRejected(p, "multiple of hkv");
  p = base;
  p.q.pop_back();
  ExpectRejected(p, "q has");
  p = base;
  p.options.seqlens_q[1] = 6;
  ExpectRejected(p, "seqlens_q[1] = 6");
  p = base;
  p.options.mask_type = AttnMaskType::kCausal;
  ExpectRejected(p, "has no padding");
  p = base;
  p.options.bias_heads = 2;
  ExpectRejected(p, "bias_heads");
  p = base;
  p.options.bias_type = AttnBiasType::kAlibi;
  ExpectRejected(p, "bias tensor was given");
  p = base;
  p.options.dropout_p = 1.0;
  ExpectRejected(p, "dropout probability");
  p = base;
  p.options.window_left = -2;
  ExpectRejected(p, "window sizes");
  p = base;
  p.options.softmax_scale = std::nan("");
  ExpectRejected(p, "softmax_scale");
}

}  // namespace
}  // namespace reference
}  // namespace teplug
