// Shared by the streaming kernels (stream_*.comp): the per-row state of the online softmax, kept
// across key tiles of one chunk of query rows, and the heatmap's pixel arithmetic. The sums are
// those of OnlineRow (engine/cpu/online_row.hpp, with their derivation): in the frame of the row's
// running maximum score M, p = exp((s − M)·c) ≤ 1.

// Doubles per row in RowSums: the online-softmax sums, then the moments of every score and of the
// visible scores (count, mean, squared deviations; Chan's merge).
const uint SUM_Z = 0u, SUM_REST = 1u, SUM_TIES = 2u, SUM_T = 3u, SUM_U2 = 4u, SUM_U3 = 5u;
const uint ALL_COUNT = 6u, ALL_MEAN = 7u, ALL_M2 = 8u, VIS_COUNT = 9u, VIS_MEAN = 10u, VIS_M2 = 11u;
const uint SUMS_PER_ROW = 12u;
// Floats per row in RowFloats: running max M, this tile's rescale factor α, min and max of every
// score and of the visible scores.
const uint ROW_MAX = 0u, ROW_ALPHA = 1u, ALL_MIN = 2u, ALL_MAX = 3u, VIS_MIN = 4u, VIS_MAX = 5u;
const uint FLOATS_PER_ROW = 8u;
// Bits per row in RowFlags.
const uint FLAG_EXACT = 1u;  // a ±∞ score: the CPU's exact path must redo the row
const uint FLAG_NAN = 2u;    // a NaN score (an overflowed dot product)

// First cell of pixel p when `cells` cells are shared among `pixels` pixels (engine pixel_first).
uint pixel_first(uint p, uint cells, uint pixels) { return (p * cells + pixels - 1u) / pixels; }
// The pixel that cell c falls in (engine pixel_of).
uint pixel_of(uint c, uint cells, uint pixels) { return c * pixels / cells; }
