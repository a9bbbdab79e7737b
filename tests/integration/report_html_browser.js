// Drives forge's HTML report in headless Chromium (Debian's /usr/bin/chromium) with
// playwright-core from tests/npm. Run by report_html_test.py with a spec file:
//   {small, smallJson, large, largeJson, xss, profile}  the checks; prints "ok NAME" / "FAIL NAME: why"
//   {screenshot, png, open, profile}                     a picture of a report with one case open
// and "done" at the end.
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require(path.join(__dirname, '..', 'npm', 'node_modules', 'playwright-core'));

const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function check(name, cond, detail) {
  console.log(cond ? `ok ${name}` : `FAIL ${name}${detail !== undefined ? ': ' + detail : ''}`);
}

async function open(ctx, file) {
  const page = await ctx.newPage();
  const seen = { requests: [], dialogs: [], errors: [] };
  page.on('request', (r) => seen.requests.push(r.url()));
  page.on('dialog', (d) => { seen.dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  page.on('pageerror', (e) => seen.errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') seen.errors.push(m.text()); });
  const url = 'file://' + file;
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('#rows tr.case');
  return { page, seen, url };
}

const rowIds = (page) => page.$$eval('#rows tr.case td.id', (tds) => tds.map((t) => t.textContent));
const rowStatuses = (page) => page.$$eval('#rows tr.case td:first-child .badge:first-child', (b) => b.map((x) => x.textContent));
const text = (page, sel) => page.$eval(sel, (e) => e.textContent);

async function filter(page, name) {
  await page.click(`#filter button[data-filter="${name}"]`);
}

async function search(page, q) {
  await page.fill('#search', q);
  /* the viewer waits for typing to pause, then marks what it shows */
  await page.waitForFunction((want) => document.getElementById('cases').dataset.query === want, q.trim().toLowerCase());
}

async function small(ctx) {
  const rep = JSON.parse(fs.readFileSync(spec.smallJson, 'utf8'));
  const s = rep.summary;
  const { page, seen, url } = await open(ctx, spec.small);
  for (const [id, key] of [['total', 'totalCases'], ['passed', 'passed'], ['failed', 'failed'], ['errors', 'errors'],
    ['skipped', 'skipped']]) {
    const shown = await text(page, '#s-' + id);
    check(`the page shows ${id} as the JSON report: ${s[key]}`, shown === String(s[key]), shown);
  }
  check('the pass rate as the JSON report', await text(page, '#s-passrate') === (s.passRate * 100).toFixed(1) + '%');
  check('every case listed', (await rowIds(page)).length === s.totalCases &&
    await text(page, '#shown') === `${s.totalCases} of ${s.totalCases} cases`);
  const want = { passed: s.passed, failed: s.failed, error: s.errors, skipped: s.skipped };
  for (const f of Object.keys(want)) {
    await filter(page, f);
    const st = await rowStatuses(page);
    check(`filter ${f}: ${want[f]} rows, all ${f}`, st.length === want[f] && st.every((x) => x === f), st.join(','));
    check(`filter ${f}: the button is pressed`,
      await page.$eval(`#filter button[data-filter="${f}"]`, (b) => b.getAttribute('aria-pressed')) === 'true');
  }
  await filter(page, 'new-failure');
  check('filter new failures: the regressions', JSON.stringify((await rowIds(page)).sort()) ===
    JSON.stringify(rep.regressions.slice().sort()), (await rowIds(page)).join(','));
  await filter(page, 'fix');
  check('filter fixes: the new passes', JSON.stringify(await rowIds(page)) === JSON.stringify(rep.newPasses));
  await filter(page, 'all');
  await search(page, 'OSLO');
  check('search (any case) finds the case whose arguments name Oslo', JSON.stringify(await rowIds(page)) ===
    '["parallel-2"]', (await rowIds(page)).join(','));
  await search(page, 'onerror=alert');
  check('search finds the hostile case', JSON.stringify(await rowIds(page)) === '["xss-3"]', (await rowIds(page)).join(','));
  await page.click('#rows tr.case');
  await page.waitForSelector('.detail');
  const pres = await page.$$eval('.detail pre', (p) => p.map((x) => x.textContent));
  check('the hostile arguments show as text', pres.includes(JSON.stringify({ q: spec.xss })), pres.join(' | '));
  check('the hostile answer shows as text', pres.some((p) => p.startsWith(spec.xss)), pres.join(' | '));
  check('the description shows as text', (await text(page, '.detail .desc')) === 'markup ' + spec.xss);
  check('no img element was made', (await page.$$('img')).length === 0);
  check('only the page\'s own three scripts exist', (await page.$$('script')).length === 3);
  await search(page, '');
  await search(page, 'fails-4');
  await page.click('#rows tr.case');
  await page.waitForSelector('.detail .call');
  const detail = await text(page, '.detail');
  check('the timeline shows the tool error, the blocked verifier, the denied approval and the failed assertion',
    detail.includes('timeout after 30 s') && detail.includes('verifier: block') && detail.includes('mail is off limits') &&
    detail.includes('approval: denied') && detail.includes('toolsNotCalled'), detail);
  check('calls of different rounds are in different rounds', (await page.$$('.detail .round')).length === 2);
  await search(page, 'parallel-2');
  await page.click('#rows tr.case');
  await page.waitForSelector('.detail .call');
  const lanes = await page.$$eval('.detail .round', (r) => r.map((x) => x.querySelectorAll('.call').length));
  check('parallel calls of one round side by side', JSON.stringify(lanes) === '[2]', JSON.stringify(lanes));
  const boxes = await page.$$eval('.detail .round .call', (c) => c.map((x) => x.getBoundingClientRect().top));
  check('... on one line', boxes.length === 2 && Math.abs(boxes[0] - boxes[1]) < 1, JSON.stringify(boxes));
  check('no dialog opened', seen.dialogs.length === 0, seen.dialogs.join(','));
  check('no script error and no blocked resource', seen.errors.length === 0, seen.errors.join(' | '));
  check('nothing fetched but the page', JSON.stringify(seen.requests) === JSON.stringify([url]), seen.requests.join(','));
  await page.close();
}

async function noScript(browser) {
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const page = await ctx.newPage();
  await page.goto('file://' + spec.small);
  const rep = JSON.parse(fs.readFileSync(spec.smallJson, 'utf8'));
  check('without JavaScript: the summary', await text(page, '#s-total') === String(rep.summary.totalCases) &&
    (await text(page, '#s-interval')).includes('%'));
  check('without JavaScript: the failing cases', (await page.$$('#failing li')).length ===
    rep.summary.failed + rep.summary.errors);
  check('without JavaScript: the case table stays hidden', await page.$eval('#cases', (e) => e.hidden));
  await ctx.close();
}

async function large(ctx) {
  const rep = JSON.parse(fs.readFileSync(spec.largeJson, 'utf8'));
  const s = rep.summary;
  const t0 = Date.now();
  const { page, seen, url } = await open(ctx, spec.large);
  console.log(`# ${s.totalCases} cases: first rows after ${Date.now() - t0} ms`);
  const pages = Math.ceil(s.totalCases / 50);
  /* rows come in case order, as in the JSON report (error cases, without a transcript, among them) */
  const order = rep.cases;
  check('large: the count', await text(page, '#shown') === `${s.totalCases} of ${s.totalCases} cases`);
  check('large: 50 rows a page', (await rowIds(page)).length === 50);
  check('large: page 1 of all', await text(page, '#page-info') === `page 1 of ${pages}`);
  await page.click('#next');
  check('large: next page', await text(page, '#page-info') === `page 2 of ${pages}` &&
    (await rowIds(page))[0] === order[50].id, (await rowIds(page))[0]);
  await page.click('#prev');
  check('large: previous page', (await rowIds(page))[0] === order[0].id);
  for (let i = 0; i < 3; i++) await page.click('#next');
  check('large: fourth page', (await rowIds(page))[0] === order[150].id);
  await filter(page, 'failed');
  check('large: filter failed counts as the JSON report', await text(page, '#shown') ===
    `${s.failed} of ${s.totalCases} cases` && await text(page, '#page-info') === `page 1 of ${Math.ceil(s.failed / 50)}`);
  const st = await rowStatuses(page);
  check('large: the failed rows', st.length === 50 && st.every((x) => x === 'failed'));
  await filter(page, 'error');
  check('large: filter error counts as the JSON report', await text(page, '#shown') === `${s.errors} of ${s.totalCases} cases`);
  await filter(page, 'all');
  await search(page, 'city 12345');
  check('large: search in arguments', JSON.stringify(await rowIds(page)) === '["case-012345"]', (await rowIds(page)).join(','));
  const last = order[order.length - 1].id;
  await search(page, '');
  await page.click('#last');
  const ids = await rowIds(page);
  check('large: the last page ends with the last case', ids[ids.length - 1] === last &&
    await text(page, '#page-info') === `page ${pages} of ${pages}` && await page.$eval('#next', (b) => b.disabled),
    ids[ids.length - 1]);
  await page.click('#first');
  check('large: back to the first page', (await rowIds(page))[0] === order[0].id && await page.$eval('#prev', (b) => b.disabled));
  check('large: nothing fetched but the page', JSON.stringify(seen.requests) === JSON.stringify([url]));
  check('large: no script error', seen.errors.length === 0, seen.errors.join(' | '));
  await page.close();
}

async function screenshot(ctx) {
  const { page } = await open(ctx, spec.screenshot);
  await page.setViewportSize({ width: 1180, height: 1000 });
  await search(page, spec.open);
  await page.click('#rows tr.case');
  await page.waitForSelector('.detail .call');
  await search(page, '');
  await page.$eval('#search', (e) => e.blur());
  await page.screenshot({ path: spec.png, fullPage: true });
  console.log(`ok screenshot ${spec.png}`);
}

(async () => {
  const ctx = await chromium.launchPersistentContext(spec.profile, {
    executablePath: '/usr/bin/chromium', headless: true, args: ARGS, viewport: { width: 1280, height: 900 },
  });
  try {
    if (spec.screenshot) {
      await screenshot(ctx);
    } else {
      await small(ctx);
      await large(ctx);
    }
  } finally {
    await ctx.close();
  }
  if (!spec.screenshot) {
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ARGS });
    try {
      await noScript(browser);
    } finally {
      await browser.close();
    }
  }
  console.log('done');
})().catch((e) => {
  console.log(`FAIL the browser script: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
