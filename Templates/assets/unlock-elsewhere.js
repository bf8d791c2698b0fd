// A catalog for friends only, opened at an address its host has no file for: a friend follows a
// link to a book, or a barcode app opens lookup.html?isbn=…, before their browser has ever opened
// the catalog. The host keeps only sealed files under opaque names, so it answers with its 404.html,
// which is this page (reader-snapshot writes this script into it, allowed by its hash). The page
// finds the catalog's top, the nearest folder above the address that holds the catalog's lock.json,
// and sends the visitor to the door there with the address asked for: once the password is given,
// the door opens that address.
(function () {
  "use strict";
  var status = document.getElementById("unlock-elsewhere");
  var folders = location.pathname.split("/").slice(0, -1);
  // The catalog's pages are at its top or one folder below it, in one of these. The top is looked
  // for there first, then in every folder above, nearest first: a host asked for a lock.json that
  // is not there logs a 404 in the console, so the first guess should be the right one.
  var pageFolders = ["books", "shelves", "authors", "years"];
  var tops = [];
  for (var depth = folders.length - 1; depth >= 0 && tops.length < 12; depth--) tops.push(folders.slice(0, depth + 1).join("/") + "/");
  if (tops.length > 1 && pageFolders.indexOf(folders[folders.length - 1]) >= 0) tops.unshift(tops.splice(1, 1)[0]);
  function isLock(lock) { return lock && lock.format === 1 && typeof lock.check === "string" && typeof lock.salt === "string"; }
  function tryTop(index) {
    if (index >= tops.length) {
      status.textContent = status.getAttribute("data-missing");
      return;
    }
    var top = tops[index];
    fetch(top + "lock.json", { cache: "no-cache", credentials: "same-origin", redirect: "error" }).then(function (response) {
      return response.ok ? response.json() : null;
    }).then(function (lock) {
      if (!isLock(lock)) return tryTop(index + 1);
      var asked = location.pathname.slice(top.length) + location.search;
      location.replace(top + (asked ? "?next=" + encodeURIComponent(asked) : ""));
    }, function () { tryTop(index + 1); });
  }
  tryTop(0);
})();
