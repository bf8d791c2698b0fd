// Offline search over the snapshot, whose cost grows with the query, not the library. The index is
// split into small scripts in assets/search/ (written by reader-snapshot): the page loads none of
// them; a query loads the manifest, the shard of terms for each of its words, and what its first
// results show. Scripts, not fetched JSON, so that it works opened from file:// too. Without
// JavaScript the form stays hidden and the pages work as they are.
(function () {
  "use strict";
  var form = document.getElementById("search");
  if (!form) return;
  var input = document.getElementById("search-query");
  var list = document.getElementById("search-results");
  var status = document.getElementById("search-status");
  var root = form.getAttribute("data-root") || "";
  var base = root + "assets/search/";
  var more = document.getElementById("search-more");
  // Twenty results are shown first; "Show more" shows as many again each time (40, 80, 160, …),
  // so that 600 matches take five clicks, not twenty-nine.
  var step = 20, limit = step, lastFound = null, lastQuery = "";
  var manifest = null, split = {}, shards = {}, chunks = {}, loading = {}, sequence = 0;

  // The status line's words come from the page, in its language (the templates' strings files);
  // the plural form for a count from the browser's CLDR rules for that language.
  // Numbers as the pages write them: as ICU does in the page's language ("1,062", "1.062").
  var plurals = window.Intl && Intl.PluralRules ? new Intl.PluralRules(document.documentElement.lang || "en") : null;
  var numbers = window.Intl ? new Intl.NumberFormat(document.documentElement.lang || "en") : null;
  function number(value) { return numbers ? numbers.format(value) : String(value); }
  function said(name, fallback) { return form.getAttribute("data-" + name) || fallback; }
  function counted(name, count, fallback) {
    var category = plurals ? plurals.select(count) : (count === 1 ? "one" : "other");
    var text = form.getAttribute("data-" + name + "-" + category) || form.getAttribute("data-" + name + "-other") || fallback;
    return text.split("{count}").join(number(count)).split("{limit}").join(number(limit));
  }

  // What the index's scripts call when they load.
  window.READER_SEARCH = {
    manifest: function (value) {
      manifest = value;
      value.split.forEach(function (key) { split[key] = true; });
    },
    terms: function (key, terms) { shards[key] = terms; },
    books: function (first, books) { chunks[first] = books; }
  };

  // One script, once; resolves false when it is not there (a shard no term begins with).
  function load(file) {
    if (!loading[file]) {
      loading[file] = new Promise(function (resolve) {
        var script = document.createElement("script");
        script.src = base + file;
        script.onload = function () { resolve(true); };
        script.onerror = function () { resolve(false); };
        document.head.appendChild(script);
      });
    }
    return loading[file];
  }

  // As reader-snapshot folds the terms: decomposed, accents dropped, lowercased, split at anything
  // not a letter, digit or mark; words of one character are left out.
  function words(text) {
    return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
      .split(/[^\p{L}\p{N}\p{M}]+/u).filter(function (word) { return Array.from(word).length >= 2; });
  }

  function hex(text) {
    return Array.from(new TextEncoder().encode(text), function (byte) {
      return (byte < 16 ? "0" : "") + byte.toString(16);
    }).join("");
  }

  // The shard a word's terms are in: its first two characters, one more while that shard is split.
  function shardKey(word) {
    var scalars = Array.from(word), length = 2;
    while (split[scalars.slice(0, length).join("")] && scalars.length > length) length++;
    return scalars.slice(0, length).join("");
  }

  // Whether the index has a shard for `key` (a manifest written before it listed them: any).
  function hasShard(key) {
    if (!manifest.shards) return true;
    var scalars = Array.from(key), children = manifest.shards[scalars.slice(0, -1).join("")];
    return children !== undefined && Array.from(children).indexOf(scalars[scalars.length - 1]) >= 0;
  }

  // The books (by number) whose terms begin with `word`, each once, in order.
  function booksFor(word) {
    var terms = shards[shardKey(word)] || {}, found = [];
    for (var term in terms) {
      if (term.lastIndexOf(word, 0) !== 0) continue;
      var number = 0, gaps = terms[term].split(",");
      for (var i = 0; i < gaps.length; i++) { number += +gaps[i]; found.push(number); }
    }
    found.sort(function (a, b) { return a - b; });
    return found.filter(function (number, i) { return i === 0 || found[i - 1] !== number; });
  }

  function intersect(a, b) {
    var result = [], i = 0, j = 0;
    while (i < a.length && j < b.length) {
      if (a[i] < b[j]) i++; else if (a[i] > b[j]) j++; else { result.push(a[i]); i++; j++; }
    }
    return result;
  }

  // The books of the results shown, loaded.
  function withBooks(found) {
    var needed = {};
    found.slice(0, limit).forEach(function (number) { needed[Math.floor(number / manifest.chunk)] = true; });
    return Promise.all(Object.keys(needed).map(function (first) { return load("b-" + first + ".js"); })).then(function () { return found; });
  }

  function render(found, query) {
    lastFound = found;
    lastQuery = query;
    list.textContent = "";
    // What the results answer: a query typed on may show them a moment before its own.
    list.setAttribute("data-query", query);
    found.slice(0, limit).forEach(function (number) {
      var chunk = chunks[Math.floor(number / manifest.chunk)];
      var book = chunk && chunk[number % manifest.chunk];
      if (!book) return;
      // The cover's thumbnail, then the title (the link) over its author and shelf.
      var item = document.createElement("li");
      item.className = "search-result";
      var image = document.createElement(book[4] ? "img" : "span");
      image.className = book[4] ? "cover" : "cover placeholder";
      if (book[4]) { image.src = root + book[4]; image.alt = ""; } else { image.setAttribute("aria-hidden", "true"); }
      item.appendChild(image);
      var text = document.createElement("span");
      text.className = "search-text";
      var link = document.createElement("a");
      link.href = root + book[3];
      link.textContent = book[0];
      text.appendChild(link);
      var details = [book[1], book[2]].filter(Boolean).join(" · ");
      if (details) {
        var span = document.createElement("span");
        span.className = "count";
        span.textContent = details;
        text.appendChild(span);
      }
      item.appendChild(text);
      list.appendChild(item);
    });
    status.textContent = found.length === 0 ? said("no-match", "No book matches.") :
      found.length > limit ? counted("shown", found.length, "{count} books match; the first {limit} are shown.") :
      counted("matches", found.length, "{count} books match.");
    if (more) more.hidden = found.length <= limit;
  }

  function show(query) {
    var current = ++sequence;
    var wanted = words(query);
    limit = step;
    if (more) more.hidden = true;
    if (!wanted.length) {
      list.textContent = "";
      status.textContent = query.trim() ? said("too-short", "Type at least two letters.") : "";
      return;
    }
    load("manifest.js").then(function () {
      if (!manifest) throw new Error("the search index is missing");
      return Promise.all(wanted.map(function (word) { return hasShard(shardKey(word)) ? load("t-" + hex(shardKey(word)) + ".js") : null; }));
    }).then(function () {
      if (current !== sequence) return null;
      var found = booksFor(wanted[0]);
      for (var i = 1; i < wanted.length && found.length; i++) found = intersect(found, booksFor(wanted[i]));
      return withBooks(found);
    }).then(function (found) {
      if (found && current === sequence) render(found, query);
    }).catch(function () {
      if (current === sequence) status.textContent = said("failed", "The search index could not be loaded.");
    });
  }

  if (more) more.addEventListener("click", function () {
    if (!lastFound) return;
    var current = sequence, from = limit;
    limit += limit;
    withBooks(lastFound).then(function (found) {
      if (current !== sequence) return;
      render(found, lastQuery);
      // On to the first of the new results, for the keyboard and screen readers.
      var next = list.querySelectorAll("a")[from];
      if (next) next.focus();
    });
  });
  form.hidden = false;
  input.addEventListener("input", function () { show(input.value); });
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var first = list.querySelector("a");
    if (first) first.focus();
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "/" && document.activeElement !== input) {
      event.preventDefault();
      input.focus();
    } else if (event.key === "Escape" && document.activeElement === input) {
      input.value = "";
      show("");
    }
  });
  if (input.value) show(input.value);
})();
