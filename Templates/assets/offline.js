// The catalog as an installable web app, kept for offline use, when it is served over http(s):
// the page links the web app manifest and registers the catalog's service worker (sw.js), then
// says in its footer what is kept, with a button to free it (and, for a big library, one to keep
// every book). Opened from file://, nothing of this happens and the page is as it was.
(function () {
  "use strict";
  // In a catalog for friends only, the worker forgets the keys when it is stopped, and asks the
  // page for those the door kept for this browser's session.
  var SESSION = "reader-snapshot:key";
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.addEventListener("message", function (event) {
      if (!event.data || event.data.type !== "key?" || !event.ports[0]) return;
      var kept = null;
      try { kept = sessionStorage.getItem(SESSION); } catch (error) { kept = null; }
      event.ports[0].postMessage({ type: "key", key: kept });
    });
  }
  var line = document.getElementById("offline");
  if (!line || !/^https?:$/.test(location.protocol) || !("serviceWorker" in navigator) || !window.caches) return;
  var root = line.getAttribute("data-root") || "";
  var manifest = document.createElement("link");
  manifest.rel = "manifest";
  manifest.href = root + "manifest.webmanifest";
  document.head.appendChild(manifest);

  var lang = document.documentElement.lang || "en";
  var plurals = window.Intl && Intl.PluralRules ? new Intl.PluralRules(lang) : null;
  var numbers = window.Intl ? new Intl.NumberFormat(lang) : null;
  function said(name) { return line.getAttribute("data-" + name) || ""; }
  function counted(name, count) {
    var category = plurals ? plurals.select(count) : (count === 1 ? "one" : "other");
    var text = line.getAttribute("data-" + name + "-" + category) || line.getAttribute("data-" + name + "-other") || "";
    return text.split("{count}").join(numbers ? numbers.format(count) : String(count));
  }
  function megabytes(bytes) {
    var value = bytes / 1048576;
    return (numbers ? new Intl.NumberFormat(lang, { maximumFractionDigits: value < 10 ? 1 : 0 }).format(value) : value.toFixed(1)) + " MB";
  }
  function day(iso) {
    var date = new Date(iso);
    if (isNaN(date)) return iso;
    try { return new Intl.DateTimeFormat(lang, { day: "numeric", month: "long", timeZone: "UTC" }).format(date); } catch (error) { return iso.slice(0, 10); }
  }

  // "Free this space" lasts: this browser keeps nothing of the catalog until the reader asks again.
  var FREED = "reader-snapshot:freed";
  function isFreed() { try { return localStorage.getItem(FREED) === "1"; } catch (error) { return false; } }

  var text = document.createElement("span");
  var keep = document.createElement("button");
  keep.type = "button";
  keep.className = "offline-button";
  keep.textContent = said("keep") || "Keep for offline use";
  keep.hidden = true;
  var free = document.createElement("button");
  free.type = "button";
  free.className = "offline-button";
  free.textContent = said("free");
  var everything = document.createElement("button");
  everything.type = "button";
  everything.className = "offline-button";
  everything.textContent = said("everything");
  everything.hidden = true;
  line.appendChild(text);
  line.appendChild(document.createTextNode(" "));
  line.appendChild(everything);
  line.appendChild(document.createTextNode(" "));
  line.appendChild(free);
  line.appendChild(keep);

  function show(status) {
    if (!status || status.type !== "status" || !status.snapshot) return;
    var usage = navigator.storage && navigator.storage.estimate ? navigator.storage.estimate() : Promise.resolve({});
    usage.then(function (estimate) {
      var books = counted("books", status.books);
      var parts = [said(status.keeping ? "keeping" : "kept").split("{books}").join(books)
        .split("{size}").join(estimate.usage ? megabytes(estimate.usage) : "").split("{date}").join(day(status.snapshot))];
      text.textContent = parts.join("");
      line.setAttribute("data-books", String(status.books));
      line.setAttribute("data-snapshot", status.snapshot);
      line.setAttribute("data-id", status.id);
      if (status.ready) {
        line.setAttribute("data-ready-id", status.readyID);
        parts.push(" " + said("ready").split("{date}").join(day(status.ready)));
        text.textContent = parts.join("");
      }
      everything.hidden = status.whole || status.everything;
      line.hidden = false;
      // While the pages are being kept, the count moves.
      if (status.keeping) setTimeout(function () { ask("status"); }, 3000);
    });
  }

  navigator.serviceWorker.addEventListener("message", function (event) {
    if (event.data && event.data.type === "freed") {
      try { sessionStorage.removeItem(SESSION); } catch (error) { /* nothing kept */ }
      try { localStorage.setItem(FREED, "1"); } catch (error) { /* the next page keeps it again */ }
      text.textContent = said("freed");
      free.hidden = everything.hidden = true;
    } else {
      show(event.data);
    }
  });
  function ask(type) {
    var worker = navigator.serviceWorker.controller;
    if (worker) worker.postMessage({ type: type });
  }
  free.addEventListener("click", function () { ask("free"); });
  everything.addEventListener("click", function () { everything.hidden = true; ask("everything"); });

  keep.addEventListener("click", function () {
    try { localStorage.removeItem(FREED); } catch (error) { /* asked again on the next page */ }
    keep.hidden = true;
    free.hidden = false;
    text.textContent = "";
    start();
  });

  function start() {
    navigator.serviceWorker.register(root + "sw.js").then(function () {
      return navigator.serviceWorker.ready;
    }).then(function () {
      if (navigator.serviceWorker.controller) {
        ask("status");
        ask("check");
      } else {
        navigator.serviceWorker.addEventListener("controllerchange", function () { ask("status"); ask("check"); });
      }
    }).catch(function () { /* a host that serves no worker: the catalog stays online only */ });
  }

  // Freed on this browser: the worker is not registered again (a catalog for friends only, whose
  // pages its worker opens, registers it at its door, and keeps nothing until asked).
  if (isFreed()) {
    text.textContent = said("off") || "Not kept on this device.";
    free.hidden = true;
    keep.hidden = false;
    line.hidden = false;
  } else {
    start();
  }
})();
