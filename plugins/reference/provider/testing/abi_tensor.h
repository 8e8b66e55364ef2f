// Test support: ABI tensors that own their storage, filled from and read back
// to doubles with the reference float formats, plus quantization metadata
// that owns its scale tensors. Keeps the provider tests about numbers and
// messages instead of struct plumbing.
#ifndef TEPLUG_PLUGINS_REFERENCE_PROVIDER_TESTING_ABI_TENSOR_H_
#define TEPLUG_PLUGINS_REFERENCE_PROVIDER_TESTING_ABI_TENSOR_H_

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "teplug/types.h"

namespace teplug::reference::provider::testing {

// A contiguous tensor with zero-initialised storage of its own. Not movable
// once handed out (the ABI struct points into it), hence unique_ptr factories.
class AbiTensor {
 public:
  AbiTensor(int32_t dtype, std::vector<int64_t> shape);
  AbiTensor(const AbiTensor&) = delete;
  AbiTensor& operator=(const AbiTensor&) = delete;

  TeplugTensor* get() { return &tensor_; }
  int64_t count() const { return count_; }
  unsigned char* bytes() { return storage_.data(); }
  int32_t dtype() const { return tensor_.dtype; }

  // Stores each value with one rounding into the dtype (fp8 unscaled codes;
  // integers truncated). fp4 uses EncodeFp4E2M1 saturating.
  void Fill(const std::vector<double>& values);
  // Decodes every element (raw codes for fp8/fp4/e8m0: no scale applied).
  std::vector<double> Values() const;
  // Raw bytes, for bitwise comparisons.
  std::vector<unsigned char> Bytes() const { return storage_; }

  // Per-tensor quantization: owns fp32[1] scale, scale_inv and amax tensors.
  void SetPerTensor(float scale, float scale_inv);
  // Quantization of `mode` with a caller-built scale_inv (and optional
  // columnwise data / scale_inv), owned by this tensor.
  void SetQuant(int32_t mode, std::unique_ptr<AbiTensor> scale_inv,
                std::unique_ptr<AbiTensor> columnwise_data = nullptr,
                std::unique_ptr<AbiTensor> columnwise_scale_inv = nullptr);
  AbiTensor* scale() { return scale_.get(); }
  AbiTensor* scale_inv() { return scale_inv_.get(); }
  AbiTensor* amax() { return amax_.get(); }
  AbiTensor* columnwise_data() { return columnwise_data_.get(); }
  AbiTensor* columnwise_scale_inv() { return columnwise_scale_inv_.get(); }

 private:
  void LinkQuant();

  std::vector<unsigned char> storage_;
  TeplugTensor tensor_;
  int64_t count_ = 1;
  TeplugQuantization quant_{};
  std::unique_ptr<AbiTensor> scale_, scale_inv_, amax_, columnwise_data_, columnwise_scale_inv_;
};

// Uniform values in +-[lo, hi), never zero.
std::vector<double> RandomValues(std::mt19937_64& rng, int64_t count, double lo = 0.25, double hi = 2.0);

// A fp32 tensor of one element holding `value`.
std::unique_ptr<AbiTensor> Scalar(float value);

}  // namespace teplug::reference::provider::testing

#endif  // TEPLUG_PLUGINS_REFERENCE_PROVIDER_TESTING_ABI_TENSOR_H_
