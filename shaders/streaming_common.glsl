// Shared by the streaming kernels (stream_*.comp): the per-row state of the online softmax, kept
// across key tiles of one chunk of query rows, and the heatmap's pixel arithmetic. The sums are
// those of OnlineRow (engine/cpu/online_row.hpp, with their derivation): in the frame of the row's
// running maximum score M, p = exp((s − M)·c) ≤ 1.

#include "streaming_layout.glsl"

// First cell of pixel p when `cells` cells are shared among `pixels` pixels (engine pixel_first).
uint pixel_first(uint p, uint cells, uint pixels) { return (p * cells + pixels - 1u) / pixels; }
// The pixel that cell c falls in (engine pixel_of).
uint pixel_of(uint c, uint cells, uint pixels) { return c * pixels / cells; }
