// Writes the seed corpora of registrar_fuzzer and op_fuzzer: meaningful
// registrations and op calls (valid ones and one of each refusal class)
// encoded in their byte formats (registrar_fuzzer.cc, op_args.h,
// abi_blobs.h). The files are kept in the tree; rerun after changing a
// format:
//
//   bazel run //tests/fuzz:seed_writer -- $PWD/tests/fuzz/corpus
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "teplug/teplug.h"

namespace {

// Appends values in the order the decoders read them.
class Seed {
 public:
  template <class T>
  Seed& Put(const T& value) {
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
    return *this;
  }
  Seed& U8(int value) { return Put(static_cast<uint8_t>(value)); }
  // A struct as DecodeStruct reads it: size code, then the raw fields.
  template <class T>
  Seed& Struct(const T& value, int size_code = 0) {
    U8(size_code);
    return Put(value);
  }
  Seed& Text(const std::string& s) {
    bytes_ += s;
    return *this;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

template <class T>
T Zeroed() {
  T value;
  std::memset(&value, 0, sizeof value);
  value.struct_size = sizeof value;
  return value;
}

constexpr uint64_t Bit(int dtype) { return uint64_t{1} << dtype; }

// ----------------------------------------------------------- registrar
// A device list of `kinds`, each element its own struct_size.
void Devices(Seed& s, const std::vector<int32_t>& kinds, int stride_code = 0) {
  s.U8(static_cast<int>(kinds.size())).U8(1).U8(stride_code);
  for (int32_t kind : kinds) {
    TeplugDeviceSupport d = Zeroed<TeplugDeviceSupport>();
    d.kind = kind;
    s.Put(d).U8(0);
  }
}

TeplugGemmCaps GemmCaps() {
  auto c = Zeroed<TeplugGemmCaps>();
  c.a_dtypes = c.b_dtypes = c.d_dtypes = Bit(TEPLUG_DTYPE_FP32) | Bit(TEPLUG_DTYPE_BF16);
  c.epilogues = TEPLUG_GEMM_CAP_BIAS | TEPLUG_GEMM_CAP_GELU;
  c.alignment = 16;
  return c;
}
TeplugAttentionCaps AttentionCaps() {
  auto c = Zeroed<TeplugAttentionCaps>();
  c.qkv_dtypes = Bit(TEPLUG_DTYPE_BF16) | Bit(TEPLUG_DTYPE_FP16);
  c.layouts = TEPLUG_LAYOUT_BIT(TEPLUG_LAYOUT_BSHD_BSHD_BSHD) | TEPLUG_LAYOUT_BIT(TEPLUG_LAYOUT_THD_THD_THD);
  c.mask_types = TEPLUG_MASK_BIT(TEPLUG_MASK_NONE) | TEPLUG_MASK_BIT(TEPLUG_MASK_CAUSAL);
  c.bias_types = TEPLUG_BIAS_BIT(TEPLUG_BIAS_NONE);
  c.features = TEPLUG_ATTN_CAP_GQA | TEPLUG_ATTN_CAP_BACKWARD;
  c.head_dim_min = 32;
  c.head_dim_max = 256;
  c.head_dim_multiple = 8;
  return c;
}
TeplugQuantizerCaps QuantizerCaps() {
  auto c = Zeroed<TeplugQuantizerCaps>();
  c.input_dtypes = Bit(TEPLUG_DTYPE_FP32) | Bit(TEPLUG_DTYPE_BF16);
  c.output_dtypes = Bit(TEPLUG_DTYPE_FP8_E4M3) | Bit(TEPLUG_DTYPE_FP8_E5M2);
  c.scaling_modes = TEPLUG_SCALING_BIT(TEPLUG_SCALING_PER_TENSOR) | TEPLUG_SCALING_BIT(TEPLUG_SCALING_MXFP8_1D32);
  c.features = TEPLUG_QUANT_CAP_DEQUANTIZE | TEPLUG_QUANT_CAP_CURRENT_SCALING | TEPLUG_QUANT_CAP_DELAYED_SCALING;
  return c;
}
TeplugCollectiveCaps CollectiveCaps() {
  auto c = Zeroed<TeplugCollectiveCaps>();
  c.dtypes = Bit(TEPLUG_DTYPE_FP32) | Bit(TEPLUG_DTYPE_BF16);
  c.ops = TEPLUG_OP_BIT(TEPLUG_OP_ALL_REDUCE) | TEPLUG_OP_BIT(TEPLUG_OP_ALL_GATHER) | TEPLUG_OP_BIT(TEPLUG_OP_BARRIER);
  c.reductions = TEPLUG_REDUCE_BIT(TEPLUG_REDUCE_SUM);
  c.max_world_size = 8;
  return c;
}

// DecodeCapability: layout, struct, devices.
template <class Caps>
void Capability(Seed& s, int layout, const Caps& caps, const std::vector<int32_t>& devices, int size_code = 0) {
  s.U8(layout).Struct(caps, size_code);
  Devices(s, devices);
}
void KindCapability(Seed& s, int kind) {
  switch (kind) {
    case 0: Capability(s, 0, GemmCaps(), {TEPLUG_DEVICE_CPU}); break;
    case 1: Capability(s, 1, AttentionCaps(), {TEPLUG_DEVICE_CPU, TEPLUG_DEVICE_CUDA}); break;
    case 2: Capability(s, 2, QuantizerCaps(), {TEPLUG_DEVICE_ANY}); break;
    default: Capability(s, 3, CollectiveCaps(), {TEPLUG_DEVICE_CPU}); break;
  }
}

struct Registration {
  int kind = 0;          // IID selector and table type
  int null_mask = 0;     // table functions left NULL
  int table_size = 0;    // table size code
  int answer = 3;        // QueryAnswer
  bool object = true;
  bool caps = true;
  std::string name = "impl";
  int iid_selector = -1;  // -1: the kind's IID
};

void Register(Seed& s, const Registration& r, int desc_size_code = 0) {
  auto desc = Zeroed<TeplugImplementationDesc>();
  desc.priority = 100;
  s.U8(0).Struct(desc, desc_size_code);
  s.U8(r.iid_selector >= 0 ? r.iid_selector : r.kind);
  if (r.object) {
    s.U8(1).U8(r.kind).U8(r.null_mask).U8(r.table_size).U8(r.answer);
  } else {
    s.U8(0);
  }
  if (r.caps) {
    s.U8(1);
    KindCapability(s, r.kind);
  } else {
    s.U8(0);
  }
  s.U8(static_cast<int>(r.name.size()) + 1).Text(r.name);
}

Seed Plugin() { return Seed().U8(0); }  // info names the host's ABI range

std::vector<std::pair<std::string, Seed>> RegistrarSeeds() {
  std::vector<std::pair<std::string, Seed>> seeds;
  auto add = [&](const std::string& name, const Seed& s) { seeds.emplace_back(name, s); };
  {
    Seed s = Plugin();
    Register(s, {});
    add("gemm_registered", s);
  }
  {
    Seed s = Plugin();
    for (int kind = 0; kind < 4; ++kind) {
      Registration r;
      r.kind = kind;
      r.name = "impl" + std::to_string(kind);
      Register(s, r);
    }
    s.U8(6);  // Close
    Register(s, {});
    add("four_interfaces_then_close", s);
  }
  {
    Seed s = Seed().U8(1).Put(TEPLUG_ABI_VERSION(2, 0)).Put(TEPLUG_ABI_VERSION(2, 0));
    Register(s, {});
    add("abi_mismatch", s);
  }
  {
    Seed s = Plugin();
    Registration r;
    r.iid_selector = 200;  // the raw IID from the struct (zero)
    Register(s, r);
    r.iid_selector = 4;  // IObject
    r.name = "object";
    Register(s, r);
    add("unknown_iids", s);
  }
  {
    Seed s = Plugin();
    Registration r;
    r.caps = false;
    Register(s, r);
    s.U8(0).Struct(Zeroed<TeplugImplementationDesc>()).U8(0).U8(1).U8(0).U8(0).U8(0).U8(3).U8(1);
    Capability(s, 0, GemmCaps(), {TEPLUG_DEVICE_CPU}, /*size_code=*/16);  // descriptor too small
    s.U8(6).Text("small");
    add("null_and_short_capability", s);
  }
  {
    Seed s = Plugin();
    auto caps = GemmCaps();
    caps.a_dtypes |= Bit(TEPLUG_DTYPE_COUNT_);
    s.U8(0).Struct(Zeroed<TeplugImplementationDesc>()).U8(0).U8(1).U8(0).U8(0).U8(0).U8(3).U8(1);
    Capability(s, 0, caps, {TEPLUG_DEVICE_CPU});
    s.U8(8).Text("unknown");
    add("unknown_dtype_bit", s);
  }
  {
    Seed s = Plugin();
    s.U8(0).Struct(Zeroed<TeplugImplementationDesc>()).U8(0).U8(1).U8(0).U8(0).U8(0).U8(3).U8(1);
    s.U8(0).Struct(GemmCaps());
    s.U8(2).U8(0);  // two devices, devices NULL
    s.U8(5).Text("null");
    s.U8(0).Struct(Zeroed<TeplugImplementationDesc>()).U8(0).U8(1).U8(0).U8(0).U8(0).U8(3).U8(1);
    s.U8(0).Struct(GemmCaps());
    Devices(s, {TEPLUG_DEVICE_CPU, TEPLUG_DEVICE_CUDA}, /*stride_code=*/32);  // a newer, larger element
    s.U8(7).Text("stride");
    add("device_lists", s);
  }
  {
    Seed s = Plugin();
    Registration r;
    r.table_size = sizeof(TeplugObjectVtbl);  // only the base table
    r.name = "small_table";
    Register(s, r);
    r = Registration();
    r.null_mask = 0x20;  // gemm NULL
    r.name = "null_gemm";
    Register(s, r);
    r = Registration();
    r.answer = 1;  // query_interface refuses its own IID
    r.name = "query_refused";
    Register(s, r);
    r.answer = 2;  // answers with another object
    r.name = "other_object";
    Register(s, r);
    r = Registration();
    r.object = false;
    r.name = "null_object";
    Register(s, r);
    add("malformed_objects", s);
  }
  {
    // query_interface answers with the object registered before, whose
    // table is too small to hold release.
    Seed s = Plugin();
    Registration r;
    r.table_size = 16;
    r.name = "short_table";
    Register(s, r);
    r = Registration();
    r.answer = 2;
    r.name = "answers_short_table";
    Register(s, r);
    add("regression_query_answer_with_short_table", s);
  }
  {
    Seed s = Plugin();
    Register(s, {});
    Register(s, {});  // the same name twice
    Registration r;
    r.name = "Bad Name!\n";
    Register(s, r);
    r.name = std::string(70, 'x');
    Register(s, r);
    s.U8(5);  // a NULL descriptor
    add("names", s);
  }
  {
    Seed s = Plugin();
    for (int kind = 0; kind < 4; ++kind) {
      s.U8(7).U8(kind);
      KindCapability(s, kind);
    }
    add("read_capability", s);
  }
  return seeds;
}

// ------------------------------------------------------------------ op
void NoAddress(Seed& s) { s.U8(0).U8(0); }
void Address(Seed& s, int block) { s.U8(block).U8(0); }

TeplugTensor Tensor(int32_t dtype, std::vector<int64_t> shape) {
  auto t = Zeroed<TeplugTensor>();
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) t.shape[i] = shape[i];
  return t;
}

// A new tensor on the host (device NULL), without quantization.
void NewTensor(Seed& s, const TeplugTensor& t, int block = 1, int size_code = 0) {
  s.U8(1).Struct(t, size_code);
  Address(s, block);
  s.U8(0).U8(0);
}

void CudaDevice(Seed& s, int size_code = 0) {
  auto d = Zeroed<TeplugDevice>();
  d.kind = TEPLUG_DEVICE_CUDA;
  d.vendor_id = TEPLUG_VENDOR_NVIDIA;
  d.arch = 90;
  s.U8(1).Struct(d, size_code);
}

// A new fp8 tensor with per-tensor (or `mode`) quantization: scale_inv set.
// `quant_size_code` is the quantization struct's size code.
void NewQuantizedTensor(Seed& s, const TeplugTensor& t, int32_t mode, bool on_cuda, int quant_size_code = 0) {
  s.U8(1).Struct(t);
  Address(s, 2);
  if (on_cuda) {
    CudaDevice(s);
  } else {
    s.U8(0);
  }
  s.U8(1);  // quant present
  auto q = Zeroed<TeplugQuantization>();
  q.mode = mode;
  s.Struct(q, quant_size_code);
  s.U8(0);                                          // scale
  NewTensor(s, Tensor(TEPLUG_DTYPE_FP32, {1}), 3);  // scale_inv
  s.U8(0).U8(0).U8(0);                              // amax, columnwise data and scales
}

void Caps(Seed& s, int kind, int count = 1) {
  s.U8(count);
  for (int i = 0; i < count; ++i) KindCapability(s, kind);
}

// A GEMM whose `a` declares a struct too short to hold its rank.
Seed GemmWithShortTensor() {
  Seed s;
  s.U8(0).U8(1).Struct(Zeroed<TeplugGemmArgs>());
  NewTensor(s, Tensor(TEPLUG_DTYPE_BF16, {64, 32}), 1, /*size_code=*/16);
  NewTensor(s, Tensor(TEPLUG_DTYPE_BF16, {32, 128}));
  s.U8(0);
  NewTensor(s, Tensor(TEPLUG_DTYPE_BF16, {64, 128}));
  s.U8(0).U8(0);
  NoAddress(s);
  NoAddress(s);
  Caps(s, 0);
  return s;
}

// Attention args whose struct_size (16) holds none of their pointers.
Seed ShortAttentionArgs(bool backward) {
  Seed s;
  if (backward) {
    s.U8(2).U8(1).Struct(Zeroed<TeplugAttentionBwdArgs>(), 16);
    for (int i = 0; i < 1 + 11 + 2; ++i) s.U8(0);  // params, tensors, quantizations
  } else {
    s.U8(1).U8(1).Struct(Zeroed<TeplugAttentionFwdArgs>(), 16);
    for (int i = 0; i < 1 + 6 + 1; ++i) s.U8(0);
  }
  NoAddress(s);
  NoAddress(s);
  Caps(s, 1);
  return s;
}

// A GEMM against an aligned descriptor whose A stride is too large to count
// in bytes.
Seed GemmWithHugeStride() {
  Seed s;
  s.U8(0).U8(1).Struct(Zeroed<TeplugGemmArgs>());
  TeplugTensor a = Tensor(TEPLUG_DTYPE_BF16, {64, 32});
  a.strides[0] = int64_t{1} << 62;
  a.strides[1] = 1;
  NewTensor(s, a);
  NewTensor(s, Tensor(TEPLUG_DTYPE_BF16, {32, 128}));
  s.U8(0);
  NewTensor(s, Tensor(TEPLUG_DTYPE_BF16, {64, 128}));
  s.U8(0).U8(0);
  NoAddress(s);
  NoAddress(s);
  Caps(s, 0);  // alignment 16
  return s;
}

// A GEMM whose descriptor demands `alignment` bytes.
Seed GemmAgainstAlignment(int64_t alignment) {
  Seed s;
  s.U8(0).U8(1).Struct(Zeroed<TeplugGemmArgs>());
  NewTensor(s, Tensor(TEPLUG_DTYPE_BF16, {64, 32}));
  NewTensor(s, Tensor(TEPLUG_DTYPE_BF16, {32, 128}));
  s.U8(0);
  NewTensor(s, Tensor(TEPLUG_DTYPE_BF16, {64, 128}));
  s.U8(0).U8(0);
  NoAddress(s);
  NoAddress(s);
  TeplugGemmCaps caps = GemmCaps();
  caps.alignment = alignment;
  s.U8(1);
  Capability(s, 0, caps, {TEPLUG_DEVICE_CPU});
  return s;
}

Seed Gemm(int32_t dtype, bool quantized, bool strided) {
  Seed s;
  auto args = Zeroed<TeplugGemmArgs>();
  args.alpha = 1;
  s.U8(0).U8(1).Struct(args);
  TeplugTensor a = Tensor(dtype, {64, 32});
  TeplugTensor b = Tensor(dtype, {32, 128});
  if (strided) {
    a.strides[0] = 40;
    a.strides[1] = 1;
  }
  if (quantized) {
    NewQuantizedTensor(s, a, TEPLUG_SCALING_PER_TENSOR, true);
    NewQuantizedTensor(s, b, TEPLUG_SCALING_PER_TENSOR, true);
  } else {
    NewTensor(s, a);
    NewTensor(s, b);
  }
  s.U8(0);                                               // c
  NewTensor(s, Tensor(TEPLUG_DTYPE_BF16, {64, 128}));    // d
  NewTensor(s, Tensor(TEPLUG_DTYPE_BF16, {128}));        // bias
  s.U8(0);                                               // pre_gelu_out
  NoAddress(s);                                          // workspace
  NoAddress(s);                                          // stream
  Caps(s, 0);
  return s;
}

TeplugAttentionParams Params(int32_t layout, int32_t mask, int64_t head_dim) {
  auto p = Zeroed<TeplugAttentionParams>();
  p.layout = layout;
  p.mask_type = mask;
  p.batch = 2;
  p.num_heads_q = 16;
  p.num_heads_kv = 4;
  p.head_dim_qk = p.head_dim_v = head_dim;
  p.max_seqlen_q = p.max_seqlen_kv = 4096;
  p.window_left = p.window_right = -1;
  p.softmax_scale = 0.125f;
  return p;
}

Seed AttentionForward(int32_t layout, int32_t mask, int64_t head_dim, bool thd) {
  Seed s;
  s.U8(1).U8(1).Struct(Zeroed<TeplugAttentionFwdArgs>());
  s.U8(1).Struct(Params(layout, mask, head_dim));
  if (thd) {
    NewTensor(s, Tensor(TEPLUG_DTYPE_INT32, {3}), 4);  // cu_seqlens_q
    s.U8(2);                                           // cu_seqlens_kv: the same tensor
  } else {
    s.U8(0).U8(0);
  }
  s.U8(0);  // alibi_slopes
  NewTensor(s, Tensor(TEPLUG_DTYPE_BF16, {2, 4096, 16, head_dim}));  // q
  NewTensor(s, Tensor(TEPLUG_DTYPE_BF16, {2, 4096, 4, head_dim}));   // k
  s.U8(thd ? 4 : 3);                                                  // v: k again (packed-style alias)
  s.U8(0);                                                            // bias
  NewTensor(s, Tensor(TEPLUG_DTYPE_BF16, {2, 4096, 16, head_dim}));  // o
  NewTensor(s, Tensor(TEPLUG_DTYPE_FP32, {2, 16, 4096}));            // softmax_lse
  s.U8(0);                                                            // s_quant
  Address(s, 8);                                                      // workspace
  NoAddress(s);                                                       // stream
  Caps(s, 1);
  return s;
}

Seed AttentionBackward() {
  Seed s;
  s.U8(2).U8(3).Struct(Zeroed<TeplugAttentionBwdArgs>());
  s.U8(1).Struct(Params(TEPLUG_LAYOUT_BSHD_BSHD_BSHD, TEPLUG_MASK_CAUSAL, 128));
  s.U8(0).U8(0).U8(0);
  const TeplugTensor qkv = Tensor(TEPLUG_DTYPE_BF16, {2, 4096, 16, 128});
  NewTensor(s, qkv);                                        // q
  s.U8(2).U8(2).U8(2).U8(2);                                // k, v, o, d_o: alias q
  NewTensor(s, Tensor(TEPLUG_DTYPE_FP32, {2, 16, 4096}));  // softmax_lse
  s.U8(0);                                                  // bias
  NewTensor(s, qkv);                                        // dq
  s.U8(4).U8(4);                                            // dk, dv
  s.U8(0);                                                  // dbias
  s.U8(0).U8(0);                                            // s_quant, dp_quant
  NoAddress(s);
  NoAddress(s);
  Caps(s, 1, 2);
  return s;
}

Seed Quantize(int32_t mode, int quant_size_code = 0) {
  Seed s;
  auto args = Zeroed<TeplugQuantizeArgs>();
  args.recipe = TEPLUG_RECIPE_CURRENT;
  args.rowwise = 1;
  s.U8(3).U8(1).Struct(args);
  NewTensor(s, Tensor(TEPLUG_DTYPE_BF16, {256, 512}));
  NewQuantizedTensor(s, Tensor(TEPLUG_DTYPE_FP8_E4M3, {256, 512}), mode, false, quant_size_code);
  NoAddress(s);
  Caps(s, 2);
  return s;
}

Seed Dequantize() {
  Seed s;
  s.U8(4).U8(1).Struct(Zeroed<TeplugDequantizeArgs>());
  NewQuantizedTensor(s, Tensor(TEPLUG_DTYPE_FP8_E5M2, {256, 512}), TEPLUG_SCALING_PER_TENSOR, false);
  NewTensor(s, Tensor(TEPLUG_DTYPE_FP32, {256, 512}));
  NoAddress(s);
  Caps(s, 2);
  return s;
}

Seed Collective(int32_t op, int32_t reduce) {
  Seed s;
  auto args = Zeroed<TeplugCollectiveArgs>();
  args.reduce_op = reduce;
  s.U8(op).U8(1).Struct(args);
  Address(s, 9);  // comm
  NewTensor(s, Tensor(TEPLUG_DTYPE_FP32, {1024}));
  s.U8(2);        // recv aliases send
  NoAddress(s);   // counts
  NoAddress(s);   // stream
  Caps(s, 3);
  return s;
}

Seed CommCreate(int device_size_code = 0) {
  Seed s;
  auto args = Zeroed<TeplugCommCreateArgs>();
  args.rank = 1;
  args.world_size = 16;
  s.U8(5).U8(1).Struct(args);
  s.U8(1).Struct(Zeroed<TeplugRendezvous>());
  CudaDevice(s, device_size_code);
  Caps(s, 3);
  return s;
}

// Opening cuda:0 (selector 15), or (`raw_op` set) IDevice asked for that
// op number on the raw pairing path, where its caller still passes
// TeplugDeviceOpenArgs: the device pointer must never be read from another
// interface's args.
Seed DeviceOpen(std::optional<int32_t> raw_op = std::nullopt) {
  Seed s;
  if (raw_op) {
    s.U8(200).U8(1).U8(5).Put(*raw_op);
  } else {
    s.U8(15).U8(1);
  }
  s.Struct(Zeroed<TeplugDeviceOpenArgs>());
  CudaDevice(s);
  Caps(s, 0, 0);
  return s;
}

Seed Mismatched() {
  // Interface gemm asked for an attention op (raw selector path).
  Seed s;
  s.U8(200).U8(1).U8(0).Put(int32_t{TEPLUG_OP_ATTENTION_FORWARD}).Struct(Zeroed<TeplugAttentionFwdArgs>());
  s.U8(0);
  for (int i = 0; i < 6; ++i) s.U8(0);
  s.U8(0);
  NoAddress(s);
  NoAddress(s);
  Caps(s, 0);
  return s;
}

// Named after what they exercise; an op whose name is not its interface's
// is written interface-op, the words of a config rule ("attention-forward").
std::vector<std::pair<std::string, Seed>> OpSeeds() {
  return {
      {"gemm_bf16", Gemm(TEPLUG_DTYPE_BF16, false, false)},
      {"gemm_fp8_per_tensor_cuda", Gemm(TEPLUG_DTYPE_FP8_E4M3, true, false)},
      {"gemm_strided", Gemm(TEPLUG_DTYPE_BF16, false, true)},
      {"attention-forward_bshd_causal", AttentionForward(TEPLUG_LAYOUT_BSHD_BSHD_BSHD, TEPLUG_MASK_CAUSAL, 128, false)},
      {"attention-forward_thd_padding", AttentionForward(TEPLUG_LAYOUT_THD_THD_THD, TEPLUG_MASK_PADDING, 64, true)},
      {"attention-backward_bshd", AttentionBackward()},
      {"quantize_per_tensor", Quantize(TEPLUG_SCALING_PER_TENSOR)},
      {"quantize_mxfp8", Quantize(TEPLUG_SCALING_MXFP8_1D32)},
      {"dequantize", Dequantize()},
      {"all_reduce_sum", Collective(TEPLUG_OP_ALL_REDUCE, TEPLUG_REDUCE_SUM)},
      {"reduce_scatter_avg", Collective(TEPLUG_OP_REDUCE_SCATTER, TEPLUG_REDUCE_AVG)},
      {"barrier", Collective(TEPLUG_OP_BARRIER, 0)},
      {"comm_create_cuda", CommCreate()},
      {"gemm_interface_asked_for_attention", Mismatched()},
      {"device-open_cuda", DeviceOpen()},
      {"device_interface_asked_for_all_reduce", DeviceOpen(TEPLUG_OP_ALL_REDUCE)},
      {"regression_tensor_shorter_than_its_rank", GemmWithShortTensor()},
      {"regression_attention-forward_args_too_short", ShortAttentionArgs(false)},
      {"regression_leading_dimension_bytes_overflow", GemmWithHugeStride()},
      // The output's quantization declares 8 bytes: no scaling mode.
      {"regression_quantization_without_mode", Quantize(TEPLUG_SCALING_PER_TENSOR, 8)},
      // The device declares 12 bytes: kind only.
      {"regression_comm_create_device_too_short", CommCreate(12)},
      // Addresses 256 bytes apart share a signature; a 512-byte requirement
      // would tell them apart.
      {"regression_alignment_above_the_keyed_class", GemmAgainstAlignment(512)},
      {"regression_attention-backward_args_too_short", ShortAttentionArgs(true)},
  };
}

void WriteAll(const std::string& dir, const std::vector<std::pair<std::string, Seed>>& seeds) {
  mkdir(dir.c_str(), 0755);
  for (const auto& [name, seed] : seeds) {
    const std::string path = dir + "/" + name;
    std::ofstream(path, std::ios::binary) << seed.bytes();
    std::printf("%s (%zu bytes)\n", path.c_str(), seed.bytes().size());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: seed_writer CORPUS_DIR (tests/fuzz/corpus)\n");
    return 2;
  }
  const std::string corpus = argv[1];
  WriteAll(corpus + "/registrar", RegistrarSeeds());
  WriteAll(corpus + "/op", OpSeeds());
  return 0;
}
