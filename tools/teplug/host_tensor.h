// A host tensor that owns its bytes (and, for fp8, its scale tensors) and
// exposes an ABI TeplugTensor view of them, for the main job. Values go in
// and out as doubles through the tool's own codecs (float_format_codecs.h,
// written from the format specifications): fp16/bf16 inputs are rounded once,
// to nearest even, and every value read back is decoded, fp8 as
// code * scale_inv in every scaling mode, so no input or check
// goes through a provider's code.
#ifndef TEPLUG_TOOLS_TEPLUG_HOST_TENSOR_H_
#define TEPLUG_TOOLS_TEPLUG_HOST_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "teplug/types.h"

namespace teplug::cli {

// An allocator whose blocks start on 256-byte boundaries: the largest
// alignment a capability descriptor may require of a data pointer (gemm.h),
// so a case honours any declared alignment.
template <class T>
struct Aligned256Allocator {
  using value_type = T;
  static constexpr std::align_val_t kAlignment{256};
  Aligned256Allocator() = default;
  template <class U>
  Aligned256Allocator(const Aligned256Allocator<U>&) {}  // NOLINT: rebinding
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlignment)); }
  void deallocate(T* p, size_t) { ::operator delete(p, kAlignment); }
  template <class U>
  bool operator==(const Aligned256Allocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const Aligned256Allocator<U>&) const { return false; }
};

class HostTensor {
 public:
  HostTensor() = default;
  // Zero-filled (all-zero bytes) tensor of `dtype` and `shape` (row-major).
  HostTensor(std::string name, int32_t dtype, std::vector<int64_t> shape);
  HostTensor(HostTensor&&) = default;
  HostTensor& operator=(HostTensor&&) = default;

  // A deep copy, quantization metadata included, under `name`.
  HostTensor Clone(const std::string& name) const;

  // Adds quantization metadata for `mode` (per_tensor: scale, scale_inv and
  // amax fp32[1]; mxfp8_1d32: scale_inv e8m0 [rows, ceil(cols/32)];
  // block_1d128 / block_2d128: scale_inv fp32 [rows or ceil(rows/128),
  // ceil(cols/128)], zero until written), rows and
  // cols being the tensor read as [prod(shape[:-1]), shape[-1]].
  void AttachQuantization(int32_t mode);

  const std::string& name() const { return name_; }
  int32_t dtype() const { return view_.dtype; }
  int64_t count() const;
  int64_t rows() const;  // prod(shape[:-1])
  int64_t cols() const;  // shape[-1]
  TeplugTensor* tensor() { return &view_; }
  const TeplugTensor* tensor() const { return &view_; }
  // The same bytes seen with another shape of the same element count.
  TeplugTensor Reshaped(const std::vector<int64_t>& shape) const;

  // The real value of every element (row-major): stored value for
  // fp32/fp16/bf16, decode(code) * scale_inv for fp8 (any scaling mode).
  std::vector<double> Values() const;
  // Stores `values` (count() of them) rounding once to fp32/fp16/bf16.
  void SetValues(const std::vector<double>& values);
  // The per-tensor scale (fp8 per_tensor only).
  float PerTensorScaleInv() const;
  // The fp32 scale_inv of the block holding (row, col) (block modes only).
  double BlockScale(int64_t row, int64_t col) const;
  // The MXFP8 scale of block (row, col/32) as a power of two.
  double MxScale(int64_t row, int64_t col) const;

 private:
  struct Quant {
    TeplugQuantization q{};
    std::unique_ptr<HostTensor> scale, scale_inv, amax;
  };
  void Bind();

  std::string name_;
  std::vector<uint8_t, Aligned256Allocator<uint8_t>> bytes_;
  TeplugTensor view_{};
  std::unique_ptr<Quant> quant_;
};

// max |a - b| / max |b| over all elements: the error measure of the main
// job, relative to the oracle tensor's scale. Infinite when `b` is all zero
// (or the sizes differ): the job's inputs are random, so an all-zero oracle
// means an upstream op wrote nothing, and a check against it would be vacuous.
double NormalizedMaxError(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_HOST_TENSOR_H_
