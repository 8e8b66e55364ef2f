#include "core/kernel/example_op.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace teplug::core {
namespace {

const ExampleParam* Find(const std::vector<ExampleParam>& params, absl::string_view name) {
  for (const ExampleParam& p : params) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

// Why `value` does not fit `p`, or "" when it does.
std::string Misfit(const ExampleParam& p, const std::string& value) {
  switch (p.kind) {
    case ExampleParam::Kind::kName:
      if (std::find(p.values.begin(), p.values.end(), value) != p.values.end()) return "";
      return absl::StrCat("expected one of ", absl::StrJoin(p.values, ", "));
    case ExampleParam::Kind::kInteger: {
      int64_t v = 0;
      if (absl::SimpleAtoi(value, &v) && v >= p.min && v <= p.max) return "";
      return absl::StrCat("expected an integer from ", p.min, " to ", p.max);
    }
    case ExampleParam::Kind::kReal: {
      double v = 0;
      if (absl::SimpleAtod(value, &v) && std::isfinite(v) && v >= p.real_min && v <= p.real_max)
        return "";
      return absl::StrCat("expected a number from ", p.real_min, " to ", p.real_max);
    }
    case ExampleParam::Kind::kSwitch:
      if (value == "true" || value == "false") return "";
      return "expected true or false";
  }
  return "unknown parameter kind";
}

}  // namespace

absl::StatusOr<ExampleValues> ExampleValues::Check(const std::vector<ExampleParam>& params,
                                                   const ExampleValueMap& given,
                                                   const std::string& what) {
  for (const auto& [name, value] : given) {
    const ExampleParam* p = Find(params, name);
    if (p == nullptr) {
      std::vector<std::string> names;
      for (const ExampleParam& q : params) names.push_back(q.name);
      return absl::InvalidArgumentError(absl::StrCat(
          what, " has no parameter \"", name, "\"; its parameters: ", absl::StrJoin(names, ", ")));
    }
    if (std::string why = Misfit(*p, value); !why.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad value \"", value, "\" for ", name, " of ", what, ": ", why));
    }
  }
  ExampleValues v;
  v.params_ = params;
  v.given_ = given;
  return v;
}

bool ExampleValues::IsSet(absl::string_view name) const {
  return given_.count(std::string(name)) != 0;
}

std::string ExampleValues::Name(absl::string_view name) const {
  // Follows chains are one step in every module; the bound guards a cycle.
  for (int step = 0; step < 4; ++step) {
    if (auto it = given_.find(std::string(name)); it != given_.end()) return it->second;
    const ExampleParam* p = Find(params_, name);
    if (p == nullptr) return "";
    if (p->follows.empty()) return p->default_value;
    name = p->follows;
  }
  return "";
}

int64_t ExampleValues::Integer(absl::string_view name) const {
  int64_t v = 0;
  (void)absl::SimpleAtoi(Name(name),
                         &v);  // checked by Check (given) or declared by the module (defaults)
  return v;
}

double ExampleValues::Real(absl::string_view name) const {
  double v = 0;
  (void)absl::SimpleAtod(Name(name), &v);  // as Integer
  return v;
}

bool ExampleValues::Switch(absl::string_view name) const { return Name(name) == "true"; }

TeplugTensor* ExampleOp::NewTensor(int32_t dtype, const std::vector<int64_t>& shape) {
  TeplugTensor t = sdk::Versioned<TeplugTensor>();
  t.data = nullptr;
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) t.shape[i] = shape[i];
  t.device = &device;
  tensors_.push_back(t);
  return &tensors_.back();
}

namespace {
int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
}  // namespace

const TeplugQuantization* ExampleOp::NewQuantization(int32_t mode, int64_t rows, int64_t cols) {
  TeplugQuantization q = sdk::Versioned<TeplugQuantization>();
  q.mode = mode;
  switch (mode) {
    case TEPLUG_SCALING_PER_TENSOR:
      q.scale = NewTensor(TEPLUG_DTYPE_FP32, {1});
      q.scale_inv = NewTensor(TEPLUG_DTYPE_FP32, {1});
      q.amax = NewTensor(TEPLUG_DTYPE_FP32, {1});
      break;
    case TEPLUG_SCALING_MXFP8_1D32:
      q.scale_inv = NewTensor(TEPLUG_DTYPE_E8M0, {rows, CeilDiv(cols, 32)});
      break;
    case TEPLUG_SCALING_BLOCK_1D128:
      q.scale_inv = NewTensor(TEPLUG_DTYPE_FP32, {rows, CeilDiv(cols, 128)});
      break;
    case TEPLUG_SCALING_BLOCK_2D128:
      q.scale_inv = NewTensor(TEPLUG_DTYPE_FP32, {CeilDiv(rows, 128), CeilDiv(cols, 128)});
      break;
    default:
      break;
  }
  quantizations_.push_back(q);
  return &quantizations_.back();
}

}  // namespace teplug::core
