// Builds an op's decision-cache key (OpSignature) from its field table.
//
// This runs on every dispatched call, so the table is walked at compile time:
// BuildKeyFromTable is instantiated per op table and every field becomes
// straight-line code (an index_sequence over the constexpr table). Words are
// appended through a cursor held in registers (no per-word bounds check: each
// op's worst case is a compile-time budget under OpSignature::kMaxWords) and
// hashed as they are written, one multiply by an immediate each. Adjacent
// keyed scalars of one struct are copied as whole words (a run), not one word
// per field. Checks that only malformed args fail branch to a cold path that
// makes the call unkeyable (it is then decided uncached, where the op's
// describe step names what is wrong).
//
// What a field contributes:
//   tensor   NULL: one word (-1). Otherwise one word packing dtype (bits
//            0..31), rank (32..35), the alignment class of `data` (36..39),
//            whether it names a device (40), has explicit strides (41), is
//            quantized (42); then its scaling mode when quantized, its
//            explicit strides, and its shape when the table says kKeyShape.
//   struct   nothing itself (NULL or short makes the call unkeyable); its
//            keyed fields follow.
//   scalars  their bytes, runs of adjacent keyed scalars as whole words;
//            a field added after v1.0 (Since) one word, 0 from a struct
//            without it.
//   presence one bit (field I: bit I) of one word written after the fields
//            (also tensors marked kKeyPresence).
//   workspace  the alignment class of the pointer and the size.
// and every key ends with the op's device (two words, or one for the host).
#ifndef TEPLUG_CORE_OPS_TABLE_KEY_H_
#define TEPLUG_CORE_OPS_TABLE_KEY_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "core/ops/field_table.h"
#include "core/ops/op_signature.h"
#include "teplug/teplug.h"

namespace teplug::core {

struct SignatureWriter {
  static int64_t* Words(OpSignature* sig) { return sig->words_; }
  static void Finish(OpSignature* sig, int size, uint64_t hash) {
    sig->size_ = size;
    sig->hash_ = hash;
  }
};

namespace key_internal {

constexpr size_t kTensorV1 = TEPLUG_STRUCT_SIZE(TeplugTensor, quant);
constexpr size_t kDeviceV1 = TEPLUG_STRUCT_SIZE(TeplugDevice, arch);
constexpr size_t kQuantV1 = TEPLUG_STRUCT_SIZE(TeplugQuantization, mode);

// The hash multiplier of the words one site writes: odd and below 2^31, so
// it is a single multiply by an immediate.
constexpr uint64_t SiteKey(uint32_t site) {
  uint64_t z = (site + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return ((z ^ (z >> 31)) & 0x7FFFFFFF) | 1;
}

// The hash is the sum of each word times its site's key (runs: the site's
// key plus twice the index). Equal keys of one op are written by the same
// sites in the same order (every branch is decided by a word already
// written), so they hash alike. Two partial sums shorten the add chains.
struct Cursor {
  int64_t* out;
  uint64_t hash[2] = {0, 0};
  const TeplugDevice* device = nullptr;  // the first kDeviceFrom tensor's device
  uint64_t presence = 0;                 // bit I: presence field I is given
  bool unkeyable = false;
  static constexpr int Lane(uint32_t site) { return static_cast<int>((site ^ (site >> 2)) & 1); }

  template <uint32_t kSite>
  ABSL_ATTRIBUTE_ALWAYS_INLINE void Add(int64_t w) {
    *out++ = w;
    hash[Lane(kSite)] += static_cast<uint64_t>(w) * SiteKey(kSite);
  }
  template <uint32_t kSite>
  ABSL_ATTRIBUTE_ALWAYS_INLINE void AddRun(const int64_t* src, uint32_t n) {
    uint64_t key = SiteKey(kSite);
    for (uint32_t i = 0; i < n; ++i, key += 2) {
      out[i] = src[i];
      hash[Lane(kSite)] += static_cast<uint64_t>(src[i]) * key;
    }
    out += n;
  }
  // `n` words read from `src` (which need not be aligned), unrolled: each
  // word is a load, a store and a multiply by an immediate.
  template <uint32_t kSite, uint32_t n>
  ABSL_ATTRIBUTE_ALWAYS_INLINE void AddRunFrom(const char* src) {
    AddRunWords<kSite>(src, std::make_integer_sequence<uint32_t, n>());
    out += n;
  }
  template <uint32_t kSite, uint32_t... I>
  ABSL_ATTRIBUTE_ALWAYS_INLINE void AddRunWords(const char* src, std::integer_sequence<uint32_t, I...>) {
    (AddRunWord<kSite, I>(src), ...);
  }
  template <uint32_t kSite, uint32_t I>
  ABSL_ATTRIBUTE_ALWAYS_INLINE void AddRunWord(const char* src) {
    int64_t w;
    std::memcpy(&w, src + 8 * I, sizeof w);
    out[I] = w;
    hash[(Lane(kSite) + I) & 1] += static_cast<uint64_t>(w) * (SiteKey(kSite) + 2 * I);
  }
  uint64_t Sum() const { return hash[0] + hash[1]; }
};

// log2 of a pointer's alignment, capped at 8 (256 B).
ABSL_ATTRIBUTE_ALWAYS_INLINE inline int64_t AlignClass(const void* p) {
  return __builtin_ctzll(reinterpret_cast<uintptr_t>(p) | uintptr_t{256});
}

template <class T>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline T Load(const char* base, size_t offset) {
  T v;
  std::memcpy(&v, base + offset, sizeof v);
  return v;
}

template <uint32_t kSite, bool kShape, bool kDeviceFrom>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void AddTensor(Cursor& c, const TeplugTensor* t) {
  if (t == nullptr) {
    c.Add<kSite * 4>(-1);
    return;
  }
  if (ABSL_PREDICT_FALSE(t->struct_size < kTensorV1)) {  // `rank` may lie past its end
    c.unkeyable = true;
    return;
  }
  const auto rank = static_cast<uint32_t>(t->rank);
  if (ABSL_PREDICT_FALSE(rank > TEPLUG_MAX_RANK)) {
    c.unkeyable = true;
    return;
  }
  const TeplugDevice* device = t->device;
  if (kDeviceFrom && c.device == nullptr) c.device = device;
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

// The op's device: two words, or one (the host) when no kDeviceFrom tensor
// names one. A device struct shorter than v1 makes the call unkeyable.
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
  c.Add<kSite>(static_cast<int64_t>(uint64_t{static_cast<uint32_t>(d->kind)} | uint64_t{d->vendor_id} << 32));
  c.Add<kSite + 1>(static_cast<int64_t>(uint64_t{static_cast<uint32_t>(d->ordinal)} |
                                        uint64_t{static_cast<uint32_t>(d->arch)} << 32));
}

// ---------------------------------------------------------------- table walk
// Compile-time facts about field I of a table.

template <size_t N>
constexpr bool IsKeyedScalar(const Field (&f)[N], size_t i) {
  return IsScalar(f[i].role) && (f[i].flags & kKeyed);
}
// Whether field I continues the run of keyed scalars field I-1 is in.
template <size_t N>
constexpr bool ContinuesRun(const Field (&f)[N], size_t i) {
  return i > 0 && IsKeyedScalar(f, i) && IsKeyedScalar(f, i - 1) && f[i - 1].via == f[i].via &&
         f[i - 1].offset + ScalarBytes(f[i - 1].role) == f[i].offset && f[i].since_size == 0 &&
         f[i - 1].since_size == 0;
}
// The bytes of the run starting at field I.
template <size_t N>
constexpr size_t RunBytes(const Field (&f)[N], size_t i) {
  size_t bytes = ScalarBytes(f[i].role);
  for (size_t j = i + 1; j < N && ContinuesRun(f, j); ++j) bytes += ScalarBytes(f[j].role);
  return bytes;
}
// The slot of struct field I among the table's struct fields.
template <size_t N>
constexpr size_t StructSlot(const Field (&f)[N], size_t i) {
  size_t slot = 0;
  for (size_t j = 0; j < i; ++j) slot += f[j].role == FieldRole::kStruct;
  return slot;
}
// The slot of the struct field that field I's `via` points through.
template <size_t N>
constexpr size_t ViaSlot(const Field (&f)[N], size_t i) {
  for (size_t j = 0; j < i; ++j) {
    if (f[j].role == FieldRole::kStruct && f[j].offset == f[i].via) return StructSlot(f, j);
  }
  return N;
}
template <size_t N>
constexpr size_t StructCount(const Field (&f)[N]) {
  return StructSlot(f, N);
}
// The worst-case number of words field I writes.
template <size_t N>
constexpr int FieldWords(const Field (&f)[N], size_t i) {
  switch (f[i].role) {
    case FieldRole::kTensor:
      if (f[i].flags & kKeyPresence) return 0;  // a bit of the presence word
      return 2 + TEPLUG_MAX_RANK + ((f[i].flags & kKeyShape) ? TEPLUG_MAX_RANK : 0);
    case FieldRole::kInt32:
    case FieldRole::kInt64:
    case FieldRole::kFloat:
      return IsKeyedScalar(f, i) && !ContinuesRun(f, i) ? static_cast<int>((RunBytes(f, i) + 7) / 8) : 0;
    case FieldRole::kPresence: return 0;  // a bit of the presence word
    case FieldRole::kWorkspace: return 2;
    case FieldRole::kStruct:
    case FieldRole::kPerCall: return 0;
  }
  return 0;
}
template <size_t N>
constexpr int TableWords(const Field (&f)[N]) {
  int words = 1 + 1 + 2;  // the op word, the presence word and the device
  for (size_t i = 0; i < N; ++i) words += FieldWords(f, i);
  return words;
}

// Where field I lives: the args, or the struct its `via` points through
// (stored in `structs` when that struct field was walked).
template <const auto& kFields, size_t I>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline const char* BaseOf(const char* args, const char* const* structs) {
  constexpr Field f = kFields[I];
  if constexpr (f.via == kNone) {
    return args;
  } else {
    return structs[ViaSlot(kFields, I)];
  }
}

template <const auto& kFields, size_t I>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void KeyField(Cursor& c, const char* args, const char** structs) {
  constexpr Field f = kFields[I];
  constexpr uint32_t kSite = static_cast<uint32_t>(I) + 1;
  if constexpr (f.role == FieldRole::kTensor && (f.flags & kKeyPresence) != 0) {
    c.presence |= uint64_t{Load<const void*>(BaseOf<kFields, I>(args, structs), f.offset) != nullptr} << I;
  } else if constexpr (f.role == FieldRole::kTensor) {
    const char* base = BaseOf<kFields, I>(args, structs);
    AddTensor<kSite, (f.flags & kKeyShape) != 0, (f.flags & kDeviceFrom) != 0>(
        c, Load<const TeplugTensor*>(base, f.offset));
  } else if constexpr (f.role == FieldRole::kStruct) {
    const char* p = Load<const char*>(args, f.offset);
    if (ABSL_PREDICT_FALSE(p == nullptr || Load<size_t>(p, 0) < f.struct_v1_size)) {
      c.unkeyable = true;
      // A stand-in the struct's fields are read from (as zeros) until the
      // call is dropped as unkeyable: as large as the struct's v1 layout.
      alignas(16) static const char kEmpty[f.struct_v1_size] = {};
      p = kEmpty;
    }
    structs[StructSlot(kFields, I)] = p;
  } else if constexpr (IsScalar(f.role) && f.since_size != 0) {
    if constexpr ((f.flags & kKeyed) != 0) {  // one 4-byte field, 0 from a struct without it
      const bool held = Load<size_t>(args, 0) >= f.since_size;
      c.Add<kSite * 4>(held ? Load<uint32_t>(args, f.offset) : 0);
    }
  } else if constexpr (IsScalar(f.role)) {
    if constexpr (IsKeyedScalar(kFields, I) && !ContinuesRun(kFields, I)) {
      constexpr size_t kBytes = RunBytes(kFields, I);
      const char* base = BaseOf<kFields, I>(args, structs) + f.offset;
      c.AddRunFrom<kSite * 4, kBytes / 8>(base);
      if constexpr (kBytes % 8 != 0) c.Add<kSite * 4 + 1>(Load<uint32_t>(base, kBytes - 4));
    }
  } else if constexpr (f.role == FieldRole::kPresence) {
    if constexpr ((f.flags & kKeyed) != 0) {
      c.presence |= uint64_t{Load<const void*>(BaseOf<kFields, I>(args, structs), f.offset) != nullptr} << I;
    }
  } else if constexpr (f.role == FieldRole::kWorkspace) {
    const char* base = BaseOf<kFields, I>(args, structs);
    c.Add<kSite * 4>(AlignClass(Load<const void*>(base, f.offset)));
    c.Add<kSite * 4 + 1>(static_cast<int64_t>(Load<size_t>(base, f.offset + sizeof(void*))));
  }
}

template <const auto& kFields, size_t... I>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void KeyFields(Cursor& c, const char* args, std::index_sequence<I...>) {
  const char* structs[StructCount(kFields) + 1];  // each written by its struct field before use
  (KeyField<kFields, I>(c, args, structs), ...);
}

// The final avalanche of the sum, so the table's low bits depend on every word.
inline uint64_t Finish(uint64_t h) {
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 32);
}

}  // namespace key_internal

// Builds the key of one op from its table. `kOpWord` identifies the
// interface and op (the first word); `kArgsV1` is the v1 size of the args
// struct (a shorter struct cannot be keyed).
template <const auto& kFields, int64_t kOpWord, size_t kArgsV1>
bool BuildKeyFromTable(const void* args, OpSignature* sig) {
  using namespace key_internal;
  static_assert(TableIsWellFormed(kFields), "field table: a field selection reads is not keyed, or a bad `via`");
  static_assert(TableWords(kFields) <= OpSignature::kMaxWords, "an op's key can outgrow OpSignature::kMaxWords");
  if (args == nullptr || *static_cast<const size_t*>(args) < kArgsV1) return false;
  Cursor c{SignatureWriter::Words(sig)};
  c.Add<0>(kOpWord);
  constexpr size_t kN = sizeof(kFields) / sizeof(kFields[0]);
  static_assert(kN <= 64, "presence bits are indexed by field");
  KeyFields<kFields>(c, static_cast<const char*>(args), std::make_index_sequence<kN>());
  c.Add<999>(static_cast<int64_t>(c.presence));
  AddOpDevice(c);
  if (ABSL_PREDICT_FALSE(c.unkeyable)) return false;
  const int size = static_cast<int>(c.out - SignatureWriter::Words(sig));
  SignatureWriter::Finish(sig, size, Finish(c.Sum() + static_cast<uint64_t>(size)));
  return true;
}

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_TABLE_KEY_H_
