#include "plugins/reference/provider/testing/qkv_buffers.h"

#include <string>

#include "teplug/sdk/names.hpp"

namespace teplug::reference::provider::testing {

LayoutSpec SpecOf(int32_t layout) {
  const std::string name = sdk::LayoutName(layout);
  LayoutSpec s;
  s.format = name[0] == 's' ? 's' : (name[0] == 'b' ? 'b' : 't');
  s.pack = name.find('3') != std::string::npos ? 3 : (name.find('2') != std::string::npos ? 2 : 0);
  s.heads_first = name.find("h3d") != std::string::npos || name.find("h2d") != std::string::npos;
  return s;
}

// Which tensor: 0 q, 1 k, 2 v.
bool Packed(const LayoutSpec& s, int which) { return s.pack == 3 || (s.pack == 2 && which > 0); }

int OwnerOf(const LayoutSpec& s, int which) {
  return s.pack == 3 ? 0 : (s.pack == 2 && which == 2 ? 1 : which);
}

std::vector<int64_t> BufferShape(const LayoutSpec& s, const Dims& d, int which, int64_t tokens) {
  const int64_t seq = which == 0 ? d.sq : d.skv;
  const int64_t h = which == 0 ? d.hq : d.hkv;
  const int64_t dim = which == 2 ? d.dv : d.dqk;
  std::vector<int64_t> shape = s.format == 's' ? std::vector<int64_t>{seq, d.b}
                               : s.format == 'b' ? std::vector<int64_t>{d.b, seq}
                                                 : std::vector<int64_t>{tokens};
  if (!Packed(s, which)) {
    shape.insert(shape.end(), {h, dim});
  } else if (s.heads_first) {
    shape.insert(shape.end(), {h, s.pack, dim});
  } else {
    shape.insert(shape.end(), {s.pack, h, dim});
  }
  return shape;
}

int64_t Offset(const LayoutSpec& s, const Dims& d, int which, const std::vector<int64_t>& cu,
               int64_t b, int64_t i, int64_t h, int64_t e) {
  const int64_t seq = which == 0 ? d.sq : d.skv;
  const int64_t heads = which == 0 ? d.hq : d.hkv;
  const int64_t dim = which == 2 ? d.dv : d.dqk;
  const int64_t lead = s.format == 's' ? i * d.b + b : s.format == 'b' ? b * seq + i : cu[b] + i;
  if (!Packed(s, which)) return (lead * heads + h) * dim + e;
  const int64_t member = s.pack == 3 ? which : which - 1;
  if (s.heads_first) return ((lead * heads + h) * s.pack + member) * dim + e;
  return ((lead * s.pack + member) * heads + h) * dim + e;
}

// Writes canonical [B][H][S][D] arrays into one layout buffer of `n` elements.
void Scatter(const LayoutSpec& s, const Dims& d, int which, const std::vector<int64_t>& cu,
             const std::vector<int64_t>& lens, const std::vector<double>& canon,
             std::vector<double>* buffer) {
  const int64_t seq = which == 0 ? d.sq : d.skv;
  const int64_t heads = which == 0 ? d.hq : d.hkv;
  const int64_t dim = which == 2 ? d.dv : d.dqk;
  for (int64_t b = 0; b < d.b; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < lens[b]; ++i)
        for (int64_t e = 0; e < dim; ++e)
          (*buffer)[Offset(s, d, which, cu, b, i, h, e)] = canon[((b * heads + h) * seq + i) * dim + e];
}

std::vector<double> Gather(const LayoutSpec& s, const Dims& d, int which,
                           const std::vector<int64_t>& cu, const std::vector<int64_t>& lens,
                           const std::vector<double>& buffer) {
  const int64_t seq = which == 0 ? d.sq : d.skv;
  const int64_t heads = which == 0 ? d.hq : d.hkv;
  const int64_t dim = which == 2 ? d.dv : d.dqk;
  std::vector<double> canon(static_cast<size_t>(d.b * heads * seq * dim), 0.0);
  for (int64_t b = 0; b < d.b; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < lens[b]; ++i)
        for (int64_t e = 0; e < dim; ++e)
          canon[((b * heads + h) * seq + i) * dim + e] = buffer[Offset(s, d, which, cu, b, i, h, e)];
  return canon;
}

}  // namespace teplug::reference::provider::testing
