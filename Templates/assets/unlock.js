// The door of a catalog for friends only (reader-snapshot writes it beside the sealed files, with
// index.html, lock.json and sw.js). It makes the catalog's keys from the password the visitor
// types, with the browser's own Web Crypto (PBKDF2-SHA-256, then HKDF-SHA-256, as lock.json
// says), tells a wrong password by the check in lock.json, and hands the keys to the catalog's
// service worker, which opens each sealed file as the pages ask for it. Nothing leaves the browser.
(function () {
  "use strict";
  var form = document.getElementById("unlock");
  if (!form) return;
  var status = document.getElementById("unlock-status");
  var input = document.getElementById("unlock-password");
  var remember = document.getElementById("unlock-remember");
  var button = form.querySelector("button[type=submit]");
  var SESSION = "reader-snapshot:key";
  function say(name) { status.textContent = form.getAttribute("data-" + name) || ""; status.setAttribute("data-said", name); }
  // Where to go once open: the page first asked for (with its query, as lookup.html?isbn=…), when
  // it is one of this catalog's.
  function next() {
    var asked = new URLSearchParams(location.search).get("next") || "";
    var at = asked.indexOf("?");
    var path = at < 0 ? asked : asked.slice(0, at), query = at < 0 ? "" : asked.slice(at);
    var ours = /^[a-z0-9][a-z0-9._\/-]*$/i.test(path) && path.indexOf("..") < 0 && path.indexOf("//") < 0;
    return ours && /^(\?[a-z0-9=&%._+-]*)?$/i.test(query) ? path + query : "index.html";
  }

  if (!window.isSecureContext || !window.crypto || !crypto.subtle || !("serviceWorker" in navigator)) {
    var why = document.createElement("p");
    why.className = "unlock-problem";
    why.textContent = form.getAttribute(window.isSecureContext ? "data-unsupported" : "data-needs-https");
    form.parentNode.insertBefore(why, form);
    return;
  }
  form.hidden = false;
  var registered = navigator.serviceWorker.register("sw.js").then(function () { return navigator.serviceWorker.ready; });

  var encoder = new TextEncoder();
  function bytes(base64) { return Uint8Array.from(atob(base64), function (c) { return c.charCodeAt(0); }); }
  function base64(buffer) { return btoa(String.fromCharCode.apply(null, new Uint8Array(buffer))); }
  function hex(buffer) { return Array.from(new Uint8Array(buffer), function (b) { return (b < 16 ? "0" : "") + b.toString(16); }).join(""); }
  function lock() {
    return fetch("lock.json", { cache: "no-cache" }).then(function (response) {
      if (!response.ok) throw new Error("lock.json: " + response.status);
      return response.json();
    });
  }
  // The check tells the key without opening a file: HKDF-SHA-256 of the stretched password.
  function check(master) {
    return crypto.subtle.importKey("raw", master, "HKDF", false, ["deriveBits"]).then(function (base) {
      return crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode("reader-snapshot check") }, base, 128);
    }).then(hex);
  }
  function stretch(password, lockFile) {
    return crypto.subtle.importKey("raw", encoder.encode(password.normalize("NFC")), "PBKDF2", false, ["deriveBits"]).then(function (base) {
      return crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: bytes(lockFile.salt), iterations: lockFile.iterations }, base, 256);
    });
  }
  function handOver(master, keep) {
    return registered.then(function (registration) {
      return new Promise(function (resolve, reject) {
        var channel = new MessageChannel();
        channel.port1.onmessage = function (event) { (event.data && event.data.type === "unlocked" ? resolve : reject)(event.data); };
        registration.active.postMessage({ type: "unlock", master: master, remember: keep }, [channel.port2]);
      });
    }).then(function () {
      try {
        if (keep) sessionStorage.removeItem(SESSION); else sessionStorage.setItem(SESSION, base64(master));
      } catch (error) { /* storage refused: the password is asked again when the worker restarts */ }
      location.replace(next());
    });
  }
  function open(master, lockFile, keep) {
    return check(master).then(function (made) {
      if (made !== lockFile.check) return false;
      return handOver(master, keep).then(function () { return true; });
    });
  }

  // Opened earlier in this tab: the key kept for the session opens the catalog again.
  var kept = null;
  try { kept = sessionStorage.getItem(SESSION); } catch (error) { kept = null; }
  if (kept) {
    say("working");
    lock().then(function (lockFile) { return open(bytes(kept).buffer, lockFile, false); }).then(function (opened) {
      if (!opened) { sessionStorage.removeItem(SESSION); status.textContent = ""; }
    }, function () { status.textContent = ""; });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (!input.value) return;
    button.disabled = true;
    say("working");
    lock().then(function (lockFile) {
      return stretch(input.value, lockFile).then(function (master) { return open(master, lockFile, remember.checked); });
    }).then(function (opened) {
      button.disabled = false;
      if (!opened) { say("wrong"); input.select(); input.focus(); }
    }, function () {
      button.disabled = false;
      say("failed");
    });
  });
})();
