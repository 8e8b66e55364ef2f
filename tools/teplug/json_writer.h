// A minimal JSON writer for `--json` output: objects, arrays, strings
// (escaped per RFC 8259, always valid UTF-8: see Quote), integers and
// booleans, with two-space indentation. Commas and nesting are tracked so
// callers cannot produce invalid JSON by forgetting one.
#ifndef TEPLUG_TOOLS_TEPLUG_JSON_WRITER_H_
#define TEPLUG_TOOLS_TEPLUG_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

namespace teplug::cli {

class JsonWriter {
 public:
  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  // The key of the next value inside an object.
  void Key(const std::string& k) {
    Separate();
    out_ += Quote(k) + ": ";
    after_key_ = true;
  }
  void String(const std::string& s) { Scalar(Quote(s)); }
  void Int(int64_t v) { Scalar(std::to_string(v)); }
  void Bool(bool b) { Scalar(b ? "true" : "false"); }
  void Null() { Scalar("null"); }
  // The document, ending with a newline.
  std::string str() const { return out_ + "\n"; }

  // `s` as a JSON string literal that is always valid UTF-8, whatever bytes
  // `s` holds: '"', '\\' and ASCII controls get JSON's escapes (\n, \u001b);
  // well-formed printable UTF-8 is copied; every byte that is not part of
  // well-formed UTF-8, and each byte of a C1 control (U+0080-U+009F), is
  // written as the text \xNN, as core::EscapeUntrustedText writes it (so a
  // JSON decoder yields the four characters backslash, x, hex, hex).
  static std::string Quote(const std::string& s);

 private:
  void Separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_.empty()) {
      if (!first_.back()) out_ += ",";
      first_.back() = false;
      out_ += "\n" + std::string(2 * first_.size(), ' ');
    }
  }
  void Scalar(const std::string& text) {
    Separate();
    out_ += text;
  }
  void Open(char c) {
    Separate();
    out_ += c;
    first_.push_back(true);
  }
  void Close(char c) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty) out_ += "\n" + std::string(2 * first_.size(), ' ');
    out_ += c;
  }

  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written yet
  bool after_key_ = false;
};

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_JSON_WRITER_H_
