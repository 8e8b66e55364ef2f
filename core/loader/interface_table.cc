#include "core/loader/interface_table.h"

#include "absl/strings/str_cat.h"

namespace teplug::core {
namespace {

// The table must be at least as large as the interface's v1 table.
std::optional<std::string> CheckSize(const char* table, const TeplugObject* object, size_t v1_size) {
  const size_t size = object->vtbl->struct_size;
  if (size < v1_size) {
    return absl::StrCat(table, ".struct_size ", size, " < ", v1_size,
                        " required (the function table is too small for the interface)");
  }
  return std::nullopt;
}

std::optional<std::string> NullField(const char* table, const char* field, const void* fn) {
  if (fn == nullptr) return absl::StrCat(table, ".", field, " is NULL");
  return std::nullopt;
}

template <class Vtbl>
const Vtbl* Table(const TeplugObject* object) {
  return reinterpret_cast<const Vtbl*>(object->vtbl);
}

#define TEPLUG_CHECK_FN(table, vtbl, field)                                                  \
  if (auto e = NullField(table, #field, reinterpret_cast<const void*>((vtbl)->field))) { \
    return e;                                                                                \
  }

}  // namespace

std::optional<std::string> CheckInterfaceTable(InterfaceKind kind, const TeplugObject* object) {
  if (object == nullptr) return "object is NULL";
  if (object->vtbl == nullptr) return "object's vtbl is NULL";
  switch (kind) {
    case InterfaceKind::kGemm: {
      const char* t = "TeplugGemmV1Vtbl";
      if (auto e = CheckSize(t, object, TEPLUG_STRUCT_SIZE(TeplugGemmV1Vtbl, gemm))) return e;
      const auto* v = Table<TeplugGemmV1Vtbl>(object);
      TEPLUG_CHECK_FN(t, &v->base, query_interface);
      TEPLUG_CHECK_FN(t, &v->base, add_ref);
      TEPLUG_CHECK_FN(t, &v->base, release);
      TEPLUG_CHECK_FN(t, v, workspace_size);
      TEPLUG_CHECK_FN(t, v, gemm);
      return std::nullopt;
    }
    case InterfaceKind::kAttention: {
      const char* t = "TeplugAttentionV1Vtbl";
      if (auto e = CheckSize(t, object, TEPLUG_STRUCT_SIZE(TeplugAttentionV1Vtbl, backward))) return e;
      const auto* v = Table<TeplugAttentionV1Vtbl>(object);
      TEPLUG_CHECK_FN(t, &v->base, query_interface);
      TEPLUG_CHECK_FN(t, &v->base, add_ref);
      TEPLUG_CHECK_FN(t, &v->base, release);
      TEPLUG_CHECK_FN(t, v, workspace_size);
      TEPLUG_CHECK_FN(t, v, forward);
      TEPLUG_CHECK_FN(t, v, backward);
      return std::nullopt;
    }
    case InterfaceKind::kQuantizer: {
      const char* t = "TeplugQuantizerV1Vtbl";
      if (auto e = CheckSize(t, object, TEPLUG_STRUCT_SIZE(TeplugQuantizerV1Vtbl, dequantize))) return e;
      const auto* v = Table<TeplugQuantizerV1Vtbl>(object);
      TEPLUG_CHECK_FN(t, &v->base, query_interface);
      TEPLUG_CHECK_FN(t, &v->base, add_ref);
      TEPLUG_CHECK_FN(t, &v->base, release);
      TEPLUG_CHECK_FN(t, v, quantize);
      TEPLUG_CHECK_FN(t, v, dequantize);
      return std::nullopt;
    }
    case InterfaceKind::kCollective: {
      const char* t = "TeplugCollectiveV1Vtbl";
      if (auto e = CheckSize(t, object, TEPLUG_STRUCT_SIZE(TeplugCollectiveV1Vtbl, group_end))) return e;
      const auto* v = Table<TeplugCollectiveV1Vtbl>(object);
      TEPLUG_CHECK_FN(t, &v->base, query_interface);
      TEPLUG_CHECK_FN(t, &v->base, add_ref);
      TEPLUG_CHECK_FN(t, &v->base, release);
      TEPLUG_CHECK_FN(t, v, comm_create);
      TEPLUG_CHECK_FN(t, v, comm_destroy);
      TEPLUG_CHECK_FN(t, v, run);
      TEPLUG_CHECK_FN(t, v, group_start);
      TEPLUG_CHECK_FN(t, v, group_end);
      return std::nullopt;
    }
  }
  return "unknown interface kind";
}

TeplugSupportsFn SupportsHook(InterfaceKind kind, const TeplugObject* object) {
  switch (kind) {
    case InterfaceKind::kGemm: return Table<TeplugGemmV1Vtbl>(object)->supports;
    case InterfaceKind::kAttention: return Table<TeplugAttentionV1Vtbl>(object)->supports;
    case InterfaceKind::kQuantizer: return Table<TeplugQuantizerV1Vtbl>(object)->supports;
    case InterfaceKind::kCollective: return Table<TeplugCollectiveV1Vtbl>(object)->supports;
  }
  return nullptr;
}

}  // namespace teplug::core
