// A representative op built from a few named parameters, for explaining a
// decision without real data (`teplug explain`, Kernel users asking "who
// would serve this?"). Selection reads only metadata (capability.h's
// `supports` contract says hooks must not read data), so an example op's
// tensors have shapes, dtypes, quantization metadata and a device, and NULL
// data pointers.
//
// Each interface module (core/ops/<interface>_example.cc) declares the
// parameters its ops take and builds the args from their values; the
// parameters that set a config fact are named after the fact and take their
// values from the config's vocabulary, so `teplug explain --mask-type` and a
// rule's `mask_types` accept the same names. core/kernel/examples.h lists
// them and builds ops by interface and op name.
#ifndef TEPLUG_CORE_KERNEL_EXAMPLE_OP_H_
#define TEPLUG_CORE_KERNEL_EXAMPLE_OP_H_

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "teplug/sdk/struct_io.hpp"
#include "teplug/teplug.h"

namespace teplug::core {

// One parameter of an example op.
struct ExampleParam {
  enum class Kind : uint8_t {
    kName,     // one of `values`
    kInteger,  // an integer in [min, max]
    kReal,     // a finite number in [real_min, real_max]
    kSwitch,   // true or false (given without a value on a command line)
  };
  std::string name;  // "head_dim"; the CLI spells it --head-dim
  Kind kind = Kind::kInteger;
  std::string doc;                    // one line, for help text
  std::vector<std::string> values;    // kName: the accepted values
  int64_t min = 0, max = 0;           // kInteger
  double real_min = 0, real_max = 0;  // kReal
  // The value used when the parameter is not given, as text ("bf16", "128",
  // "false"). Empty when the default is `follows`'s value, or computed from
  // other parameters (then `default_note` says how), or "absent".
  std::string default_value;
  std::string follows;       // not given: this other parameter's value ("heads_kv" follows "heads")
  std::string default_note;  // how a computed default is chosen ("bf16 for fp8/fp4 A, else dtype")
  // The config facts the value sets (a rule on the fact matches this value),
  // e.g. {"dtype", "a_dtype"}; empty for parameters that are not facts.
  std::vector<std::string> facts;
};

// Parameter values as text, by parameter name.
using ExampleValueMap = std::map<std::string, std::string>;

// The values one example op is built from: the given ones, checked against
// the op's parameters, and the defaults for the rest.
class ExampleValues {
 public:
  // Checks every given value: a parameter of the op, of its kind, in its set
  // or range. INVALID_ARGUMENT names the parameter, the value and what
  // `what` ("attention forward") accepts.
  static absl::StatusOr<ExampleValues> Check(const std::vector<ExampleParam>& params,
                                             const ExampleValueMap& given, const std::string& what);

  // Whether the value was given (a default or a followed value is not).
  bool IsSet(absl::string_view name) const;
  // The value: given, else the followed parameter's, else the default ("" if none).
  std::string Name(absl::string_view name) const;
  int64_t Integer(absl::string_view name) const;
  double Real(absl::string_view name) const;
  bool Switch(absl::string_view name) const;

 private:
  std::vector<ExampleParam> params_;
  ExampleValueMap given_;
};

// An op's args and the storage they point into. Not copyable or movable:
// the args hold pointers to the members.
struct ExampleOp {
  ExampleOp() = default;
  ExampleOp(const ExampleOp&) = delete;
  ExampleOp& operator=(const ExampleOp&) = delete;

  TeplugIID iid{};
  int32_t op = 0;              // the op's number in its interface
  const void* args = nullptr;  // the interface's args struct for `op`

  TeplugDevice device{};  // every tensor's device

  // A versioned struct (struct_size set, the rest zero) owned by this op.
  template <class T>
  T* NewStruct() {
    auto owned = std::make_shared<T>(sdk::Versioned<T>());
    structs_.push_back(owned);
    return owned.get();
  }
  // A tensor on `device` with NULL data.
  TeplugTensor* NewTensor(int32_t dtype, const std::vector<int64_t>& shape);
  // Quantization metadata of a [rows, cols] tensor in scaling `mode`, with
  // scale tensors of the shapes types.h gives for that mode.
  const TeplugQuantization* NewQuantization(int32_t mode, int64_t rows, int64_t cols);

 private:
  std::deque<TeplugTensor> tensors_;              // stable addresses
  std::deque<TeplugQuantization> quantizations_;  // stable addresses
  std::vector<std::shared_ptr<void>> structs_;
};

}  // namespace teplug::core

#endif  // TEPLUG_CORE_KERNEL_EXAMPLE_OP_H_
