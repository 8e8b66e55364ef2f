#include "core/log/untrusted_text.h"

#include <algorithm>
#include <cstdint>

namespace teplug::core {
namespace {

// Length of the well-formed, printable UTF-8 sequence starting at text[i],
// or 0 when the byte there must be escaped (RFC 3629 table of well-formed
// byte sequences; C0/C1 controls and DEL count as not printable).
size_t PrintableSequenceLength(absl::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t b0 = byte(i);
  if (b0 < 0x20 || b0 == 0x7F) return 0;
  if (b0 < 0x80) return 1;
  const size_t left = text.size() - i;
  const auto in = [&](size_t k, uint8_t lo, uint8_t hi) {
    return k < left && byte(i + k) >= lo && byte(i + k) <= hi;
  };
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    if (!in(1, 0x80, 0xBF)) return 0;
    // U+0080..U+009F (C1 controls) are encoded C2 80..C2 9F.
    if (b0 == 0xC2 && byte(i + 1) <= 0x9F) return 0;
    return 2;
  }
  if (b0 == 0xE0) return in(1, 0xA0, 0xBF) && in(2, 0x80, 0xBF) ? 3 : 0;
  if ((b0 >= 0xE1 && b0 <= 0xEC) || b0 == 0xEE || b0 == 0xEF) {
    return in(1, 0x80, 0xBF) && in(2, 0x80, 0xBF) ? 3 : 0;
  }
  if (b0 == 0xED) return in(1, 0x80, 0x9F) && in(2, 0x80, 0xBF) ? 3 : 0;  // no surrogates
  if (b0 == 0xF0) return in(1, 0x90, 0xBF) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  if (b0 >= 0xF1 && b0 <= 0xF3) {
    return in(1, 0x80, 0xBF) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  }
  if (b0 == 0xF4) return in(1, 0x80, 0x8F) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
  return 0;
}

}  // namespace

bool IsSafeText(absl::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t n = PrintableSequenceLength(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string EscapeUntrustedText(absl::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t n = PrintableSequenceLength(text, i);
    if (n > 0) {
      out.append(text.data() + i, n);
      i += n;
      continue;
    }
    const auto b = static_cast<uint8_t>(text[i]);
    out += "\\x";
    out += kHex[b >> 4];
    out += kHex[b & 0xF];
    ++i;
  }
  return out;
}

std::string EscapeUntrustedLines(absl::string_view text, absl::string_view indent) {
  while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  std::string out;
  out.reserve(text.size());
  for (size_t start = 0;;) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const absl::string_view line = text.substr(start, end - start);
    if (start > 0 && !line.empty()) out.append(indent.data(), indent.size());
    if (IsSafeText(line)) {
      out.append(line.data(), line.size());
    } else {
      out += EscapeUntrustedText(line);
    }
    if (end == text.size()) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

}  // namespace teplug::core
