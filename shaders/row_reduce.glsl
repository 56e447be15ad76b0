// Workgroup-wide reductions for kernels that give one workgroup to one row. Each call must be
// reached by every invocation of the workgroup (uniform control flow), as barrier() requires.
// Needs ROW_LOCAL_SIZE (a power of two) defined before inclusion.

shared vec4 row_reduce_scratch[ROW_LOCAL_SIZE];

vec4 row_sum(vec4 x) {
  const uint lid = gl_LocalInvocationID.x;
  row_reduce_scratch[lid] = x;
  barrier();
  for (uint stride = ROW_LOCAL_SIZE / 2u; stride > 0u; stride >>= 1u) {
    if (lid < stride) row_reduce_scratch[lid] += row_reduce_scratch[lid + stride];
    barrier();
  }
  const vec4 total = row_reduce_scratch[0];
  barrier();
  return total;
}

vec4 row_max(vec4 x) {
  const uint lid = gl_LocalInvocationID.x;
  row_reduce_scratch[lid] = x;
  barrier();
  for (uint stride = ROW_LOCAL_SIZE / 2u; stride > 0u; stride >>= 1u) {
    if (lid < stride) row_reduce_scratch[lid] = max(row_reduce_scratch[lid], row_reduce_scratch[lid + stride]);
    barrier();
  }
  const vec4 best = row_reduce_scratch[0];
  barrier();
  return best;
}
