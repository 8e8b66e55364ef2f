#include "core/config/field_name_suggestion.h"

#include <vector>

#include "core/config/closest_name.h"

namespace teplug::config {
namespace {

// The text between `prefix` + '"' and the next '"' in `text`, or "".
absl::string_view QuotedAfter(absl::string_view text, absl::string_view prefix) {
  const size_t at = text.find(prefix);
  if (at == absl::string_view::npos) return {};
  const size_t start = at + prefix.size();
  const size_t end = text.find('"', start);
  if (end == absl::string_view::npos) return {};
  return text.substr(start, end - start);
}

}  // namespace

std::string SuggestFieldName(const google::protobuf::Descriptor& message, absl::string_view name,
                             bool json) {
  std::vector<std::string> names;
  for (int i = 0; i < message.field_count(); ++i) {
    names.push_back(message.field(i)->name());
    if (json && message.field(i)->json_name() != message.field(i)->name()) {
      names.push_back(message.field(i)->json_name());
    }
  }
  const std::string closest = ClosestName(name, names);
  return closest.empty() ? std::string() : "; did you mean \"" + closest + "\"?";
}

std::string SuggestFieldNameForParserMessage(absl::string_view parser_message) {
  const absl::string_view type = QuotedAfter(parser_message, "Message type \"");
  const absl::string_view field = QuotedAfter(parser_message, "has no field named \"");
  if (type.empty() || field.empty()) return {};
  const google::protobuf::Descriptor* message =
      google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(std::string(type));
  if (message == nullptr) return {};
  return SuggestFieldName(*message, field, /*json=*/false);
}

}  // namespace teplug::config
