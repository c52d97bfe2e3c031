// Drives headless Chromium (Debian's chromium-headless-shell, through puppeteer-core; no
// browser is downloaded) over pages served from a loopback HTTP server, and reports what the
// pages report. Used by the browser tests (ctest: tests/browser_tests.cmake), the benchmark
// (scripts/browser-bench.sh) and the screenshot in docs/.
//
//   node run.mjs --root DIR [--mount /url=DIR ...] --page /path.html [--page ...]
//                [--chromium PATH] [--gpu] [--timeout SECONDS] [--json OUT.json]
//                [--screenshot OUT.png --width W --height H]
//
// A page reports by setting window.gpgpuReport = {done: true, results: [{name, ok, detail}],
// ...}; the run fails on any result that is not ok, on any console error or uncaught
// exception, and on a page that does not finish within the timeout. Console messages are
// echoed. Exit status: 0 all passed, 1 a failure, 2 the browser could not be started.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import puppeteer from 'puppeteer-core';

function parseArgs(argv) {
  const o = {mounts: [], pages: [], chromium: '/usr/bin/chromium-headless-shell', timeout: 600,
             gpu: false, width: 1200, height: 900};
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i], next = () => argv[++i];
    if (a === '--root') o.root = next();
    else if (a === '--mount') {
      const [url, dir] = next().split('=');
      o.mounts.push([url.replace(/\/$/, ''), dir]);
    } else if (a === '--page') o.pages.push(next());
    else if (a === '--chromium') o.chromium = next();
    else if (a === '--timeout') o.timeout = Number(next());
    else if (a === '--json') o.json = next();
    else if (a === '--screenshot') o.screenshot = next();
    else if (a === '--width') o.width = Number(next());
    else if (a === '--height') o.height = Number(next());
    else if (a === '--gpu') o.gpu = true;
    else throw new Error(`unknown option ${a}`);
  }
  if (!o.root || o.pages.length === 0) throw new Error('give --root DIR and at least one --page');
  return o;
}

const types = {'.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript',
               '.wasm': 'application/wasm', '.json': 'application/json', '.css': 'text/css',
               '.png': 'image/png', '.svg': 'image/svg+xml'};

// Static files: mounted folders first (longest URL prefix), then the root.
function serve(o) {
  const mounts = [...o.mounts].sort((a, b) => b[0].length - a[0].length);
  const server = http.createServer((request, response) => {
    const url = decodeURIComponent(new URL(request.url, 'http://x').pathname);
    let file = null;
    for (const [prefix, dir] of mounts) {
      if (url === prefix || url.startsWith(prefix + '/')) {
        file = path.join(dir, url.slice(prefix.length));
        break;
      }
    }
    if (!file) file = path.join(o.root, url);
    if (file.endsWith('/')) file += 'index.html';
    fs.readFile(file, (error, data) => {
      if (error) {
        response.writeHead(404);
        response.end(`not found: ${url}`);
        return;
      }
      response.writeHead(200, {'Content-Type': types[path.extname(file)] || 'application/octet-stream',
                               'Cache-Control': 'no-store'});
      response.end(data);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function runPage(browser, base, page, o) {
  const tab = await browser.newPage();
  await tab.setViewport({width: o.width, height: o.height});
  const problems = [];
  tab.on('console', (m) => {
    const text = m.text();
    console.log(`  [console.${m.type()}] ${text}`);
    if (m.type() === 'error') problems.push(`console error: ${text}`);
  });
  tab.on('pageerror', (e) => problems.push(`uncaught exception: ${e.message}`));
  const started = Date.now();
  await tab.goto(base + page, {waitUntil: 'load'});
  let report = null;
  try {
    await tab.waitForFunction('window.gpgpuReport && window.gpgpuReport.done',
                              {timeout: o.timeout * 1000, polling: 250});
    report = await tab.evaluate(() => window.gpgpuReport);
  } catch (e) {
    problems.push(`the page did not finish within ${o.timeout} s (${e.message})`);
    report = await tab.evaluate(() => window.gpgpuReport || null);
  }
  if (o.screenshot) await tab.screenshot({path: o.screenshot, fullPage: true});
  await tab.close();
  const seconds = (Date.now() - started) / 1000;
  return {page, seconds, report, problems};
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const server = await serve(o);
  const base = `http://127.0.0.1:${server.address().port}`;
  const args = ['--no-sandbox', '--ignore-gpu-blocklist'];
  // No GPU: ANGLE on SwiftShader, the software Vulkan device. With --gpu the browser is left
  // to find the machine's GPU (scripts/device/browser-bench.sh).
  if (!o.gpu) args.push('--use-angle=swiftshader', '--enable-unsafe-swiftshader');
  else args.push('--use-angle=vulkan', '--enable-features=Vulkan', '--enable-unsafe-webgpu');
  let browser;
  try {
    browser = await puppeteer.launch({executablePath: o.chromium, headless: 'shell', args,
                                      protocolTimeout: (o.timeout + 60) * 1000});
  } catch (e) {
    console.error(`could not start ${o.chromium}: ${e.message}`);
    server.close();
    process.exit(2);
  }
  const runs = [];
  let failed = false;
  try {
    for (const page of o.pages) {
      console.log(`== ${page}`);
      const run = await runPage(browser, base, page, o);
      runs.push(run);
      for (const r of (run.report && run.report.results) || []) {
        console.log(`${r.ok ? 'PASS' : 'FAIL'} ${r.name}${r.detail ? ': ' + r.detail : ''}`);
        if (!r.ok) failed = true;
      }
      for (const p of run.problems) {
        console.log(`FAIL ${page}: ${p}`);
        failed = true;
      }
      if (!run.report || !run.report.results || run.report.results.length === 0) {
        console.log(`FAIL ${page}: it reported no results`);
        failed = true;
      }
      console.log(`   ${page}: ${run.seconds.toFixed(1)} s`);
    }
  } finally {
    await browser.close();
    server.close();
  }
  if (o.json) fs.writeFileSync(o.json, JSON.stringify(runs, null, 1));
  console.log(failed ? 'browser run FAILED' : 'browser run passed');
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
