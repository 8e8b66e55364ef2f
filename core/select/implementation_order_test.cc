// The order SelectRequest::candidates must have (provider, then name), built
// whole by SortImplementations or by MergeImplementations when a provider's
// implementations join an already sorted list.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/select/selector.h"
#include "gtest/gtest.h"

namespace teplug::core {
namespace {

std::shared_ptr<const Implementation> Impl(const std::shared_ptr<const Provider>& provider,
                                           std::string name) {
  auto impl = std::make_shared<Implementation>();
  impl->provider = provider;
  impl->name = std::move(name);
  return impl;
}

std::shared_ptr<const Provider> NamedProvider(std::string name) {
  auto p = std::make_shared<Provider>();
  p->name = std::move(name);
  return p;
}

std::vector<std::string> Names(const ImplementationList& list) {
  std::vector<std::string> out;
  for (const auto& impl : list) out.push_back(impl->provider->name + "/" + impl->name);
  return out;
}

TEST(ImplementationOrderTest, SortOrdersByProviderThenName) {
  auto a = NamedProvider("a"), b = NamedProvider("b");
  ImplementationList list = {Impl(b, "x"), Impl(a, "z"), Impl(b, "a"), Impl(a, "m")};
  SortImplementations(&list);
  EXPECT_EQ(Names(list), (std::vector<std::string>{"a/m", "a/z", "b/a", "b/x"}));
}

TEST(ImplementationOrderTest, MergeSortsTheNewTailIntoTheSortedHead) {
  auto a = NamedProvider("a"), b = NamedProvider("b"), c = NamedProvider("c");
  ImplementationList list = {Impl(a, "x"), Impl(c, "y")};
  // A provider sorting between the two, its implementations out of order.
  list.push_back(Impl(b, "z"));
  list.push_back(Impl(b, "a"));
  MergeImplementations(&list, 2);
  EXPECT_EQ(Names(list), (std::vector<std::string>{"a/x", "b/a", "b/z", "c/y"}));
}

TEST(ImplementationOrderTest, MergeHandlesAnEmptyHeadOrTail) {
  auto a = NamedProvider("a");
  ImplementationList only_new = {Impl(a, "y"), Impl(a, "b")};
  MergeImplementations(&only_new, 0);
  EXPECT_EQ(Names(only_new), (std::vector<std::string>{"a/b", "a/y"}));
  ImplementationList nothing_new = {Impl(a, "b"), Impl(a, "y")};
  MergeImplementations(&nothing_new, 2);
  EXPECT_EQ(Names(nothing_new), (std::vector<std::string>{"a/b", "a/y"}));
}

}  // namespace
}  // namespace teplug::core
