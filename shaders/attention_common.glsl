// Shared by the attention kernels: infinities and the mask rule of engine/mask.hpp.

const float POS_INF = uintBitsToFloat(0x7f800000u);
const float NEG_INF = uintBitsToFloat(0xff800000u);

// Mask kinds, in engine/mask.hpp's MaskKind order.
const uint MASK_NONE = 0u;
const uint MASK_CAUSAL = 1u;
const uint MASK_PADDING = 2u;
const uint MASK_PREFIX = 3u;
const uint MASK_WINDOW = 4u;
const uint MASK_CUSTOM = 5u;

// True when key j is hidden from query i (global indices). `param` is L, P or W. Custom grids
// are read through custom_blocked(), which each kernel that binds the grid defines.
bool interval_blocked(uint kind, uint param, uint i, uint j) {
  if (kind == MASK_CAUSAL) return j > i;
  if (kind == MASK_PADDING) return j >= param;
  if (kind == MASK_PREFIX) return j >= param && j > i;
  if (kind == MASK_WINDOW) return j > i || i - j >= param;
  return false;
}

// The keys [first, last) query i may see under an interval mask (engine Mask::visible_range): every
// key for none and custom masks. For each kind both ends are non-decreasing in i, so the keys a
// block of rows may see lie in [first of its first row, last of its last row).
uvec2 visible_keys(uint kind, uint param, uint i, uint m) {
  uint first = 0u, last = m;
  if (kind == MASK_CAUSAL) last = min(m, i + 1u);
  if (kind == MASK_PADDING) last = min(m, param);
  if (kind == MASK_PREFIX) last = min(m, max(param, i + 1u));
  if (kind == MASK_WINDOW) {
    last = min(m, i + 1u);
    first = i + 1u > param ? i + 1u - param : 0u;
  }
  return uvec2(min(first, last), last);
}
