// IEEE binary16 (fp16) and bfloat16 <-> binary32, written from the format
// definitions: the collectives decode 16-bit inputs to fp32 exactly, reduce
// in fp32 and round the result once, to nearest-even.
#ifndef TEPLUG_PLUGINS_CPU_COLLECTIVE_HALF_FLOAT_H_
#define TEPLUG_PLUGINS_CPU_COLLECTIVE_HALF_FLOAT_H_

#include <cstddef>
#include <cstdint>

namespace teplug::cpu::collective {

// Exact: every fp16 value (subnormals, +-Inf, NaN) is a binary32 value.
float Fp16ToFloat(uint16_t bits);
// Round to nearest, ties to even; overflow gives +-Inf, NaN stays a quiet NaN.
uint16_t FloatToFp16(float value);
// Exact: bfloat16 is the upper half of a binary32.
float Bf16ToFloat(uint16_t bits);
// Round to nearest, ties to even; NaN stays a quiet NaN.
uint16_t FloatToBf16(float value);

}  // namespace teplug::cpu::collective

#endif  // TEPLUG_PLUGINS_CPU_COLLECTIVE_HALF_FLOAT_H_
