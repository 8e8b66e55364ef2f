#include "core/config/text_field_locations.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace teplug::config {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using google::protobuf::TextFormat;

std::string ChildPath(const std::string& parent, const FieldDescriptor* field) {
  return parent.empty() ? field->name() : absl::StrCat(parent, ".", field->name());
}

// Records the position of one field occurrence (index -1 for a singular
// field) and descends into it when it is a message.
void IndexOccurrence(const Message& message, const FieldDescriptor* field,
                     int index, const std::string& path,
                     const TextFormat::ParseInfoTree& tree,
                     FieldLocations* out);

void IndexMessage(const Message& message, const std::string& path,
                  const TextFormat::ParseInfoTree& tree, FieldLocations* out) {
  const Descriptor* descriptor = message.GetDescriptor();
  const Reflection* reflection = message.GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    const std::string field_path = ChildPath(path, field);
    if (field->is_repeated()) {
      const int count = reflection->FieldSize(message, field);
      for (int index = 0; index < count; ++index) {
        IndexOccurrence(message, field, index,
                        absl::StrCat(field_path, "[", index, "]"), tree, out);
      }
      // The list as a whole sits where its first element was written.
      if (count > 0) {
        if (auto first = out->Find(absl::StrCat(field_path, "[0]"))) {
          out->Record(field_path, *first);
        }
      }
    } else {
      IndexOccurrence(message, field, -1, field_path, tree, out);
    }
  }
}

void IndexOccurrence(const Message& message, const FieldDescriptor* field,
                     int index, const std::string& path,
                     const TextFormat::ParseInfoTree& tree,
                     FieldLocations* out) {
  const TextFormat::ParseLocation location = tree.GetLocation(field, index);
  if (location.line < 0) return;  // Not written in the text.
  out->Record(path, SourcePosition{location.line + 1, location.column + 1});
  if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) return;
  const TextFormat::ParseInfoTree* nested = tree.GetTreeForNested(field, index);
  if (nested == nullptr) return;
  const Reflection* reflection = message.GetReflection();
  const Message& child = index < 0
                             ? reflection->GetMessage(message, field)
                             : reflection->GetRepeatedMessage(message, field, index);
  IndexMessage(child, path, *nested, out);
}

}  // namespace

FieldLocations IndexTextFieldLocations(const Message& message,
                                       const TextFormat::ParseInfoTree& tree) {
  FieldLocations locations;
  locations.Record("", SourcePosition{1, 1});
  IndexMessage(message, "", tree, &locations);
  return locations;
}

}  // namespace teplug::config
