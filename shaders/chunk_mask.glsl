// The mask for a chunk of query rows (softmax.comp and the streaming kernels): true when key j
// (global index) is hidden from the chunk's row `row`. The including kernel declares the uniforms
// mask_kind, mask_param, row0 (the chunk's first row) and m, and the buffer custom_words (a custom
// grid's bytes for the chunk's rows × m keys, four to a word; bound only for custom masks).

bool blocked(uint row, uint j) {
  if (mask_kind == MASK_CUSTOM) {
    const uint index = row * m + j;
    return ((custom_words[index >> 2u] >> ((index & 3u) * 8u)) & 0xffu) != 0u;
  }
  return interval_blocked(mask_kind, mask_param, row0 + row, j);
}
