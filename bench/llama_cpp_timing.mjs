// llama.cpp's speed on a GGUF file for bench/gguf_vs_llama_cpp.py, through the pinned node-llama-cpp
// (the tests' reference; scripts/npm-deps): its default configuration (flash attention as it
// chooses, the default F16 cache and batch) on THREADS threads. One fresh process per call: the model
// is loaded, then the prompt is evaluated into a fresh sequence and timed, then STEPS tokens are fed
// back one at a time through the KV cache, each timed.
// Usage: node llama_cpp_timing.mjs NODE_MODULES MODEL THREADS STEPS ID,ID,…
//   → {"prompt_ms": …, "token_ms": [ … ], "tokens": N}
import path from "node:path";
import { pathToFileURL } from "node:url";

const [modules, model, threadsArg, stepsArg, idsArg] = process.argv.slice(2);
const { getLlama, LlamaLogLevel } = await import(pathToFileURL(path.join(modules, "node-llama-cpp", "dist", "index.js")).href);
const threads = Number(threadsArg), steps = Number(stepsArg);
const ids = idsArg.split(",").map(Number);
const llama = await getLlama({ build: "never", gpu: false, maxThreads: threads, logLevel: LlamaLogLevel.error });
const loaded = await llama.loadModel({ modelPath: model, gpuLayers: 0 });
const context = await loaded.createContext({ contextSize: ids.length + steps + 16, sequences: 1, threads });
const sequence = context.getSequence();

function argmax(map) {
  let best = -1, value = -Infinity;
  for (const [token, v] of map) if (v > value || (v === value && token < best)) { best = token; value = v; }
  return best;
}

async function next(tokens) {
  const input = tokens.map((t, i) => (i === tokens.length - 1 ? [t, { generateNext: { logits: true } }] : t));
  const results = await sequence.controlledEvaluate(input);
  return argmax(results[tokens.length - 1].next.logits);
}

let t = performance.now();
let token = await next(ids);
const prompt_ms = performance.now() - t;
const token_ms = [];
for (let s = 0; s < steps; s++) {
  t = performance.now();
  token = await next([token]);
  token_ms.push(performance.now() - t);
}
process.stdout.write(JSON.stringify({ prompt_ms, token_ms, tokens: ids.length }));
await context.dispose();
await loaded.dispose();
await llama.dispose();
