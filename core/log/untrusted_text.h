// Text that came from a plugin or from the file system (error messages,
// `supports` reasons, vendor and version strings, plugin log lines, paths)
// is untrusted: it may hold newlines that forge log lines, escape sequences
// that drive the terminal, or bytes that are not UTF-8 and break strict JSON
// parsers. Everything the host prints or logs passes such text through
// EscapeUntrustedText first, so one plugin can neither impersonate another
// nor break a report.
#ifndef TEPLUG_CORE_LOG_UNTRUSTED_TEXT_H_
#define TEPLUG_CORE_LOG_UNTRUSTED_TEXT_H_

#include <string>

#include "absl/strings/string_view.h"

namespace teplug::core {

// `text` as one line of valid UTF-8: every C0 control byte (0x00-0x1F,
// newline and tab included), DEL (0x7F), every C1 control (U+0080-U+009F)
// and every byte that is not part of a well-formed UTF-8 sequence (overlong
// forms, surrogates and code points above U+10FFFF included) is written as
// the four characters `\xNN` (one per byte). Everything else is copied
// unchanged, so ordinary text, including non-ASCII letters, reads as it was.
std::string EscapeUntrustedText(absl::string_view text);

// Whether EscapeUntrustedText(text) == text (nothing to escape). Cheap; lets
// a hot caller skip the copy.
bool IsSafeText(absl::string_view text);

// Text that is several lines on purpose (a decision record, a config error
// list) but may hold untrusted parts: each line escaped as above, joined by
// '\n' + `indent`, trailing newlines dropped. With a non-empty `indent` no
// line after the first starts at column 0, so no embedded line can pass for
// a line of its own (e.g. forge "teplug WARN: ..."). Empty lines stay empty.
std::string EscapeUntrustedLines(absl::string_view text, absl::string_view indent);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_LOG_UNTRUSTED_TEXT_H_
