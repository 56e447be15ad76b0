// llama.cpp as the GGUF tests' reference (docs/MODELS.md, "GGUF files"), through the pinned
// node-llama-cpp 3.22.1 and its CPU prebuilt (package.json; scripts/npm-deps). Loaded with
// build: "never" and gpu: false, so nothing is downloaded or compiled and the CPU backend runs.
//
// Usage: node llama_cpp_ref.mjs NODE_MODULES REQUEST.json  → prints the answers as one JSON list.
// REQUEST: {"threads": 1, "jobs": [JOB, …]}; a JOB: {"model": PATH, and any of
//   "vocab_only": true            load the tokenizer only (no tensors needed),
//   "tokenize": [STRING, …]       → "tokenize": [{"plain", "default"}, …]: "plain" without special
//                                   tokens parsed and without BOS/EOS (llama_tokenize with
//                                   add_special = parse_special = false); "default" as llama.cpp's
//                                   own programs encode a prompt: special tokens parsed, BOS first
//                                   when the file asks for it (add_bos), EOS last when add_eos,
//   "evaluate": [[ID, …], …]      → "evaluate": [[LOGIT, …] (every token's raw next-token logit
//                                   after the prompt, by id), …]: a fresh sequence each,
//   "greedy": {"ids", "steps"}    → "greedy": {"tokens", "logits"}: the prompt, then `steps` times
//                                   the largest logit (the smallest id among equals) fed back through
//                                   the KV cache; "logits" holds the distribution before each step,
//   "generate": {"ids", "steps"}  → "generate": [ID, …]: the same from llama.cpp's own sampler at
//                                   temperature 0 (end-of-generation tokens included),
//   "kv_type": "F32"              the K and V cache type (default F32: the tests compare F32 files
//                                   tightly), "context": 128 the context size}.
// Each answer also has "vocab": {"n_tokens", "bos", "eos", "add_bos", "add_eos", "type"}, or
// "error": the message when llama.cpp refused the file. Flash attention is always off.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [modules, requestFile] = process.argv.slice(2);
const { getLlama, LlamaLogLevel } = await import(pathToFileURL(path.join(modules, "node-llama-cpp", "dist", "index.js")).href);
const request = JSON.parse(fs.readFileSync(requestFile, "utf-8"));
const threads = request.threads ?? 1;
const llama = await getLlama({
  build: "never", gpu: false, maxThreads: threads, logLevel: LlamaLogLevel.error,
  logger: (level, message) => process.stderr.write(`llama.cpp: ${message}`.trimEnd() + "\n"),
});

function byId(map, n) {
  const out = new Array(n).fill(null);
  for (const [token, value] of map) out[token] = value;
  return out;
}

function argmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

async function next(sequence, ids, n) {
  const input = ids.map((t, i) => (i === ids.length - 1 ? [t, { generateNext: { logits: true } }] : t));
  const results = await sequence.controlledEvaluate(input);
  return byId(results[ids.length - 1].next.logits, n);
}

async function run(job) {
  const answer = { model: job.model };
  let model;
  try {
    model = await llama.loadModel({ modelPath: job.model, gpuLayers: 0, vocabOnly: Boolean(job.vocab_only) });
  } catch (e) {
    answer.error = String(e?.message ?? e);
    return answer;
  }
  try {
    const t = model.tokens;
    const nTokens = model.fileInfo.metadata?.tokenizer?.ggml?.tokens?.length ?? null;
    answer.vocab = { n_tokens: nTokens, bos: t.bos, eos: t.eos, add_bos: t.shouldPrependBosToken, add_eos: t.shouldAppendEosToken,
                     type: model.vocabularyType };
    if (job.tokenize) {
      answer.tokenize = job.tokenize.map((text) => {
        const special = Array.from(model.tokenize(text, true));
        return {
          plain: Array.from(model.tokenize(text, false)),
          default: [...(t.shouldPrependBosToken && t.bos != null ? [t.bos] : []), ...special,
                    ...(t.shouldAppendEosToken && t.eos != null ? [t.eos] : [])],
        };
      });
    }
    if (job.evaluate || job.greedy || job.generate) {
      const kv = job.kv_type ?? "F32";
      const context = await model.createContext({
        contextSize: job.context ?? 128, sequences: 1, flashAttention: false, threads,
        experimentalKvCacheKeyType: kv, experimentalKvCacheValueType: kv,
      });
      const sequence = context.getSequence();
      const n = nTokens;
      if (job.evaluate) {
        answer.evaluate = [];
        for (const ids of job.evaluate) {
          await sequence.clearHistory();
          answer.evaluate.push(await next(sequence, ids, n));
        }
      }
      if (job.greedy) {
        await sequence.clearHistory();
        const tokens = [], logits = [];
        let step = await next(sequence, job.greedy.ids, n);
        for (let s = 0; s < job.greedy.steps; s++) {
          logits.push(step);
          tokens.push(argmax(step));
          if (s + 1 < job.greedy.steps) step = await next(sequence, [tokens[s]], n);
        }
        answer.greedy = { tokens, logits };
      }
      if (job.generate) {
        await sequence.clearHistory();
        const tokens = [];
        for await (const token of sequence.evaluate(job.generate.ids, { temperature: 0, yieldEogToken: true })) {
          tokens.push(token);
          if (tokens.length >= job.generate.steps) break;
        }
        answer.generate = tokens;
      }
      await context.dispose();
    }
  } catch (e) {
    answer.error = String(e?.stack ?? e);
  }
  await model.dispose();
  return answer;
}

const answers = [];
for (const job of request.jobs) answers.push(await run(job));
process.stdout.write(JSON.stringify(answers));
await llama.dispose();
