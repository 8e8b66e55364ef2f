// Builds the FieldLocations of a config parsed from text format, from the
// ParseInfoTree that google::protobuf::TextFormat::Parser fills in.
#ifndef TEPLUG_CORE_CONFIG_TEXT_FIELD_LOCATIONS_H_
#define TEPLUG_CORE_CONFIG_TEXT_FIELD_LOCATIONS_H_

#include "core/config/field_locations.h"
#include "google/protobuf/message.h"
#include "google/protobuf/text_format.h"

namespace teplug::config {

// Records, for every field written in the text of `message`, the 1-based
// position of its field name under its path ("rules[1].match.dtypes[0]").
// The root path "" is recorded as 1:1.
FieldLocations IndexTextFieldLocations(
    const google::protobuf::Message& message,
    const google::protobuf::TextFormat::ParseInfoTree& tree);

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_TEXT_FIELD_LOCATIONS_H_
