#include "core/ops/table_describe.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "teplug/sdk/names.hpp"

namespace teplug::core {
namespace {

constexpr size_t kTensorV1 = TEPLUG_STRUCT_SIZE(TeplugTensor, quant);
constexpr size_t kQuantModeV1 = TEPLUG_STRUCT_SIZE(TeplugQuantization, mode);

template <class T>
T Load(const void* base, size_t offset) {
  T v;
  std::memcpy(&v, static_cast<const char*>(base) + offset, sizeof v);
  return v;
}

// Where field `i` lives (the args, or the struct its `via` points through),
// and the name of that struct for messages; nullptr when the struct is absent.
const void* BaseOf(absl::Span<const Field> fields, size_t i, const void* args, const char* args_name,
                   const char** struct_name) {
  const Field& f = fields[i];
  *struct_name = args_name;
  if (f.via == kNone) return args;
  for (size_t j = 0; j < i; ++j) {
    if (fields[j].role == FieldRole::kStruct && fields[j].offset == f.via) {
      *struct_name = fields[j].struct_name;
      return Load<const void*>(args, f.via);
    }
  }
  return nullptr;
}

absl::Status CheckTensor(const TeplugTensor* t, const char* owner, const Field& f) {
  if (t == nullptr) {
    if (!(f.flags & kRequired)) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(owner, ".", f.name, " is NULL"));
  }
  if (t->struct_size < kTensorV1) {
    return absl::InvalidArgumentError(
        absl::StrCat(owner, ".", f.name, ".struct_size ", t->struct_size, " < ", kTensorV1));
  }
  if (t->rank < 0 || t->rank > TEPLUG_MAX_RANK) {
    return absl::InvalidArgumentError(absl::StrCat(owner, ".", f.name, ".rank ", t->rank, " not in [0, 8]"));
  }
  if (t->quant != nullptr && t->quant->struct_size < kQuantModeV1) {
    return absl::InvalidArgumentError(absl::StrCat(owner, ".", f.name, ".quant.struct_size ",
                                                   t->quant->struct_size, " < ", kQuantModeV1));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status DescribeFromTable(const InterfaceModule& module, const OpSpec& spec, size_t args_v1, const void* args,
                               const DeviceSpelling& spelling, OpDescription* d) {
  const char* args_name = spec.args_name;
  if (args == nullptr) return absl::InvalidArgumentError(absl::StrCat(args_name, " is NULL"));
  const size_t have = Load<size_t>(args, 0);
  if (have < args_v1) {
    return absl::InvalidArgumentError(absl::StrCat(args_name, ".struct_size ", have, " < ", args_v1, " (the v1 layout)"));
  }
  d->module = &module;
  d->spec = &spec;
  d->args = args;
  const TeplugTensor* device_tensor = nullptr;
  // The sub-struct the last struct field pointed at (tables list a struct's
  // fields right after it), so each field's base is found in O(1).
  size_t struct_offset = kNone;
  const void* struct_base = nullptr;
  const char* struct_name = "";
  for (size_t i = 0; i < spec.fields.size(); ++i) {
    const Field& f = spec.fields[i];
    const char* owner = args_name;
    const void* base = args;
    if (f.via != kNone) {
      base = f.via == struct_offset ? struct_base : BaseOf(spec.fields, i, args, args_name, &owner);
      if (f.via == struct_offset) owner = struct_name;
    }
    if (base == nullptr) continue;  // its struct is absent: reported at the struct
    switch (f.role) {
      case FieldRole::kStruct: {
        const void* p = Load<const void*>(base, f.offset);
        if (p == nullptr) return absl::InvalidArgumentError(absl::StrCat(owner, ".", f.name, " is NULL"));
        const size_t size = Load<size_t>(p, 0);
        if (size < f.struct_v1_size) {
          return absl::InvalidArgumentError(absl::StrCat(f.struct_name, ".struct_size ", size, " < ", f.struct_v1_size));
        }
        struct_offset = f.offset;
        struct_base = p;
        struct_name = f.struct_name;
        break;
      }
      case FieldRole::kTensor: {
        const auto* t = Load<const TeplugTensor*>(base, f.offset);
        absl::Status s = CheckTensor(t, owner, f);
        if (!s.ok()) return s;
        if (t != nullptr && (f.flags & kDeviceFrom) && device_tensor == nullptr && t->device != nullptr) {
          device_tensor = t;
        }
        if (t != nullptr && f.fact != nullptr) d->facts.AddName(f.fact, sdk::DTypeName(t->dtype));
        break;
      }
      case FieldRole::kInt32: {
        // A field added after v1.0 reads as 0 from a struct without it.
        const int32_t v =
            f.since_size != 0 && have < f.since_size ? 0 : Load<int32_t>(base, f.offset);
        if (f.enum_type != nullptr && (v < 0 || v >= f.enum_count)) {
          return absl::InvalidArgumentError(absl::StrCat(owner, ".", f.name, " ", v, " is not a ", f.enum_type));
        }
        if (f.fact != nullptr) {
          if (f.enum_name != nullptr) d->facts.AddName(f.fact, f.enum_name(v));
          else d->facts.AddInteger(f.fact, v);
        }
        break;
      }
      case FieldRole::kInt64:
        if (f.fact != nullptr) d->facts.AddInteger(f.fact, Load<int64_t>(base, f.offset));
        break;
      case FieldRole::kFloat:
      case FieldRole::kPresence:
      case FieldRole::kWorkspace:
      case FieldRole::kPerCall:
        break;
    }
  }
  d->device = DeviceOf(device_tensor);
  d->device_kind = spelling.KindSpelling(d->device.kind);
  d->vendor = spelling.VendorSpelling(d->device.vendor_id);
  return absl::OkStatus();
}

const TeplugTensor* TensorAt(absl::Span<const Field> fields, const void* args, absl::string_view name) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].role != FieldRole::kTensor || name != fields[i].name) continue;
    const char* owner = nullptr;
    const void* base = BaseOf(fields, i, args, "", &owner);
    return base == nullptr ? nullptr : Load<const TeplugTensor*>(base, fields[i].offset);
  }
  return nullptr;
}

std::string ShapeText(const TeplugTensor* t) {
  if (t == nullptr) return "-";
  std::string s = absl::StrCat(sdk::DTypeName(t->dtype), "[");
  for (int i = 0; i < t->rank; ++i) absl::StrAppend(&s, i ? "," : "", t->shape[i]);
  return s + "]";
}

void FinishDescription(const std::string& text, const DeviceSpelling& spelling, OpDescription* d) {
  d->summary = absl::StrCat(d->module->name(), " ", d->spec->name, text.empty() ? "" : " ", text, " on ",
                            spelling.Label(d->device));
}

config::OpFacts OpDescription::Facts() const {
  config::OpFacts f = facts;
  f.interface_name = module->name();
  f.op = spec->name;
  f.device_kind = device_kind;
  f.vendor = vendor;
  return f;
}

}  // namespace teplug::core
