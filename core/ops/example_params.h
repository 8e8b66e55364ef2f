// Building blocks for the example parameters each interface module declares
// (core/kernel/example_op.h): parameters that set a config fact take their
// name, doc and accepted values from the module's vocabulary, the one the
// config validates rules against, so the two cannot disagree.
#ifndef TEPLUG_CORE_OPS_EXAMPLE_PARAMS_H_
#define TEPLUG_CORE_OPS_EXAMPLE_PARAMS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/config/op_facts.h"
#include "core/kernel/example_op.h"

namespace teplug::core {

// A parameter named after the fact `fact` of `vocabulary`, setting it: its
// doc is the fact's, and a name fact's values are its group names then its
// values, in the order `teplug validate` lists them. A fact the vocabulary
// lacks gives a name parameter without values, which accepts nothing (the
// module's example test fails on it).
ExampleParam FactParam(const config::InterfaceVocabulary& vocabulary, absl::string_view fact,
                       std::string default_value);
// The same for an integer fact, accepting [min, max].
ExampleParam FactParam(const config::InterfaceVocabulary& vocabulary, absl::string_view fact,
                       std::string default_value, int64_t min, int64_t max);

// Parameters that are not facts.
ExampleParam IntegerParam(std::string name, std::string doc, int64_t default_value, int64_t min,
                          int64_t max);
ExampleParam RealParam(std::string name, std::string doc, double default_value, double min,
                       double max);
ExampleParam NameParam(std::string name, std::string doc, std::string default_value,
                       std::vector<std::string> values);
ExampleParam SwitchParam(std::string name, std::string doc);

// `p` with its own doc.
ExampleParam Documented(ExampleParam p, std::string doc);
// `p` taking `other`'s value when not given.
ExampleParam Following(ExampleParam p, std::string other);
// `p` with a default computed by the module, described by `note`.
ExampleParam ComputedDefault(ExampleParam p, std::string note);
// `p` also setting the fact `fact`.
ExampleParam AlsoSets(ExampleParam p, std::string fact);

// Every scaling mode's name (TeplugScalingMode order).
std::vector<std::string> ScalingModeNames();

// The dtype and scaling mode a name parameter holds (checked values are
// known names; TEPLUG_DTYPE_INVALID / TEPLUG_SCALING_NONE otherwise).
int32_t DTypeValue(const ExampleValues& values, absl::string_view name);
int32_t ScalingModeValue(const ExampleValues& values, absl::string_view name);
// Whether `dtype` is an fp8 type (quantized with scales).
bool IsFp8(int32_t dtype);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_EXAMPLE_PARAMS_H_
