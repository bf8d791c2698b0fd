// Offline search over the snapshot: the index is a script (search-index.js), not a fetched JSON
// file, so that it works opened from file:// too. Without JavaScript the form stays hidden and the
// pages work as they are.
(function () {
  "use strict";
  var form = document.getElementById("search");
  var books = window.READER_SEARCH;
  if (!form || !books) return;
  var input = document.getElementById("search-query");
  var list = document.getElementById("search-results");
  var status = document.getElementById("search-status");
  var root = form.getAttribute("data-root") || "";
  var limit = 50;
  var haystacks = books.map(function (book) {
    return [book.t, book.a, book.i, book.s, book.n, book.j || ""].join("\n").toLowerCase();
  });
  form.hidden = false;

  function show(query) {
    var terms = query.toLowerCase().split(/\s+/).filter(Boolean);
    list.textContent = "";
    if (!terms.length) { status.textContent = ""; return; }
    var found = 0;
    for (var i = 0; i < books.length; i++) {
      var text = haystacks[i], match = true;
      for (var j = 0; j < terms.length; j++) {
        if (text.indexOf(terms[j]) < 0) { match = false; break; }
      }
      if (!match) continue;
      found++;
      if (found > limit) continue;
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = root + books[i].h;
      link.textContent = books[i].t;
      item.appendChild(link);
      var details = [books[i].a, books[i].s].filter(Boolean).join(" · ");
      if (details) {
        var span = document.createElement("span");
        span.className = "count";
        span.textContent = " " + details;
        item.appendChild(span);
      }
      list.appendChild(item);
    }
    status.textContent = found === 0 ? "No book matches." :
      found > limit ? found + " books match; the first " + limit + " are shown." :
      found === 1 ? "1 book matches." : found + " books match.";
  }

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
