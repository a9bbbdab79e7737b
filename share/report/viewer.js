/* forge's HTML report viewer: the case table (filter, search, pages) and each case's timeline.
 * It reads the JSON data blocks of the page and builds every element with textContent, never
 * with markup, so case data is always shown as text. */
(function () {
  'use strict';
  var data = document.getElementById('forge-cases');
  var meta = document.getElementById('forge-run');
  if (!data || !meta) return;
  var cases = JSON.parse(data.textContent);
  var run = JSON.parse(meta.textContent);
  var regressions = new Set(run.regressions || []);
  var fixes = new Set(run.newPasses || []);
  var PAGE = 50;
  var state = { filter: 'all', query: '', page: 0, open: new Set() };
  var view = cases;

  var section = document.getElementById('cases');
  var rows = document.getElementById('rows');
  var shown = document.getElementById('shown');
  var pageInfo = document.getElementById('page-info');
  var prev = document.getElementById('prev');
  var next = document.getElementById('next');
  var first = document.getElementById('first');
  var last = document.getElementById('last');
  var search = document.getElementById('search');
  section.hidden = false;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function ms(v) {
    if (typeof v !== 'number') return '';
    return (v < 10 ? v.toPrecision(3) : Math.round(v).toString()) + ' ms';
  }

  /* the text a search looks in, lower-cased once per case */
  function haystack(c) {
    if (c._hay === undefined) {
      var parts = [c.id, c.desc, c.reason, c.suite, c.label];
      (c.asserts || []).forEach(function (a) { parts.push(a.type, a.reason); });
      var t = c.traj;
      if (t) t.turns.forEach(function (turn) {
        parts.push(turn.text);
        (turn.calls || []).forEach(function (k) { parts.push(k.name, k.args, k.result, k.error); });
      });
      c._hay = parts.filter(function (p) { return typeof p === 'string'; }).join('\n').toLowerCase();
    }
    return c._hay;
  }

  function matches(c) {
    var f = state.filter;
    if (f === 'new-failure' && !regressions.has(c.id)) return false;
    if (f === 'fix' && !fixes.has(c.id)) return false;
    if (f !== 'all' && f !== 'new-failure' && f !== 'fix' && c.status !== f) return false;
    return !state.query || haystack(c).indexOf(state.query) >= 0;
  }

  function refilter() {
    view = state.filter === 'all' && !state.query ? cases : cases.filter(matches);
    state.page = 0;
    render();
  }

  function badge(text, cls) { return el('span', 'badge ' + cls, text); }

  function assertionList(c) {
    var box = el('div', 'asserts');
    (c.asserts || []).forEach(function (a) {
      var line = el('div', 'assert ' + (a.ok ? 'ok' : 'bad'));
      line.appendChild(el('span', 'mark', a.ok ? '\u2713' : '\u2717'));
      line.appendChild(el('code', null, a.type));
      if (a.reason) line.appendChild(el('span', 'why', a.reason));
      if (typeof a.score === 'number') line.appendChild(el('span', 'muted', 'partial score ' + a.score));
      box.appendChild(line);
    });
    if (c.moreAsserts) box.appendChild(el('div', 'muted', c.moreAsserts + ' more assertions not listed'));
    (c.warnings || []).forEach(function (w) { box.appendChild(el('div', 'warn', 'warning: ' + w)); });
    return box;
  }

  function block(label, text, cls) {
    var d = el('div', 'field');
    d.appendChild(el('div', 'flabel', label));
    d.appendChild(el('pre', cls || null, text));
    return d;
  }

  function callCard(k) {
    var card = el('div', 'call' + (k.error ? ' call-error' : ''));
    var head = el('div', 'call-head');
    head.appendChild(el('code', 'tool', k.name));
    if (typeof k.ms === 'number') head.appendChild(el('span', 'muted', ms(k.ms)));
    if (k.id) head.appendChild(el('span', 'muted', k.id));
    card.appendChild(head);
    if (k.args !== undefined) card.appendChild(block('arguments', k.args));
    if (k.result !== undefined) card.appendChild(block('result', k.result));
    if (k.error !== undefined) card.appendChild(block('error', k.error, 'err'));
    var v = k.verifier;
    if (v) {
      var vd = el('div', 'verifier');
      vd.appendChild(badge('verifier: ' + v.outcome, 'v-' + v.outcome));
      if (v.message) vd.appendChild(el('span', 'why', v.message));
      (v.checks || []).forEach(function (ch) {
        var cl = el('div', 'check');
        cl.appendChild(badge(ch.outcome, 'v-' + ch.outcome));
        cl.appendChild(el('code', null, ch.verifier || ''));
        if (ch.message) cl.appendChild(el('span', 'why', ch.message));
        vd.appendChild(cl);
      });
      card.appendChild(vd);
    }
    var ap = k.approval;
    if (ap) {
      var ad = el('div', 'approval');
      ad.appendChild(badge('approval: ' + ap.decision, 'a-' + ap.decision));
      ad.appendChild(el('span', 'muted', [ap.level, ap.by].filter(Boolean).join(', ')));
      if (ap.reason) ad.appendChild(el('span', 'why', ap.reason));
      card.appendChild(ad);
    }
    return card;
  }

  function timeline(c) {
    var box = el('div', 'detail');
    if (c.desc) box.appendChild(el('p', 'desc', c.desc));
    if (c.reason) box.appendChild(el('p', 'reason st-' + c.status, c.reason));
    var facts = [];
    if (c.label) facts.push('label ' + c.label);
    if (typeof c.weight === 'number') facts.push('weight ' + c.weight);
    if (c.skippedAssertions) facts.push(c.skippedAssertions + ' skipped assertions');
    if (facts.length) box.appendChild(el('p', 'muted', facts.join(' \u00b7 ')));
    box.appendChild(assertionList(c));
    var t = c.traj;
    if (!t) {
      box.appendChild(el('p', 'muted', 'No trajectory for this case.'));
      return box;
    }
    var info = [];
    if (t.model) info.push('model ' + t.model);
    if (typeof t['in'] === 'number') info.push(t['in'] + ' input tokens');
    if (typeof t.out === 'number') info.push(t.out + ' output tokens');
    if (typeof t.rounds === 'number') info.push(t.rounds + ' rounds');
    if (t.stop) info.push('stop: ' + t.stop);
    if (info.length) box.appendChild(el('p', 'muted', info.join(' \u00b7 ')));
    var tl = el('ol', 'timeline');
    t.turns.forEach(function (turn) {
      var li = el('li', 'turn role-' + turn.role);
      var head = el('div', 'turn-head');
      head.appendChild(el('span', 'role', turn.role));
      if (typeof turn.ms === 'number') head.appendChild(el('span', 'muted', ms(turn.ms)));
      li.appendChild(head);
      /* calls of one round run side by side */
      var byRound = [];
      (turn.calls || []).forEach(function (k) {
        var last = byRound[byRound.length - 1];
        if (last && last.round === k.round) last.calls.push(k);
        else byRound.push({ round: k.round, calls: [k] });
      });
      byRound.forEach(function (r) {
        var rd = el('div', 'round');
        rd.appendChild(el('div', 'round-label', r.round !== undefined ? 'round ' + r.round : 'calls'));
        var lane = el('div', 'calls');
        r.calls.forEach(function (k) { lane.appendChild(callCard(k)); });
        rd.appendChild(lane);
        li.appendChild(rd);
      });
      if (turn.text !== undefined) li.appendChild(el('pre', 'text', turn.text));
      tl.appendChild(li);
    });
    box.appendChild(tl);
    if (t.omitted) box.appendChild(el('p', 'muted cut', t.omitted + ' more turns and calls not shown (the report\'s per-case bound)'));
    return box;
  }

  function caseRow(c) {
    var tr = el('tr', 'case st-row-' + c.status);
    tr.tabIndex = 0;
    var st = el('td');
    st.appendChild(badge(c.status, 'st-' + c.status));
    if (regressions.has(c.id)) st.appendChild(badge('new failure', 'new-failure'));
    if (fixes.has(c.id)) st.appendChild(badge('fixed', 'fixed'));
    tr.appendChild(st);
    tr.appendChild(el('td', 'id', c.id));
    tr.appendChild(el('td', null, c.suite || ''));
    tr.appendChild(el('td', 'num', typeof c.score === 'number' ? c.score.toFixed(3) : ''));
    tr.appendChild(el('td', 'num', ms(c.ms)));
    tr.appendChild(el('td', 'num', typeof c.cost === 'number' && c.cost ? '$' + c.cost.toFixed(6) : ''));
    tr.appendChild(el('td', 'why', c.reason || ''));
    return tr;
  }

  function toggle(c, tr) {
    var nextRow = tr.nextSibling;
    if (nextRow && nextRow.classList.contains('detail-row')) {
      rows.removeChild(nextRow);
      state.open.delete(c.id);
      return;
    }
    var d = el('tr', 'detail-row');
    var td = el('td');
    td.colSpan = 7;
    td.appendChild(timeline(c));
    d.appendChild(td);
    rows.insertBefore(d, nextRow);
    state.open.add(c.id);
  }

  function render() {
    var pages = Math.max(1, Math.ceil(view.length / PAGE));
    if (state.page >= pages) state.page = pages - 1;
    var from = state.page * PAGE;
    var frag = document.createDocumentFragment();
    view.slice(from, from + PAGE).forEach(function (c) {
      var tr = caseRow(c);
      tr.addEventListener('click', function () { toggle(c, tr); });
      tr.addEventListener('keydown', function (e) { if (e.key === 'Enter') toggle(c, tr); });
      frag.appendChild(tr);
      if (state.open.has(c.id)) {
        var d = el('tr', 'detail-row');
        var td = el('td');
        td.colSpan = 7;
        td.appendChild(timeline(c));
        d.appendChild(td);
        frag.appendChild(d);
      }
    });
    rows.textContent = '';
    rows.appendChild(frag);
    shown.textContent = view.length + ' of ' + cases.length + ' cases';
    pageInfo.textContent = 'page ' + (state.page + 1) + ' of ' + pages;
    section.dataset.query = state.query;
    first.disabled = prev.disabled = state.page === 0;
    last.disabled = next.disabled = state.page >= pages - 1;
  }

  Array.prototype.forEach.call(document.querySelectorAll('#filter button'), function (b) {
    if ((b.dataset.filter === 'new-failure' || b.dataset.filter === 'fix') && !run.baseline) b.hidden = true;
    b.addEventListener('click', function () {
      state.filter = b.dataset.filter;
      Array.prototype.forEach.call(document.querySelectorAll('#filter button'), function (o) {
        o.setAttribute('aria-pressed', o === b ? 'true' : 'false');
      });
      refilter();
    });
  });
  var timer = null;
  search.addEventListener('input', function () {
    clearTimeout(timer);
    timer = setTimeout(function () {
      state.query = search.value.trim().toLowerCase();
      refilter();
    }, 120);
  });
  prev.addEventListener('click', function () { if (state.page > 0) { state.page--; render(); } });
  next.addEventListener('click', function () { state.page++; render(); });
  first.addEventListener('click', function () { state.page = 0; render(); });
  last.addEventListener('click', function () { state.page = Math.ceil(view.length / PAGE) - 1; render(); });
  render();
})();
