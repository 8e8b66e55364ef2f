#include "core/log/printable_text_oracle.h"

#include <cstddef>
#include <cstdint>

namespace teplug::core::testing {
namespace {

// Decodes every code point of `text` and passes it to `accept`; false when
// the text is not well-formed UTF-8 or `accept` says no.
template <class Accept>
bool DecodeAll(absl::string_view text, Accept accept) {
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = text[i];
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > text.size()) return false;
    uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
    for (size_t k = 1; k < n; ++k) {
      const unsigned char d = text[i + k];
      if ((d >> 6) != 2) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    const uint32_t min = n == 1 ? 0 : n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    if (!accept(cp)) return false;
    i += n;
  }
  return true;
}

}  // namespace

bool IsValidUtf8(absl::string_view text) {
  return DecodeAll(text, [](uint32_t) { return true; });
}

bool IsPrintableUtf8(absl::string_view text) {
  return DecodeAll(text, [](uint32_t cp) { return cp >= 0x20 && !(cp >= 0x7F && cp <= 0x9F); });
}

}  // namespace teplug::core::testing
