#include "tests/fuzz/op_args.h"

#include "core/ops/modules.h"
#include "core/ops/gemm.h"
#include "core/ops/attention.h"
#include "core/ops/quantizer.h"
#include "core/ops/collective.h"
#include "core/ops/device.h"
#include "core/ops/norm.h"
#include "teplug/teplug.h"

namespace teplug::fuzz {
namespace {

class Decoder {
 public:
  Decoder(FuzzInput& in, BlobArena& arena, int variant) : in_(in), arena_(arena), variant_(variant) {}

  void ReadShift() {
    const uint8_t shift = in_.Take<uint8_t>();
    shift_blocks_ = variant_ == 0 ? 0 : (shift == 0 ? 1 : shift);
  }

  // Data, workspace, stream and communicator addresses: unkeyed beyond
  // their alignment class, so variant 1 moves them by whole blocks.
  void* Address() { return DecodeDataPointer(in_, shift_blocks_); }

  // A float the cache must not key on: variant 1 changes it.
  float Unkeyed(float f) const { return variant_ == 0 ? f : f + 1.5f; }
  uint64_t Unkeyed(uint64_t v) const { return variant_ == 0 ? v : v ^ 0x5a5a5a5a5a5a5a5aull; }

  const TeplugTensor* Tensor(int depth = 0) {
    const uint8_t sel = in_.Take<uint8_t>();
    if (sel == 0) return nullptr;
    if (sel >= 2) return tensors_.empty() ? nullptr : tensors_[(sel - 2) % tensors_.size()];
    const TeplugTensor* t = DecodeStruct<TeplugTensor>(in_, arena_, [&](TeplugTensor& t) {
      t.data = Address();
      t.device = in_.Take<uint8_t>() == 0 ? nullptr : DecodePlainStruct<TeplugDevice>(in_, arena_);
      const bool quantized = in_.Take<uint8_t>() != 0;
      t.quant = quantized && depth < 2 ? Quant(depth + 1) : nullptr;
    });
    tensors_.push_back(t);
    return t;
  }
  TeplugTensor* MutableTensor() { return const_cast<TeplugTensor*>(Tensor()); }

  const TeplugQuantization* Quant(int depth = 0) {
    return DecodeStruct<TeplugQuantization>(in_, arena_, [&](TeplugQuantization& q) {
      q.scale = Tensor(depth + 1);
      q.scale_inv = Tensor(depth + 1);
      q.amax = Tensor(depth + 1);
      q.columnwise_data = Tensor(depth + 1);
      q.columnwise_scale_inv = Tensor(depth + 1);
    });
  }
  const TeplugQuantization* OptionalQuant() { return in_.Take<uint8_t>() == 0 ? nullptr : Quant(); }

  const TeplugAttentionParams* Params() {
    if (in_.Take<uint8_t>() == 0) return nullptr;
    return DecodeStruct<TeplugAttentionParams>(in_, arena_, [&](TeplugAttentionParams& p) {
      p.softmax_scale = Unkeyed(p.softmax_scale);
      p.rng_seed = Unkeyed(p.rng_seed);
      p.rng_offset = Unkeyed(p.rng_offset);
      p.cu_seqlens_q = Tensor();
      p.cu_seqlens_kv = Tensor();
      p.alibi_slopes = Tensor();
    });
  }

  const void* Gemm() {
    return DecodeStruct<TeplugGemmArgs>(in_, arena_, [&](TeplugGemmArgs& a) {
      a.a = Tensor();
      a.b = Tensor();
      a.c = Tensor();
      a.d = MutableTensor();
      a.bias = Tensor();
      a.pre_gelu_out = MutableTensor();
      a.alpha = Unkeyed(a.alpha);
      a.beta = Unkeyed(a.beta);
      a.workspace = Address();
      a.stream = Address();
    });
  }

  const void* AttentionForward() {
    return DecodeStruct<TeplugAttentionFwdArgs>(in_, arena_, [&](TeplugAttentionFwdArgs& a) {
      a.params = Params();
      a.q = Tensor();
      a.k = Tensor();
      a.v = Tensor();
      a.bias = Tensor();
      a.o = MutableTensor();
      a.softmax_lse = MutableTensor();
      a.s_quant = OptionalQuant();
      a.workspace = Address();
      a.stream = Address();
    });
  }

  const void* AttentionBackward() {
    return DecodeStruct<TeplugAttentionBwdArgs>(in_, arena_, [&](TeplugAttentionBwdArgs& a) {
      a.params = Params();
      a.q = Tensor();
      a.k = Tensor();
      a.v = Tensor();
      a.o = Tensor();
      a.d_o = Tensor();
      a.softmax_lse = Tensor();
      a.bias = Tensor();
      a.dq = MutableTensor();
      a.dk = MutableTensor();
      a.dv = MutableTensor();
      a.dbias = MutableTensor();
      a.s_quant = OptionalQuant();
      a.dp_quant = OptionalQuant();
      a.workspace = Address();
      a.stream = Address();
    });
  }

  const void* Quantize() {
    return DecodeStruct<TeplugQuantizeArgs>(in_, arena_, [&](TeplugQuantizeArgs& a) {
      a.input = Tensor();
      a.output = MutableTensor();
      a.stream = Address();
    });
  }

  const void* Dequantize() {
    return DecodeStruct<TeplugDequantizeArgs>(in_, arena_, [&](TeplugDequantizeArgs& a) {
      a.input = Tensor();
      a.output = MutableTensor();
      a.stream = Address();
    });
  }

  const void* NormForward() {
    return DecodeStruct<TeplugNormFwdArgs>(in_, arena_, [&](TeplugNormFwdArgs& a) {
      a.epsilon = Unkeyed(a.epsilon);
      a.x = Tensor();
      a.gamma = Tensor();
      a.beta = Tensor();
      a.y = MutableTensor();
      a.mu = MutableTensor();
      a.rsigma = MutableTensor();
      a.workspace = Address();
      a.stream = Address();
    });
  }

  const void* NormBackward() {
    return DecodeStruct<TeplugNormBwdArgs>(in_, arena_, [&](TeplugNormBwdArgs& a) {
      a.dy = Tensor();
      a.x = Tensor();
      a.mu = Tensor();
      a.rsigma = Tensor();
      a.gamma = Tensor();
      a.dx = MutableTensor();
      a.dgamma = MutableTensor();
      a.dbeta = MutableTensor();
      a.workspace = Address();
      a.stream = Address();
    });
  }

  const void* Collective() {
    return DecodeStruct<TeplugCollectiveArgs>(in_, arena_, [&](TeplugCollectiveArgs& a) {
      a.comm = static_cast<TeplugCommunicator*>(Address());
      a.send = Tensor();
      a.recv = MutableTensor();
      a.counts = static_cast<const int64_t*>(Address());
      a.stream = Address();
    });
  }

  const void* DeviceOpen() {
    return DecodeStruct<TeplugDeviceOpenArgs>(in_, arena_, [&](TeplugDeviceOpenArgs& a) {
      a.device = in_.Take<uint8_t>() == 0 ? nullptr : DecodePlainStruct<TeplugDevice>(in_, arena_);
    });
  }

  const void* CommCreate() {
    return DecodeStruct<TeplugCommCreateArgs>(in_, arena_, [&](TeplugCommCreateArgs& a) {
      a.rendezvous = in_.Take<uint8_t>() == 0 ? nullptr : DecodeStruct<TeplugRendezvous>(in_, arena_, [](TeplugRendezvous& r) {
        r.bootstrap = nullptr;
        r.kv = nullptr;
        r.kv_prefix = nullptr;
      });
      a.device = in_.Take<uint8_t>() == 0 ? nullptr : DecodePlainStruct<TeplugDevice>(in_, arena_);
    });
  }

 private:
  FuzzInput& in_;
  BlobArena& arena_;
  const int variant_;
  size_t shift_blocks_ = 0;
  std::vector<const TeplugTensor*> tensors_;
};

}  // namespace

DecodedOp DecodeOp(FuzzInput& in, BlobArena& arena, int variant) {
  static const int32_t kCommCreate = core::CollectiveModule().FindOp("comm_create")->op;
  Decoder decoder(in, arena, variant);
  DecodedOp op;
  const uint8_t selector = in.Take<uint8_t>();
  decoder.ReadShift();
  switch (selector) {
    case 0: return {&core::GemmModule(), TEPLUG_OP_GEMM, decoder.Gemm()};
    case 1: return {&core::AttentionModule(), TEPLUG_OP_ATTENTION_FORWARD, decoder.AttentionForward()};
    case 2: return {&core::AttentionModule(), TEPLUG_OP_ATTENTION_BACKWARD, decoder.AttentionBackward()};
    case 3: return {&core::QuantizerModule(), TEPLUG_OP_QUANTIZE, decoder.Quantize()};
    case 4: return {&core::QuantizerModule(), TEPLUG_OP_DEQUANTIZE, decoder.Dequantize()};
    case 5: return {&core::CollectiveModule(), kCommCreate, decoder.CommCreate()};
    default: break;
  }
  if (selector <= TEPLUG_OP_BARRIER) return {&core::CollectiveModule(), selector, decoder.Collective()};
  if (selector == 13) return {&core::NormModule(), TEPLUG_NORM_OP_FORWARD, decoder.NormForward()};
  if (selector == 14) return {&core::NormModule(), TEPLUG_NORM_OP_BACKWARD, decoder.NormBackward()};
  if (selector == 15) return {&core::DeviceModule(), TEPLUG_DEVICE_OP_OPEN, decoder.DeviceOpen()};
  // Any pairing of interface and op. The args are what a caller of that
  // interface passes: a collective call always carries TeplugCollectiveArgs
  // (or TeplugCommCreateArgs), whatever its op number; other interfaces get
  // the type the op number names (the host reads them only for its own ops).
  const auto modules = core::InterfaceModules();
  op.module = modules[in.Take<uint8_t>() % modules.size()];
  op.op = in.Take<int32_t>();
  if (op.module == &core::CollectiveModule()) {
    op.args = op.op == kCommCreate ? decoder.CommCreate() : decoder.Collective();
    return op;
  }
  // Op numbers are local to an interface: INorm's 1 and 2 are its own ops,
  // whose args a caller of INorm passes.
  if (op.module == &core::NormModule()) {
    op.args = op.op == TEPLUG_NORM_OP_BACKWARD ? decoder.NormBackward() : decoder.NormForward();
    return op;
  }
  // A caller of IDevice passes TeplugDeviceOpenArgs, whatever the op number.
  if (op.module == &core::DeviceModule()) {
    op.args = decoder.DeviceOpen();
    return op;
  }
  switch (op.op) {
    case TEPLUG_OP_GEMM: op.args = decoder.Gemm(); break;
    case TEPLUG_OP_ATTENTION_FORWARD: op.args = decoder.AttentionForward(); break;
    case TEPLUG_OP_ATTENTION_BACKWARD: op.args = decoder.AttentionBackward(); break;
    case TEPLUG_OP_QUANTIZE: op.args = decoder.Quantize(); break;
    case TEPLUG_OP_DEQUANTIZE: op.args = decoder.Dequantize(); break;
    default: op.args = op.op == kCommCreate ? decoder.CommCreate() : decoder.Collective(); break;
  }
  return op;
}

}  // namespace teplug::fuzz
