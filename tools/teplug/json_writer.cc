#include "tools/teplug/json_writer.h"

#include <cstdio>

#include "core/log/untrusted_text.h"

namespace teplug::cli {
namespace {

// Appends the ASCII byte `c` with RFC 8259's escaping.
void AppendAscii(unsigned char c, std::string* q) {
  switch (c) {
    case '"':
      *q += "\\\"";
      break;
    case '\\':
      *q += "\\\\";
      break;
    case '\n':
      *q += "\\n";
      break;
    case '\t':
      *q += "\\t";
      break;
    case '\r':
      *q += "\\r";
      break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        *q += buf;
      } else {
        *q += static_cast<char>(c);
      }
  }
}

}  // namespace

std::string JsonWriter::Quote(const std::string& s) {
  std::string q = "\"";
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      AppendAscii(static_cast<unsigned char>(s[i]), &q);
      ++i;
      continue;
    }
    // A run of non-ASCII bytes. No well-formed UTF-8 sequence contains an
    // ASCII byte, so escaping the run alone gives what escaping the whole
    // text would; the escaper's output is printable UTF-8 whose only byte
    // needing JSON's escaping is the backslash of \xNN.
    size_t end = i;
    while (end < s.size() && static_cast<unsigned char>(s[end]) >= 0x80) ++end;
    for (char c : core::EscapeUntrustedText(absl::string_view(s).substr(i, end - i))) {
      if (c == '\\') {
        q += "\\\\";
      } else {
        q += c;
      }
    }
    i = end;
  }
  return q + "\"";
}

}  // namespace teplug::cli
