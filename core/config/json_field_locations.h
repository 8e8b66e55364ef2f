// Finds where each field of a JSON config was written.
//
// protobuf's JsonStringToMessage reports errors without positions, so this
// small JSON reader walks the document alongside the message descriptor and
//  * records the position of every key (and of every array element) under
//    the same field paths as the text format (text_field_locations.h);
//  * reports, with line:col, JSON syntax errors (stopping at the first one,
//    as JSON has no sensible recovery), unknown keys, and values of the wrong
//    JSON kind (e.g. a string where a list is expected), continuing past
//    those so that every such problem is reported.
// Keys may be the proto field name ("strict_interfaces") or its JSON name
// ("strictInterfaces"), as JsonStringToMessage accepts both.
#ifndef TEPLUG_CORE_CONFIG_JSON_FIELD_LOCATIONS_H_
#define TEPLUG_CORE_CONFIG_JSON_FIELD_LOCATIONS_H_

#include "absl/strings/string_view.h"

#include "core/config/field_locations.h"
#include "core/config/problem_list.h"
#include "google/protobuf/descriptor.h"

namespace teplug::config {

// Scans `json` as a message of type `root`. Fills `locations` (root path ""
// at the first non-blank character) and adds problems to `problems`.
// Returns false when the document is not syntactically valid JSON.
bool ScanJsonFieldLocations(absl::string_view json,
                            const google::protobuf::Descriptor* root,
                            FieldLocations* locations, ProblemList* problems);

}  // namespace teplug::config

#endif  // TEPLUG_CORE_CONFIG_JSON_FIELD_LOCATIONS_H_
