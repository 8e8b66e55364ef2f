// Proves proto_library + cc_proto_library against the system protobuf: generated code
// compiles, links, serializes and parses text format, including a well-known type.
#include <string>

#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "tools/bazel/tests/proto_labels_test.pb.h"

namespace {

TEST(ProtoLabelsTest, BinaryRoundTripKeepsFields) {
  teplug::bazel_test::Stamped original;
  original.set_name("gemm");
  original.mutable_at()->set_seconds(1718000000);
  original.mutable_at()->set_nanos(250);
  std::string bytes;
  ASSERT_TRUE(original.SerializeToString(&bytes));
  teplug::bazel_test::Stamped parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  EXPECT_EQ(parsed.name(), "gemm");
  EXPECT_EQ(parsed.at().seconds(), 1718000000);
  EXPECT_EQ(parsed.at().nanos(), 250);
}

TEST(ProtoLabelsTest, TextFormatParsesAndRejects) {
  teplug::bazel_test::Stamped parsed;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(name: "attn"
                                                                 at { seconds: 5 })pb",
                                                            &parsed));
  EXPECT_EQ(parsed.name(), "attn");
  EXPECT_EQ(parsed.at().seconds(), 5);
  EXPECT_FALSE(google::protobuf::TextFormat::ParseFromString("no_such_field: 1", &parsed));
}

}  // namespace
