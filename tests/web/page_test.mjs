// The browser build in Debian's headless Chromium (SwiftShader's WebGL2), driven by puppeteer-core
// (package.json pins it). One case a run, named on the command line; CTest runs each
// (tests/web/CMakeLists.txt). Every case opens build-web/attnlab.html from file://, waits for the
// app's "attnlab: ready", and fails on any console error or uncaught exception.
//
// node tests/web/page_test.mjs CASE --page build-web/attnlab.html --chromium /usr/bin/chromium
//      [--desktop build/app/attnlab] [--source-dir .]
// Cases: ready, heatmap-colours, scale-click, walkthrough-space, scenario-picker, csv-download,
//        session-reload, preset-causal-six, bad-link, exercise-link [--shot FILE.png], exercise-bad-links,
//        training, induction-lesson, model-picker,
//        monkey [--seed S] [--seconds T] (random pointer and key events: docs/ROBUSTNESS.md).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { readPng } from './png.mjs';

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const caseName = args[0];
const option = (name, fallback) => {
  const k = args.indexOf(name);
  return k >= 0 ? args[k + 1] : fallback;
};
const sourceDir = path.resolve(option('--source-dir', path.join(path.dirname(new URL(import.meta.url).pathname), '../..')));
const puppeteer = require(path.join(sourceDir, 'node_modules', 'puppeteer-core'));
const pagePath = path.resolve(option('--page', 'build-web/attnlab.html'));
const chromium = option('--chromium', '/usr/bin/chromium');
const desktop = option('--desktop', path.join(sourceDir, 'build', 'app', 'attnlab'));
const WIDTH = 1280, HEIGHT = 800;

const work = fs.mkdtempSync(path.join(os.tmpdir(), `attnlab-web-${caseName}-`));
const problems = [];  // console errors and page exceptions, reported at the end of every case

function fail(message) {
  throw new Error(message);
}

async function launch() {
  return puppeteer.launch({
    executablePath: chromium,
    headless: true,
    userDataDir: path.join(work, 'profile'),  // a fresh profile: no session left by another case
    defaultViewport: { width: WIDTH, height: HEIGHT },
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist',
           '--allow-file-access-from-files', `--window-size=${WIDTH},${HEIGHT}`],
  });
}

// Opens the page (with a URL fragment) and waits for its first frame.
async function open(browser, fragment = '') {
  const page = await browser.newPage();
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  const client = await page.createCDPSession();
  await client.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: work, eventsEnabled: true });
  await page.goto(pathToFileURL(pagePath).href + fragment, { timeout: 120000 });
  await waitReady(page);
  return page;
}

async function waitReady(page) {
  await page.waitForFunction(() => window.attnlabReady === true, { timeout: 120000 });
  await frames(page, 3);
}

// Lets the app draw `n` more frames (its frame function runs on requestAnimationFrame).
async function frames(page, n) {
  for (let k = 0; k < n; ++k) await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
}

const layout = (page) => page.evaluate(() => attnlabWeb.layout());
const items = (page) => page.evaluate(() => attnlabWeb.items());

async function findItem(page, test, what) {
  const found = (await items(page)).find((it) => test(it.label));
  if (!found) fail(`no item ${what} was drawn`);
  return found;
}

// A real mouse click at the centre of an ImGui item (CSS pixels are ImGui's units here).
async function clickItem(page, item) {
  await page.mouse.move((item.x0 + item.x1) / 2, (item.y0 + item.y1) / 2);
  await frames(page, 2);
  await page.mouse.down();
  await frames(page, 2);
  await page.mouse.up();
  await frames(page, 4);
}

async function canvasPixels(page) {
  const file = path.join(work, `canvas-${Date.now()}.png`);
  await page.screenshot({ path: file });
  return readPng(fs.readFileSync(file));
}

// The colour of cell (i, j) of a heatmap drawn at `rect` = [x0, y0, x1, y1] in pixels: the median
// of a small patch near the cell's top-left corner, clear of the number drawn in its centre and of
// the separator lines at its edge.
function cellColour(img, rect, rows, cols, i, j) {
  const [x0, y0, x1, y1] = rect;
  const cw = (x1 - x0) / cols, ch = (y1 - y0) / rows;
  const cx = Math.round(x0 + cw * (j + 0.2)), cy = Math.round(y0 + ch * (i + 0.2));
  const samples = [[], [], []];
  for (let dy = -1; dy <= 1; ++dy) {
    for (let dx = -1; dx <= 1; ++dx) {
      const at = ((cy + dy) * img.width + (cx + dx)) * img.channels;
      for (let c = 0; c < 3; ++c) samples[c].push(img.data[at + c]);
    }
  }
  return samples.map((s) => s.sort((a, b) => a - b)[4]);
}

const distance = (a, b) => Math.max(...a.map((v, c) => Math.abs(v - b[c])));

function weightColours(img, lay) {
  const { n, m } = lay.document;
  const rect = lay.weights;
  if (!rect) fail('the weights heatmap was not drawn');
  const out = [];
  for (let i = 0; i < n; ++i) for (let j = 0; j < m; ++j) out.push(cellColour(img, rect, n, m, i, j));
  return out;
}

// Downloads land in `work` (Browser.setDownloadBehavior); waits for one named `name`.
async function waitDownload(name) {
  const file = path.join(work, name);
  for (let k = 0; k < 200; ++k) {
    if (fs.existsSync(file) && !fs.existsSync(file + '.crdownload')) return file;
    await new Promise((r) => setTimeout(r, 100));
  }
  fail(`no download named ${name} arrived`);
}

// The browser's monkey (docs/ROBUSTNESS.md, issue 38; the desktop's is app/gui/shell/monkey.cpp):
// from a seed, random pointer and key events for a fixed time. Half the pointer's targets are the
// labelled items the app drew last frame (menus, buttons, fields), the rest anywhere on the page.
// The keys are the app's shortcuts, the walk-through's and the Model window's keys, editing keys,
// digits and undo/redo; not F5 or Ctrl+O/S, which the browser itself may take.
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MONKEY_KEYS = ['KeyS', 'BracketLeft', 'BracketRight', 'Digit0', 'KeyM', 'KeyP', 'KeyT', 'KeyI', 'KeyB', 'KeyC',
  'Escape', 'F1', 'F2', 'Space', 'Space', 'ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'PageUp', 'PageDown',
  'Enter', 'Enter', 'Backspace', 'Delete', 'Tab', 'Home', 'End', 'Digit1', 'Digit2', 'Digit5', 'Digit9', 'Period', 'Minus'];
const MONKEY_CHORDS = [['Control', 'KeyZ'], ['Control', 'KeyZ'], ['Control', 'KeyY'], ['Control', 'Shift', 'KeyZ'],
  ['Control', 'KeyA'], ['Shift', 'Tab']];

async function monkey(page, seed, seconds) {
  const random = mulberry32(seed);
  const below = (n) => Math.floor(random() * n);
  const anywhere = () => [random() * WIDTH, random() * HEIGHT];
  const target = async () => {
    if (random() < 0.5) {
      const drawn = (await items(page)).filter((it) => it.x1 > it.x0 && it.y1 > it.y0);
      if (drawn.length) {
        const it = drawn[below(drawn.length)];
        return [it.x0 + random() * (it.x1 - it.x0), it.y0 + random() * (it.y1 - it.y0)];
      }
    }
    return anywhere();
  };
  const log = [];
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    const r = random();
    if (r < 0.35) {
      const [x, y] = await target();
      const button = random() < 0.1 ? 'right' : 'left';
      const count = random() < 0.1 ? 2 : 1;
      const shift = random() < 0.1;
      log.push(`${count === 2 ? 'double-' : ''}${shift ? 'shift-' : ''}${button} click ${x.toFixed(0)},${y.toFixed(0)}`);
      await page.mouse.move(x, y);
      await frames(page, 1);
      if (shift) await page.keyboard.down('Shift');
      await page.mouse.click(x, y, { button, count });
      if (shift) await page.keyboard.up('Shift');
    } else if (r < 0.45) {
      const [x0, y0] = await target();
      const [x1, y1] = random() < 0.5 ? await target() : [x0 + (random() - 0.5) * 400, y0 + (random() - 0.5) * 300];
      log.push(`drag ${x0.toFixed(0)},${y0.toFixed(0)} to ${x1.toFixed(0)},${y1.toFixed(0)}`);
      await page.mouse.move(x0, y0);
      await page.mouse.down();
      await frames(page, 1);
      await page.mouse.move(x1, y1, { steps: 4 });
      await frames(page, 1);
      await page.mouse.up();
    } else if (r < 0.55) {
      const [x, y] = await target();
      const deltaY = (below(3) + 1) * 120 * (random() < 0.5 ? 1 : -1);
      log.push(`wheel ${deltaY} at ${x.toFixed(0)},${y.toFixed(0)}`);
      await page.mouse.move(x, y);
      await page.mouse.wheel({ deltaY });
    } else if (r < 0.85) {
      const chord = random() < 0.25 ? MONKEY_CHORDS[below(MONKEY_CHORDS.length)] : [MONKEY_KEYS[below(MONKEY_KEYS.length)]];
      log.push(`key ${chord.join('+')}`);
      for (const k of chord) await page.keyboard.down(k);
      await frames(page, 1);
      for (const k of [...chord].reverse()) await page.keyboard.up(k);
    } else {
      const alphabet = '0123456789.-+e abxyé';
      let text = '';
      for (let k = below(6) + 1; k > 0; --k) text += alphabet[below(alphabet.length)];
      log.push(`type "${text}"`);
      await page.keyboard.type(text);
    }
    await frames(page, 1 + below(2));
    if (problems.length) break;
  }
  return log;
}

const cases = {
  // Opens from file:// and draws the default lesson.
  async ready(browser) {
    const page = await open(browser);
    const lay = await layout(page);
    if (!(lay.document.n > 0 && lay.document.m > 0)) fail(`no document open: ${JSON.stringify(lay.document)}`);
    if (!lay.weights) fail('the first frames drew no weights heatmap');
    if (!/CPU/.test(lay.backend)) fail(`the browser computes on the CPU engine, but the backend is "${lay.backend}"`);
  },

  // The weights heatmap's cells have the colours the desktop app gives the same lesson.
  async 'heatmap-colours'(browser) {
    if (!fs.existsSync(desktop)) fail(`the desktop app ${desktop} is not built (scripts/setup builds it)`);
    const shot = path.join(work, 'desktop.png'), layFile = path.join(work, 'desktop-layout.json');
    execFileSync('xvfb-run', ['-a', '-s', '-screen 0 1920x1080x24 -noreset', 'env', `XDG_CONFIG_HOME=${work}/desktop-config`,
      `ATTNLAB_GUI_SIZE=${WIDTH}x${HEIGHT}`, `ATTNLAB_LAYOUT_OUT=${layFile}`, desktop, 'gui', '--preset', 'three-tokens',
      '--theme', 'dark', '--screenshot', shot], { stdio: 'inherit' });
    const deskLay = JSON.parse(fs.readFileSync(layFile, 'utf8'));
    const desk = weightColours(readPng(fs.readFileSync(shot)), deskLay);
    const page = await open(browser, '#preset=three-tokens');
    const web = weightColours(await canvasPixels(page), await layout(page));
    if (web.length !== desk.length) fail(`the web shows ${web.length} weight cells, the desktop ${desk.length}`);
    // The bound comes from the data: each cell must be nearer its own desktop colour than half the
    // gap between any two cells the desktop tells apart, so a swapped or shifted cell fails.
    let gap = Infinity;
    for (let a = 0; a < desk.length; ++a) {
      for (let b = a + 1; b < desk.length; ++b) {
        const d = distance(desk[a], desk[b]);
        if (d > 0) gap = Math.min(gap, d);
      }
    }
    const bound = Math.max(2, Math.min(gap / 2, 12));
    desk.forEach((c, k) => {
      const d = distance(c, web[k]);
      if (d > bound) fail(`weight cell ${k}: desktop rgb(${c}) vs web rgb(${web[k]}), ${d} apart (bound ${bound})`);
    });
    console.log(`${desk.length} cells within ${bound} of the desktop's colours`);
  },

  // The √d_k checkbox, clicked with a real mouse event, turns scaling off and the weights change.
  async 'scale-click'(browser) {
    const page = await open(browser, '#preset=three-tokens');
    const before = weightColours(await canvasPixels(page), await layout(page));
    // Its label says the divisor: "÷ √d_k = √2 = 1.4142" (ASCII stand-ins without the font's glyphs).
    const isScale = (l) => /d_k = \S+ = /.test(l);
    const box = await findItem(page, isScale, 'labelled "÷ √d_k = … = …" (the scaling checkbox)');
    if (!box.checked) fail('scaling is off before the click');
    await clickItem(page, box);
    const after = await findItem(page, isScale, 'for the scaling checkbox after the click');
    if (after.checked) fail('the click did not turn scaling off');
    const afterColours = weightColours(await canvasPixels(page), await layout(page));
    const changed = before.filter((c, k) => distance(c, afterColours[k]) > 2).length;
    if (changed === 0) fail('the weights heatmap did not change when scaling was turned off');
  },

  // Space steps the walk-through.
  async 'walkthrough-space'(browser) {
    const page = await open(browser, '#preset=three-tokens');
    // Lessons > Walk through step by step, then Space.
    await clickItem(page, await findItem(page, (l) => l === 'Lessons', 'the Lessons menu'));
    await clickItem(page, await findItem(page, (l) => l === 'Walk through step by step', 'Lessons > Walk through step by step'));
    let lay = await layout(page);
    if (!lay.walkthrough.active) fail('the walk-through did not start');
    const step = lay.walkthrough.step;
    await page.keyboard.press('Space');
    await frames(page, 4);
    lay = await layout(page);
    if (lay.walkthrough.step !== step + 1) fail(`Space went from step ${step} to ${lay.walkthrough.step}`);
  },

  // A scenario chosen through the page's file input opens, and the pipeline shows it.
  async 'scenario-picker'(browser) {
    const page = await open(browser);
    const scenario = {
      format: 'attnlab-scenario', version: 1, title: 'Picked in the browser',
      Q: [[1, 0], [0, 1], [1, 1], [2, 0]], K: [[1, 0], [0, 1], [1, 1]], V: [[10, 0], [0, 10], [5, 5]],
      scale: true, temperature: 1.0, mask: { kind: 'none' },
    };
    const file = path.join(work, 'picked.json');
    fs.writeFileSync(file, JSON.stringify(scenario));
    const fileMenu = await findItem(page, (l) => l === 'File', 'the File menu');
    const [chooser] = await Promise.all([
      page.waitForFileChooser({ timeout: 10000 }),
      // File > Open scenario...: with a Ctrl+O keypress the app asked for the picker, but headless
      // Chromium 156 opened none (Ctrl+O is its own Open shortcut); a click opens it.
      clickItem(page, fileMenu).then(async () => clickItem(page, await findItem(page, (l) => l === 'Open scenario...', 'File > Open scenario...'))),
    ]);
    await chooser.accept([file]);
    await page.waitForFunction(() => attnlabWeb.layout().document.title === 'Picked in the browser', { timeout: 10000 });
    await frames(page, 3);
    const lay = await layout(page);
    if (lay.document.n !== 4 || lay.document.m !== 3) fail(`the pipeline shows ${lay.document.n} × ${lay.document.m}, not 4 × 3`);
    if (!lay.weights) fail('no weights heatmap for the picked scenario');
  },

  // Export weights as CSV: a download whose numbers are the softmax of the lesson's logits.
  async 'csv-download'(browser) {
    const page = await open(browser, '#preset=three-tokens');
    // Right-click the weights heatmap > Export this stage..., name the file weights.csv, Enter.
    const [x0, y0, x1, y1] = (await layout(page)).weights;
    await page.mouse.click((x0 + x1) / 2, (y0 + y1) / 2, { button: 'right' });
    await frames(page, 4);
    await clickItem(page, await findItem(page, (l) => l.startsWith('Export this stage'), 'Export this stage... (the heatmap\'s menu)'));
    await clickItem(page, await findItem(page, (l) => l === '##file', 'the export\'s file name field'));
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyA');
    await page.keyboard.up('Control');
    await page.keyboard.type('weights.csv');
    await page.keyboard.press('Enter');
    await frames(page, 4);
    const text = fs.readFileSync(await waitDownload('weights.csv'), 'utf8');
    const rows = text.trim().split('\n').filter((r) => !r.startsWith('#')).map((r) => r.split(','));
    const numbers = rows.map((r) => r.map(Number)).filter((r) => r.every((v) => Number.isFinite(v)));
    const lesson = JSON.parse(fs.readFileSync(path.join(sourceDir, 'assets/presets/three-tokens.json'), 'utf8'));
    const Q = lesson.Q, K = lesson.K, dk = Q[0].length;
    if (numbers.length !== Q.length) fail(`the CSV has ${numbers.length} numeric rows, not ${Q.length}:\n${text}`);
    numbers.forEach((row, i) => {
      const logits = K.map((k) => k.reduce((s, v, c) => s + v * Q[i][c], 0) / Math.sqrt(dk));
      const top = Math.max(...logits);
      const e = logits.map((l) => Math.exp(l - top));
      const sum = e.reduce((a, b) => a + b, 0);
      const weights = row.slice(row.length - K.length);
      weights.forEach((w, j) => {
        // float32 softmax of numbers near 1: a few units in the last place, times the row's size.
        if (Math.abs(w - e[j] / sum) > 1e-6 * K.length) fail(`weights[${i}][${j}] = ${w}, expected ${e[j] / sum}`);
      });
    });
  },

  // A reload brings back the session: the document and the view as they were left.
  async 'session-reload'(browser) {
    const page = await open(browser, '#preset=causal-six');
    const before = await layout(page);
    // The same page without the fragment: what opens is the session, not a lesson from the URL.
    await page.evaluate(() => history.replaceState(null, '', window.location.pathname));
    await page.reload();
    await waitReady(page);
    const after = await layout(page);
    if (after.document.title !== before.document.title || after.document.n !== before.document.n) {
      fail(`the reload opened "${after.document.title}" (${after.document.n}), not the session's "${before.document.title}"`);
    }
  },

  // #preset=causal-six shows the causal triangle: every weight above the diagonal is blocked.
  async 'preset-causal-six'(browser) {
    const page = await open(browser, '#preset=causal-six');
    const lay = await layout(page);
    if (lay.document.n !== 6 || lay.document.m !== 6) fail(`causal-six opened ${lay.document.n} × ${lay.document.m}`);
    const img = await canvasPixels(page);
    const colours = weightColours(img, lay);
    // Blocked cells are hatched with two colours; visible ones are flat. Above the diagonal: hatched.
    const hatched = (i, j) => {
      const [x0, y0, x1, y1] = lay.weights;
      const cw = (x1 - x0) / 6, ch = (y1 - y0) / 6;
      const seen = new Set();
      for (let y = Math.round(y0 + ch * (i + 0.15)); y < y0 + ch * (i + 0.4); ++y) {
        for (let x = Math.round(x0 + cw * (j + 0.15)); x < x0 + cw * (j + 0.4); ++x) {
          const at = (y * img.width + x) * img.channels;
          seen.add(`${img.data[at]},${img.data[at + 1]},${img.data[at + 2]}`);
        }
      }
      return seen.size >= 2;
    };
    for (let i = 0; i < 6; ++i) {
      for (let j = 0; j < 6; ++j) {
        if (j > i && !hatched(i, j)) fail(`cell (${i}, ${j}) above the diagonal is not drawn as blocked`);
        if (j < i && hatched(i, j) && distance(colours[i * 6 + j], colours[i * 6 + i]) === 0) {
          fail(`cell (${i}, ${j}) below the diagonal is drawn as blocked`);
        }
      }
    }
  },

  // The Training window trains in the page (no threads from file://: inside the frames), the page
  // keeps drawing while it does, the loss falls, and Pause stops it.
  async training(browser) {
    const page = await open(browser);
    await page.keyboard.press('F2');
    await frames(page, 4);
    await clickItem(page, await findItem(page, (l) => l === 'Start', 'Start (the Training window)'));
    await page.waitForFunction(() => attnlabWeb.layout().training.step >= 40, { timeout: 150000 });
    // Frames go on while it trains: count them over two seconds, with the steps taken meanwhile.
    const counted = await page.evaluate(() => new Promise((resolve) => {
      const start = performance.now(), step0 = attnlabWeb.layout().training.step;
      let n = 0;
      const tick = () => {
        ++n;
        if (performance.now() - start < 2000) requestAnimationFrame(tick);
        else resolve({ frames: n, seconds: (performance.now() - start) / 1000, steps: attnlabWeb.layout().training.step - step0 });
      };
      requestAnimationFrame(tick);
    }));
    console.log(`web training: ${(counted.frames / counted.seconds).toFixed(1)} frames/s, ${(counted.steps / counted.seconds).toFixed(1)} steps/s while training`);
    // At least one step per frame while running, and frames keep coming (several a second).
    if (counted.steps < counted.frames * 0.5) fail(`${counted.steps} steps in ${counted.frames} frames: training stalls between frames`);
    if (counted.frames < 4) fail(`only ${counted.frames} frames in ${counted.seconds.toFixed(1)} s while training`);
    await clickItem(page, await findItem(page, (l) => l === 'Pause', 'Pause (the Training window)'));
    await page.waitForFunction(() => attnlabWeb.layout().training.phase === 'paused', { timeout: 20000 });
    const lay = await layout(page);
    if (lay.training.error) fail(`training says: ${lay.training.error}`);
    // 40+ steps from random weights: the first batch's loss is about ln(24) = 3.18; it must have fallen.
    if (!(lay.training.last_loss < lay.training.first_loss)) {
      fail(`the loss did not fall: ${lay.training.first_loss} at step 1, ${lay.training.last_loss} at step ${lay.training.step}`);
    }
    const paused = lay.training.step;
    await frames(page, 10);
    if ((await layout(page)).training.step !== paused) fail('training went on after Pause');
  },

  // The lesson "Watch an induction head form": Space starts training, and two more steps lift
  // layer 0's and then layer 1's head into the lab.
  async 'induction-lesson'(browser) {
    const page = await open(browser, '#preset=induction-head');
    await page.keyboard.press('Space');  // the lesson view's own steps: training from scratch
    await page.waitForFunction(() => attnlabWeb.layout().training.step >= 20, { timeout: 150000 });
    const title = (await layout(page)).document.title;
    await page.keyboard.press('Space');  // the phase change
    await frames(page, 3);
    await page.keyboard.press('Space');  // layer 0's head in the lab
    await page.waitForFunction(() => attnlabWeb.layout().training.lifted === 1, { timeout: 30000 });
    let lay = await layout(page);
    if (lay.document.title === title || !/layer 0|L0/.test(lay.document.title)) fail(`the lab shows "${lay.document.title}" after the first lift`);
    if (!lay.weights) fail('no weights heatmap for the lifted head');
    await page.keyboard.press('Space');  // layer 1's
    await page.waitForFunction(() => attnlabWeb.layout().training.lifted === 2, { timeout: 30000 });
    lay = await layout(page);
    if (!/layer 1|L1/.test(lay.document.title)) fail(`the lab shows "${lay.document.title}" after the second lift`);
  },

  // A model's files chosen together through the picker open in the Model window, which runs it.
  async 'model-picker'(browser) {
    const page = await open(browser);
    await clickItem(page, await findItem(page, (l) => l === 'File', 'the File menu'));
    const folder = path.join(sourceDir, 'assets/models/induction');
    const [chooser] = await Promise.all([
      page.waitForFileChooser({ timeout: 10000 }),
      clickItem(page, await findItem(page, (l) => l === 'Open model...', 'File > Open model...')),
    ]);
    await chooser.accept(['config.json', 'vocab.json', 'model.safetensors'].map((f) => path.join(folder, f)));
    await page.waitForFunction(() => attnlabWeb.layout().model.layers > 0, { timeout: 30000 });
    const lay = await layout(page);
    if (lay.model.layers !== 2) fail(`the Model window opened a model of ${lay.model.layers} layers, not the 2 of induction`);
    if (lay.model.error) fail(`the Model window says: ${lay.model.error}`);
  },

  // Random use for a fixed time: no console error or exception, and the app still answers after it
  // (attnlab: ready, its layout read-out, new frames).
  async monkey(browser) {
    const seed = Number(option('--seed', '38'));
    const seconds = Number(option('--seconds', '40'));
    const page = await open(browser);
    const log = await monkey(page, seed, seconds);
    const last = () => log.slice(-15).join('\n');
    if (problems.length) fail(`after ${log.length} actions (seed ${seed}), the last ones:\n${last()}\n${problems.join('\n')}`);
    await Promise.race([frames(page, 3), new Promise((_, reject) => setTimeout(() => reject(new Error(
      `the page drew no frame after ${log.length} actions (seed ${seed}); the last ones:\n${last()}`)), 20000))]);
    const ready = await page.evaluate(() => window.attnlabReady === true);
    const lay = await layout(page);
    if (!ready || !(lay.document.n > 0 && lay.document.m > 0)) {
      fail(`the app no longer answers after ${log.length} actions (seed ${seed}): ready ${ready}, ${JSON.stringify(lay.document)}`);
    }
    console.log(`web monkey: ${log.length} actions in ${seconds} s from seed ${seed}, still ready on "${lay.document.title}"`);
  },

  // A teacher's exercise link (issue 70): #preset=LESSON&exercise=SEED opens that lesson's exercise at
  // that seed, the same exercise (every given number, every part) as the desktop's `attnlab exercise
  // LESSON --seed SEED`; Share link then carries the seed, a page opened from that link shows the same
  // exercise again, and once the lesson is back the link is the scenario alone, as it always was.
  // A seed above 2^31 goes through wasm32's 32-bit size_t and the Seed field's int unharmed.
  async 'exercise-link'(browser) {
    if (!fs.existsSync(desktop)) fail(`the desktop app ${desktop} is not built (scripts/setup builds it)`);
    const lesson = 'causal-six', seed = 4000000000;
    const cli = JSON.parse(execFileSync(desktop, ['exercise', lesson, '--seed', String(seed), '--format', 'json'], { encoding: 'utf8' }));
    const shownExercise = async (page) => {
      await page.waitForFunction(() => attnlabWeb.layout().exercise !== null, { timeout: 20000 });
      await frames(page, 3);
      return (await layout(page)).exercise;
    };
    const sameAsCli = (shown, where) => {
      if (JSON.stringify(shown) !== JSON.stringify(cli)) {
        fail(`${where} shows another exercise than \`attnlab exercise ${lesson} --seed ${seed}\`:\n${JSON.stringify(shown)}\n${JSON.stringify(cli)}`);
      }
    };
    const page = await open(browser, `#preset=${lesson}&exercise=${seed}`);
    sameAsCli(await shownExercise(page), `#preset=${lesson}&exercise=${seed}`);
    const lay = await layout(page);
    if (lay.error) fail(`the link was refused: ${lay.error}`);
    // The Exercise tab itself is on the screen: its buttons were drawn.
    await findItem(page, (l) => l === 'Check', 'Check (the Exercise tab)');
    await findItem(page, (l) => l === 'Back to the lesson', 'Back to the lesson (the Exercise tab)');
    const shot = option('--shot', '');
    if (shot) await page.screenshot({ path: shot });
    // Share link with the exercise shown: the scenario, then &exercise=SEED.
    const share = async () => {
      await clickItem(page, await findItem(page, (l) => l === 'File', 'the File menu'));
      await clickItem(page, await findItem(page, (l) => l === 'Share link', 'File > Share link'));
      return page.evaluate(() => window.location.hash);
    };
    const withExercise = await share();
    const match = /^#scenario=([A-Za-z0-9_-]+)&exercise=(\d+)$/.exec(withExercise);
    if (!match || match[2] !== String(seed)) fail(`Share link with the exercise shown wrote "${withExercise.slice(0, 80)}…"`);
    if (!/exercise \(seed 4000000000\)/.test((await layout(page)).notice)) fail(`the notice does not say the exercise: "${(await layout(page)).notice}"`);
    const again = await open(browser, withExercise);
    sameAsCli(await shownExercise(again), 'the shared link');
    await again.close();
    // Back to the lesson: the link is the scenario alone, the same scenario.
    await clickItem(page, await findItem(page, (l) => l === 'Back to the lesson', 'Back to the lesson'));
    if ((await layout(page)).exercise !== null) fail('the exercise is still shown after Back to the lesson');
    const without = await share();
    if (without !== `#scenario=${match[1]}`) fail(`Share link with no exercise shown wrote "${without.slice(0, 80)}…", not the scenario alone`);
  },

  // Bad exercise links: one sentence in place each, the page keeps drawing and opens what it can.
  async 'exercise-bad-links'(browser) {
    const ownScenario = Buffer.from(JSON.stringify({
      format: 'attnlab-scenario', version: 1, title: 'My own numbers',
      Q: [[1, 0], [0, 1]], K: [[1, 0], [0, 1]], V: [[1, 2], [3, 4]],
    })).toString('base64url');
    const links = [
      // [fragment, what the sentence must say, the document's size (0: any) and title (empty: any)]
      ['#preset=causal-six&exercise=seven', /^the link's exercise='seven' is not a seed/, 6, ''],
      ['#preset=causal-six&exercise=-1', /is not a seed/, 6, ''],
      ['#preset=causal-six&exercise=99999999999999999999999', /is too large: a seed is a whole number from 0 to 18446744073709551615/, 6, ''],
      ['#preset=no-such-lesson&exercise=3', /no built-in lesson named 'no-such-lesson'/, 0, ''],
      [`#scenario=${ownScenario}&exercise=3`, /'My own numbers' is not one of the built-in lessons/, 2, 'My own numbers'],
      ['#exercise=3', /names no lesson to draw it from/, 0, ''],
      ['#preset=causal-six&exercise=3&exercise=4', /two exercises/, 6, ''],
    ];
    for (const [fragment, said, n, title] of links) {
      const page = await open(browser, fragment);
      await frames(page, 3);
      const lay = await layout(page);
      if (!said.test(lay.error)) fail(`${fragment}: the sentence in place is "${lay.error}"`);
      if (lay.exercise !== null) fail(`${fragment}: an exercise was opened`);
      if (!(lay.document.n > 0) || (n && lay.document.n !== n)) fail(`${fragment}: the document opened is ${lay.document.n} × ${lay.document.m}`);
      if (title && lay.document.title !== title) fail(`${fragment}: the document opened is "${lay.document.title}"`);
      await page.close();
    }
  },

  // A link whose #scenario= is not base64url says so in place, and the app still runs.
  async 'bad-link'(browser) {
    const page = await open(browser, '#scenario=@@not-base64@@');
    const lay = await layout(page);
    if (!/scenario/.test(lay.error)) fail(`no sentence about the link in place: "${lay.error}"`);
    if (!(lay.document.n > 0)) fail('the app did not open its default document after the bad link');
  },
};

if (!cases[caseName]) {
  console.error(`unknown case "${caseName}"; cases: ${Object.keys(cases).join(', ')}`);
  process.exit(2);
}
const browser = await launch();
let code = 0;
try {
  await cases[caseName](browser);
  if (problems.length) fail(problems.join('\n'));
  console.log(`web ${caseName}: ok`);
} catch (e) {
  console.error(`web ${caseName}: ${e.message}`);
  code = 1;
} finally {
  await browser.close();
  fs.rmSync(work, { recursive: true, force: true });
}
process.exit(code);
