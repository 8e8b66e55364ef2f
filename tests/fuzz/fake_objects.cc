#include "tests/fuzz/fake_objects.h"

#include <cstring>
#include <string>

#include "teplug/sdk/iids.hpp"

namespace teplug::fuzz {
namespace {

FakeObject* Fake(TeplugObject* self) { return reinterpret_cast<FakeObject*>(self); }

TeplugObject* QueryInterface(TeplugObject* self, const TeplugIID* iid) {
  TEPLUG_FUZZ_CHECK(iid != nullptr, "the host asked query_interface for a NULL IID");
  FakeObject* object = Fake(self);
  FakeObject* answer = nullptr;
  switch (object->answer) {
    case QueryAnswer::kItself: answer = object; break;
    case QueryAnswer::kNull: break;
    case QueryAnswer::kOtherObject: answer = object->other; break;
    case QueryAnswer::kItsOwnIid:
      if (sdk::SameIid(*iid, object->table_iid)) answer = object;
      break;
  }
  if (answer == nullptr) return nullptr;
  ++answer->host_references;
  return &answer->base;
}

uint32_t AddRef(TeplugObject* self) { return static_cast<uint32_t>(++Fake(self)->host_references); }

uint32_t Release(TeplugObject* self) {
  FakeObject* object = Fake(self);
  TEPLUG_FUZZ_CHECK(object->host_references > 0, "the host released a reference it did not hold");
  return static_cast<uint32_t>(--object->host_references);
}

TeplugBool Supports(TeplugObject*, int32_t, const void*, char*, size_t) {
  TEPLUG_FUZZ_CHECK(false, "the host called supports() while staging a registration");
  return 0;
}

// Any interface function: staging only validates the table, it never calls
// an op.
template <class... Args>
TeplugError* Method(Args...) {
  TEPLUG_FUZZ_CHECK(false, "the host called an interface function while staging a registration");
  return nullptr;
}

// The base table with the functions `null_mask` keeps.
TeplugObjectVtbl Base(uint8_t null_mask) {
  TeplugObjectVtbl base{};
  base.query_interface = (null_mask & 1) ? nullptr : &QueryInterface;
  base.add_ref = (null_mask & 2) ? nullptr : &AddRef;
  base.release = (null_mask & 4) ? nullptr : &Release;
  return base;
}

template <class Fn>
Fn Keep(uint8_t null_mask, int bit, Fn fn) {
  return (null_mask & (1u << bit)) ? nullptr : fn;
}

// A table of type Vtbl with the claimed size, in its own allocation.
template <class Vtbl>
const TeplugObjectVtbl* PlaceTable(Vtbl table, FuzzInput& in, BlobArena& arena) {
  size_t allocate = 0;
  table.base.struct_size = DecodeStructSize<Vtbl>(in, &allocate);
  void* blob = arena.Allocate(allocate);
  std::memcpy(blob, &table, allocate < sizeof table ? allocate : sizeof table);
  return static_cast<const TeplugObjectVtbl*>(blob);
}

const TeplugObjectVtbl* DecodeTable(uint8_t type, FuzzInput& in, BlobArena& arena, uint8_t null_mask) {
  switch (type) {
    case 0: {
      TeplugGemmV1Vtbl t{};
      t.base = Base(null_mask);
      t.supports = Keep(null_mask, 3, &Supports);
      t.workspace_size = Keep(null_mask, 4, &Method<TeplugGemmV1*, const TeplugGemmArgs*, size_t*>);
      t.gemm = Keep(null_mask, 5, &Method<TeplugGemmV1*, const TeplugGemmArgs*>);
      return PlaceTable(t, in, arena);
    }
    case 1: {
      TeplugAttentionV1Vtbl t{};
      t.base = Base(null_mask);
      t.supports = Keep(null_mask, 3, &Supports);
      t.workspace_size = Keep(null_mask, 4, &Method<TeplugAttentionV1*, int32_t, const void*, size_t*>);
      t.forward = Keep(null_mask, 5, &Method<TeplugAttentionV1*, const TeplugAttentionFwdArgs*>);
      t.backward = Keep(null_mask, 6, &Method<TeplugAttentionV1*, const TeplugAttentionBwdArgs*>);
      return PlaceTable(t, in, arena);
    }
    case 2: {
      TeplugQuantizerV1Vtbl t{};
      t.base = Base(null_mask);
      t.supports = Keep(null_mask, 3, &Supports);
      t.quantize = Keep(null_mask, 4, &Method<TeplugQuantizerV1*, const TeplugQuantizeArgs*>);
      t.dequantize = Keep(null_mask, 5, &Method<TeplugQuantizerV1*, const TeplugDequantizeArgs*>);
      return PlaceTable(t, in, arena);
    }
    default: {
      TeplugCollectiveV1Vtbl t{};
      t.base = Base(null_mask);
      t.supports = Keep(null_mask, 3, &Supports);
      t.comm_create =
          Keep(null_mask, 4, &Method<TeplugCollectiveV1*, const TeplugCommCreateArgs*, TeplugCommunicator**>);
      t.comm_destroy = Keep(null_mask, 5, &Method<TeplugCollectiveV1*, TeplugCommunicator*>);
      t.run = Keep(null_mask, 6, &Method<TeplugCollectiveV1*, int32_t, const TeplugCollectiveArgs*>);
      // group_start and group_end share the last bit.
      t.group_start = Keep(null_mask, 6, &Method<TeplugCollectiveV1*, TeplugCommunicator*>);
      t.group_end = Keep(null_mask, 6, &Method<TeplugCollectiveV1*, TeplugCommunicator*>);
      return PlaceTable(t, in, arena);
    }
  }
}

TeplugIID IidOfTable(uint8_t type) {
  switch (type) {
    case 0: return sdk::kIidGemmV1;
    case 1: return sdk::kIidAttentionV1;
    case 2: return sdk::kIidQuantizerV1;
    default: return sdk::kIidCollectiveV1;
  }
}

}  // namespace

FakeObject* FakeObjects::Decode(FuzzInput& in, BlobArena& arena) {
  if (in.Take<uint8_t>() == 0) return nullptr;
  const uint8_t type = in.Take<uint8_t>() % 4;
  const uint8_t null_mask = in.Take<uint8_t>();
  auto object = std::make_unique<FakeObject>();
  object->base.vtbl = DecodeTable(type, in, arena, null_mask);
  if (null_mask & 0x80) object->base.vtbl = nullptr;
  object->table_iid = IidOfTable(type);
  object->answer = static_cast<QueryAnswer>(in.Take<uint8_t>() % 4);
  object->other = objects_.empty() ? nullptr : objects_.back().get();
  objects_.push_back(std::move(object));
  return objects_.back().get();
}

}  // namespace teplug::fuzz
