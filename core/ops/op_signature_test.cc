// The decision cache's key must hold exactly what selection may depend on
// (interfaces/README.md, "Decisions are cached per op signature"): two calls
// that differ in a keyed fact must get different keys, or one would be served
// the other's decision; two calls that differ only in what is not keyed
// (data addresses within an alignment class, values, RNG seeds, softmax
// scale, which struct object holds a device or scaling description) must get
// the same key and hash, or every call would miss the cache.
//
// Checked three ways: every keyed field mutated one at a time; random calls
// compared against an independent list of their keyed facts (equal keys
// exactly when the facts are equal); and malformed args refused.
#include "core/ops/op_signature.h"

#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/ops/attention.h"
#include "core/ops/collective.h"
#include "core/ops/gemm.h"
#include "core/ops/modules.h"
#include "core/ops/quantizer.h"
#include "gtest/gtest.h"
#include "teplug/teplug.h"

namespace teplug::core {
namespace {

std::vector<int64_t> Words(const OpSignature& s) { return {s.words(), s.words() + s.size()}; }

// Owns everything an attention forward call points at. Tensor data pointers
// point into `arena` at chosen offsets (their alignment class is what counts).
struct FwdCall {
  alignas(512) unsigned char arena[8192] = {};
  TeplugAttentionParams params{};
  TeplugTensor q{}, k{}, v{}, o{}, lse{}, bias{};
  TeplugDevice device_a{}, device_b{};
  TeplugQuantization quant{};
  TeplugAttentionFwdArgs args{};
  float seq_marker = 0;  // a "cu_seqlens" target (only presence is keyed)
  TeplugTensor cu_seqlens{};

  FwdCall() {
    params.struct_size = sizeof params;
    params.layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD;
    params.mask_type = TEPLUG_MASK_CAUSAL;
    params.batch = 2;
    params.num_heads_q = 16;
    params.num_heads_kv = 4;
    params.head_dim_qk = 128;
    params.head_dim_v = 128;
    params.max_seqlen_q = 1024;
    params.max_seqlen_kv = 1024;
    params.window_left = -1;
    params.window_right = -1;
    params.softmax_scale = 0.088f;
    params.rng_seed = 1234;
    int slot = 0;
    for (TeplugTensor* t : {&q, &k, &v, &o, &lse, &bias}) {
      t->struct_size = sizeof *t;
      t->dtype = TEPLUG_DTYPE_BF16;
      t->rank = 4;
      for (int i = 0; i < 4; ++i) t->shape[i] = 2 + i;
      t->data = arena + 1024 * slot++;
    }
    lse.dtype = TEPLUG_DTYPE_FP32;
    lse.rank = 3;
    cu_seqlens.struct_size = sizeof cu_seqlens;
    cu_seqlens.dtype = TEPLUG_DTYPE_INT32;
    cu_seqlens.rank = 1;
    cu_seqlens.data = &seq_marker;
    for (TeplugDevice* d : {&device_a, &device_b}) {
      d->struct_size = sizeof *d;
      d->kind = TEPLUG_DEVICE_CUDA;
      d->vendor_id = TEPLUG_VENDOR_NVIDIA;
      d->ordinal = 0;
      d->arch = 90;
    }
    quant.struct_size = sizeof quant;
    quant.mode = TEPLUG_SCALING_PER_TENSOR;
    args.struct_size = sizeof args;
    args.params = &params;
    args.q = &q;
    args.k = &k;
    args.v = &v;
    args.o = &o;
    args.softmax_lse = &lse;
    args.bias = nullptr;
    args.workspace = arena + 6144;
    args.workspace_size = 1 << 20;
  }
  FwdCall(const FwdCall&) = delete;
  FwdCall& operator=(const FwdCall&) = delete;

  OpSignature Key() const {
    OpSignature s;
    EXPECT_TRUE(BuildSignature(AttentionModule(), TEPLUG_OP_ATTENTION_FORWARD, &args, &s));
    return s;
  }
  bool Keyable() const {
    OpSignature s;
    return BuildSignature(AttentionModule(), TEPLUG_OP_ATTENTION_FORWARD, &args, &s);
  }
};

// ---------------------------------------------------------------- mutations

// One keyed fact each: applying it must change the key.
struct Mutation {
  const char* what;
  void (*apply)(FwdCall&);
};

const Mutation kKeyedMutations[] = {
    {"params.layout", [](FwdCall& c) { c.params.layout = TEPLUG_LAYOUT_BSHD_BSHD_BSHD + 1; }},
    {"params.mask_type", [](FwdCall& c) { c.params.mask_type = TEPLUG_MASK_NONE; }},
    {"params.bias_type", [](FwdCall& c) { c.params.bias_type = 1; }},
    {"params.is_training", [](FwdCall& c) { c.params.is_training = 1; }},
    {"params.batch", [](FwdCall& c) { c.params.batch = 3; }},
    {"params.num_heads_q", [](FwdCall& c) { c.params.num_heads_q = 32; }},
    {"params.num_heads_kv", [](FwdCall& c) { c.params.num_heads_kv = 8; }},
    {"params.head_dim_qk", [](FwdCall& c) { c.params.head_dim_qk = 64; }},
    {"params.head_dim_v", [](FwdCall& c) { c.params.head_dim_v = 64; }},
    {"params.head_dim_qk beyond 32 bits", [](FwdCall& c) { c.params.head_dim_qk += int64_t{1} << 32; }},
    {"params.max_seqlen_q", [](FwdCall& c) { c.params.max_seqlen_q = 2048; }},
    {"params.max_seqlen_kv", [](FwdCall& c) { c.params.max_seqlen_kv = 2048; }},
    {"params.window_left", [](FwdCall& c) { c.params.window_left = 128; }},
    {"params.window_right", [](FwdCall& c) { c.params.window_right = 0; }},
    {"params.window_right beyond 32 bits", [](FwdCall& c) { c.params.window_right = int64_t{1} << 40; }},
    {"params.dropout", [](FwdCall& c) { c.params.dropout = 0.1f; }},
    {"params.cu_seqlens_q given", [](FwdCall& c) { c.params.cu_seqlens_q = &c.cu_seqlens; }},
    {"params.cu_seqlens_kv given", [](FwdCall& c) { c.params.cu_seqlens_kv = &c.cu_seqlens; }},
    {"params.alibi_slopes given", [](FwdCall& c) { c.params.alibi_slopes = &c.cu_seqlens; }},
    {"params.deterministic", [](FwdCall& c) { c.params.deterministic = 1; }},
    {"q.dtype", [](FwdCall& c) { c.q.dtype = TEPLUG_DTYPE_FP16; }},
    {"k.dtype", [](FwdCall& c) { c.k.dtype = TEPLUG_DTYPE_FP16; }},
    {"v.dtype", [](FwdCall& c) { c.v.dtype = TEPLUG_DTYPE_FP16; }},
    {"o.dtype", [](FwdCall& c) { c.o.dtype = TEPLUG_DTYPE_FP16; }},
    {"softmax_lse.dtype", [](FwdCall& c) { c.lse.dtype = TEPLUG_DTYPE_FP16; }},
    {"q.dtype out of range", [](FwdCall& c) { c.q.dtype = 0x10000 + TEPLUG_DTYPE_BF16; }},
    {"q.rank", [](FwdCall& c) { c.q.rank = 3; }},
    {"q alignment class 256 -> 16", [](FwdCall& c) { c.q.data = c.arena + 16; }},
    {"v alignment class 256 -> 2", [](FwdCall& c) { c.v.data = c.arena + 2050; }},
    {"q names a device", [](FwdCall& c) { c.q.device = &c.device_a; }},
    {"o names a device", [](FwdCall& c) { c.o.device = &c.device_a; }},
    {"q strided", [](FwdCall& c) { for (int i = 0; i < 4; ++i) c.q.strides[i] = 1000 >> i; }},
    {"q quantized", [](FwdCall& c) { c.q.quant = &c.quant; }},
    {"softmax_lse absent", [](FwdCall& c) { c.args.softmax_lse = nullptr; }},
    {"bias given", [](FwdCall& c) { c.args.bias = &c.bias; }},
    {"s_quant given", [](FwdCall& c) { c.args.s_quant = &c.quant; }},
    {"workspace size", [](FwdCall& c) { c.args.workspace_size = 2 << 20; }},
    {"workspace size beyond 48 bits", [](FwdCall& c) { c.args.workspace_size += size_t{1} << 50; }},
    {"workspace alignment", [](FwdCall& c) { c.args.workspace = c.arena + 6144 + 8; }},
};

// Fields the key must ignore: applying one must keep key and hash.
const Mutation kUnkeyedMutations[] = {
    {"data address within the class", [](FwdCall& c) { c.q.data = c.arena + 4096 + 512; }},
    {"NULL data (alignment class 8, like 256-aligned data)", [](FwdCall& c) { c.o.data = nullptr; }},
    {"shape of q (implied by params)", [](FwdCall& c) { c.q.shape[0] = 99; }},
    {"softmax_scale", [](FwdCall& c) { c.params.softmax_scale = 0.5f; }},
    {"rng_seed", [](FwdCall& c) { c.params.rng_seed = 99; }},
    {"rng_offset", [](FwdCall& c) { c.params.rng_offset = 7; }},
    {"stream", [](FwdCall& c) { c.args.stream = &c.seq_marker; }},
    {"tensor values", [](FwdCall& c) { std::memset(c.arena, 0x5A, sizeof c.arena); }},
};

TEST(OpSignatureTest, EveryKeyedFieldChangesTheKey) {
  FwdCall base;
  const OpSignature base_key = base.Key();
  for (const Mutation& m : kKeyedMutations) {
    FwdCall c;
    m.apply(c);
    ASSERT_TRUE(c.Keyable()) << m.what;
    EXPECT_NE(Words(c.Key()), Words(base_key)) << m.what << " did not change the key";
  }
}

TEST(OpSignatureTest, UnkeyedFieldsKeepKeyAndHash) {
  FwdCall base;
  const OpSignature base_key = base.Key();
  for (const Mutation& m : kUnkeyedMutations) {
    FwdCall c;
    m.apply(c);
    const OpSignature key = c.Key();
    EXPECT_EQ(Words(key), Words(base_key)) << m.what << " changed the key";
    EXPECT_EQ(key.hash(), base_key.hash()) << m.what << " changed the hash";
  }
}

TEST(OpSignatureTest, DeviceIsKeyedByContentNotByObject) {
  FwdCall a, b;
  a.q.device = &a.device_a;
  b.q.device = &b.device_b;  // another object with the same content
  EXPECT_EQ(Words(a.Key()), Words(b.Key()));
  EXPECT_EQ(a.Key().hash(), b.Key().hash());
  for (void (*change)(TeplugDevice&) : {+[](TeplugDevice& d) { d.kind = TEPLUG_DEVICE_OPENCL; },
                                         +[](TeplugDevice& d) { d.vendor_id = TEPLUG_VENDOR_AMD; },
                                         +[](TeplugDevice& d) { d.ordinal = 1; },
                                         +[](TeplugDevice& d) { d.arch = 100; }}) {
    FwdCall c;
    c.q.device = &c.device_b;
    change(c.device_b);
    EXPECT_NE(Words(c.Key()), Words(a.Key()));
  }
  // The op's device is the first of q, k, v, o that names one.
  FwdCall first_q, first_k;
  first_q.q.device = &first_q.device_a;
  first_q.k.device = &first_q.device_b;
  first_q.device_b.ordinal = 1;
  first_k.k.device = &first_k.device_b;
  first_k.device_b.ordinal = 1;
  EXPECT_NE(Words(first_q.Key()), Words(first_k.Key()));
}

TEST(OpSignatureTest, QuantizationIsKeyedByMode) {
  FwdCall a, b;
  a.q.quant = &a.quant;
  b.q.quant = &b.quant;
  b.quant.scale = &b.cu_seqlens;  // scale tensors are data, not keyed
  EXPECT_EQ(Words(a.Key()), Words(b.Key()));
  b.quant.mode = TEPLUG_SCALING_MXFP8_1D32;
  EXPECT_NE(Words(a.Key()), Words(b.Key()));
}

TEST(OpSignatureTest, StridesAreKeyedWhenExplicit) {
  FwdCall a, b;
  for (int i = 0; i < 4; ++i) a.q.strides[i] = b.q.strides[i] = 1000 >> i;
  EXPECT_EQ(Words(a.Key()), Words(b.Key()));
  b.q.strides[3] = 2;
  EXPECT_NE(Words(a.Key()), Words(b.Key()));
}

TEST(OpSignatureTest, BiasShapeIsKeyed) {
  FwdCall a, b;
  a.args.bias = &a.bias;
  b.args.bias = &b.bias;
  EXPECT_EQ(Words(a.Key()), Words(b.Key()));
  b.bias.shape[1] = 1;  // broadcast over heads
  EXPECT_NE(Words(a.Key()), Words(b.Key()));
}

// ---------------------------------------------------------- malformed args

TEST(OpSignatureTest, MalformedArgsAreNotKeyed) {
  const std::pair<const char*, void (*)(FwdCall&)> cases[] = {
      {"short args", [](FwdCall& c) { c.args.struct_size = 16; }},
      {"NULL params", [](FwdCall& c) { c.args.params = nullptr; }},
      {"short params", [](FwdCall& c) { c.params.struct_size = 16; }},
      {"short q", [](FwdCall& c) { c.q.struct_size = 16; }},
      {"short optional bias", [](FwdCall& c) {  // not to be mistaken for "no bias"
         c.args.bias = &c.bias;
         c.bias.struct_size = 16;
       }},
      {"bias rank 9", [](FwdCall& c) {
         c.args.bias = &c.bias;
         c.bias.rank = 9;
       }},
      {"strided q of rank -1", [](FwdCall& c) {
         c.q.rank = -1;
         c.q.strides[0] = 4;
       }},
      {"short quantization", [](FwdCall& c) {
         c.q.quant = &c.quant;
         c.quant.struct_size = 8;
       }},
      {"short device", [](FwdCall& c) {
         c.q.device = &c.device_a;
         c.device_a.struct_size = 8;
       }},
  };
  for (const auto& [what, apply] : cases) {
    FwdCall c;
    apply(c);
    EXPECT_FALSE(c.Keyable()) << what;
  }
  OpSignature s;
  EXPECT_FALSE(BuildSignature(AttentionModule(), TEPLUG_OP_ATTENTION_FORWARD, nullptr, &s));
  FwdCall c;
  EXPECT_FALSE(BuildSignature(AttentionModule(), TEPLUG_OP_GEMM, &c.args, &s)) << "wrong op";
  EXPECT_FALSE(BuildSignature(CollectiveModule(), TEPLUG_OP_ALL_REDUCE, &c.args, &s))
      << "collectives are never cached";
}

// --------------------------------------------------------------- random calls

// The keyed facts of a random call, listed field by field (no packing), to
// compare keys against.
std::vector<int64_t> Facts(const FwdCall& c) {
  std::vector<int64_t> f;
  const TeplugAttentionParams& p = c.params;
  for (int64_t x : {int64_t{p.layout}, int64_t{p.mask_type}, int64_t{p.bias_type}, int64_t{p.is_training},
                    p.batch, p.num_heads_q, p.num_heads_kv, p.head_dim_qk, p.head_dim_v, p.max_seqlen_q,
                    p.max_seqlen_kv, p.window_left, p.window_right}) {
    f.push_back(x);
  }
  int32_t dropout_bits;
  std::memcpy(&dropout_bits, &p.dropout, 4);
  f.push_back(dropout_bits);
  f.push_back(p.cu_seqlens_q != nullptr);
  f.push_back(p.cu_seqlens_kv != nullptr);
  f.push_back(p.alibi_slopes != nullptr);
  f.push_back(p.deterministic != 0);
  const TeplugDevice* op_device = nullptr;
  auto tensor = [&](const TeplugTensor* t, bool shape, bool candidate) {
    f.push_back(t != nullptr);
    if (t == nullptr) return;
    if (candidate && op_device == nullptr) op_device = t->device;
    f.push_back(t->dtype);
    f.push_back(t->rank);
    uintptr_t address = reinterpret_cast<uintptr_t>(t->data);
    int align = 0;
    while (align < 8 && address % (uintptr_t{2} << align) == 0) ++align;
    f.push_back(align);
    f.push_back(t->device != nullptr);
    f.push_back(t->quant != nullptr ? t->quant->mode : -1000);
    f.push_back(t->strides[0] != 0);
    if (t->strides[0] != 0) f.insert(f.end(), t->strides, t->strides + t->rank);
    if (shape) f.insert(f.end(), t->shape, t->shape + t->rank);
  };
  tensor(c.args.q, false, true);
  tensor(c.args.k, false, true);
  tensor(c.args.v, false, true);
  tensor(c.args.o, false, true);
  tensor(c.args.softmax_lse, false, false);
  tensor(c.args.bias, true, false);
  if (op_device != nullptr) {
    for (int64_t x : {int64_t{op_device->kind}, int64_t{op_device->vendor_id}, int64_t{op_device->ordinal},
                      int64_t{op_device->arch}}) {
      f.push_back(x);
    }
  } else {
    f.push_back(-1);
  }
  f.push_back(c.args.s_quant != nullptr);
  uintptr_t ws = reinterpret_cast<uintptr_t>(c.args.workspace);
  int ws_align = 0;
  while (ws_align < 8 && ws % (uintptr_t{2} << ws_align) == 0) ++ws_align;
  f.push_back(ws_align);
  f.push_back(static_cast<int64_t>(c.args.workspace_size));
  return f;
}

// Sets a few random knobs of a call, each to one of two or three values, so
// that equal facts (and so equal keys) are common; the values include ones
// beyond 8 and 32 bits where fields are packed, and unkeyed fields that must
// not matter.
void Randomize(FwdCall& c, std::mt19937_64& rng) {
  using Knob = void (*)(FwdCall&, int);
  static const std::vector<std::pair<int, Knob>> knobs = {
      {2, [](FwdCall& c, int v) { c.params.layout = v ? 3 : 9; }},
      {2, [](FwdCall& c, int v) { c.params.mask_type = v ? 0 : 2; }},
      {2, [](FwdCall& c, int v) { c.params.is_training = v; }},
      {2, [](FwdCall& c, int v) { c.params.head_dim_qk = 128 + (v ? int64_t{1} << 32 : 0); }},
      {2, [](FwdCall& c, int v) { c.params.window_left = v ? 64 : -1; }},
      {2, [](FwdCall& c, int v) { c.params.deterministic = v; }},
      {2, [](FwdCall& c, int v) { c.params.cu_seqlens_q = v ? &c.cu_seqlens : nullptr; }},
      {3, [](FwdCall& c, int v) { c.params.softmax_scale = static_cast<float>(v); }},  // not keyed
      {3, [](FwdCall& c, int v) { c.params.rng_seed = static_cast<uint64_t>(v) * 77; }},  // not keyed
      {3, [](FwdCall& c, int v) { c.q.dtype = v == 2 ? 0x100 + TEPLUG_DTYPE_BF16 : TEPLUG_DTYPE_BF16 + v; }},
      {2, [](FwdCall& c, int v) { c.k.dtype = v ? TEPLUG_DTYPE_FP8_E4M3 : TEPLUG_DTYPE_BF16; }},
      {2, [](FwdCall& c, int v) { c.o.rank = 4 - v; }},
      {3, [](FwdCall& c, int v) { c.q.data = c.arena + (v == 0 ? 0 : v == 1 ? 8 : 512); }},  // 0 and 512: one class
      {3, [](FwdCall& c, int v) { c.k.device = v == 0 ? nullptr : v == 1 ? &c.device_a : &c.device_b; }},
      {2, [](FwdCall& c, int v) { c.device_b.ordinal = v; }},
      {2, [](FwdCall& c, int v) { c.o.device = v ? &c.device_b : nullptr; }},
      {2, [](FwdCall& c, int v) { c.v.quant = v ? &c.quant : nullptr; }},
      {3, [](FwdCall& c, int v) { c.quant.mode = v == 2 ? 0x101 : TEPLUG_SCALING_PER_TENSOR + v; }},
      {2, [](FwdCall& c, int v) { for (int i = 0; i < 4; ++i) c.q.strides[i] = v ? 8 << (3 - i) : 0; }},
      {2, [](FwdCall& c, int v) { c.q.strides[3] = c.q.strides[0] != 0 ? 1 + v : 0; }},
      {2, [](FwdCall& c, int v) { c.args.softmax_lse = v ? nullptr : &c.lse; }},
      {2, [](FwdCall& c, int v) { c.args.bias = v ? &c.bias : nullptr; }},
      {2, [](FwdCall& c, int v) { c.bias.shape[1] = 1 + v; }},
      {2, [](FwdCall& c, int v) { c.args.s_quant = v ? &c.quant : nullptr; }},
      {3, [](FwdCall& c, int v) {
         c.args.workspace_size = v == 2 ? size_t{1} << 49 : static_cast<size_t>(v) << 20;
       }},
  };
  std::uniform_int_distribution<size_t> which(0, knobs.size() - 1);
  for (int i = 0; i < 3; ++i) {
    const auto& [values, set] = knobs[which(rng)];
    set(c, std::uniform_int_distribution<int>(0, values - 1)(rng));
  }
}

TEST(OpSignatureTest, RandomCallsHaveEqualKeysExactlyWhenTheirFactsAreEqual) {
  std::mt19937_64 rng(20261130);
  std::map<std::vector<int64_t>, std::vector<int64_t>> key_of_facts;
  std::map<std::vector<int64_t>, std::vector<int64_t>> facts_of_key;
  std::map<std::vector<int64_t>, uint64_t> hash_of_key;
  int repeats = 0;
  for (int i = 0; i < 20000; ++i) {
    FwdCall c;
    Randomize(c, rng);
    const std::vector<int64_t> facts = Facts(c);
    const OpSignature key = c.Key();
    const std::vector<int64_t> words = Words(key);
    auto [kf, new_facts] = key_of_facts.emplace(facts, words);
    if (!new_facts) {
      ++repeats;
      ASSERT_EQ(kf->second, words) << "equal facts, different keys (case " << i << ")";
    }
    auto [fk, new_key] = facts_of_key.emplace(words, facts);
    ASSERT_TRUE(new_key || fk->second == facts) << "different facts, equal keys (case " << i << ")";
    auto [hk, new_hash] = hash_of_key.emplace(words, key.hash());
    ASSERT_EQ(hk->second, key.hash()) << "equal keys, different hashes (case " << i << ")";
  }
  // Facts repeat often and vary widely, so both directions were exercised.
  EXPECT_GT(repeats, 5000);
  EXPECT_GT(facts_of_key.size(), 500u);
}

// The hash spreads keys over the table: random distinct keys fall into the
// table's 2048 slots about evenly (no slot holds a large share; for the few
// thousand keys drawn, a uniform hash gives at most about three times the
// mean).
TEST(OpSignatureTest, HashSpreadsKeysOverSlots) {
  std::mt19937_64 rng(7);
  std::map<std::vector<int64_t>, uint64_t> hashes;
  for (int i = 0; i < 20000; ++i) {
    FwdCall c;
    Randomize(c, rng);
    const OpSignature key = c.Key();
    hashes.emplace(Words(key), key.hash());
  }
  std::vector<int> per_slot(2048);
  for (const auto& [words, hash] : hashes) ++per_slot[hash & 2047];
  const double mean = static_cast<double>(hashes.size()) / per_slot.size();
  int fullest = 0;
  for (int n : per_slot) fullest = std::max(fullest, n);
  EXPECT_LT(fullest, mean * 4 + 8) << hashes.size() << " keys, mean " << mean << " per slot";
}

// ------------------------------------------------------------- other ops

struct GemmCall {
  alignas(256) unsigned char arena[1024] = {};
  TeplugTensor a{}, b{}, d{};
  TeplugGemmArgs args{};
  GemmCall() {
    for (TeplugTensor* t : {&a, &b, &d}) {
      t->struct_size = sizeof *t;
      t->dtype = TEPLUG_DTYPE_BF16;
      t->rank = 2;
      t->shape[0] = 64;
      t->shape[1] = 32;
      t->data = arena;
    }
    args.struct_size = sizeof args;
    args.a = &a;
    args.b = &b;
    args.d = &d;
    args.alpha = 1;
  }
  std::vector<int64_t> Key() const {
    OpSignature s;
    EXPECT_TRUE(BuildSignature(GemmModule(), TEPLUG_OP_GEMM, &args, &s));
    return Words(s);
  }
};

TEST(OpSignatureTest, GemmKeysShapesFlagsAndEpilogue) {
  GemmCall base;
  const std::pair<const char*, void (*)(GemmCall&)> keyed[] = {
      {"a.shape", [](GemmCall& g) { g.a.shape[1] = 48; }},
      {"d.shape", [](GemmCall& g) { g.d.shape[0] = 65; }},
      {"trans_a", [](GemmCall& g) { g.args.trans_a = 1; }},
      {"trans_b", [](GemmCall& g) { g.args.trans_b = 1; }},
      {"accumulate", [](GemmCall& g) { g.args.accumulate = 1; }},
      {"use_split_accumulator", [](GemmCall& g) { g.args.use_split_accumulator = 1; }},
      {"epilogue", [](GemmCall& g) { g.args.epilogue = TEPLUG_EPILOGUE_GELU; }},
      {"bias given", [](GemmCall& g) { g.args.bias = &g.a; }},
      {"c given", [](GemmCall& g) { g.args.c = &g.a; }},
      {"workspace_size", [](GemmCall& g) { g.args.workspace_size = 4096; }},
  };
  for (const auto& [what, apply] : keyed) {
    GemmCall g;
    apply(g);
    EXPECT_NE(g.Key(), base.Key()) << what;
  }
  GemmCall alpha;
  alpha.args.alpha = 2;  // a value, not keyed
  alpha.args.beta = 1;
  EXPECT_EQ(alpha.Key(), base.Key());
}

TEST(OpSignatureTest, QuantizeKeysRecipeFlagsAndEpsilon) {
  struct Call {
    TeplugTensor in{}, out{};
    TeplugQuantization q{};
    TeplugQuantizeArgs args{};
    Call() {
      for (TeplugTensor* t : {&in, &out}) {
        t->struct_size = sizeof *t;
        t->dtype = TEPLUG_DTYPE_BF16;
        t->rank = 2;
        t->shape[0] = t->shape[1] = 128;
      }
      out.dtype = TEPLUG_DTYPE_FP8_E4M3;
      q.struct_size = sizeof q;
      q.mode = TEPLUG_SCALING_PER_TENSOR;
      out.quant = &q;
      args.struct_size = sizeof args;
      args.input = &in;
      args.output = &out;
    }
    std::vector<int64_t> Key() const {
      OpSignature s;
      EXPECT_TRUE(BuildSignature(QuantizerModule(), TEPLUG_OP_QUANTIZE, &args, &s));
      return Words(s);
    }
  };
  Call base;
  const std::pair<const char*, void (*)(Call&)> keyed[] = {
      {"recipe", [](Call& c) { c.args.recipe = 1; }},
      {"recipe beyond 8 bits", [](Call& c) { c.args.recipe = 0x100; }},
      {"force_pow2_scales", [](Call& c) { c.args.force_pow2_scales = 1; }},
      {"rowwise", [](Call& c) { c.args.rowwise = 1; }},
      {"columnwise", [](Call& c) { c.args.columnwise = 1; }},
      {"amax_epsilon", [](Call& c) { c.args.amax_epsilon = 1e-6f; }},
      {"mx_scale_rule", [](Call& c) { c.args.mx_scale_rule = TEPLUG_MX_SCALE_TRANSFORMER_ENGINE; }},
      {"scaling mode", [](Call& c) { c.q.mode = TEPLUG_SCALING_MXFP8_1D32; }},
      {"input shape", [](Call& c) { c.in.shape[1] = 256; }},
  };
  for (const auto& [what, apply] : keyed) {
    Call c;
    apply(c);
    EXPECT_NE(c.Key(), base.Key()) << what;
  }
}

}  // namespace
}  // namespace teplug::core
