// "Do I have it?": an ISBN typed, pasted, scanned or given as lookup.html?isbn=…, looked up in
// assets/lookup/ (written by reader-snapshot). A lookup loads the manifest and one small shard, as
// scripts, so that it works opened from file:// too, and offline once the catalog is kept.
// Without JavaScript the form stays hidden and the page says what is needed.
(function () {
  "use strict";

  // The twelve digits a book is looked up by (its ISBN-13 without the check digit), or why the
  // text cannot be one: "empty" or "length". Hyphens, spaces and an "ISBN" label are left out; an
  // ISBN-10 becomes its ISBN-13. A number that is not a book's ("notBook": an EAN that does not
  // begin with 978 or 979, such as a bookseller's own number or a UPC) or whose check digit is
  // wrong ("check") is still looked up, as the server may store such a number for a book: the
  // problem is said only when no book has it.
  function parse(text) {
    var compact = String(text).toUpperCase().replace(/^\s*ISBN(-1[03])?:?/, "").replace(/[\s\-\u2010-\u2015.]/g, "");
    if (!compact) return { error: "empty" };
    var digits, sum, i;
    if (/^[0-9]{9}[0-9X]$/.test(compact)) {
      for (sum = 0, i = 0; i < 10; i++) sum += (10 - i) * (compact[i] === "X" ? 10 : +compact[i]);
      digits = "978" + compact.slice(0, 9);
      return { key: digits, isbn13: digits + checkDigit(digits), problem: sum % 11 !== 0 ? "check" : null };
    }
    if (/^[0-9]{13}$/.test(compact)) {
      var problem = compact.slice(0, 3) !== "978" && compact.slice(0, 3) !== "979" ? "notBook"
        : checkDigit(compact.slice(0, 12)) !== compact[12] ? "check" : null;
      return { key: compact.slice(0, 12), isbn13: compact, problem: problem };
    }
    return { error: "length" };
  }

  // The EAN-13 check digit of twelve digits.
  function checkDigit(twelve) {
    for (var sum = 0, i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * +twelve[i];
    return String((10 - sum % 10) % 10);
  }

  // An author's name as reader-snapshot keys it (LookupIndex.authorKey): compatibility-decomposed,
  // without accents, lower case, its words in order.
  function authorKey(name) {
    var words = String(name).normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().match(/[\p{L}\p{N}]+/gu) || [];
    return words.sort().join(" ");
  }

  // FNV-1a, 32 bits, of the key's UTF-8: the shard its author is in.
  function fnv1a(key) {
    var bytes = new TextEncoder().encode(key), hash = 0x811c9dc5;
    for (var i = 0; i < bytes.length; i++) hash = Math.imul(hash ^ bytes[i], 0x01000193) >>> 0;
    return hash;
  }

  var manifest = null, shards = {}, authorShards = {}, loading = {};
  window.READER_LOOKUP = {
    manifest: function (value) { manifest = value; },
    shard: function (key, books) { shards[key] = books; },
    authors: function (number, authors) { authorShards[number] = authors; },
    parse: parse,
    authorKey: authorKey
  };

  var form = document.getElementById("lookup");
  if (!form) return;
  var input = document.getElementById("lookup-isbn");
  var status = document.getElementById("lookup-status");
  var answer = document.getElementById("lookup-answer");
  var scan = document.getElementById("lookup-scan");
  var camera = document.getElementById("lookup-camera");
  var root = form.getAttribute("data-root") || "";
  // With --lookup-online: the Open Library asked about an ISBN the library lacks.
  var online = form.getAttribute("data-online");
  var base = root + "assets/lookup/";
  var sequence = 0;

  // Numbers as the pages write them: as ICU does in the page's language ("1,062", "1.062").
  var plurals = window.Intl && Intl.PluralRules ? new Intl.PluralRules(document.documentElement.lang || "en") : null;
  var numbers = window.Intl ? new Intl.NumberFormat(document.documentElement.lang || "en") : null;
  function said(name, fallback) { return form.getAttribute("data-" + name) || fallback; }
  function counted(name, count, fallback) {
    var category = plurals ? plurals.select(count) : (count === 1 ? "one" : "other");
    var text = form.getAttribute("data-" + name + "-" + category) || form.getAttribute("data-" + name + "-other") || fallback;
    return text.split("{count}").join(numbers ? numbers.format(count) : String(count));
  }

  // One script, once; resolves false when it is not there.
  function load(file) {
    if (!loading[file]) {
      loading[file] = new Promise(function (resolve) {
        var script = document.createElement("script");
        script.src = base + file;
        script.onload = function () { resolve(true); };
        script.onerror = function () { delete loading[file]; resolve(false); };
        document.head.appendChild(script);
      });
    }
    return loading[file];
  }

  // The books whose key is `key`: every copy the library holds.
  function find(key) {
    return load("manifest.js").then(function () {
      if (!manifest) throw new Error("the lookup index is missing");
      var shard = key.slice(key.length - manifest.digits);
      if (manifest.shards.indexOf(shard) === -1) return [];
      return load("l-" + shard + ".js").then(function (loaded) {
        if (!loaded || !shards[shard]) throw new Error("the lookup index is missing a shard");
        return shards[shard].filter(function (book) { return book[0] === key; });
      });
    });
  }

  // A link to a page of the catalog.
  function anchor(text, href) {
    var link = document.createElement("a");
    link.href = root + href;
    link.textContent = text;
    return link;
  }

  function item(book) {
    // The cover's thumbnail, then the title (the link), its author and shelf, and the note's first words.
    var li = document.createElement("li");
    li.className = "lookup-book";
    var image = document.createElement(book[5] ? "img" : "span");
    image.className = book[5] ? "cover" : "cover placeholder";
    if (book[5]) {
      image.src = root + book[5];
      if (book[6] && book[6] !== book[5]) image.srcset = root + book[5] + " 1x, " + root + book[6] + " 2x";
      image.alt = "";
    } else {
      image.setAttribute("aria-hidden", "true");
    }
    li.appendChild(image);
    var text = document.createElement("span");
    text.className = "lookup-text";
    text.appendChild(anchor(book[1], book[4]));
    var details = [book[2], book[3]].filter(Boolean).join(" · ");
    if (details) {
      var span = document.createElement("span");
      span.className = "count";
      span.textContent = details;
      text.appendChild(span);
    }
    if (book[7]) {
      var note = document.createElement("span");
      note.className = "lookup-note";
      note.textContent = book[7];
      text.appendChild(note);
    }
    li.appendChild(text);
    return li;
  }

  // The library's author whose key is `key`, if any.
  function author(key) {
    return load("manifest.js").then(function () {
      if (!manifest || !manifest.authorShards) return null;
      var number = fnv1a(key) % manifest.authorShards;
      return load("a-" + number + ".js").then(function (loaded) {
        var found = loaded && authorShards[number] ? authorShards[number].filter(function (entry) { return entry[0] === key; }) : [];
        return found[0] || null;
      });
    });
  }

  function line(text, className) {
    var li = document.createElement("li");
    li.className = className;
    li.textContent = text;
    return li;
  }

  // An ISBN the library lacks, asked of Open Library: its title and authors, then the library's
  // books by those authors. The request carries the ISBN alone: no cookie, no referrer.
  function askOnline(isbn13, current) {
    var address = online + "api/books.json?bibkeys=ISBN:" + isbn13 + "&format=json&jscmd=data";
    fetch(address, { credentials: "omit", referrerPolicy: "no-referrer", cache: "no-store" }).then(function (response) {
      return response.ok ? response.json() : null;
    }).then(function (reply) {
      var edition = reply && reply["ISBN:" + isbn13];
      if (!edition || current !== sequence) return null;
      var names = (edition.authors || []).map(function (named) { return named && typeof named.name === "string" ? named.name : ""; })
        .filter(Boolean).slice(0, 5);
      var title = typeof edition.title === "string" ? edition.title : "";
      if (!title && !names.length) return null;
      answer.appendChild(line(said("open-library", "").split("{title}").join(title || isbn13).split("{author}").join(names.join(", ")), "lookup-online lookup-named"));
      form.setAttribute("data-online-answer", "named");
      return Promise.all(names.map(function (name) { return author(authorKey(name)); })).then(function (found) {
        if (current !== sequence) return;
        var shown = 0;
        found.forEach(function (entry) {
          if (!entry || !entry[4].length) return;
          shown += 1;
          answer.appendChild(line(said("same-author", "").split("{author}").join(entry[1]), "lookup-online"));
          entry[4].forEach(function (book) {
            var li = document.createElement("li");
            li.className = "lookup-by-author";
            li.appendChild(anchor(book[0], book[1]));
            answer.appendChild(li);
          });
          var all = document.createElement("li");
          all.className = "lookup-online";
          all.appendChild(anchor(said("author-page", "").split("{author}").join(entry[1]) + " (" + entry[3] + ")", entry[2]));
          answer.appendChild(all);
        });
        form.setAttribute("data-online-answer", shown ? "same-author" : "named");
      });
    }).catch(function () { /* offline, or Open Library did not answer: the catalog's own answer stands */ });
  }

  function show(text) {
    var current = ++sequence;
    var parsed = parse(text);
    answer.textContent = "";
    form.removeAttribute("data-answer");
    form.removeAttribute("data-online-answer");
    if (parsed.error) {
      status.textContent = parsed.error === "empty" ? "" : said(parsed.error, "");
      if (parsed.error !== "empty") form.setAttribute("data-answer", "error");
      return;
    }
    // The address says what was looked up: Back, a bookmark or a shared link shows it again.
    if (window.history && history.replaceState) {
      try { history.replaceState(null, "", "?isbn=" + parsed.isbn13); } catch (error) { /* file:// in some browsers */ }
    }
    find(parsed.key).then(function (books) {
      if (current !== sequence) return;
      if (!books.length && parsed.problem) {
        // No book has it, and it cannot be an ISBN: that is the answer.
        status.textContent = said(parsed.problem === "notBook" ? "not-book" : "check", "");
        form.setAttribute("data-answer", "error");
        return;
      }
      status.textContent = books.length ? counted("found", books.length, "In the library.") : said("not-found", "Not in the library.");
      books.forEach(function (book) { answer.appendChild(item(book)); });
      form.setAttribute("data-answer", books.length ? "found" : "not-found");
      if (!books.length && online) askOnline(parsed.isbn13, current);
    }).catch(function () {
      if (current !== sequence) return;
      status.textContent = said("failed", "The lookup index could not be loaded.");
      form.setAttribute("data-answer", "error");
    });
  }

  // A phone's camera reads the barcode where the browser has a detector for it; elsewhere the
  // button is not shown.
  var stream = null;
  function stopCamera() {
    if (stream) stream.getTracks().forEach(function (track) { track.stop(); });
    stream = null;
    camera.hidden = true;
    scan.textContent = said("scan", "Scan");
  }
  if (scan && camera && "BarcodeDetector" in window && navigator.mediaDevices && navigator.mediaDevices.getUserMedia) {
    scan.hidden = false;
    scan.addEventListener("click", function () {
      if (stream) { stopCamera(); return; }
      var detector = new window.BarcodeDetector({ formats: ["ean_13"] });
      navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" } }).then(function (opened) {
        stream = opened;
        camera.srcObject = opened;
        camera.hidden = false;
        scan.textContent = said("stop", "Stop the camera");
        return camera.play();
      }).then(function look() {
        if (!stream) return null;
        return detector.detect(camera).then(function (codes) {
          var code = codes.map(function (found) { return found.rawValue; }).filter(function (value) { return !parse(value).error; })[0];
          if (code) {
            stopCamera();
            input.value = code;
            show(code);
            return null;
          }
          return new Promise(function (resolve) { setTimeout(resolve, 200); }).then(look);
        });
      }).catch(function () {
        stopCamera();
        status.textContent = said("scan-failed", "The camera could not be used.");
      });
    });
  }

  form.hidden = false;
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    show(input.value);
  });
  input.addEventListener("input", function () {
    // A whole number looks itself up as it is typed or pasted; a partial one waits.
    if (!parse(input.value).error) show(input.value);
    else if (!input.value.trim()) show("");
  });
  var given = /[?&]isbn=([^&#]*)/.exec(window.location.search);
  if (given) {
    try { input.value = decodeURIComponent(given[1].replace(/\+/g, " ")); } catch (error) { input.value = given[1]; }
    show(input.value);
  } else {
    input.focus();
  }
})();
