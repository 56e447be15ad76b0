// Attention masks: which (query i, key j) cells are blocked before the normalizer.
#pragma once

#include "engine/attention/matrix.hpp"

#include <string>
#include <string_view>

namespace attnlab {

enum class MaskKind { None, Causal, Padding, Prefix, Window, Custom };

struct Mask {
  MaskKind kind = MaskKind::None;
  // Padding: number of valid positions L; Prefix: prefix length P; Window: width W.
  int param = 0;
  // Custom only: n × m, 1 = blocked.
  BlockGrid blocked;

  // True when key j is hidden from query i. For Custom, (i, j) must lie inside `blocked`.
  bool is_blocked(Eigen::Index i, Eigen::Index j) const {
    switch (kind) {
      case MaskKind::None: return false;
      case MaskKind::Causal: return j > i;
      case MaskKind::Padding: return j >= param;
      case MaskKind::Prefix: return j >= param && j > i;
      case MaskKind::Window: return j > i || i - j >= param;
      case MaskKind::Custom: return blocked(i, j) != 0;
    }
    return false;
  }
  // Padding only: query rows past the valid length are computed but marked as padding rows.
  bool is_padding_row(Eigen::Index i) const { return kind == MaskKind::Padding && i >= param; }
  // Half-open range [first, last) of keys visible to query i, when the mask is an interval
  // (every kind but Custom). Lets fast paths skip blocked tiles without testing every cell.
  void visible_range(Eigen::Index i, Eigen::Index m, Eigen::Index& first, Eigen::Index& last) const;
  // How many cells of an n × m problem the mask leaves visible (n·m for None).
  long long visible_cells(Eigen::Index n, Eigen::Index m) const;

  friend bool operator==(const Mask& a, const Mask& b) {
    return a.kind == b.kind && a.param == b.param && a.blocked == b.blocked;
  }
};

std::string_view mask_kind_name(MaskKind kind);
// "none", "causal", ... -> kind; throws InputError naming `where` for anything else.
MaskKind parse_mask_kind(std::string_view name, std::string_view where);

// Parses the CLI form: none | causal | padding:L | prefix:P | window:W. `where` names the flag.
Mask parse_mask_spec(std::string_view spec, std::string_view where = "--mask");
// The CLI form of a mask ("padding:3"); "custom" for custom grids.
std::string mask_spec(const Mask& mask);

// Checks the mask against an n × m problem: parameters within 0..size, custom grid shape and
// values. Throws InputError naming `where`.
void validate_mask(const Mask& mask, Eigen::Index n, Eigen::Index m, std::string_view where);

// The dense n × m blocked grid for any mask kind (for figures, the GUI and tests).
BlockGrid mask_grid(const Mask& mask, Eigen::Index n, Eigen::Index m);

}  // namespace attnlab
