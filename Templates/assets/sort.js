// Sorting the all-books page by title, author, shelf or date added. Without JavaScript the list
// stays in title order and the buttons stay hidden.
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
  function sortBy(key) {
    var items = Array.prototype.slice.call(list.children);
    items.sort(function (a, b) {
      var x = a.getAttribute("data-" + key) || "\uffff", y = b.getAttribute("data-" + key) || "\uffff";
      if (key === "added") { var t = x; x = y; y = t; } // newest first
      var order = collator && key !== "added" ? collator.compare(x, y) : x < y ? -1 : x > y ? 1 : 0;
      return order || Number(a.getAttribute("data-id")) - Number(b.getAttribute("data-id"));
    });
    items.forEach(function (item) { list.appendChild(item); });
    buttons.forEach(function (button) {
      button.setAttribute("aria-pressed", String(button.getAttribute("data-sort") === key));
    });
  }
  buttons.forEach(function (button) {
    button.addEventListener("click", function () { sortBy(button.getAttribute("data-sort")); });
  });
})();
