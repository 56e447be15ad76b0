// The online softmax's step over one row's tile of scores, shared by both streaming kernels:
// stream_update.comp (a row's state in buffers, between dispatches) and stream_block.comp (in
// registers, across the whole key loop). The sums are OnlineSums' (engine/attention/online_softmax.hpp,
// with their derivation); the moments are merged tile by tile as the CPU's ScoreMoments are.
//
// The including kernel declares the buffers `sums`, `floats` and `flags` (streaming_layout.glsl's
// per-row layout) and defines, before including this file:
//   float tile_score(uint row, uint j)            the row's score at key j of the tile
//   bool tile_blocked(uint row, uint j)           the mask hides key j of the tile from the row
//   void tile_store_p(uint row, uint j, float p)  p = exp((s − M')·c) at key j (0 where blocked)

// One row's state across key tiles.
struct RowState {
  double an, am, a2;  // every score: count, mean, squared deviations
  double vn, vm, v2;  // the visible scores: the same
  float amin, amax, vmin, vmax;
  double z, rest, ties, t, u2, u3;  // OnlineSums, in the frame of M
  float M;                          // the largest visible score so far (−∞ at first)
  uint flags;                       // FLAG_* (streaming_layout.glsl)
};

RowState row_state_start() {
  return RowState(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, POS_INF, NEG_INF, POS_INF, NEG_INF, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                  NEG_INF, 0u);
}

// Merges moments (count, mean, m2) b into a (Chan et al.).
void merge_moments(inout double an, inout double am, inout double a2, double bn, double bm, double b2) {
  if (bn == 0.0) return;
  if (an == 0.0) {
    an = bn;
    am = bm;
    a2 = b2;
    return;
  }
  const double n = an + bn, delta = bm - am;
  am = am * (an / n) + bm * (bn / n);
  a2 = a2 + b2 + delta * delta * an * (bn / n);
  an = n;
}

// The tile's keys [0, keys) into the row's state: the tile's moments (two passes: exact where
// Welford would divide per cell; every score's only when `all_scores`), its visible maximum, the
// new running maximum M', p into tile_store_p, and the sums brought to M' and added to. Returns α,
// the factor every earlier p (and the output accumulator) shrinks by: 1 when M stays.
float online_tile(inout RowState r, uint row, uint keys, float c, bool all_scores) {
  // Pass 1: sums, extremes and the visible maximum; NaNs.
  double an = 0.0, asum = 0.0, vn = 0.0, vsum = 0.0;
  float amin = POS_INF, amax = NEG_INF, vmin = POS_INF, vmax = NEG_INF;
  bool nan_seen = false;
  for (uint j = 0u; j < keys; ++j) {
    const float x = tile_score(row, j);
    if (isnan(x)) {
      nan_seen = true;
      continue;
    }
    amin = min(amin, x);
    amax = max(amax, x);
    if (all_scores) {
      an += 1.0;
      asum += double(x);
    }
    if (!tile_blocked(row, j)) {
      vn += 1.0;
      vsum += double(x);
      vmin = min(vmin, x);
      vmax = max(vmax, x);
    }
  }
  // Pass 1b: squared deviations around the tile's means.
  const double amean = an > 0.0 ? asum / an : 0.0, vmean = vn > 0.0 ? vsum / vn : 0.0;
  double a2 = 0.0, v2 = 0.0;
  const bool overflowed = isinf(amin) || isinf(amax);
  if (!overflowed) {
    for (uint j = 0u; j < keys; ++j) {
      const float x = tile_score(row, j);
      if (isnan(x)) continue;
      if (all_scores) {
        const double da = double(x) - amean;
        a2 += da * da;
      }
      if (!tile_blocked(row, j)) {
        const double dv = double(x) - vmean;
        v2 += dv * dv;
      }
    }
  }
  if (nan_seen) r.flags |= FLAG_NAN;
  // An overflowed (±∞) score: its moments and its row are the CPU exact path's to compute, and
  // the row contributes nothing here.
  if (overflowed) r.flags |= FLAG_EXACT;
  merge_moments(r.an, r.am, r.a2, an, amean, a2);
  merge_moments(r.vn, r.vm, r.v2, vn, vmean, v2);
  r.amin = min(r.amin, amin);
  r.amax = max(r.amax, amax);
  r.vmin = min(r.vmin, vmin);
  r.vmax = max(r.vmax, vmax);
  const float tile_max = (r.flags & FLAG_EXACT) != 0u ? NEG_INF : vmax;
  const float old_max = r.M;
  const float M = max(old_max, tile_max);

  // Pass 2: p in the frame of M', and this tile's sums.
  double z = 0.0, rest = 0.0, ties = 0.0, t = 0.0, u2 = 0.0, u3 = 0.0;
  for (uint j = 0u; j < keys; ++j) {
    float p = 0.0;
    if (M != NEG_INF) {
      const float x = tile_score(row, j);
      if (!tile_blocked(row, j) && x > NEG_INF) {
        p = exp((x - M) * c);
        const double dp = double(p);
        z += dp;
        if (x < M) {
          rest += dp;
          u2 += dp * dp;
          u3 += dp * dp * dp;
        } else {
          ties += 1.0;
        }
        t += dp * (double(x - M) * double(c));
      }
    }
    tile_store_p(row, j, p);
  }

  float alpha = 1.0;
  if (M != old_max && M != NEG_INF) {
    // Every earlier p shrinks by α = exp((M − M')·c); the old ties join the rest.
    if (r.z > 0.0) {
      const double shift = double(old_max - M) * double(c);
      alpha = exp(float(shift));
      const double a = double(alpha);
      r.t = a * (r.t + shift * r.z);
      r.z = a * r.z;
      r.rest = a * (r.rest + r.ties);
      r.u2 = a * a * (r.u2 + r.ties);
      r.u3 = a * a * a * (r.u3 + r.ties);
      r.ties = 0.0;
    } else {
      alpha = 0.0;
    }
    r.M = M;
  }
  r.z += z;
  r.rest += rest;
  r.ties += ties;
  r.t += t;
  r.u2 += u2;
  r.u3 += u3;
  return alpha;
}

// The row's state from and into the buffers the host reads (RowSums `sums`, RowFloats `floats`,
// RowFlags `flags`, which the including kernel declares); ROW_ALPHA is the caller's.
RowState load_row_state(uint row) {
  const uint sb = row * SUMS_PER_ROW, fb = row * FLOATS_PER_ROW;
  return RowState(sums[sb + ALL_COUNT], sums[sb + ALL_MEAN], sums[sb + ALL_M2], sums[sb + VIS_COUNT],
                  sums[sb + VIS_MEAN], sums[sb + VIS_M2], floats[fb + ALL_MIN], floats[fb + ALL_MAX],
                  floats[fb + VIS_MIN], floats[fb + VIS_MAX], sums[sb + SUM_Z], sums[sb + SUM_REST],
                  sums[sb + SUM_TIES], sums[sb + SUM_T], sums[sb + SUM_U2], sums[sb + SUM_U3], floats[fb + ROW_MAX],
                  flags[row]);
}

void store_row_state(RowState r, uint row) {
  const uint sb = row * SUMS_PER_ROW, fb = row * FLOATS_PER_ROW;
  sums[sb + SUM_Z] = r.z;
  sums[sb + SUM_REST] = r.rest;
  sums[sb + SUM_TIES] = r.ties;
  sums[sb + SUM_T] = r.t;
  sums[sb + SUM_U2] = r.u2;
  sums[sb + SUM_U3] = r.u3;
  sums[sb + ALL_COUNT] = r.an;
  sums[sb + ALL_MEAN] = r.am;
  sums[sb + ALL_M2] = r.a2;
  sums[sb + VIS_COUNT] = r.vn;
  sums[sb + VIS_MEAN] = r.vm;
  sums[sb + VIS_M2] = r.v2;
  floats[fb + ROW_MAX] = r.M;
  floats[fb + ALL_MIN] = r.amin;
  floats[fb + ALL_MAX] = r.amax;
  floats[fb + VIS_MIN] = r.vmin;
  floats[fb + VIS_MAX] = r.vmax;
  flags[row] = r.flags;
}
