#include "core/select/op_signature.h"

#include <cstddef>
#include <cstring>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "teplug/teplug.h"

namespace teplug::core {
namespace {

constexpr size_t kTensorV1 = TEPLUG_STRUCT_SIZE(TeplugTensor, quant);
constexpr size_t kParamsV1 = TEPLUG_STRUCT_SIZE(TeplugAttentionParams, reserved0);
constexpr size_t kDeviceV1 = TEPLUG_STRUCT_SIZE(TeplugDevice, arch);
constexpr size_t kQuantV1 = TEPLUG_STRUCT_SIZE(TeplugQuantization, mode);

// Words each part adds at most (the budgets below add them up).
constexpr int kTensorWords = 2 + TEPLUG_MAX_RANK;  // its word, scaling mode, explicit strides
constexpr int kShapedTensorWords = kTensorWords + TEPLUG_MAX_RANK;  // and the shape
constexpr int kParamsWords = 12;
constexpr int kDeviceWords = 2;

// The word of an absent (NULL) tensor. A present tensor's word has bits
// 43..63 clear (see AddTensor), so this cannot be one.
constexpr int64_t kAbsentTensor = -1;

// The hash multiplier of the words one code site writes: odd and below 2^31,
// so it is a single multiply by an immediate.
constexpr uint64_t SiteKey(uint32_t site) {
  uint64_t z = (site + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return ((z ^ (z >> 31)) & 0x7FFFFFFF) | 1;
}

// Appends words at a cursor and hashes them on the way. Every helper is
// forced inline so that the cursor, the hash and the flags stay in registers:
// a counter in the signature object is stored and reloaded for every word, a
// serial chain through memory that once cost more than everything else in a
// dispatched call.
//
// The hash is the sum of each word times its code site's key (SiteKey), and
// for runs (strides, shapes) the site's key plus twice the index. Two equal
// signatures of one op are written by the same sites in the same order,
// because every branch the writer takes is decided by a word it already wrote
// (a NULL tensor's -1, the rank, the strided, quantized and device bits), so
// equal keys always hash alike. The products are independent, so they overlap
// in the pipeline.
//
// Checks that cannot fail for well-formed args branch to a cold path that
// marks the call unkeyable (it is then decided uncached, where DescribeOp names
// what is wrong), so the common path is straight-line loads and stores.
struct Cursor {
  int64_t* out;
  // Two partial sums, so that the additions form two shorter chains; Lane
  // spreads consecutive sites over them.
  uint64_t hash[2] = {0, 0};
  static constexpr int Lane(uint32_t site) { return static_cast<int>((site ^ (site >> 2)) & 1); }
  // The op's device: that of the first device-candidate tensor that names
  // one (what DescribeOp's FirstDevice picks), found on the way.
  const TeplugDevice* device = nullptr;
  bool unkeyable = false;

  template <uint32_t kSite>
  ABSL_ATTRIBUTE_ALWAYS_INLINE void Add(int64_t w) {
    *out++ = w;
    hash[Lane(kSite)] += static_cast<uint64_t>(w) * SiteKey(kSite);
  }
  // `n` (at most TEPLUG_MAX_RANK) words from `src`.
  template <uint32_t kSite>
  ABSL_ATTRIBUTE_ALWAYS_INLINE void AddRun(const int64_t* src, uint32_t n) {
    uint64_t key = SiteKey(kSite);
    for (uint32_t i = 0; i < n; ++i, key += 2) {
      out[i] = src[i];
      hash[Lane(kSite)] += static_cast<uint64_t>(src[i]) * key;
    }
    out += n;
  }
  uint64_t Sum() const { return hash[0] + hash[1]; }
};

// Alignment class of a pointer: log2 of its alignment, capped at 8 (256 B).
ABSL_ATTRIBUTE_ALWAYS_INLINE inline int64_t AlignClass(const void* p) {
  return __builtin_ctzll(reinterpret_cast<uintptr_t>(p) | uintptr_t{256});
}

// Two 32-bit fields in one word, without loss.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline int64_t Pair(int32_t lo, int32_t hi) {
  return static_cast<int64_t>(uint64_t{static_cast<uint32_t>(lo)} | uint64_t{static_cast<uint32_t>(hi)} << 32);
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline int64_t FloatBits(float f) {
  uint32_t b;
  static_assert(sizeof b == sizeof f, "float is 32-bit");
  std::memcpy(&b, &f, sizeof b);
  return b;
}

// Whether a tensor's device decides the op's device (see Cursor::device).
enum class DeviceCandidate : bool { kNo, kYes };

// A tensor: NULL is one word (-1). Otherwise one word, packed without loss:
// dtype (bits 0..31), rank (32..35), the alignment class of `data` (36..39),
// whether it names a device (40), whether its strides are explicit (41) and
// whether it is quantized (42); then, for a quantized tensor, its scaling
// mode; then its explicit strides (strides are all-or-none: strides[0] == 0
// means contiguous) and, when `kShape`, its shape. A struct shorter than v1 or
// a rank outside [0, 8] makes the call unkeyable; nothing past a struct's
// struct_size is read. `kSite` numbers the call site (see Cursor).
template <uint32_t kSite, bool kShape, DeviceCandidate kCandidate = DeviceCandidate::kNo>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void AddTensor(Cursor& c, const TeplugTensor* t) {
  if (t == nullptr) {
    c.Add<kSite * 4>(kAbsentTensor);
    return;
  }
  // struct_size first: `rank` lies past the end of a struct shorter than v1.
  if (ABSL_PREDICT_FALSE(t->struct_size < kTensorV1)) {
    c.unkeyable = true;
    return;
  }
  const auto rank = static_cast<uint32_t>(t->rank);
  if (ABSL_PREDICT_FALSE(rank > TEPLUG_MAX_RANK)) {
    c.unkeyable = true;
    return;
  }
  const TeplugDevice* device = t->device;
  if (kCandidate == DeviceCandidate::kYes && c.device == nullptr) c.device = device;
  const TeplugQuantization* quant = t->quant;
  const bool strided = t->strides[0] != 0;
  uint64_t word = uint64_t{static_cast<uint32_t>(t->dtype)} | uint64_t{rank} << 32 |
                  static_cast<uint64_t>(AlignClass(t->data)) << 36 | uint64_t{device != nullptr} << 40;
  if (ABSL_PREDICT_FALSE(strided || quant != nullptr)) {
    word |= uint64_t{strided} << 41 | uint64_t{quant != nullptr} << 42;
  }
  c.Add<kSite * 4>(static_cast<int64_t>(word));
  if (ABSL_PREDICT_FALSE(quant != nullptr)) {
    if (ABSL_PREDICT_FALSE(quant->struct_size < kQuantV1)) c.unkeyable = true;
    else c.Add<kSite * 4 + 1>(quant->mode);
  }
  if (ABSL_PREDICT_FALSE(strided)) c.AddRun<kSite * 4 + 2>(t->strides, rank);
  if (kShape) c.AddRun<kSite * 4 + 3>(t->shape, rank);
}

// The op's device (what capability checks look at), found by AddTensor: two
// words, or one (CPU) when no candidate tensor names a device. A device
// struct shorter than v1 counts as the host in DescribeOp, and here makes the
// call unkeyable.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void AddOpDevice(Cursor& c) {
  constexpr uint32_t kSite = 1000;
  const TeplugDevice* d = c.device;
  if (d == nullptr) {
    c.Add<kSite>(TEPLUG_DEVICE_CPU);
    return;
  }
  if (ABSL_PREDICT_FALSE(d->struct_size < kDeviceV1)) {
    c.unkeyable = true;
    return;
  }
  c.Add<kSite>(Pair(d->kind, static_cast<int32_t>(d->vendor_id)));
  c.Add<kSite + 1>(Pair(d->ordinal, d->arch));
}

// Every attention parameter except the per-call ones (softmax_scale,
// rng_seed, rng_offset and the cu_seqlens/alibi data), each without loss.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void AddParams(Cursor& c, const TeplugAttentionParams* p) {
  if (ABSL_PREDICT_FALSE(p == nullptr || p->struct_size < kParamsV1)) {
    c.unkeyable = true;
    return;
  }
  c.Add<2000>(Pair(p->layout, p->mask_type));
  c.Add<2001>(Pair(p->bias_type, p->is_training));
  c.Add<2002>(p->batch);
  c.Add<2003>(p->num_heads_q);
  c.Add<2004>(p->num_heads_kv);
  c.Add<2005>(p->head_dim_qk);
  c.Add<2006>(p->head_dim_v);
  c.Add<2007>(p->max_seqlen_q);
  c.Add<2008>(p->max_seqlen_kv);
  c.Add<2009>(p->window_left);
  c.Add<2010>(p->window_right);
  c.Add<2011>(FloatBits(p->dropout) | int64_t{p->cu_seqlens_q != nullptr} << 32 |
              int64_t{p->cu_seqlens_kv != nullptr} << 33 | int64_t{p->alibi_slopes != nullptr} << 34 |
              int64_t{p->deterministic != 0} << 35);
}

// The workspace: its alignment class and size.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void AddWorkspace(Cursor& c, const void* data, size_t size) {
  c.Add<3000>(AlignClass(data));
  c.Add<3001>(static_cast<int64_t>(size));
}

// ------------------------------------------------------------------ ops
// Each writer's worst case is a compile-time budget checked against
// OpSignature::kMaxWords (the leading word is interface and op). Sites are
// numbered per op; AddTensor uses four keys per site.

constexpr int kGemmBudget = 1 + 6 * kShapedTensorWords + kDeviceWords + 1 + 2;
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void GemmKey(Cursor& c, const TeplugGemmArgs* a) {
  // GEMM shapes are its parameters (M, N, K): all in the key.
  constexpr auto kDevice = DeviceCandidate::kYes;
  AddTensor<1, true, kDevice>(c, a->a);
  AddTensor<2, true, kDevice>(c, a->b);
  AddTensor<3, true>(c, a->c);
  AddTensor<4, true, kDevice>(c, a->d);
  AddTensor<5, true>(c, a->bias);
  AddTensor<6, true>(c, a->pre_gelu_out);
  AddOpDevice(c);
  c.Add<100>(int64_t{a->trans_a != 0} | int64_t{a->trans_b != 0} << 1 | int64_t{a->accumulate != 0} << 2 |
             int64_t{a->use_split_accumulator != 0} << 3 |
             static_cast<int64_t>(uint64_t{static_cast<uint32_t>(a->epilogue)} << 32));
  AddWorkspace(c, a->workspace, a->workspace_size);
}

// Attention shapes follow from the parameters and layout (and THD token
// counts vary per batch): only the biases' broadcast shapes are keyed.
constexpr int kAttentionFwdBudget =
    1 + kParamsWords + 5 * kTensorWords + kShapedTensorWords + kDeviceWords + 1 + 2;
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void AttentionFwdKey(Cursor& c, const TeplugAttentionFwdArgs* a) {
  constexpr auto kDevice = DeviceCandidate::kYes;
  AddParams(c, a->params);
  AddTensor<1, false, kDevice>(c, a->q);
  AddTensor<2, false, kDevice>(c, a->k);
  AddTensor<3, false, kDevice>(c, a->v);
  AddTensor<4, false, kDevice>(c, a->o);
  AddTensor<5, false>(c, a->softmax_lse);
  AddTensor<6, true>(c, a->bias);
  AddOpDevice(c);
  c.Add<100>(int64_t{a->s_quant != nullptr});
  AddWorkspace(c, a->workspace, a->workspace_size);
}

constexpr int kAttentionBwdBudget =
    1 + kParamsWords + 9 * kTensorWords + 2 * kShapedTensorWords + kDeviceWords + 1 + 2;
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void AttentionBwdKey(Cursor& c, const TeplugAttentionBwdArgs* a) {
  constexpr auto kDevice = DeviceCandidate::kYes;
  AddParams(c, a->params);
  AddTensor<1, false, kDevice>(c, a->q);
  AddTensor<2, false, kDevice>(c, a->k);
  AddTensor<3, false, kDevice>(c, a->v);
  AddTensor<4, false>(c, a->o);
  AddTensor<5, false, kDevice>(c, a->d_o);
  AddTensor<6, false>(c, a->softmax_lse);
  AddTensor<7, false>(c, a->dq);
  AddTensor<8, false>(c, a->dk);
  AddTensor<9, false>(c, a->dv);
  AddTensor<10, true>(c, a->bias);
  AddTensor<11, true>(c, a->dbias);
  AddOpDevice(c);
  c.Add<100>(int64_t{a->s_quant != nullptr} | int64_t{a->dp_quant != nullptr} << 1);
  AddWorkspace(c, a->workspace, a->workspace_size);
}

constexpr int kQuantizeBudget = 1 + 2 * kShapedTensorWords + kDeviceWords + 2;
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void QuantizeKey(Cursor& c, const TeplugQuantizeArgs* a) {
  AddTensor<1, true, DeviceCandidate::kYes>(c, a->input);
  AddTensor<2, true, DeviceCandidate::kYes>(c, a->output);
  AddOpDevice(c);
  c.Add<100>(Pair(a->recipe, (a->force_pow2_scales != 0) | (a->rowwise != 0) << 1 | (a->columnwise != 0) << 2));
  c.Add<101>(FloatBits(a->amax_epsilon));
}

constexpr int kDequantizeBudget = 1 + 2 * kShapedTensorWords + kDeviceWords;
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void DequantizeKey(Cursor& c, const TeplugDequantizeArgs* a) {
  AddTensor<1, true, DeviceCandidate::kYes>(c, a->input);
  AddTensor<2, true, DeviceCandidate::kYes>(c, a->output);
  AddOpDevice(c);
}

static_assert(kGemmBudget <= OpSignature::kMaxWords && kAttentionFwdBudget <= OpSignature::kMaxWords &&
                  kAttentionBwdBudget <= OpSignature::kMaxWords && kQuantizeBudget <= OpSignature::kMaxWords &&
                  kDequantizeBudget <= OpSignature::kMaxWords,
              "an op's signature can outgrow OpSignature::kMaxWords");

// Whether `args` is at least the v1 layout of Args (whose last v1 field is
// `stream` for every op args struct).
template <class Args>
bool AtLeastV1(const void* args) {
  return static_cast<const Args*>(args)->struct_size >= TEPLUG_STRUCT_SIZE(Args, stream);
}

// The final avalanche of the sum, so that the table's low bits depend on
// every word.
uint64_t Finish(uint64_t h) {
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 32);
}

}  // namespace

bool BuildSignature(InterfaceKind kind, int32_t op, const void* args, OpSignature* sig) {
  if (args == nullptr) return false;
  Cursor c{sig->words_};
  c.Add<0>(static_cast<int64_t>(kind) << 32 | static_cast<uint32_t>(op));
  switch (kind) {
    case InterfaceKind::kGemm:
      if (op != TEPLUG_OP_GEMM || !AtLeastV1<TeplugGemmArgs>(args)) return false;
      GemmKey(c, static_cast<const TeplugGemmArgs*>(args));
      break;
    case InterfaceKind::kAttention:
      if (op == TEPLUG_OP_ATTENTION_FORWARD) {
        if (!AtLeastV1<TeplugAttentionFwdArgs>(args)) return false;
        AttentionFwdKey(c, static_cast<const TeplugAttentionFwdArgs*>(args));
      } else if (op == TEPLUG_OP_ATTENTION_BACKWARD) {
        if (!AtLeastV1<TeplugAttentionBwdArgs>(args)) return false;
        AttentionBwdKey(c, static_cast<const TeplugAttentionBwdArgs*>(args));
      } else {
        return false;
      }
      break;
    case InterfaceKind::kQuantizer:
      if (op == TEPLUG_OP_QUANTIZE) {
        if (!AtLeastV1<TeplugQuantizeArgs>(args)) return false;
        QuantizeKey(c, static_cast<const TeplugQuantizeArgs*>(args));
      } else if (op == TEPLUG_OP_DEQUANTIZE) {
        if (!AtLeastV1<TeplugDequantizeArgs>(args)) return false;
        DequantizeKey(c, static_cast<const TeplugDequantizeArgs*>(args));
      } else {
        return false;
      }
      break;
    case InterfaceKind::kCollective:
      return false;  // collectives are bound to their communicator's implementation
  }
  if (ABSL_PREDICT_FALSE(c.unkeyable)) return false;
  sig->size_ = static_cast<int>(c.out - sig->words_);
  sig->hash_ = Finish(c.Sum() + static_cast<uint64_t>(sig->size_));
  return true;
}

}  // namespace teplug::core
