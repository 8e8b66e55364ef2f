// Pins the size and every field offset of each v1 ABI struct on LP64. A change
// here is an ABI break: v1 structs may only grow by appending fields (update
// the TEPLUG_DECLARE_LAST_FIELD check and add the new offset below); never
// reorder, resize or remove. Values are the v1 layout the headers document
// (interfaces/teplug/*.h: each struct's comment gives its size).
#include <cstddef>

#include "gtest/gtest.h"
#include "teplug/teplug.h"

namespace {

#define EXPECT_SIZE(type, n) EXPECT_EQ(sizeof(type), size_t{n}) << #type
#define EXPECT_OFFSET(type, field, n) EXPECT_EQ(offsetof(type, field), size_t{n}) << #type "." #field

TEST(AbiLayoutTest, EveryV1StructIsPinned) {
  static_assert(sizeof(void*) == 8 && sizeof(size_t) == 8, "the v1 layout is defined for LP64");
  EXPECT_SIZE(TeplugIID, 16);
  EXPECT_OFFSET(TeplugIID, hi, 0);
  EXPECT_OFFSET(TeplugIID, lo, 8);
  EXPECT_SIZE(TeplugObjectVtbl, 32);
  EXPECT_OFFSET(TeplugObjectVtbl, struct_size, 0);
  EXPECT_OFFSET(TeplugObjectVtbl, query_interface, 8);
  EXPECT_OFFSET(TeplugObjectVtbl, add_ref, 16);
  EXPECT_OFFSET(TeplugObjectVtbl, release, 24);
  EXPECT_SIZE(TeplugObject, 8);
  EXPECT_OFFSET(TeplugObject, vtbl, 0);
  EXPECT_SIZE(TeplugAttentionParams, 152);
  EXPECT_OFFSET(TeplugAttentionParams, struct_size, 0);
  EXPECT_OFFSET(TeplugAttentionParams, layout, 8);
  EXPECT_OFFSET(TeplugAttentionParams, mask_type, 12);
  EXPECT_OFFSET(TeplugAttentionParams, bias_type, 16);
  EXPECT_OFFSET(TeplugAttentionParams, is_training, 20);
  EXPECT_OFFSET(TeplugAttentionParams, batch, 24);
  EXPECT_OFFSET(TeplugAttentionParams, num_heads_q, 32);
  EXPECT_OFFSET(TeplugAttentionParams, num_heads_kv, 40);
  EXPECT_OFFSET(TeplugAttentionParams, head_dim_qk, 48);
  EXPECT_OFFSET(TeplugAttentionParams, head_dim_v, 56);
  EXPECT_OFFSET(TeplugAttentionParams, max_seqlen_q, 64);
  EXPECT_OFFSET(TeplugAttentionParams, max_seqlen_kv, 72);
  EXPECT_OFFSET(TeplugAttentionParams, window_left, 80);
  EXPECT_OFFSET(TeplugAttentionParams, window_right, 88);
  EXPECT_OFFSET(TeplugAttentionParams, softmax_scale, 96);
  EXPECT_OFFSET(TeplugAttentionParams, dropout, 100);
  EXPECT_OFFSET(TeplugAttentionParams, rng_seed, 104);
  EXPECT_OFFSET(TeplugAttentionParams, rng_offset, 112);
  EXPECT_OFFSET(TeplugAttentionParams, cu_seqlens_q, 120);
  EXPECT_OFFSET(TeplugAttentionParams, cu_seqlens_kv, 128);
  EXPECT_OFFSET(TeplugAttentionParams, alibi_slopes, 136);
  EXPECT_OFFSET(TeplugAttentionParams, deterministic, 144);
  EXPECT_OFFSET(TeplugAttentionParams, reserved0, 148);
  EXPECT_SIZE(TeplugAttentionFwdArgs, 96);
  EXPECT_OFFSET(TeplugAttentionFwdArgs, struct_size, 0);
  EXPECT_OFFSET(TeplugAttentionFwdArgs, params, 8);
  EXPECT_OFFSET(TeplugAttentionFwdArgs, q, 16);
  EXPECT_OFFSET(TeplugAttentionFwdArgs, k, 24);
  EXPECT_OFFSET(TeplugAttentionFwdArgs, v, 32);
  EXPECT_OFFSET(TeplugAttentionFwdArgs, bias, 40);
  EXPECT_OFFSET(TeplugAttentionFwdArgs, o, 48);
  EXPECT_OFFSET(TeplugAttentionFwdArgs, softmax_lse, 56);
  EXPECT_OFFSET(TeplugAttentionFwdArgs, s_quant, 64);
  EXPECT_OFFSET(TeplugAttentionFwdArgs, workspace, 72);
  EXPECT_OFFSET(TeplugAttentionFwdArgs, workspace_size, 80);
  EXPECT_OFFSET(TeplugAttentionFwdArgs, stream, 88);
  EXPECT_SIZE(TeplugAttentionBwdArgs, 144);
  EXPECT_OFFSET(TeplugAttentionBwdArgs, struct_size, 0);
  EXPECT_OFFSET(TeplugAttentionBwdArgs, params, 8);
  EXPECT_OFFSET(TeplugAttentionBwdArgs, q, 16);
  EXPECT_OFFSET(TeplugAttentionBwdArgs, k, 24);
  EXPECT_OFFSET(TeplugAttentionBwdArgs, v, 32);
  EXPECT_OFFSET(TeplugAttentionBwdArgs, o, 40);
  EXPECT_OFFSET(TeplugAttentionBwdArgs, d_o, 48);
  EXPECT_OFFSET(TeplugAttentionBwdArgs, softmax_lse, 56);
  EXPECT_OFFSET(TeplugAttentionBwdArgs, bias, 64);
  EXPECT_OFFSET(TeplugAttentionBwdArgs, dq, 72);
  EXPECT_OFFSET(TeplugAttentionBwdArgs, dk, 80);
  EXPECT_OFFSET(TeplugAttentionBwdArgs, dv, 88);
  EXPECT_OFFSET(TeplugAttentionBwdArgs, dbias, 96);
  EXPECT_OFFSET(TeplugAttentionBwdArgs, s_quant, 104);
  EXPECT_OFFSET(TeplugAttentionBwdArgs, dp_quant, 112);
  EXPECT_OFFSET(TeplugAttentionBwdArgs, workspace, 120);
  EXPECT_OFFSET(TeplugAttentionBwdArgs, workspace_size, 128);
  EXPECT_OFFSET(TeplugAttentionBwdArgs, stream, 136);
  EXPECT_SIZE(TeplugAttentionCaps, 88);
  EXPECT_OFFSET(TeplugAttentionCaps, struct_size, 0);
  EXPECT_OFFSET(TeplugAttentionCaps, devices, 8);
  EXPECT_OFFSET(TeplugAttentionCaps, num_devices, 16);
  EXPECT_OFFSET(TeplugAttentionCaps, qkv_dtypes, 24);
  EXPECT_OFFSET(TeplugAttentionCaps, layouts, 32);
  EXPECT_OFFSET(TeplugAttentionCaps, mask_types, 36);
  EXPECT_OFFSET(TeplugAttentionCaps, bias_types, 40);
  EXPECT_OFFSET(TeplugAttentionCaps, features, 44);
  EXPECT_OFFSET(TeplugAttentionCaps, head_dim_min, 48);
  EXPECT_OFFSET(TeplugAttentionCaps, head_dim_max, 56);
  EXPECT_OFFSET(TeplugAttentionCaps, head_dim_multiple, 64);
  EXPECT_OFFSET(TeplugAttentionCaps, max_seqlen_q, 72);
  EXPECT_OFFSET(TeplugAttentionCaps, max_seqlen_kv, 80);
  EXPECT_SIZE(TeplugAttentionV1Vtbl, 64);
  EXPECT_OFFSET(TeplugAttentionV1Vtbl, base, 0);
  EXPECT_OFFSET(TeplugAttentionV1Vtbl, supports, 32);
  EXPECT_OFFSET(TeplugAttentionV1Vtbl, workspace_size, 40);
  EXPECT_OFFSET(TeplugAttentionV1Vtbl, forward, 48);
  EXPECT_OFFSET(TeplugAttentionV1Vtbl, backward, 56);
  EXPECT_SIZE(TeplugAttentionV1, 8);
  EXPECT_OFFSET(TeplugAttentionV1, vtbl, 0);
  EXPECT_SIZE(TeplugDeviceSupport, 24);
  EXPECT_OFFSET(TeplugDeviceSupport, struct_size, 0);
  EXPECT_OFFSET(TeplugDeviceSupport, kind, 8);
  EXPECT_OFFSET(TeplugDeviceSupport, vendor_id, 12);
  EXPECT_OFFSET(TeplugDeviceSupport, arch_min, 16);
  EXPECT_OFFSET(TeplugDeviceSupport, arch_max, 20);
  EXPECT_SIZE(TeplugKvStore, 32);
  EXPECT_OFFSET(TeplugKvStore, struct_size, 0);
  EXPECT_OFFSET(TeplugKvStore, ctx, 8);
  EXPECT_OFFSET(TeplugKvStore, put, 16);
  EXPECT_OFFSET(TeplugKvStore, get, 24);
  EXPECT_SIZE(TeplugRendezvous, 48);
  EXPECT_OFFSET(TeplugRendezvous, struct_size, 0);
  EXPECT_OFFSET(TeplugRendezvous, bootstrap, 8);
  EXPECT_OFFSET(TeplugRendezvous, bootstrap_size, 16);
  EXPECT_OFFSET(TeplugRendezvous, kv, 24);
  EXPECT_OFFSET(TeplugRendezvous, kv_prefix, 32);
  EXPECT_OFFSET(TeplugRendezvous, timeout_ms, 40);
  EXPECT_SIZE(TeplugCommCreateArgs, 40);
  EXPECT_OFFSET(TeplugCommCreateArgs, struct_size, 0);
  EXPECT_OFFSET(TeplugCommCreateArgs, rank, 8);
  EXPECT_OFFSET(TeplugCommCreateArgs, world_size, 12);
  EXPECT_OFFSET(TeplugCommCreateArgs, rendezvous, 16);
  EXPECT_OFFSET(TeplugCommCreateArgs, device, 24);
  EXPECT_OFFSET(TeplugCommCreateArgs, num_hosts, 32);  // v1.2
  EXPECT_OFFSET(TeplugCommCreateArgs, reserved0, 36);  // v1.2
  EXPECT_SIZE(TeplugCollectiveArgs, 64);
  EXPECT_OFFSET(TeplugCollectiveArgs, struct_size, 0);
  EXPECT_OFFSET(TeplugCollectiveArgs, comm, 8);
  EXPECT_OFFSET(TeplugCollectiveArgs, send, 16);
  EXPECT_OFFSET(TeplugCollectiveArgs, recv, 24);
  EXPECT_OFFSET(TeplugCollectiveArgs, counts, 32);
  EXPECT_OFFSET(TeplugCollectiveArgs, reduce_op, 40);
  EXPECT_OFFSET(TeplugCollectiveArgs, root, 44);
  EXPECT_OFFSET(TeplugCollectiveArgs, peer, 48);
  EXPECT_OFFSET(TeplugCollectiveArgs, reserved0, 52);
  EXPECT_OFFSET(TeplugCollectiveArgs, stream, 56);
  EXPECT_SIZE(TeplugCollectiveCaps, 56);
  EXPECT_OFFSET(TeplugCollectiveCaps, struct_size, 0);
  EXPECT_OFFSET(TeplugCollectiveCaps, devices, 8);
  EXPECT_OFFSET(TeplugCollectiveCaps, num_devices, 16);
  EXPECT_OFFSET(TeplugCollectiveCaps, dtypes, 24);
  EXPECT_OFFSET(TeplugCollectiveCaps, ops, 32);
  EXPECT_OFFSET(TeplugCollectiveCaps, reductions, 36);
  EXPECT_OFFSET(TeplugCollectiveCaps, max_world_size, 40);
  EXPECT_OFFSET(TeplugCollectiveCaps, features, 48);   // v1.2
  EXPECT_OFFSET(TeplugCollectiveCaps, reserved0, 52);  // v1.2
  EXPECT_SIZE(TeplugCollectiveV1Vtbl, 80);
  EXPECT_OFFSET(TeplugCollectiveV1Vtbl, base, 0);
  EXPECT_OFFSET(TeplugCollectiveV1Vtbl, supports, 32);
  EXPECT_OFFSET(TeplugCollectiveV1Vtbl, comm_create, 40);
  EXPECT_OFFSET(TeplugCollectiveV1Vtbl, comm_destroy, 48);
  EXPECT_OFFSET(TeplugCollectiveV1Vtbl, run, 56);
  EXPECT_OFFSET(TeplugCollectiveV1Vtbl, group_start, 64);
  EXPECT_OFFSET(TeplugCollectiveV1Vtbl, group_end, 72);
  EXPECT_SIZE(TeplugCollectiveV1, 8);
  EXPECT_OFFSET(TeplugCollectiveV1, vtbl, 0);
  EXPECT_SIZE(TeplugGemmArgs, 112);
  EXPECT_OFFSET(TeplugGemmArgs, struct_size, 0);
  EXPECT_OFFSET(TeplugGemmArgs, a, 8);
  EXPECT_OFFSET(TeplugGemmArgs, b, 16);
  EXPECT_OFFSET(TeplugGemmArgs, c, 24);
  EXPECT_OFFSET(TeplugGemmArgs, d, 32);
  EXPECT_OFFSET(TeplugGemmArgs, bias, 40);
  EXPECT_OFFSET(TeplugGemmArgs, pre_gelu_out, 48);
  EXPECT_OFFSET(TeplugGemmArgs, trans_a, 56);
  EXPECT_OFFSET(TeplugGemmArgs, trans_b, 60);
  EXPECT_OFFSET(TeplugGemmArgs, alpha, 64);
  EXPECT_OFFSET(TeplugGemmArgs, beta, 68);
  EXPECT_OFFSET(TeplugGemmArgs, epilogue, 72);
  EXPECT_OFFSET(TeplugGemmArgs, accumulate, 76);
  EXPECT_OFFSET(TeplugGemmArgs, use_split_accumulator, 80);
  EXPECT_OFFSET(TeplugGemmArgs, reserved0, 84);
  EXPECT_OFFSET(TeplugGemmArgs, workspace, 88);
  EXPECT_OFFSET(TeplugGemmArgs, workspace_size, 96);
  EXPECT_OFFSET(TeplugGemmArgs, stream, 104);
  EXPECT_SIZE(TeplugGemmCaps, 72);
  EXPECT_OFFSET(TeplugGemmCaps, struct_size, 0);
  EXPECT_OFFSET(TeplugGemmCaps, devices, 8);
  EXPECT_OFFSET(TeplugGemmCaps, num_devices, 16);
  EXPECT_OFFSET(TeplugGemmCaps, a_dtypes, 24);
  EXPECT_OFFSET(TeplugGemmCaps, b_dtypes, 32);
  EXPECT_OFFSET(TeplugGemmCaps, d_dtypes, 40);
  EXPECT_OFFSET(TeplugGemmCaps, epilogues, 48);
  EXPECT_OFFSET(TeplugGemmCaps, scaling_modes, 52);
  EXPECT_OFFSET(TeplugGemmCaps, alignment, 56);
  EXPECT_OFFSET(TeplugGemmCaps, max_dim, 64);
  EXPECT_SIZE(TeplugGemmV1Vtbl, 56);
  EXPECT_OFFSET(TeplugGemmV1Vtbl, base, 0);
  EXPECT_OFFSET(TeplugGemmV1Vtbl, supports, 32);
  EXPECT_OFFSET(TeplugGemmV1Vtbl, workspace_size, 40);
  EXPECT_OFFSET(TeplugGemmV1Vtbl, gemm, 48);
  EXPECT_SIZE(TeplugGemmV1, 8);
  EXPECT_OFFSET(TeplugGemmV1, vtbl, 0);
  EXPECT_SIZE(TeplugImplementationDesc, 56);
  EXPECT_OFFSET(TeplugImplementationDesc, struct_size, 0);
  EXPECT_OFFSET(TeplugImplementationDesc, iid, 8);
  EXPECT_OFFSET(TeplugImplementationDesc, object, 24);
  EXPECT_OFFSET(TeplugImplementationDesc, capability, 32);
  EXPECT_OFFSET(TeplugImplementationDesc, name, 40);
  EXPECT_OFFSET(TeplugImplementationDesc, priority, 48);
  EXPECT_OFFSET(TeplugImplementationDesc, reserved0, 52);
  EXPECT_SIZE(TeplugRegistrar, 16);
  EXPECT_OFFSET(TeplugRegistrar, struct_size, 0);
  EXPECT_OFFSET(TeplugRegistrar, register_implementation, 8);
  EXPECT_SIZE(TeplugHostApi, 64);  // 48 in v1.0
  EXPECT_OFFSET(TeplugHostApi, struct_size, 0);
  EXPECT_OFFSET(TeplugHostApi, abi_min, 8);
  EXPECT_OFFSET(TeplugHostApi, abi_max, 12);
  EXPECT_OFFSET(TeplugHostApi, log_ctx, 16);
  EXPECT_OFFSET(TeplugHostApi, log, 24);
  EXPECT_OFFSET(TeplugHostApi, registrar, 32);
  EXPECT_OFFSET(TeplugHostApi, plugin_path, 40);
  EXPECT_OFFSET(TeplugHostApi, get_option, 48);  // v1.1
  EXPECT_OFFSET(TeplugHostApi, options_ctx, 56);
  EXPECT_SIZE(TeplugPluginInfo, 64);
  EXPECT_OFFSET(TeplugPluginInfo, struct_size, 0);
  EXPECT_OFFSET(TeplugPluginInfo, name, 8);
  EXPECT_OFFSET(TeplugPluginInfo, vendor, 16);
  EXPECT_OFFSET(TeplugPluginInfo, version, 24);
  EXPECT_OFFSET(TeplugPluginInfo, abi_min, 32);
  EXPECT_OFFSET(TeplugPluginInfo, abi_max, 36);
  EXPECT_OFFSET(TeplugPluginInfo, device_kind_name_count, 40);
  EXPECT_OFFSET(TeplugPluginInfo, vendor_name_count, 44);
  EXPECT_OFFSET(TeplugPluginInfo, device_kind_names, 48);
  EXPECT_OFFSET(TeplugPluginInfo, vendor_names, 56);
  EXPECT_SIZE(TeplugNamedId, 16);
  EXPECT_OFFSET(TeplugNamedId, id, 0);
  EXPECT_OFFSET(TeplugNamedId, name, 8);
  EXPECT_SIZE(TeplugQuantizeArgs, 64);
  EXPECT_OFFSET(TeplugQuantizeArgs, struct_size, 0);
  EXPECT_OFFSET(TeplugQuantizeArgs, input, 8);
  EXPECT_OFFSET(TeplugQuantizeArgs, output, 16);
  EXPECT_OFFSET(TeplugQuantizeArgs, recipe, 24);
  EXPECT_OFFSET(TeplugQuantizeArgs, amax_epsilon, 28);
  EXPECT_OFFSET(TeplugQuantizeArgs, force_pow2_scales, 32);
  EXPECT_OFFSET(TeplugQuantizeArgs, rowwise, 36);
  EXPECT_OFFSET(TeplugQuantizeArgs, columnwise, 40);
  EXPECT_OFFSET(TeplugQuantizeArgs, reserved0, 44);
  EXPECT_OFFSET(TeplugQuantizeArgs, stream, 48);
  EXPECT_OFFSET(TeplugQuantizeArgs, mx_scale_rule, 56);  // v1.3
  EXPECT_OFFSET(TeplugQuantizeArgs, reserved1, 60);      // v1.3
  EXPECT_SIZE(TeplugDequantizeArgs, 32);
  EXPECT_OFFSET(TeplugDequantizeArgs, struct_size, 0);
  EXPECT_OFFSET(TeplugDequantizeArgs, input, 8);
  EXPECT_OFFSET(TeplugDequantizeArgs, output, 16);
  EXPECT_OFFSET(TeplugDequantizeArgs, stream, 24);
  EXPECT_SIZE(TeplugQuantizerCaps, 48);
  EXPECT_OFFSET(TeplugQuantizerCaps, struct_size, 0);
  EXPECT_OFFSET(TeplugQuantizerCaps, devices, 8);
  EXPECT_OFFSET(TeplugQuantizerCaps, num_devices, 16);
  EXPECT_OFFSET(TeplugQuantizerCaps, input_dtypes, 24);
  EXPECT_OFFSET(TeplugQuantizerCaps, output_dtypes, 32);
  EXPECT_OFFSET(TeplugQuantizerCaps, scaling_modes, 40);
  EXPECT_OFFSET(TeplugQuantizerCaps, features, 44);
  EXPECT_SIZE(TeplugQuantizerV1Vtbl, 56);
  EXPECT_OFFSET(TeplugQuantizerV1Vtbl, base, 0);
  EXPECT_OFFSET(TeplugQuantizerV1Vtbl, supports, 32);
  EXPECT_OFFSET(TeplugQuantizerV1Vtbl, quantize, 40);
  EXPECT_OFFSET(TeplugQuantizerV1Vtbl, dequantize, 48);
  EXPECT_SIZE(TeplugQuantizerV1, 8);
  EXPECT_OFFSET(TeplugQuantizerV1, vtbl, 0);
  EXPECT_SIZE(TeplugError, 32);
  EXPECT_OFFSET(TeplugError, struct_size, 0);
  EXPECT_OFFSET(TeplugError, code, 8);
  EXPECT_OFFSET(TeplugError, reserved0, 12);
  EXPECT_OFFSET(TeplugError, message, 16);
  EXPECT_OFFSET(TeplugError, destroy, 24);
  EXPECT_SIZE(TeplugDevice, 24);
  EXPECT_OFFSET(TeplugDevice, struct_size, 0);
  EXPECT_OFFSET(TeplugDevice, kind, 8);
  EXPECT_OFFSET(TeplugDevice, vendor_id, 12);
  EXPECT_OFFSET(TeplugDevice, ordinal, 16);
  EXPECT_OFFSET(TeplugDevice, arch, 20);
  EXPECT_SIZE(TeplugTensor, 168);
  EXPECT_OFFSET(TeplugTensor, struct_size, 0);
  EXPECT_OFFSET(TeplugTensor, data, 8);
  EXPECT_OFFSET(TeplugTensor, dtype, 16);
  EXPECT_OFFSET(TeplugTensor, rank, 20);
  EXPECT_OFFSET(TeplugTensor, shape, 24);
  EXPECT_OFFSET(TeplugTensor, strides, 88);
  EXPECT_OFFSET(TeplugTensor, device, 152);
  EXPECT_OFFSET(TeplugTensor, quant, 160);
  EXPECT_SIZE(TeplugQuantization, 56);
  EXPECT_OFFSET(TeplugQuantization, struct_size, 0);
  EXPECT_OFFSET(TeplugQuantization, mode, 8);
  EXPECT_OFFSET(TeplugQuantization, reserved0, 12);
  EXPECT_OFFSET(TeplugQuantization, scale, 16);
  EXPECT_OFFSET(TeplugQuantization, scale_inv, 24);
  EXPECT_OFFSET(TeplugQuantization, amax, 32);
  EXPECT_OFFSET(TeplugQuantization, columnwise_data, 40);
  EXPECT_OFFSET(TeplugQuantization, columnwise_scale_inv, 48);
}

TEST(AbiLayoutTest, NormV1StructsArePinned) {
  EXPECT_SIZE(TeplugNormFwdArgs, 104);
  EXPECT_OFFSET(TeplugNormFwdArgs, struct_size, 0);
  EXPECT_OFFSET(TeplugNormFwdArgs, norm_type, 8);
  EXPECT_OFFSET(TeplugNormFwdArgs, zero_centered_gamma, 12);
  EXPECT_OFFSET(TeplugNormFwdArgs, epsilon, 16);
  EXPECT_OFFSET(TeplugNormFwdArgs, reserved0, 20);
  EXPECT_OFFSET(TeplugNormFwdArgs, x, 24);
  EXPECT_OFFSET(TeplugNormFwdArgs, gamma, 32);
  EXPECT_OFFSET(TeplugNormFwdArgs, beta, 40);
  EXPECT_OFFSET(TeplugNormFwdArgs, y, 48);
  EXPECT_OFFSET(TeplugNormFwdArgs, mu, 56);
  EXPECT_OFFSET(TeplugNormFwdArgs, rsigma, 64);
  EXPECT_OFFSET(TeplugNormFwdArgs, workspace, 72);
  EXPECT_OFFSET(TeplugNormFwdArgs, workspace_size, 80);
  EXPECT_OFFSET(TeplugNormFwdArgs, stream, 88);
  EXPECT_OFFSET(TeplugNormFwdArgs, mx_scale_rule, 96);  // v1.3
  EXPECT_OFFSET(TeplugNormFwdArgs, reserved1, 100);     // v1.3
  EXPECT_SIZE(TeplugNormBwdArgs, 104);
  EXPECT_OFFSET(TeplugNormBwdArgs, struct_size, 0);
  EXPECT_OFFSET(TeplugNormBwdArgs, norm_type, 8);
  EXPECT_OFFSET(TeplugNormBwdArgs, zero_centered_gamma, 12);
  EXPECT_OFFSET(TeplugNormBwdArgs, dy, 16);
  EXPECT_OFFSET(TeplugNormBwdArgs, x, 24);
  EXPECT_OFFSET(TeplugNormBwdArgs, mu, 32);
  EXPECT_OFFSET(TeplugNormBwdArgs, rsigma, 40);
  EXPECT_OFFSET(TeplugNormBwdArgs, gamma, 48);
  EXPECT_OFFSET(TeplugNormBwdArgs, dx, 56);
  EXPECT_OFFSET(TeplugNormBwdArgs, dgamma, 64);
  EXPECT_OFFSET(TeplugNormBwdArgs, dbeta, 72);
  EXPECT_OFFSET(TeplugNormBwdArgs, workspace, 80);
  EXPECT_OFFSET(TeplugNormBwdArgs, workspace_size, 88);
  EXPECT_OFFSET(TeplugNormBwdArgs, stream, 96);
  EXPECT_SIZE(TeplugNormCaps, 88);
  EXPECT_OFFSET(TeplugNormCaps, struct_size, 0);
  EXPECT_OFFSET(TeplugNormCaps, devices, 8);
  EXPECT_OFFSET(TeplugNormCaps, num_devices, 16);
  EXPECT_OFFSET(TeplugNormCaps, input_dtypes, 24);
  EXPECT_OFFSET(TeplugNormCaps, weight_dtypes, 32);
  EXPECT_OFFSET(TeplugNormCaps, output_dtypes, 40);
  EXPECT_OFFSET(TeplugNormCaps, norm_types, 48);
  EXPECT_OFFSET(TeplugNormCaps, scaling_modes, 52);
  EXPECT_OFFSET(TeplugNormCaps, features, 56);
  EXPECT_OFFSET(TeplugNormCaps, reserved0, 60);
  EXPECT_OFFSET(TeplugNormCaps, hidden_min, 64);
  EXPECT_OFFSET(TeplugNormCaps, hidden_max, 72);
  EXPECT_OFFSET(TeplugNormCaps, hidden_multiple, 80);
  EXPECT_SIZE(TeplugNormV1Vtbl, 64);
  EXPECT_OFFSET(TeplugNormV1Vtbl, base, 0);
  EXPECT_OFFSET(TeplugNormV1Vtbl, supports, 32);
  EXPECT_OFFSET(TeplugNormV1Vtbl, workspace_size, 40);
  EXPECT_OFFSET(TeplugNormV1Vtbl, forward, 48);
  EXPECT_OFFSET(TeplugNormV1Vtbl, backward, 56);
  EXPECT_SIZE(TeplugNormV1, 8);
  EXPECT_OFFSET(TeplugNormV1, vtbl, 0);
}

TEST(AbiLayoutTest, NormIidAndEnumValuesArePinned) {
  const TeplugIID norm = TEPLUG_IID_NORM_V1_INIT;
  EXPECT_EQ(norm.hi, 0x7465706c75670001ull);
  EXPECT_EQ(norm.lo, 0x6e6f726d00000001ull);  // "norm", version 1
  EXPECT_EQ(TEPLUG_NORM_OP_FORWARD, 1);
  EXPECT_EQ(TEPLUG_NORM_OP_BACKWARD, 2);
  EXPECT_EQ(TEPLUG_NORM_LAYERNORM, 0);
  EXPECT_EQ(TEPLUG_NORM_RMSNORM, 1);
  EXPECT_EQ(TEPLUG_NORM_CAP_BACKWARD, 1u);
  EXPECT_EQ(TEPLUG_NORM_CAP_ZERO_CENTERED_GAMMA, 2u);
}

TEST(AbiLayoutTest, DeviceV1StructsArePinned) {
  EXPECT_SIZE(TeplugDeviceInfo, 104);
  EXPECT_OFFSET(TeplugDeviceInfo, struct_size, 0);
  EXPECT_OFFSET(TeplugDeviceInfo, kind, 8);
  EXPECT_OFFSET(TeplugDeviceInfo, vendor_id, 12);
  EXPECT_OFFSET(TeplugDeviceInfo, ordinal, 16);
  EXPECT_OFFSET(TeplugDeviceInfo, arch, 20);
  EXPECT_OFFSET(TeplugDeviceInfo, name, 24);
  EXPECT_OFFSET(TeplugDeviceInfo, memory_bytes, 88);
  EXPECT_OFFSET(TeplugDeviceInfo, host_pointers_usable, 96);
  EXPECT_OFFSET(TeplugDeviceInfo, reserved0, 100);
  EXPECT_SIZE(TeplugDeviceOpenArgs, 16);
  EXPECT_OFFSET(TeplugDeviceOpenArgs, device, 8);
  EXPECT_SIZE(TeplugAllocateArgs, 32);
  EXPECT_OFFSET(TeplugAllocateArgs, context, 8);
  EXPECT_OFFSET(TeplugAllocateArgs, bytes, 16);
  EXPECT_OFFSET(TeplugAllocateArgs, alignment, 24);
  EXPECT_SIZE(TeplugCopyArgs, 56);
  EXPECT_OFFSET(TeplugCopyArgs, context, 8);
  EXPECT_OFFSET(TeplugCopyArgs, kind, 16);
  EXPECT_OFFSET(TeplugCopyArgs, reserved0, 20);
  EXPECT_OFFSET(TeplugCopyArgs, dst, 24);
  EXPECT_OFFSET(TeplugCopyArgs, src, 32);
  EXPECT_OFFSET(TeplugCopyArgs, bytes, 40);
  EXPECT_OFFSET(TeplugCopyArgs, stream, 48);
  EXPECT_SIZE(TeplugDeviceCaps, 24);
  EXPECT_OFFSET(TeplugDeviceCaps, devices, 8);
  EXPECT_OFFSET(TeplugDeviceCaps, num_devices, 16);
  EXPECT_SIZE(TeplugDeviceV1Vtbl, 120);
  EXPECT_OFFSET(TeplugDeviceV1Vtbl, base, 0);
  EXPECT_OFFSET(TeplugDeviceV1Vtbl, supports, 32);
  EXPECT_OFFSET(TeplugDeviceV1Vtbl, device_count, 40);
  EXPECT_OFFSET(TeplugDeviceV1Vtbl, device_info, 48);
  EXPECT_OFFSET(TeplugDeviceV1Vtbl, open, 56);
  EXPECT_OFFSET(TeplugDeviceV1Vtbl, close, 64);
  EXPECT_OFFSET(TeplugDeviceV1Vtbl, allocate, 72);
  EXPECT_OFFSET(TeplugDeviceV1Vtbl, deallocate, 80);
  EXPECT_OFFSET(TeplugDeviceV1Vtbl, copy, 88);
  EXPECT_OFFSET(TeplugDeviceV1Vtbl, stream_create, 96);
  EXPECT_OFFSET(TeplugDeviceV1Vtbl, stream_synchronize, 104);
  EXPECT_OFFSET(TeplugDeviceV1Vtbl, stream_destroy, 112);
  EXPECT_SIZE(TeplugDeviceV1, 8);
}

TEST(AbiLayoutTest, DeviceIidAndEnumValuesArePinned) {
  const TeplugIID device = TEPLUG_IID_DEVICE_V1_INIT;
  EXPECT_EQ(device.hi, 0x7465706c75670001ull);
  EXPECT_EQ(device.lo, 0x6465766900000001ull);  // "devi", version 1
  EXPECT_EQ(TEPLUG_DEVICE_OP_OPEN, 1);
  EXPECT_EQ(TEPLUG_COPY_HOST_TO_DEVICE, 0);
  EXPECT_EQ(TEPLUG_COPY_DEVICE_TO_HOST, 1);
  EXPECT_EQ(TEPLUG_COPY_DEVICE_TO_DEVICE, 2);
}

TEST(AbiLayoutTest, EnumValuesArePinned) {
  EXPECT_EQ(TEPLUG_DTYPE_FP32, 1);
  EXPECT_EQ(TEPLUG_DTYPE_FP8_E4M3, 4);
  EXPECT_EQ(TEPLUG_DTYPE_UINT8, 11);
  EXPECT_EQ(TEPLUG_LAYOUT_BSHD_BSHD_BSHD, 9);
  EXPECT_EQ(TEPLUG_LAYOUT_THD_THD_THD, 14);
  EXPECT_EQ(TEPLUG_MASK_PADDING_CAUSAL_BOTTOM_RIGHT, 5);
  EXPECT_EQ(TEPLUG_BIAS_ALIBI, 3);
  EXPECT_EQ(TEPLUG_SCALING_BLOCK_2D128, 4);
  EXPECT_EQ(TEPLUG_OP_BARRIER, 12);
  EXPECT_EQ(TEPLUG_REDUCE_AVG, 4);
  EXPECT_EQ(TEPLUG_COLLECTIVE_CAP_ONE_HOST, 1u);
  EXPECT_EQ(TEPLUG_FAILED_PRECONDITION, 9);
  EXPECT_EQ(TEPLUG_MX_SCALE_TRANSFORMER_ENGINE, 1);
  EXPECT_EQ(TEPLUG_QUANT_CAP_MX_TE_SCALE, 16u);
  EXPECT_EQ(TEPLUG_NORM_CAP_MX_TE_SCALE, 4u);
  EXPECT_EQ(TEPLUG_ABI_VERSION_CURRENT, 0x00010003u);
  EXPECT_EQ(TEPLUG_ABI_VERSION_MAJOR_FIRST, 0x00010000u);
}

TEST(AbiLayoutTest, StructSizeMacroCountsUpToTheNamedField) {
  EXPECT_EQ(TEPLUG_STRUCT_SIZE(TeplugGemmArgs, a), size_t{16});
  EXPECT_EQ(TEPLUG_STRUCT_SIZE(TeplugGemmArgs, stream), sizeof(TeplugGemmArgs));
  TeplugGemmArgs args{};
  args.struct_size = TEPLUG_STRUCT_SIZE(TeplugGemmArgs, beta);
  EXPECT_TRUE(TEPLUG_HAS_FIELD(&args, TeplugGemmArgs, alpha));
  EXPECT_TRUE(TEPLUG_HAS_FIELD(&args, TeplugGemmArgs, beta));
  EXPECT_FALSE(TEPLUG_HAS_FIELD(&args, TeplugGemmArgs, epilogue));
  const TeplugGemmArgs* null_args = nullptr;
  EXPECT_FALSE(TEPLUG_HAS_FIELD(null_args, TeplugGemmArgs, a));
}

}  // namespace
