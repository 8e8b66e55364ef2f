// Tests of the JSON scanner that gives JSON configs file:line:col positions.
#include "core/config/json_field_locations.h"

#include <string>

#include "core/config/teplug_config.pb.h"
#include "gtest/gtest.h"

namespace teplug::config {
namespace {

struct ScanResult {
  bool syntax_ok;
  FieldLocations locations;
  std::string problems;  // ProblemList text, "" when none.
};

ScanResult Scan(absl::string_view json) {
  ScanResult result;
  ProblemList problems("f.json");
  result.syntax_ok = ScanJsonFieldLocations(json, Config::descriptor(),
                                            &result.locations, &problems);
  result.problems = std::string(problems.ToStatus().message());
  return result;
}

void ExpectAt(const FieldLocations& locations, const std::string& path,
              int line, int column) {
  auto found = locations.Find(path);
  ASSERT_TRUE(found.has_value()) << path;
  EXPECT_EQ(found->line, line) << path;
  EXPECT_EQ(found->column, column) << path;
}

TEST(JsonFieldLocationsTest, RecordsKeysAndElementsUnderProtoFieldPaths) {
  const ScanResult result = Scan(
      "{\n"
      "  \"logLevel\": \"info\",\n"
      "  \"rules\": [\n"
      "    {\"name\": \"a\",\n"
      "     \"match\": {\"maskTypes\": [\"causal\", \"none\"],\n"
      "               \"head_dim\": {\"min\": 1}}}\n"
      "  ]\n"
      "}\n");
  ASSERT_TRUE(result.syntax_ok);
  EXPECT_EQ(result.problems, "");
  ExpectAt(result.locations, "", 1, 1);
  ExpectAt(result.locations, "log_level", 2, 3);
  ExpectAt(result.locations, "rules", 3, 3);
  ExpectAt(result.locations, "rules[0]", 4, 5);
  ExpectAt(result.locations, "rules[0].name", 4, 6);
  ExpectAt(result.locations, "rules[0].match", 5, 6);
  ExpectAt(result.locations, "rules[0].match.mask_types", 5, 16);
  ExpectAt(result.locations, "rules[0].match.mask_types[0]", 5, 30);
  ExpectAt(result.locations, "rules[0].match.mask_types[1]", 5, 40);
  ExpectAt(result.locations, "rules[0].match.head_dim", 6, 16);
  ExpectAt(result.locations, "rules[0].match.head_dim.min", 6, 29);
}

TEST(JsonFieldLocationsTest, ReportsEveryUnknownKeyAndWrongKind) {
  const ScanResult result = Scan(
      "{\"bogus\": {\"deep\": [1, 2]},\n"
      " \"strict\": 1,\n"
      " \"rules\": [{\"name\": \"r\", \"match\": []}]}");
  EXPECT_TRUE(result.syntax_ok);
  EXPECT_EQ(result.problems,
            "f.json:1:2: unknown field \"bogus\" in the config (a Config)\n"
            "f.json:2:12: strict: expects true or false, got a number\n"
            "f.json:3:35: rules[0].match: expects an object, got a list");
}

struct SyntaxCase {
  const char* json;
  const char* expected;
};

TEST(JsonFieldLocationsTest, SyntaxErrorsStopWithTheirPosition) {
  const SyntaxCase cases[] = {
      {"", "f.json:1:1: JSON syntax error: the file is empty; expected a JSON object"},
      {"{\"strict\": tru}", "f.json:1:12: JSON syntax error: invalid literal; expected true"},
      {"{\n  \"log_level\": \"warn\n}",
       "f.json:2:21: JSON syntax error: unterminated string"},
      {"{\"rules\": [{\"name\": \"a\"},]}",
       "f.json:1:26: JSON syntax error: unexpected character ']'; expected a value"},
      {"{\"strict\": true} x",
       "f.json:1:18: JSON syntax error: unexpected text after the end of the JSON object"},
      {"{strict: true}", "f.json:1:2: JSON syntax error: expected a quoted key"},
      {"{\"strict\" true}", "f.json:1:11: JSON syntax error: expected ':' after a key"},
      {"{\"plugins\": [{\"path\": \"a\\q\"}]}",
       "f.json:1:25: JSON syntax error: invalid escape \\q"},
      {"{\"priorities\": [{\"priority\": -}]}",
       "f.json:1:31: JSON syntax error: malformed number; expected a digit"},
      {"[1, 2]",
       "f.json:1:1: the config must be a JSON object, got a list"},
  };
  for (const SyntaxCase& c : cases) {
    const ScanResult result = Scan(c.json);
    EXPECT_EQ(result.problems, c.expected) << c.json;
    if (absl::string_view(c.json) != "[1, 2]") {
      EXPECT_FALSE(result.syntax_ok) << c.json;
    }
  }
}

}  // namespace
}  // namespace teplug::config
