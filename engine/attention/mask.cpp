// Mask names, parsing, validation and dense grids.
#include "engine/attention/mask.hpp"

#include "engine/attention/enum_names.hpp"

#include <algorithm>
#include <charconv>

namespace attnlab {

namespace {
constexpr EnumNames<MaskKind, 6> kMaskKindNames({"none", "causal", "padding", "prefix", "window", "custom"});
}  // namespace

std::string_view mask_kind_name(MaskKind kind) { return kMaskKindNames[kind]; }

MaskKind parse_mask_kind(std::string_view name, std::string_view where) {
  return kMaskKindNames.parse(name, where, "mask kind");
}

Mask parse_mask_spec(std::string_view spec, std::string_view where) {
  const auto colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  Mask mask;
  mask.kind = parse_mask_kind(name, where);
  if (mask.kind == MaskKind::Custom) {
    throw InputError(std::string(where) +
                     ": a custom mask comes from a scenario file's \"blocked\" grid, not a flag");
  }
  const bool needs_param = mask.kind == MaskKind::Padding || mask.kind == MaskKind::Prefix ||
                           mask.kind == MaskKind::Window;
  if (!needs_param) {
    if (colon != std::string_view::npos) {
      throw InputError(std::string(where) + ": mask '" + std::string(name) +
                       "' takes no parameter, got '" + std::string(spec) + "'");
    }
    return mask;
  }
  if (colon == std::string_view::npos || colon + 1 == spec.size()) {
    throw InputError(std::string(where) + ": mask '" + std::string(name) + "' needs a size, as in " +
                     std::string(name) + ":3");
  }
  const std::string_view num = spec.substr(colon + 1);
  long long value = 0;
  const auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), value);
  if (ec != std::errc() || ptr != num.data() + num.size()) {
    throw InputError(std::string(where) + ": the size in '" + std::string(spec) +
                     "' is not a whole number");
  }
  if (value < 0) {
    throw InputError(std::string(where) + ": the size in '" + std::string(spec) +
                     "' is negative; it must be 0 or more");
  }
  if (value > 1'000'000'000) {
    throw InputError(std::string(where) + ": the size in '" + std::string(spec) + "' is absurdly large");
  }
  mask.param = static_cast<int>(value);
  return mask;
}

std::string mask_spec(const Mask& mask) {
  std::string s(mask_kind_name(mask.kind));
  if (mask.kind == MaskKind::Padding || mask.kind == MaskKind::Prefix || mask.kind == MaskKind::Window) {
    s += ":" + std::to_string(mask.param);
  }
  return s;
}

void validate_mask(const Mask& mask, Eigen::Index n, Eigen::Index m, std::string_view where) {
  const std::string w(where);
  auto check_param = [&](const char* what, Eigen::Index limit, const char* limit_name) {
    if (mask.param < 0) {
      throw InputError(w + ": the " + what + " " + std::to_string(mask.param) + " is negative");
    }
    if (mask.param > limit) {
      throw InputError(w + ": the " + what + " " + std::to_string(mask.param) + " is larger than the " +
                       limit_name + " (" + std::to_string(limit) + ")");
    }
  };
  switch (mask.kind) {
    case MaskKind::None:
    case MaskKind::Causal: return;
    case MaskKind::Padding: check_param("padding length", m, "number of keys"); return;
    case MaskKind::Prefix: check_param("prefix length", m, "number of keys"); return;
    case MaskKind::Window: check_param("window size", std::max(n, m), "sequence length"); return;
    case MaskKind::Custom:
      if (mask.blocked.rows() != n || mask.blocked.cols() != m) {
        throw InputError(w + ": the custom mask is " + std::to_string(mask.blocked.rows()) + "×" +
                         std::to_string(mask.blocked.cols()) + " but the scores are " + std::to_string(n) +
                         "×" + std::to_string(m));
      }
      for (Eigen::Index i = 0; i < n; ++i) {
        for (Eigen::Index j = 0; j < m; ++j) {
          if (mask.blocked(i, j) > 1) {
            throw InputError(w + ": custom mask cell [" + std::to_string(i) + "][" + std::to_string(j) +
                             "] is not 0 or 1");
          }
        }
      }
      return;
  }
}

void Mask::visible_range(Eigen::Index i, Eigen::Index m, Eigen::Index& first, Eigen::Index& last) const {
  first = 0;
  last = m;
  switch (kind) {
    case MaskKind::None:
    case MaskKind::Custom: break;
    case MaskKind::Causal: last = std::min(m, i + 1); break;
    case MaskKind::Padding: last = std::min<Eigen::Index>(m, param); break;
    case MaskKind::Prefix: last = std::min(m, std::max<Eigen::Index>(param, i + 1)); break;
    case MaskKind::Window:
      last = std::min(m, i + 1);
      first = std::max<Eigen::Index>(0, i - param + 1);
      break;
  }
  if (first > last) first = last;
}

long long Mask::visible_cells(Eigen::Index n, Eigen::Index m) const {
  if (kind == MaskKind::Custom) return static_cast<long long>(n * m) - static_cast<long long>(blocked.cast<int>().sum());
  long long cells = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    Eigen::Index first = 0, last = m;
    visible_range(i, m, first, last);
    cells += static_cast<long long>(last - first);
  }
  return cells;
}

BlockGrid mask_grid(const Mask& mask, Eigen::Index n, Eigen::Index m) {
  BlockGrid g(n, m);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < m; ++j) g(i, j) = mask.is_blocked(i, j) ? 1 : 0;
  }
  return g;
}

}  // namespace attnlab
