#include "core/config/json_field_locations.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "core/config/field_name_suggestion.h"

namespace teplug::config {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

// Deeper nesting than any config needs; stops runaway recursion on hostile
// input.
constexpr int kMaxDepth = 64;

// The JSON kinds a value can have, for "expects X, got Y" messages.
enum class JsonKind { kObject, kArray, kString, kNumber, kBool, kNull };

const char* KindName(JsonKind kind) {
  switch (kind) {
    case JsonKind::kObject: return "an object";
    case JsonKind::kArray: return "a list";
    case JsonKind::kString: return "a string";
    case JsonKind::kNumber: return "a number";
    case JsonKind::kBool: return "true or false";
    case JsonKind::kNull: return "null";
  }
  return "a value";
}

// What a (non-repeated) value of `field` must look like in JSON.
bool KindFitsField(JsonKind kind, const FieldDescriptor* field) {
  if (kind == JsonKind::kNull) return true;  // null means "default".
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_MESSAGE: return kind == JsonKind::kObject;
    case FieldDescriptor::CPPTYPE_STRING: return kind == JsonKind::kString;
    case FieldDescriptor::CPPTYPE_BOOL: return kind == JsonKind::kBool;
    case FieldDescriptor::CPPTYPE_ENUM:
      return kind == JsonKind::kString || kind == JsonKind::kNumber;
    default:  // Numbers may be written as numbers or as quoted numbers.
      return kind == JsonKind::kNumber || kind == JsonKind::kString;
  }
}

const char* FieldKindName(const FieldDescriptor* field) {
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_MESSAGE: return "an object";
    case FieldDescriptor::CPPTYPE_STRING: return "a string";
    case FieldDescriptor::CPPTYPE_BOOL: return "true or false";
    default: return "a number";
  }
}

// The field whose JSON name ("strictInterfaces") is `key`, or nullptr.
const FieldDescriptor* FindFieldByJsonName(const Descriptor* message,
                                           const std::string& key) {
  for (int i = 0; i < message->field_count(); ++i) {
    if (message->field(i)->json_name() == key) return message->field(i);
  }
  return nullptr;
}

class Scanner {
 public:
  Scanner(absl::string_view text, FieldLocations* locations,
          ProblemList* problems)
      : text_(text), locations_(locations), problems_(problems) {}

  bool ScanDocument(const Descriptor* root) {
    SkipBlanks();
    locations_->Record("", Here());
    if (AtEnd()) return Fail("the file is empty; expected a JSON object");
    JsonKind kind;
    if (!PeekKind(&kind)) return false;
    if (kind != JsonKind::kObject) {
      problems_->Add(Here(), absl::StrCat("the config must be a JSON object, got ",
                                          KindName(kind)));
      return ScanValue(nullptr, "", 0, &kind);
    }
    if (!ScanValue(root, "", 0, &kind)) return false;
    SkipBlanks();
    if (!AtEnd()) return Fail("unexpected text after the end of the JSON object");
    return true;
  }

 private:
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return text_[pos_]; }
  SourcePosition Here() const { return SourcePosition{line_, column_}; }

  void Advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }

  void SkipBlanks() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t' || Peek() == '\n' ||
                        Peek() == '\r')) {
      Advance();
    }
  }

  bool Fail(std::string message) {
    problems_->Add(Here(), absl::StrCat("JSON syntax error: ", message));
    return false;
  }

  // Determines the kind of the value starting at the current position.
  bool PeekKind(JsonKind* kind) {
    if (AtEnd()) return Fail("expected a value, found the end of the file");
    const char c = Peek();
    if (c == '{') *kind = JsonKind::kObject;
    else if (c == '[') *kind = JsonKind::kArray;
    else if (c == '"') *kind = JsonKind::kString;
    else if (c == '-' || (c >= '0' && c <= '9')) *kind = JsonKind::kNumber;
    else if (c == 't' || c == 'f') *kind = JsonKind::kBool;
    else if (c == 'n') *kind = JsonKind::kNull;
    else return Fail(absl::StrCat("unexpected character '", std::string(1, c),
                                  "'; expected a value"));
    return true;
  }

  bool ExpectLiteral(absl::string_view literal) {
    if (text_.substr(pos_, literal.size()) != literal) {
      return Fail(absl::StrCat("invalid literal; expected ", literal));
    }
    for (size_t i = 0; i < literal.size(); ++i) Advance();
    return true;
  }

  // Reads a string token; `decoded` gets its value with simple escapes
  // resolved (\u escapes become '?', enough to report a key by name).
  bool ScanString(std::string* decoded) {
    Advance();  // Opening quote.
    while (true) {
      if (AtEnd() || Peek() == '\n') return Fail("unterminated string");
      const char c = Peek();
      if (c == '"') {
        Advance();
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        return Fail("control character inside a string");
      }
      if (c != '\\') {
        if (decoded) decoded->push_back(c);
        Advance();
        continue;
      }
      const SourcePosition backslash = Here();
      Advance();
      if (AtEnd()) return Fail("unterminated string");
      const char escaped = Peek();
      Advance();
      switch (escaped) {
        case '"': case '\\': case '/':
          if (decoded) decoded->push_back(escaped);
          break;
        case 'b': case 'f': case 'n': case 'r': case 't':
          if (decoded) decoded->push_back(' ');
          break;
        case 'u':
          for (int i = 0; i < 4; ++i) {
            if (AtEnd() || !isxdigit(static_cast<unsigned char>(Peek()))) {
              return Fail("\\u must be followed by 4 hex digits");
            }
            Advance();
          }
          if (decoded) decoded->push_back('?');
          break;
        default:
          problems_->Add(backslash,
                         absl::StrCat("JSON syntax error: invalid escape \\",
                                      std::string(1, escaped)));
          return false;
      }
    }
  }

  bool ScanDigits() {
    if (AtEnd() || !isdigit(static_cast<unsigned char>(Peek()))) {
      return Fail("malformed number; expected a digit");
    }
    while (!AtEnd() && isdigit(static_cast<unsigned char>(Peek()))) Advance();
    return true;
  }

  bool ScanNumber() {
    if (Peek() == '-') Advance();
    if (!ScanDigits()) return false;
    if (!AtEnd() && Peek() == '.') {
      Advance();
      if (!ScanDigits()) return false;
    }
    if (!AtEnd() && (Peek() == 'e' || Peek() == 'E')) {
      Advance();
      if (!AtEnd() && (Peek() == '+' || Peek() == '-')) Advance();
      if (!ScanDigits()) return false;
    }
    return true;
  }

  // Scans one value. `message` is the type expected when the value is an
  // object (nullptr when unknown: the value is only checked for syntax).
  bool ScanValue(const Descriptor* message, const std::string& path, int depth,
                 JsonKind* kind) {
    if (depth > kMaxDepth) return Fail("nesting is too deep");
    if (!PeekKind(kind)) return false;
    switch (*kind) {
      case JsonKind::kObject: return ScanObject(message, path, depth);
      case JsonKind::kArray: return ScanArray(nullptr, path, depth);
      case JsonKind::kString: return ScanString(nullptr);
      case JsonKind::kNumber: return ScanNumber();
      case JsonKind::kBool:
        return ExpectLiteral(Peek() == 't' ? "true" : "false");
      case JsonKind::kNull: return ExpectLiteral("null");
    }
    return false;
  }

  // Scans the value of `field` (at `path`), checking its JSON kind.
  bool ScanFieldValue(const FieldDescriptor* field, const std::string& path,
                      int depth) {
    const SourcePosition start = Here();
    JsonKind kind;
    if (!PeekKind(&kind)) return false;
    if (field->is_repeated()) {
      if (kind == JsonKind::kArray) return ScanArray(field, path, depth);
      if (kind != JsonKind::kNull) {
        problems_->Add(start, absl::StrCat(path, ": expects a list, got ",
                                           KindName(kind)));
      }
      return ScanValue(nullptr, path, depth, &kind);
    }
    if (!KindFitsField(kind, field)) {
      problems_->Add(start, absl::StrCat(path, ": expects ", FieldKindName(field),
                                         ", got ", KindName(kind)));
      return ScanValue(nullptr, path, depth, &kind);
    }
    return ScanValue(field->message_type(), path, depth, &kind);
  }

  bool ScanObject(const Descriptor* message, const std::string& path,
                  int depth) {
    Advance();  // '{'
    SkipBlanks();
    if (!AtEnd() && Peek() == '}') {
      Advance();
      return true;
    }
    while (true) {
      SkipBlanks();
      if (AtEnd() || Peek() != '"') {
        return Fail("expected a quoted key");
      }
      const SourcePosition key_position = Here();
      std::string key;
      if (!ScanString(&key)) return false;
      SkipBlanks();
      if (AtEnd() || Peek() != ':') return Fail("expected ':' after a key");
      Advance();
      SkipBlanks();
      const FieldDescriptor* field = nullptr;
      if (message != nullptr) {
        field = message->FindFieldByName(key);
        if (field == nullptr) field = FindFieldByJsonName(message, key);
        if (field == nullptr) {
          problems_->Add(key_position,
                         absl::StrCat("unknown field \"", key, "\" in ",
                                      path.empty() ? "the config" : path,
                                      " (a ", message->name(), ")",
                                      SuggestFieldName(*message, key, /*json=*/true)));
        }
      }
      if (field != nullptr) {
        const std::string field_path =
            path.empty() ? field->name() : absl::StrCat(path, ".", field->name());
        locations_->Record(field_path, key_position);
        if (!ScanFieldValue(field, field_path, depth + 1)) return false;
      } else {
        JsonKind ignored;
        if (!ScanValue(nullptr, path, depth + 1, &ignored)) return false;
      }
      SkipBlanks();
      if (AtEnd()) return Fail("unterminated object; expected ',' or '}'");
      if (Peek() == ',') {
        Advance();
        continue;
      }
      if (Peek() == '}') {
        Advance();
        return true;
      }
      return Fail("expected ',' or '}' after a field");
    }
  }

  // Scans a list. With `field` set, each element is checked against the
  // field's element kind and recorded as "path[i]".
  bool ScanArray(const FieldDescriptor* field, const std::string& path,
                 int depth) {
    Advance();  // '['
    SkipBlanks();
    if (!AtEnd() && Peek() == ']') {
      Advance();
      return true;
    }
    for (int index = 0;; ++index) {
      SkipBlanks();
      const SourcePosition element_position = Here();
      JsonKind kind;
      if (!PeekKind(&kind)) return false;
      if (field != nullptr) {
        const std::string element_path = absl::StrCat(path, "[", index, "]");
        locations_->Record(element_path, element_position);
        if (kind == JsonKind::kNull || !KindFitsField(kind, field)) {
          problems_->Add(element_position,
                         absl::StrCat(element_path, ": expects ",
                                      FieldKindName(field), ", got ",
                                      KindName(kind)));
          if (!ScanValue(nullptr, element_path, depth + 1, &kind)) return false;
        } else if (!ScanValue(field->message_type(), element_path, depth + 1,
                              &kind)) {
          return false;
        }
      } else if (!ScanValue(nullptr, path, depth + 1, &kind)) {
        return false;
      }
      SkipBlanks();
      if (AtEnd()) return Fail("unterminated list; expected ',' or ']'");
      if (Peek() == ',') {
        Advance();
        continue;
      }
      if (Peek() == ']') {
        Advance();
        return true;
      }
      return Fail("expected ',' or ']' after a list element");
    }
  }

  absl::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
  FieldLocations* locations_;
  ProblemList* problems_;
};

}  // namespace

bool ScanJsonFieldLocations(absl::string_view json, const Descriptor* root,
                            FieldLocations* locations, ProblemList* problems) {
  Scanner scanner(json, locations, problems);
  return scanner.ScanDocument(root);
}

}  // namespace teplug::config
