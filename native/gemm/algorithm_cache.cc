#include "native/gemm/algorithm_cache.h"

namespace teplug::native {
namespace {

void AddLayout(const LtMatrixLayout& l, std::vector<int64_t>* w) {
  w->push_back(static_cast<int64_t>(l.source));
  w->push_back(l.type);
  w->push_back(static_cast<int64_t>(l.rows));
  w->push_back(static_cast<int64_t>(l.cols));
  w->push_back(l.ld);
}

void AddScaling(const LtOperandScaling& s, std::vector<int64_t>* w) {
  w->push_back(s.scaled);
  w->push_back(s.mode);
}

}  // namespace

uint32_t AlignmentClass(const void* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  if (a == 0) return kMaxAlignmentClass;
  const uintptr_t lowest = a & (~a + 1);  // the lowest set bit
  return lowest >= kMaxAlignmentClass ? kMaxAlignmentClass : static_cast<uint32_t>(lowest);
}

size_t AlgorithmKeyHash::operator()(const AlgorithmKey& k) const {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the words
  for (int64_t word : k.words) {
    h ^= static_cast<uint64_t>(word);
    h *= 0x100000001b3ull;
  }
  return static_cast<size_t>(h);
}

AlgorithmKey MakeAlgorithmKey(const CublasLtGemmPlan& p, int device_ordinal,
                              const uint32_t alignments[kKeyedPointers], size_t workspace_limit) {
  AlgorithmKey key;
  std::vector<int64_t>& w = key.words;
  w.reserve(48);
  w.push_back(device_ordinal);
  w.push_back(p.compute_type);
  w.push_back(p.scale_type);
  w.push_back(p.trans_a);
  w.push_back(p.trans_b);
  w.push_back(static_cast<int64_t>(p.m));
  w.push_back(static_cast<int64_t>(p.n));
  w.push_back(static_cast<int64_t>(p.k));
  for (const LtMatrixLayout* l : {&p.a, &p.b, &p.c, &p.d}) AddLayout(*l, &w);
  // alpha does not steer the heuristic; whether beta is zero does (C read or not).
  w.push_back(p.beta != 0.0f);
  w.push_back(p.epilogue);
  w.push_back(p.bias_type);
  w.push_back(p.has_aux);
  w.push_back(p.aux_type);
  w.push_back(p.aux_ld);
  w.push_back(p.fast_accum);
  AddScaling(p.a_scaling, &w);
  AddScaling(p.b_scaling, &w);
  w.push_back(p.d_scale);
  w.push_back(p.d_amax);
  for (int i = 0; i < kKeyedPointers; ++i) w.push_back(alignments[i]);
  w.push_back(static_cast<int64_t>(workspace_limit));
  return key;
}

}  // namespace teplug::native
