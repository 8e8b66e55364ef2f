// A minimal JSON writer for `--json` output: objects, arrays, strings
// (escaped per RFC 8259), integers and booleans, with two-space indentation.
// Commas and nesting are tracked so callers cannot produce invalid JSON by
// forgetting one.
#ifndef TEPLUG_TOOLS_TEPLUG_JSON_WRITER_H_
#define TEPLUG_TOOLS_TEPLUG_JSON_WRITER_H_

#include <cstdint>
#include <cstdio>
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

  static std::string Quote(const std::string& s) {
    std::string q = "\"";
    for (unsigned char c : s) {
      switch (c) {
        case '"':
          q += "\\\"";
          break;
        case '\\':
          q += "\\\\";
          break;
        case '\n':
          q += "\\n";
          break;
        case '\t':
          q += "\\t";
          break;
        case '\r':
          q += "\\r";
          break;
        default:
          if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            q += buf;
          } else {
            q += static_cast<char>(c);
          }
      }
    }
    return q + "\"";
  }

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
