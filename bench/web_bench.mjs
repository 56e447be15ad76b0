// The browser build's size and speed (issue 19; results in docs/PERFORMANCE.md), in Debian's headless
// Chromium: the file's size (≤ 12 MB), the time from opening the page to its first frame (≤ 3 s),
// and the CPU engine's default-lesson recompute and a (512, 64) causal compute, timed in the page
// and natively by the same code (engine/lessons/compute_timing.hpp) in the same run (each ≤ 3× native).
//
// node bench/web_bench.mjs [--page build-web/attnlab.html] [--native build/compute_timing]
//                          [--chromium /usr/bin/chromium] [--runs 15] [--loads 5]
// Prints one JSON object, and one line per limit; exits 1 if a limit is missed.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const require = createRequire(import.meta.url);
const puppeteer = require(path.join(root, 'node_modules', 'puppeteer-core'));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const k = args.indexOf(name);
  return k >= 0 ? args[k + 1] : fallback;
};
const page = path.resolve(option('--page', path.join(root, 'build-web/attnlab.html')));
const native = path.resolve(option('--native', path.join(root, 'build/compute_timing')));
const chromium = option('--chromium', '/usr/bin/chromium');
const runs = Number(option('--runs', '15'));
const loads = Number(option('--loads', '5'));
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-web-bench-'));
const browser = await puppeteer.launch({
  executablePath: chromium, headless: true, userDataDir: path.join(work, 'profile'),
  defaultViewport: { width: 1280, height: 800 },
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist',
         '--allow-file-access-from-files'],
});

// First frame: from navigation start (performance.timeOrigin) to the app's "attnlab: ready", on a
// fresh tab each time (the file is parsed and compiled every time, as a student's first open).
const firstFrame = [];
for (let k = 0; k < loads; ++k) {
  const tab = await browser.newPage();
  await tab.goto(pathToFileURL(page).href + '#preset=three-tokens');
  await tab.waitForFunction(() => window.attnlabReady === true, { timeout: 60000 });
  firstFrame.push(await tab.evaluate(() => performance.now()));
  await tab.close();
}

const tab = await browser.newPage();
await tab.goto(pathToFileURL(page).href);
await tab.waitForFunction(() => window.attnlabReady === true, { timeout: 60000 });
// Native and browser alternate, so that a busy moment on a shared machine hits both alike.
const nativeRuns = [], webRuns = [];
for (let round = 0; round < 3; ++round) {
  nativeRuns.push(JSON.parse(execFileSync(native, [String(runs)], { encoding: 'utf8' })));
  webRuns.push(await tab.evaluate((r) => JSON.parse(Module.ccall('attnlab_web_compute_timing', 'string', ['number'], [r])), runs));
}
await browser.close();
fs.rmSync(work, { recursive: true, force: true });

const pick = (list, key) => median(list.map((x) => x[key]));
const result = {
  file_bytes: fs.statSync(page).size,
  first_frame_ms: median(firstFrame),
  first_frame_ms_all: firstFrame.map((v) => Math.round(v)),
  default_lesson_ms: { native: pick(nativeRuns, 'default_lesson_ms'), web: pick(webRuns, 'default_lesson_ms') },
  causal_512_64_ms: { native: pick(nativeRuns, 'causal_512_64_ms'), web: pick(webRuns, 'causal_512_64_ms') },
  chromium: execFileSync(chromium, ['--version'], { encoding: 'utf8' }).trim(),
};
console.log(JSON.stringify(result, null, 2));

let ok = true;
const limit = (what, value, max, unit) => {
  const pass = value <= max;
  ok &&= pass;
  console.log(`${pass ? 'ok  ' : 'MISS'} ${what}: ${value.toFixed(2)} ${unit} (limit ${max} ${unit})`);
};
limit('file size', result.file_bytes / 1e6, 12, 'MB');
limit('first frame', result.first_frame_ms / 1e3, 3, 's');
limit('default lesson recompute, web / native', result.default_lesson_ms.web / result.default_lesson_ms.native, 3, '×');
limit('(512, 64) causal compute, web / native', result.causal_512_64_ms.web / result.causal_512_64_ms.native, 3, '×');
process.exit(ok ? 0 : 1);
