// "Did you mean" for an unknown field name in a config, from the schema.
#ifndef TEPLUG_CORE_CONFIG_FIELD_NAME_SUGGESTION_H_
#define TEPLUG_CORE_CONFIG_FIELD_NAME_SUGGESTION_H_

#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"

namespace teplug::config {

// "; did you mean \"dtypes\"?" when a field of `message` (by its proto name,
// or its JSON name when `json` is set) is a plausible typo of `name`; else "".
std::string SuggestFieldName(const google::protobuf::Descriptor& message, absl::string_view name,
                             bool json);

// The same for the text parser's message `Message type "teplug.config.Match"
// has no field named "dtype".`: the suggestion for that field of that type,
// or "" when the message is about something else.
std::string SuggestFieldNameForParserMessage(absl::string_view parser_message);

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_FIELD_NAME_SUGGESTION_H_
