#include "tests/fuzz/abi_blobs.h"

#include <algorithm>

namespace teplug::fuzz {
namespace {

constexpr size_t kHostDeviceLimit = 64;  // core/ops/capability_reader.cc's kMaxDevices

// The device list a descriptor points at; sets `num_devices` and returns
// `devices`.
const TeplugDeviceSupport* DecodeDevices(FuzzInput& in, BlobArena& arena, size_t* num_devices) {
  *num_devices = in.Take<uint8_t>();
  if (in.Take<uint8_t>() == 0) return nullptr;
  const uint8_t stride_code = in.Take<uint8_t>();
  const size_t stride = stride_code == 0 ? sizeof(TeplugDeviceSupport) : stride_code;
  // A count above the host's limit is refused before the list is read.
  const size_t elements = *num_devices <= kHostDeviceLimit ? *num_devices : 1;
  auto* blob = static_cast<unsigned char*>(arena.Allocate(elements * stride));
  const size_t blob_size = elements * stride < sizeof(size_t) ? sizeof(size_t) : elements * stride;
  for (size_t i = 0; i < elements; ++i) {
    TeplugDeviceSupport element;
    in.TakeBytes(&element, sizeof element);
    // devices[0].struct_size is the stride the host reads the array with
    // (the allocation holds num_devices of them); later elements may
    // disagree, which the host must refuse.
    if (in.Take<uint8_t>() == 0 || i == 0) element.struct_size = stride;
    const size_t at = i * stride;
    const size_t n = std::min({stride, sizeof element, blob_size - at});
    std::memcpy(blob + at, &element, n);
  }
  return reinterpret_cast<const TeplugDeviceSupport*>(blob);
}

template <class Caps>
const void* DecodeCaps(FuzzInput& in, BlobArena& arena) {
  return DecodeStruct<Caps>(in, arena, [&](Caps& caps) {
    size_t count = 0;
    caps.devices = DecodeDevices(in, arena, &count);
    caps.num_devices = count;
  });
}

}  // namespace

const void* DecodeCapability(FuzzInput& in, BlobArena& arena) {
  switch (in.Take<uint8_t>() % 4) {
    case 0: return DecodeCaps<TeplugGemmCaps>(in, arena);
    case 1: return DecodeCaps<TeplugAttentionCaps>(in, arena);
    case 2: return DecodeCaps<TeplugQuantizerCaps>(in, arena);
    default: return DecodeCaps<TeplugCollectiveCaps>(in, arena);
  }
}

void* DecodeDataPointer(FuzzInput& in, size_t extra_blocks) {
  alignas(4096) static unsigned char scratch[512 * 256];
  const uint8_t block = in.Take<uint8_t>();
  const uint8_t offset = in.Take<uint8_t>();
  if (block == 0 && offset == 0) return nullptr;
  return scratch + (block + extra_blocks % 256) * 256 + offset;
}

}  // namespace teplug::fuzz
