// po-node catalogue: search and filters over the server-rendered table. Row i of the table is EPD i of the index
// (epd/index.json, schemas/catalogue-index.schema.json); the script only hides rows, so the page works without it.
// Text goes into the page through textContent and option constructors only: names in EPDs are hostile input.
(function () {
  'use strict';
  var table = document.getElementById('epds');
  var count = document.getElementById('count');
  if (!table || !count) return;
  var rows = Array.prototype.slice.call(table.tBodies[0].rows);
  var tools = document.getElementById('tools');
  var q = document.getElementById('q');
  var fClass = document.getElementById('f-class');
  var fLoc = document.getElementById('f-loc');
  var fValid = document.getElementById('f-valid');
  var VALIDITY = [
    ['valid', 'Valid'],
    ['expiring', 'Expiring this year'],
    ['expired', 'Expired']
  ];
  var epds = [];

  // Case and accents folded: "holzboden" finds "Holzböden" (ASCII text, the most of it, skips the normalisation).
  function fold(s) {
    return (/^[\x00-\x7f]*$/.test(s) ? s : s.normalize('NFD').replace(/[\u0300-\u036f]/g, '')).toLowerCase();
  }
  // The index belongs to this page when it has its rows, first and last in the same place (a cached older index has not).
  function matches(ix) {
    function at(i) {
      var a = rows[i].querySelector('a');
      return a && a.getAttribute('href').indexOf(ix.epds[i].uuid) >= 0;
    }
    return ix && Array.isArray(ix.epds) && ix.epds.length === rows.length && (!rows.length || (at(0) && at(rows.length - 1)));
  }
  function plural(n) {
    return n.toLocaleString('en') + (n === 1 ? ' EPD' : ' EPDs');
  }
  function option(select, value, label) {
    select.appendChild(new Option(label, value));
  }
  /** Options of a filter: values sorted, each with the number of EPDs it keeps. */
  function fill(select, counts, label) {
    Object.keys(counts)
      .sort()
      .forEach(function (v) {
        option(select, v, (label ? label(v) : v) + ' (' + counts[v] + ')');
      });
  }
  function tally(counts, k) {
    counts[k] = (counts[k] || 0) + 1;
  }

  function init(ix) {
    if (!matches(ix)) throw new Error('the search index does not match this page');
    var classes = ix.classifications.map(function (c) {
      // Every level of a classification is a filter value: "Holz" keeps "Holz / Holzböden / Parkett".
      var keys = [];
      for (var i = 2; i <= c.length; i++) keys.push((c[0] ? c[0] + ': ' : '') + c.slice(1, i).join(' / '));
      return keys;
    });
    var byClass = {};
    var byLoc = {};
    var byValid = {};
    epds = ix.epds.map(function (e) {
      var orgs = [e.operator, e.manufacturer].map(function (o) {
        return o === undefined ? '' : ix.organisations[o];
      });
      var text = e.names.map(function (n) {
        return n[1];
      });
      var keys = {};
      (e.classes || []).forEach(function (c) {
        text = text.concat(ix.classifications[c].slice(1));
        classes[c].forEach(function (k) {
          keys[k] = true;
        });
      });
      Object.keys(keys).forEach(function (k) {
        tally(byClass, k);
      });
      if (e.location) tally(byLoc, e.location);
      if (e.validity) tally(byValid, e.validity);
      return {
        text: fold(text.concat([e.reg || '', e.uuid], orgs).join('\n')),
        classes: keys,
        location: e.location || '',
        validity: e.validity || ''
      };
    });
    fill(fClass, byClass, function (k) {
      // Indented by level; the system name shown once, on its top level.
      var depth = k.split(' / ').length - 1;
      return depth ? '\u00a0\u00a0'.repeat(depth) + '\u2514 ' + k.slice(k.lastIndexOf(' / ') + 3) : k;
    });
    fill(fLoc, byLoc);
    VALIDITY.forEach(function (v) {
      if (byValid[v[0]]) option(fValid, v[0], v[1] + ' (' + byValid[v[0]] + ')');
    });
    readHash();
    [q, fClass, fLoc, fValid].forEach(function (el) {
      el.addEventListener(el === q ? 'input' : 'change', schedule);
    });
    window.addEventListener('hashchange', function () {
      readHash();
      apply(false);
    });
    tools.hidden = false;
    apply(false);
    document.documentElement.setAttribute('data-catalogue', 'ready');
    if (window.performance && performance.mark) performance.mark('catalogue-ready');
  }

  var STATE = { q: q, class: fClass, loc: fLoc, valid: fValid };
  function readHash() {
    var p = new URLSearchParams(location.hash.slice(1));
    Object.keys(STATE).forEach(function (k) {
      var el = STATE[k];
      var v = p.get(k) || '';
      // A value no option has (an old link) leaves the filter at "All".
      if (el.tagName === 'SELECT' && !Array.prototype.some.call(el.options, function (o) { return o.value === v; })) v = '';
      el.value = v;
    });
  }
  function writeHash() {
    var p = new URLSearchParams();
    Object.keys(STATE).forEach(function (k) {
      if (STATE[k].value) p.set(k, STATE[k].value);
    });
    var s = p.toString();
    history.replaceState(null, '', s ? '#' + s : location.pathname + location.search);
  }

  var pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      apply(true);
    });
  }
  /** Show the rows that match every word and every filter; only rows whose state changes are touched. */
  function apply(remember) {
    var words = fold(q.value).split(/\s+/).filter(Boolean);
    var cls = fClass.value;
    var loc = fLoc.value;
    var valid = fValid.value;
    var shown = 0;
    for (var i = 0; i < epds.length; i++) {
      var e = epds[i];
      var ok = (!cls || e.classes[cls] === true) && (!loc || e.location === loc) && (!valid || e.validity === valid);
      for (var w = 0; ok && w < words.length; w++) ok = e.text.indexOf(words[w]) >= 0;
      if (rows[i].hidden === ok) rows[i].hidden = !ok;
      if (ok) shown++;
    }
    var filtered = words.length || cls || loc || valid;
    count.textContent = filtered
      ? shown
        ? 'Showing ' + plural(shown) + ' of ' + epds.length.toLocaleString('en') + '.'
        : 'No EPD matches; ' + plural(epds.length) + ' in all.'
      : plural(epds.length) + '.';
    table.hidden = shown === 0;
    if (remember) writeHash();
  }

  fetch(table.getAttribute('data-index'))
    .then(function (r) {
      if (!r.ok) throw new Error('HTTP ' + r.status);
      return r.json();
    })
    .then(init)
    .catch(function (err) {
      tools.hidden = true;
      rows.forEach(function (r) {
        r.hidden = false;
      });
      count.textContent = 'Search is not available (' + err.message + '); the table lists every EPD.';
    });
})();
