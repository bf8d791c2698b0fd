// Sorting the all-books page by title, author, shelf or date added; a second click on the same
// button reverses the order. Books of one author or shelf stay in title order. The order is kept
// in the address (#sort=author, #sort=author-reversed), so that Back comes back to it. Without
// JavaScript the list stays in title order and the buttons stay hidden.
(function () {
  "use strict";
  var controls = document.getElementById("sort");
  var list = document.querySelector("#all-books .book-list");
  if (!controls || !list) return;
  controls.hidden = false;
  var buttons = controls.querySelectorAll("button[data-sort]");
  // English pages sort by keys already folded (case and accents ignored), as they always have;
  // other languages by the browser's collation for the page's language (German "Ä" with "A").
  var lang = document.documentElement.lang || "en";
  var collator = lang !== "en" && window.Intl && Intl.Collator ? new Intl.Collator(lang) : null;
  var current = "title", reversed = false;
  function compare(a, b, key) {
    var x = a.getAttribute("data-" + key) || "\uffff", y = b.getAttribute("data-" + key) || "\uffff";
    if (key === "added") { var t = x; x = y; y = t; } // newest first
    return collator && key !== "added" ? collator.compare(x, y) : x < y ? -1 : x > y ? 1 : 0;
  }
  function sortBy(key, reverse) {
    var items = Array.prototype.slice.call(list.children);
    items.sort(function (a, b) {
      // Only the key's order is reversed: an author's books stay in title order either way.
      var order = compare(a, b, key);
      if (reverse) order = -order;
      return order || (key === "title" ? 0 : compare(a, b, "title")) ||
        Number(a.getAttribute("data-id")) - Number(b.getAttribute("data-id"));
    });
    items.forEach(function (item) { list.appendChild(item); });
    buttons.forEach(function (button) {
      var pressed = button.getAttribute("data-sort") === key;
      button.setAttribute("aria-pressed", String(pressed));
      if (pressed) button.setAttribute("data-direction", reverse ? "descending" : "ascending");
      else button.removeAttribute("data-direction");
    });
    current = key;
    reversed = reverse;
  }
  buttons.forEach(function (button) {
    button.addEventListener("click", function () {
      var key = button.getAttribute("data-sort");
      sortBy(key, key === current ? !reversed : false);
      try { history.replaceState(null, "", "#sort=" + key + (reversed ? "-reversed" : "")); } catch (error) {}
    });
  });
  var kept = /^#sort=(title|author|shelf|added)(-reversed)?$/.exec(location.hash);
  if (kept) sortBy(kept[1], Boolean(kept[2]));
})();
