// The catalog's service worker (reader-snapshot writes this file as sw.js, at the top of the
// catalog, where a worker's scope must start). It keeps the catalog in the browser and answers
// from it, online or not:
// - at the first visit, the shell (the lists, assets, the search's and the lookup's index, the
//   lists' thumbnails), then in the background every book page and its cover, as offline.json
//   lists them (for big libraries, pages as they are visited, or all when the reader asks);
// - after the next night's publish, only the files whose version changed are fetched, into a new
//   copy, and the unchanged ones are copied from the old; the new copy is used whole from the
//   next visit (a worker that starts afresh), never mixed with the old one.
//
// In a catalog for friends only (--share-password-file), the host holds each file sealed under an
// opaque name (c/…) and this worker opens it: with the keys the door (index.html, unlock.js)
// hands over, it names each file as the host knows it (HMAC-SHA-256 of its path), keeps what it
// fetches sealed, and opens it with AES-256-GCM as a page asks for it. Without the keys, a page
// asked for is the door.
"use strict";

const SEALED = false;
const PREFIX = "reader-snapshot:";
const META = PREFIX + "meta";
const SCOPE = self.registration.scope;
const SIZES = [64, 128, 192, 384];

// What is kept, in the meta cache as JSON: the copy in use and its snapshot, the versions of its
// files, whether every page is wanted, and a copy being made.
async function readState() {
  const meta = await caches.open(META);
  const response = await meta.match(SCOPE + "state.json");
  return response ? response.json() : { active: null, id: null, snapshot: null, versions: {}, books: 0, whole: false, everything: false, ready: null };
}

async function writeState(state) {
  const meta = await caches.open(META);
  await meta.put(SCOPE + "state.json", new Response(JSON.stringify(state), { headers: { "Content-Type": "application/json" } }));
}

// A copy made completely while the reader was away is the one used from now on.
async function switchIfReady() {
  const state = await readState();
  if (!state.ready) return state;
  const old = state.active;
  Object.assign(state, state.ready, { ready: null });
  await writeState(state);
  if (old && old !== state.active) await caches.delete(old);
  return state;
}

let started = switchIfReady();
let updating = null;

// The door's files, in the clear on the host: kept, so that the door opens offline too.
const DOOR = ["unlock.js", "unlock.css", "lock.json"];
const KEYS = "reader-snapshot";
let keys = null;
const names = new Map();

// The keys kept on this device (when the visitor ticked it), in IndexedDB, not extractable.
function keyStore(mode, action) {
  return new Promise((resolve, reject) => {
    const opening = indexedDB.open(KEYS, 1);
    opening.onupgradeneeded = () => opening.result.createObjectStore("keys");
    opening.onerror = () => reject(opening.error);
    opening.onsuccess = () => {
      const db = opening.result;
      const transaction = db.transaction("keys", mode);
      const request = action(transaction.objectStore("keys"));
      transaction.oncomplete = () => { db.close(); resolve(request.result); };
      transaction.onerror = () => { db.close(); reject(transaction.error); };
    };
  });
}

// The keys from the stretched password, as the tool makes them: HKDF-SHA-256, one name each.
async function keysFrom(master) {
  const base = await crypto.subtle.importKey("raw", master, "HKDF", false, ["deriveBits", "deriveKey"]);
  const info = (name) => ({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new TextEncoder().encode("reader-snapshot " + name) });
  const file = await crypto.subtle.deriveKey(info("file key"), base, { name: "AES-GCM", length: 256 }, false, ["decrypt"]);
  const name = await crypto.subtle.deriveKey(info("name key"), base, { name: "HMAC", hash: "SHA-256", length: 256 }, false, ["sign"]);
  const check = Array.from(new Uint8Array(await crypto.subtle.deriveBits(info("check"), base, 128)), (b) => b.toString(16).padStart(2, "0")).join("");
  return { file, name, check };
}

// The keys: in memory; else kept on this device; else asked of the page, which keeps them for
// the browser's session (a worker is stopped when idle and forgets).
async function keysFor(clientID) {
  if (keys || !SEALED) return keys;
  try { keys = (await keyStore("readonly", (store) => store.get("device"))) || null; } catch (error) { keys = null; }
  if (keys || !clientID) return keys;
  const client = await self.clients.get(clientID);
  if (!client) return null;
  const kept = await new Promise((resolve) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => resolve(null), 3000);
    channel.port1.onmessage = (event) => { clearTimeout(timer); resolve(event.data && event.data.key); };
    client.postMessage({ type: "key?" }, [channel.port2]);
  });
  if (kept && !keys) keys = await keysFrom(Uint8Array.from(atob(kept), (c) => c.charCodeAt(0)));
  return keys;
}

async function forget() {
  keys = null;
  names.clear();
  try { await keyStore("readwrite", (store) => store.delete("device")); } catch (error) { /* nothing kept */ }
}

// The name the host knows a file by: the first half of HMAC-SHA-256 of its path.
async function hostPath(path) {
  if (!SEALED) return path;
  if (!names.has(path)) {
    const code = new Uint8Array(await crypto.subtle.sign("HMAC", keys.name, new TextEncoder().encode(path)));
    names.set(path, "c/" + Array.from(code.slice(0, 16), (b) => b.toString(16).padStart(2, "0")).join(""));
  }
  return names.get(path);
}

const TYPES = { html: "text/html; charset=utf-8", css: "text/css; charset=utf-8", js: "text/javascript; charset=utf-8", json: "application/json",
                webmanifest: "application/manifest+json", png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", webp: "image/webp",
                avif: "image/avif", gif: "image/gif", svg: "image/svg+xml", xml: "application/xml", txt: "text/plain; charset=utf-8",
                woff2: "font/woff2", ico: "image/x-icon" };

// A file as the host keeps it, opened: AES-256-GCM with its path as associated data, then the
// padding (0x80, then zeros) taken off.
async function reveal(response, path) {
  if (!SEALED) return response;
  if (!response.ok) return new Response("Not in this catalog.", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  const sealed = await response.arrayBuffer();
  const plain = new Uint8Array(await crypto.subtle.decrypt({ name: "AES-GCM", iv: sealed.slice(0, 12), additionalData: new TextEncoder().encode(path) },
                                                           keys.file, sealed.slice(12)));
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end--;
  if (end < 0 || plain[end] !== 0x80) throw new Error(path + ": not a sealed file");
  const extension = (/\.([a-z0-9]+)$/.exec(path) || [])[1];
  return new Response(plain.slice(0, end), { headers: { "Content-Type": TYPES[extension] || "application/octet-stream" } });
}

async function door() {
  const meta = await caches.open(META);
  try {
    const response = await fetch(SCOPE + "index.html", { cache: "no-cache" });
    if (response.ok) {
      await meta.put(SCOPE + "door/index.html", response.clone());
      return response;
    }
  } catch (error) { /* offline: the door kept */ }
  return (await meta.match(SCOPE + "door/index.html")) || new Response("Offline.", { status: 503, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}

// The door's own files: from the host, else as kept.
async function doorFile(path) {
  const meta = await caches.open(META);
  try {
    const response = await fetch(SCOPE + path, { cache: "no-cache" });
    if (response.ok) await meta.put(SCOPE + "door/" + path, response.clone());
    return response;
  } catch (error) {
    return (await meta.match(SCOPE + "door/" + path)) || Response.error();
  }
}

self.addEventListener("install", (event) => {
  self.skipWaiting();
  // Every request to this worker's fetch handler, by a route the browser reads before the worker
  // starts. Without it Chromium's ServiceWorkerAutoPreload sends a page's request to the host, by
  // the page's own name, while a stopped worker starts again: a sealed catalog's host must never
  // see one. A route to the fetch handler for every address is that feature's opt-out.
  if (event.addRoutes && typeof URLPattern === "function") {
    event.waitUntil(event.addRoutes({ condition: { urlPattern: new URLPattern({}) }, source: "fetch-event" })
      .catch((error) => console.warn("reader-snapshot: the route to the fetch handler was refused:", error)));
  }
  if (!SEALED) event.waitUntil(update());
});

self.addEventListener("activate", (event) => {
  event.waitUntil(started.then(() => self.clients.claim()));
});

self.addEventListener("message", (event) => {
  const reply = (message) => event.source && event.source.postMessage(message);
  const type = event.data && event.data.type;
  if (type === "unlock") {
    const answer = (message) => event.ports[0] && event.ports[0].postMessage(message);
    event.waitUntil(keysFrom(event.data.master).then(async (made) => {
      // A copy kept under another password cannot be opened with these keys.
      const kept = await readState();
      if (kept.check && kept.check !== made.check) await dropKept();
      keys = made;
      names.clear();
      if (event.data.remember) await keyStore("readwrite", (store) => store.put(made, "device"));
      else await keyStore("readwrite", (store) => store.delete("device"));
      answer({ type: "unlocked" });
    }).catch((error) => answer({ type: "failed", detail: String(error) })));
    return;
  }
  if (SEALED && !keys && event.source) {
    event.waitUntil(keysFor(event.source.id).then((found) => { if (found) return onMessage(type, reply); }));
    return;
  }
  onMessage(type, reply, event);
});

function onMessage(type, reply, event) {
  const waitUntil = (promise) => (event ? event.waitUntil(promise) : promise);
  if (type === "check") waitUntil(lockStillFits().then((fits) => fits && update()).then(status).then(reply, () => status().then(reply)));
  else if (type === "status") waitUntil(status().then(reply));
  else if (type === "everything") waitUntil(readState().then((state) => { state.everything = true; return writeState(state); }).then(update).then(status).then(reply));
  else if (type === "free") waitUntil(free().then(() => reply({ type: "freed" })).then(() => self.registration.unregister()));
}

async function status() {
  const state = await readState();
  return { type: "status", id: state.id, snapshot: state.snapshot, books: state.books, total: state.total || 0, whole: state.whole,
           everything: state.everything, keeping: Boolean(updating), ready: state.ready ? state.ready.snapshot : null,
           readyID: state.ready ? state.ready.id : null };
}

// A host that stops answering must not hold the update up for good: the next page asks again.
// Past the browser's own cache: a host that says "not modified" by the second of a file's date
// would hand back a file rewritten within that second as it was.
function fetchWithin(url, seconds) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), seconds * 1000);
  return fetch(url, { cache: "reload", signal: controller.signal }).finally(() => clearTimeout(timer));
}

// Asked at each page opened (before it is answered, and again before any update, which may be
// long under way): a new password means that what is kept cannot be opened with the keys held, nor
// the host's files, so both are forgotten and the door asks again. A host that cannot be reached
// changes nothing: offline, the kept copy stays open.
async function lockStillFits(seconds = 20) {
  if (!SEALED) return true;
  if (!keys) return false;
  try {
    const lock = await fetchWithin(SCOPE + "lock.json", seconds);
    if (!lock.ok || (await lock.json()).check === keys.check) return true;
  } catch (error) {
    return true;
  }
  await free();
  return false;
}

// Everything kept, gone, and the worker with it: pages come from the host again.
async function free() {
  if (SEALED) await forget();
  await dropKept();
}

// What is kept, gone. An update under way is waited for a moment only: one that goes on finds no
// copy to put its files in (and, sealed, no keys to name them by).
async function dropKept() {
  started = Promise.resolve({ active: null, id: null, snapshot: null, versions: {}, books: 0, whole: false, everything: false, ready: null });
  if (updating) await Promise.race([updating.catch(() => {}), new Promise((resolve) => setTimeout(resolve, 2000))]);
  for (const name of await caches.keys()) if (name.startsWith(PREFIX)) await caches.delete(name);
}

// One update at a time: the list (a 304 when nothing was published since), then what changed in
// the shell, then in the pages. Every page asks for one as it opens.
function update() {
  if (!updating) updating = run().finally(() => { updating = null; });
  return updating;
}

async function run() {
  // The copy's id first (a few bytes, at every page opened); the whole list only when it changed,
  // or while the pages are still being kept.
  await started;
  if (SEALED && !keys) return;
  const known = await readState();
  const version = await reveal(await fetchWithin(SCOPE + await hostPath("offline-id.json"), 20), "offline-id.json");
  if (!version.ok) throw new Error("offline-id.json: " + version.status);
  const id = (await version.json()).id;
  const keeping = (known.whole || known.everything) && known.books < known.total;
  if (id && (id === (known.ready && known.ready.id) || (id === known.id && !keeping))) return;
  const response = await reveal(await fetchWithin(SCOPE + await hostPath("offline.json"), 60), "offline.json");
  if (!response.ok) throw new Error("offline.json: " + response.status);
  const list = await response.json();
  let state = await readState();
  const fresh = state.id !== list.id;
  // Made already, waiting for the next visit.
  if (fresh && state.ready && state.ready.id === list.id) return;
  const name = fresh ? PREFIX + list.id : state.active;
  const target = await caches.open(name);
  const source = fresh && state.active ? await caches.open(state.active) : null;
  const versions = fresh ? {} : Object.assign({}, state.versions);
  const countBooks = () => Object.keys(versions).filter((path) => path.startsWith("books/")).length;
  const everything = list.whole || state.everything;

  // A file of the old copy whose version is the same is copied; another is fetched. One that
  // cannot be had now is left for the next update.
  async function keep(path, version) {
    if (versions[path] === version) return true;
    try {
      let kept = source && state.versions[path] === version ? await source.match(SCOPE + path) : undefined;
      if (!kept) {
        const fetched = await fetchWithin(SCOPE + await hostPath(path), 60);
        if (!fetched.ok) return false;
        kept = fetched;
      }
      await target.put(SCOPE + path, kept);
      versions[path] = version;
      return true;
    } catch (error) {
      return false;
    }
  }

  for (const [path, version] of list.shell) await keep(path, version);
  const next = () => ({ active: name, id: list.id, snapshot: list.snapshot, versions, books: countBooks(), total: list.books, whole: list.whole,
                        everything: state.everything, ready: null, check: SEALED && keys ? keys.check : null });
  if (!state.active) {
    // The first visit: the shell is what is used at once; the pages join it as they come.
    state = next();
    await writeState(state);
    started = Promise.resolve(state);
  } else if (fresh) {
    // Made beside the copy in use, whole, and used from the next visit on.
    if (everything) for (const [path, version, cover] of list.pages) if (await keep(path, version) && cover) await keep(cover, "");
    const now = await readState();
    if (now.active !== state.active) return; // freed meanwhile
    now.ready = next();
    await writeState(now);
    return;
  }
  if (!everything) return;
  let done = 0, added = 0;
  for (const [path, version, cover] of list.pages) {
    const before = versions[path];
    const kept = await keep(path, version);
    if (kept && cover) await keep(cover, "");
    if (versions[path] !== before) added++;
    if (++done === list.pages.length || (added && done % 100 === 0)) {
      if (!added) break;
      const now = await readState();
      if (now.active !== name) return; // freed meanwhile
      Object.assign(now, { versions, books: countBooks() });
      await writeState(now);
    }
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !request.url.startsWith(SCOPE)) return;
  const path = request.url.slice(SCOPE.length).split("#")[0].split("?")[0];
  if (path === "sw.js") return;
  if (SEALED) {
    if (path.startsWith("c/")) return;
    if (DOOR.includes(path)) { event.respondWith(doorFile(path)); return; }
    event.respondWith(answerSealed(event, path === "" ? "index.html" : path, request.url.slice(SCOPE.length).split("#")[0]));
    return;
  }
  if (path === "offline.json" || path === "offline-id.json") return;
  event.respondWith(answer(request, path === "" ? "index.html" : path));
});

// Without the keys, a page asked for is the door (at the top, where its links lead), which comes
// back to the address asked for (`asked`: the path and its query) once open; anything else is refused.
async function answerSealed(event, path, asked) {
  let held = null;
  try { held = await keysFor(event.clientId); } catch (error) { held = null; }
  if (!held) {
    if (event.request.mode !== "navigate") return new Response("Locked.", { status: 403, headers: { "Content-Type": "text/plain; charset=utf-8" } });
    if (path === "index.html") return door();
    return Response.redirect(SCOPE + "?next=" + encodeURIComponent(asked), 302);
  }
  // A page is not opened with a key the catalog no longer has: the door asks for the new password.
  if (event.request.mode === "navigate" && !(await lockStillFits(5))) {
    return path === "index.html" ? door() : Response.redirect(SCOPE + "?next=" + encodeURIComponent(asked), 302);
  }
  try {
    return await answer(event.request, path);
  } catch (error) {
    // What is kept was sealed under another key than the one held (kept before a new password):
    // it goes, and the host's file is asked for. One that does not open either is not ours.
    await dropKept();
    try {
      return await answer(event.request, path);
    } catch (again) {
      await forget();
      return event.request.mode === "navigate" ? door() : new Response("Locked.", { status: 403, headers: { "Content-Type": "text/plain; charset=utf-8" } });
    }
  }
}

async function answer(request, path) {
  const state = await started;
  const cache = state.active ? await caches.open(state.active) : null;
  if (cache) {
    const hit = await cache.match(SCOPE + path);
    if (hit) return reveal(hit, path);
    // A cover's other size, when the one asked for is not kept (a screen of another density).
    const cover = /^covers\/([0-9a-f]+)-(\d+)\.([a-z]+)$/.exec(path);
    if (cover) {
      for (const size of SIZES) {
        const otherPath = "covers/" + cover[1] + "-" + size + "." + cover[3];
        const other = await cache.match(SCOPE + otherPath);
        if (other) return reveal(other, otherPath);
      }
    }
  }
  try {
    const response = SEALED ? await fetch(SCOPE + await hostPath(path)) : await fetch(request);
    // Above the size kept whole, pages are kept as they are visited.
    if (cache && response.ok && response.type === "basic" && /\.html$|^covers\//.test(path)) {
      const copy = response.clone();
      cache.put(SCOPE + path, copy).then(async () => {
        if (!path.startsWith("books/")) return;
        const now = await readState();
        if (now.active !== state.active || now.versions[path]) return;
        now.versions[path] = "visited";
        now.books = Object.keys(now.versions).filter((kept) => kept.startsWith("books/")).length;
        await writeState(now);
      });
    }
    return reveal(response, path);
  } catch (error) {
    if (error instanceof DOMException && error.name === "OperationError") throw error;
    return new Response("This page is not kept for offline use.", { status: 503, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
}
