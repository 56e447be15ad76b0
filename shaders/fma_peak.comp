#version 430
// The device's FP32 multiply-add peak (engine/gpu/gpu_fma_peak.cpp): every invocation runs twelve
// independent chains (three vec4) of fma(a, m, c), sixteen steps per trip of the loop so that the
// loop's own instructions cost a few percent at most. Twelve chains hide an FMA's latency and still
// fit a SIMD group's vector registers on llvmpipe (16 with AVX2); a GPU hides more with many
// resident groups. m and c are uniforms, so no compiler can fold the chains; with m = c = 0.5 every
// chain tends to 1. The sum is stored only if it is negative, which it never is: no compiler can
// drop the loop, and no memory traffic competes with it.
layout(local_size_x = 256) in;

layout(std430, binding = 0) writeonly buffer Sink { float sink; };

uniform int trips;
uniform float m;
uniform float c;

void main() {
  vec4 a = vec4(float(gl_LocalInvocationIndex)) * (1.0 / 256.0);
  vec4 b = a + vec4(0.25);
  vec4 e = a + vec4(0.5);
  const vec4 mv = vec4(m), cv = vec4(c);
  for (int t = 0; t < trips; ++t) {
    a = fma(a, mv, cv); b = fma(b, mv, cv); e = fma(e, mv, cv);
    a = fma(a, mv, cv); b = fma(b, mv, cv); e = fma(e, mv, cv);
    a = fma(a, mv, cv); b = fma(b, mv, cv); e = fma(e, mv, cv);
    a = fma(a, mv, cv); b = fma(b, mv, cv); e = fma(e, mv, cv);
    a = fma(a, mv, cv); b = fma(b, mv, cv); e = fma(e, mv, cv);
    a = fma(a, mv, cv); b = fma(b, mv, cv); e = fma(e, mv, cv);
    a = fma(a, mv, cv); b = fma(b, mv, cv); e = fma(e, mv, cv);
    a = fma(a, mv, cv); b = fma(b, mv, cv); e = fma(e, mv, cv);
    a = fma(a, mv, cv); b = fma(b, mv, cv); e = fma(e, mv, cv);
    a = fma(a, mv, cv); b = fma(b, mv, cv); e = fma(e, mv, cv);
    a = fma(a, mv, cv); b = fma(b, mv, cv); e = fma(e, mv, cv);
    a = fma(a, mv, cv); b = fma(b, mv, cv); e = fma(e, mv, cv);
    a = fma(a, mv, cv); b = fma(b, mv, cv); e = fma(e, mv, cv);
    a = fma(a, mv, cv); b = fma(b, mv, cv); e = fma(e, mv, cv);
    a = fma(a, mv, cv); b = fma(b, mv, cv); e = fma(e, mv, cv);
    a = fma(a, mv, cv); b = fma(b, mv, cv); e = fma(e, mv, cv);
  }
  const float sum = dot(a + b + e, vec4(1.0));
  if (sum < 0.0) sink = sum;
}
