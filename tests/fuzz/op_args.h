// Op args structs for op_fuzzer, decoded from fuzz bytes (abi_blobs.h
// layout rules: every struct exactly as large as it claims, pointers only to
// other decoded structs or fuzz-owned scratch memory).
//
// One input decodes twice: as given (variant 0) and as a "next call" of the
// same op (variant 1) that differs only in what the decision cache must not
// key on — data and workspace addresses moved by whole 256-byte blocks,
// stream and communicator handles, GEMM alpha/beta, attention softmax_scale
// and RNG seed/offset.
//
// Byte format:
//   u8 op      0 gemm, 1 attention forward, 2 attention backward, 3 quantize,
//              4 dequantize, 5 comm_create, 6-12 the collective ops, 13 norm
//              forward, 14 norm backward, 15 device open, else any pairing: after the shift,
//              a u8 interface (an index into core::InterfaceModules(), modulo
//              their count) and a raw i32 op, with args of the type that op
//              names in that interface, as its callers pass (op numbers are
//              local to an interface: INorm's 1 is its forward; collective
//              args for any collective op; for the other interfaces, the
//              TeplugOp the number names)
//   u8 shift   256-byte blocks variant 1 moves addresses by (0 is read as 1)
//   the args struct (DecodeStruct), its pointer fields in declaration order:
//     tensor     u8: 0 NULL, 1 a new tensor, k >= 2 the ((k-2) mod n)-th
//                tensor decoded so far (aliasing, as packed layouts do)
//     new tensor DecodeStruct<TeplugTensor>, then data (DecodeDataPointer),
//                u8 device present + DecodePlainStruct<TeplugDevice>,
//                u8 quant present + quantization (the byte is read but
//                ignored for tensors inside a quantization's tensors)
//     quantization DecodeStruct<TeplugQuantization>, then its five tensors
//     params     u8 present + DecodeStruct<TeplugAttentionParams>, then
//                cu_seqlens_q, cu_seqlens_kv, alibi_slopes (tensors)
//     workspace, stream, comm, counts: DecodeDataPointer
//     comm_create: u8 rendezvous present + DecodePlainStruct (its pointers
//                NULL), u8 device present + DecodePlainStruct<TeplugDevice>
//     device open: u8 device present + DecodePlainStruct<TeplugDevice>
#ifndef TEPLUG_TESTS_FUZZ_OP_ARGS_H_
#define TEPLUG_TESTS_FUZZ_OP_ARGS_H_

#include <cstdint>
#include <vector>

#include "core/ops/gemm.h"
#include "core/ops/interface_module.h"
#include "tests/fuzz/abi_blobs.h"
#include "tests/fuzz/fuzz_input.h"

namespace teplug::fuzz {

struct DecodedOp {
  const core::InterfaceModule* module = &core::GemmModule();
  int32_t op = 0;
  const void* args = nullptr;
};

// Decodes the op and its args into `arena`; `variant` is 0 or 1 (above).
DecodedOp DecodeOp(FuzzInput& in, BlobArena& arena, int variant);

}  // namespace teplug::fuzz

#endif  // TEPLUG_TESTS_FUZZ_OP_ARGS_H_
