// An independent check of what EscapeUntrustedText promises, for tests: a
// plain code-point decoder written from RFC 3629 (not from the escaper's
// byte table), so a bug in one is not mirrored in the other.
#ifndef TEPLUG_CORE_LOG_PRINTABLE_TEXT_ORACLE_H_
#define TEPLUG_CORE_LOG_PRINTABLE_TEXT_ORACLE_H_

#include "absl/strings/string_view.h"

namespace teplug::core::testing {

// Whether `text` is well-formed UTF-8: shortest forms only, no surrogates,
// nothing above U+10FFFF, no truncated sequence.
bool IsValidUtf8(absl::string_view text);

// IsValidUtf8, and no control code point: none of U+0000-U+001F (newline,
// carriage return and ESC included), U+007F or U+0080-U+009F.
bool IsPrintableUtf8(absl::string_view text);

}  // namespace teplug::core::testing

#endif  // TEPLUG_CORE_LOG_PRINTABLE_TEXT_ORACLE_H_
